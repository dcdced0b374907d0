// Podplan's own LSP requests and notifications (docs/architecture.md, Contracts). Each method is
// namespaced `podplan/…`, typed here once, and imported by the server, the VS Code client and any
// other editor's client. An expected failure (no such trigger, no history) is an `ok: false` result
// with a message for the user, not a JSON-RPC error.
import { NotificationType, RequestType, RequestType0, type WorkspaceEdit } from 'vscode-languageserver-protocol';
import type { Result } from '../engine/api/result';
import type { HistoryEntryView, PlanBoundView, PlanDiffView, PlanRefView, PlanView, PodExplanationView } from './webview';

/** A namespaced object of the workspace; namespace `default` when left out. */
export interface ObjectRef {
  readonly namespace?: string;
  readonly name: string;
}

export interface PreviewPlanParams {
  /** Plan the pod set of this ScheduleTrigger … */
  readonly trigger?: ObjectRef;
  /** … or this pod set (by its label value). One of the two is required. */
  readonly podSet?: ObjectRef;
}

/** client → server: plan a pod set now on the workspace's nodes, without changing any file. Stored in the history when it is available. */
export const PreviewPlanRequest = new RequestType<PreviewPlanParams, Result<PlanView>, void>('podplan/previewPlan');

export interface ExplainPodParams {
  /** Without a namespace: the one pod of that name in any namespace (an error names them when several are). */
  readonly pod: ObjectRef;
  /** Explain the cycle that placed (or failed to place) the pod in this plan of its namespace, about the node it got there. */
  readonly inPlan?: PlanRefView;
}

/** A pod as Explain's pick list shows it. */
export interface PodListItem {
  readonly namespace: string;
  readonly name: string;
  /** spec.nodeName, when bound. */
  readonly node?: string;
  readonly podSet?: string;
  readonly schedulerName: string;
}

/** client → server: every pod of the source, those not yet placed first, then by namespace and name. */
export const ListPodsRequest = new RequestType0<readonly PodListItem[], void>('podplan/listPods');

/** client → server: one scheduling cycle for one pod of the workspace, and every node's verdict. */
export const ExplainPodRequest = new RequestType<ExplainPodParams, Result<PodExplanationView>, void>('podplan/explainPod');

export interface PodSetSummary {
  readonly namespace: string;
  readonly name: string;
  readonly pods: number;
  /** Pods of the set still to be placed (no spec.nodeName). */
  readonly pending: number;
  readonly trigger?: string;
  /** The trigger's state as the planner reads it (an unreadable one reads as Planning). */
  readonly state?: string;
  /** The trigger's spec.state as written, when it is not a valid state (the file has an error and a quick fix there). */
  readonly invalidState?: string;
  readonly plan?: string;
  /** Pods of the set the set's SchedulePlan places while the trigger is Schedule: scheduled, waiting to be bound. */
  readonly planned?: number;
  /** The trigger's quiet time as written (planner.ciena.io/quiet-time). */
  readonly quietTime?: string;
  /**
   * Milliseconds of quiet time left before the trigger turns to Schedule, counted from the newest
   * pod's creationTimestamp; absent when the trigger is not Planning or no pod carries a timestamp.
   */
  readonly quietTimeLeftMs?: number;
  /** The trigger's spec.dependsOn, as `Kind name`. */
  readonly dependsOn?: readonly string[];
  /** Why it may not be scheduled yet: its dependencies that are not complete, in words. */
  readonly waitingOn?: readonly string[];
}

export interface WorkspaceSummary {
  /** Workspace folders, as URIs. */
  readonly folders: readonly string[];
  readonly files: number;
  readonly nodes: number;
  readonly pods: number;
  readonly workloads: number;
  readonly triggers: number;
  readonly plans: number;
  /** Scheduler profiles found (schedulerName). */
  readonly profiles: readonly string[];
  readonly podSets: readonly PodSetSummary[];
  readonly problems: { readonly errors: number; readonly warnings: number };
  /**
   * Whether plan history can be listed, and if not why (`noDriver`: no SQLite driver loads in the
   * server's Node, which the editor tells the user once); when it can, the SQLite driver it runs on.
   */
  readonly history: { readonly available: boolean; readonly reason?: string; readonly noDriver?: boolean; readonly driver?: string };
}

/** client → server: what the server has read of the workspace (tree views, status bar). */
export const WorkspaceSummaryRequest = new RequestType0<WorkspaceSummary, void>('podplan/workspaceSummary');

export interface ClusterNodeSummary {
  readonly name: string;
  /** Pods bound to it (spec.nodeName). */
  readonly pods: number;
  readonly unschedulable: boolean;
  /** Allocatable cpu (millicores) and memory (bytes), and what its pods request. */
  readonly cpu: { readonly allocatable: number; readonly requested: number };
  readonly memory: { readonly allocatable: number; readonly requested: number };
  readonly labels: Readonly<Record<string, string>>;
}

export interface ClusterSummary {
  /** Where the nodes and pods come from: the workspace's YAML files (later also a kube context). */
  readonly source: { readonly kind: 'workspace' | 'cluster'; readonly name: string };
  readonly nodes: readonly ClusterNodeSummary[];
  /** Pods without spec.nodeName, as `namespace/name`, with the scheduler that takes them. */
  readonly pending: readonly {
    readonly namespace: string;
    readonly name: string;
    readonly schedulerName: string;
    readonly podSet?: string;
  }[];
  /** The kubeconfig's contexts (names only), when a kubeconfig was found. */
  readonly contexts?: readonly string[];
  /** Podplan as the scheduler of the cluster source: how it does (or did, once stopped). */
  readonly scheduler?: SchedulerStatus;
}

/** client → server: the nodes and pending pods the server plans on (the Cluster view). */
export const ClusterSummaryRequest = new RequestType0<ClusterSummary, void>('podplan/clusterSummary');

export interface ListHistoryParams {
  readonly podSet?: string;
  readonly namespace?: string;
  /** At most this many entries (default 50). */
  readonly limit?: number;
  /** Entries older than this id: the `next` of the previous page. */
  readonly before?: number;
}

export interface HistoryPage {
  readonly entries: readonly HistoryEntryView[];
  /** Pass back as `before` for the next page; absent on the last page. */
  readonly next?: number;
}

/** client → server: stored plans, newest first. */
export const ListHistoryRequest = new RequestType<ListHistoryParams, Result<HistoryPage>, void>('podplan/listHistory');

export interface OpenPlanParams {
  readonly id: number;
}

/** client → server: one stored plan. */
export const OpenPlanRequest = new RequestType<OpenPlanParams, Result<PlanView>, void>('podplan/openPlan');

export interface ComparePlansParams {
  readonly from: number;
  readonly to: number;
}

/** client → server: how stored plan `to` differs from `from`, pod by pod. */
export const ComparePlansRequest = new RequestType<ComparePlansParams, Result<PlanDiffView>, void>('podplan/comparePlans');

export interface ScheduleNowParams {
  readonly trigger: ObjectRef;
}

/** One object Schedule Now writes, named for the user's confirmation. */
export interface ScheduleWrite {
  readonly uri: string;
  /** Kind and namespace/name, e.g. `ScheduleTrigger analytics/nightly-batch`. */
  readonly object: string;
  /** Whether the object is added (else changed in place). */
  readonly created: boolean;
  /** The fields written and how, e.g. `spec.state: Planning → Schedule`, `spec.plan: 6 pods`. */
  readonly fields: readonly string[];
}

export interface ScheduleNowResult {
  /** Sets the trigger's state to Schedule and writes (or rewrites) its pod set's SchedulePlan. */
  readonly edit: WorkspaceEdit;
  /**
   * Each file the edit writes, as digests (textDigest) of its text before (what the edit was made
   * on: the client applies it only to that) and after (what the saved file must read back as).
   */
  readonly files: readonly { readonly uri: string; readonly before: string; readonly after: string }[];
  /** The plan, kept in the history as a draft (`historyId`) until the client records it applied. */
  readonly plan: PlanView;
  /** What `edit` writes, object by object. */
  readonly writes: readonly ScheduleWrite[];
}

/**
 * client → server: what "Schedule now" would change in the workspace; nothing is written. Refused
 * (ok: false, with the reason) while a spec.dependsOn dependency is not complete. The client
 * confirms with the user, applies the edit, then sends podplan/recordApplied.
 */
export const ScheduleNowRequest = new RequestType<ScheduleNowParams, Result<ScheduleNowResult>, void>('podplan/scheduleNow');

export interface RecordAppliedParams {
  /** The plan's history id (ScheduleNowResult.plan.historyId). */
  readonly id: number;
}

/** client → server: the plan was written; its history entry becomes applied (the set's previous applied one superseded). */
export const RecordAppliedRequest = new RequestType<RecordAppliedParams, Result<HistoryEntryView>, void>('podplan/recordApplied');

/**
 * The bound of a preview answered before it (PlanView.boundPending names the token): proven when
 * asked, so the preview's answer is out first. No bound when the solver proved none; an error when
 * the token names no preview waiting for its bound (asked already, or one of many older previews).
 */
export const PlanBoundRequest = new RequestType<{ readonly token: string }, Result<{ readonly bound?: PlanBoundView }>, void>(
  'podplan/planBound',
);

/** server → client: the workspace model changed (after the debounce); views may ask for a new summary. */
export const WorkspaceChangedNotification = new NotificationType<{ readonly generation: number }>('podplan/workspaceChanged');

/** Where the server plans from: the workspace's YAML files, or a kube context (kept in the client's workspace state, never in the kubeconfig). */
export interface SourceView {
  readonly kind: 'workspace' | 'cluster';
  /** The workspace folder's name, or the context's name. */
  readonly name: string;
  /** The context's API server URL (redacted), for a cluster source. */
  readonly server?: string;
}

export interface ContextView {
  readonly name: string;
  readonly cluster: string;
  readonly namespace?: string;
  readonly server?: string;
  /** The kubeconfig's current-context. */
  readonly current: boolean;
}

export interface ContextList {
  readonly contexts: readonly ContextView[];
  readonly source: SourceView;
}

/** client → server: the kubeconfig's contexts (KUBECONFIG, else ~/.kube/config; no credentials) and the source in use. */
export const ListContextsRequest = new RequestType0<Result<ContextList>, void>('podplan/listContexts');

export interface SelectSourceParams {
  /** A kubeconfig context; left out for the workspace's files. */
  readonly context?: string;
}

/** client → server: plan from this source from now on; answers once the cluster was listed. */
export const SelectSourceRequest = new RequestType<SelectSourceParams, Result<SourceView>, void>('podplan/selectSource');

export interface ApplyPlanParams {
  /** The trigger whose pod set is planned (SchedulePlan written, trigger flipped) … */
  readonly trigger?: ObjectRef;
  /** … or a pod set without a trigger (its pods bound directly). */
  readonly podSet?: ObjectRef;
  /** vscode.workspace.isTrusted: the server writes nothing for an untrusted workspace. */
  readonly trusted: boolean;
  /** Left out: plan and say what would be written. Given (the `token` of that answer): write exactly that plan. */
  readonly confirm?: number;
}

export interface ApplyPlanResult {
  /** The context the writes go to. */
  readonly context: string;
  readonly plan: PlanView;
  /** Objects and fields written (or to be written). */
  readonly writes: readonly ScheduleWrite[];
  /** Pass back as `confirm` to write this plan. */
  readonly token: number;
  readonly applied: boolean;
}

/** client → server: carry a plan out on the live cluster (write the SchedulePlan, flip the trigger to Schedule); two steps, confirm then write. */
export const ApplyPlanRequest = new RequestType<ApplyPlanParams, Result<ApplyPlanResult>, void>('podplan/applyPlan');

export interface SchedulerStatus {
  readonly running: boolean;
  readonly context?: string;
  /** Pods bound since it started. */
  readonly bound: number;
  /** Pods it could not place (latest decision). */
  readonly unplaced: number;
  /** Pods waiting in its queues. */
  readonly pending: number;
  /** The latest problems (redacted), newest last. */
  readonly errors: readonly string[];
}

export interface SchedulerParams {
  readonly action: 'start' | 'stop' | 'status';
  readonly trusted: boolean;
  /**
   * start: the namespace of the Lease the scheduler elects its leader with (podplan-scheduler), as
   * `podplan run --lease-namespace` names it, so the two exclude each other; default kube-system.
   */
  readonly leaseNamespace?: string;
}

/** client → server: run Podplan as the scheduler of the selected context, stop it (draining the bindings in flight), or ask how it does. */
export const SchedulerRequest = new RequestType<SchedulerParams, Result<SchedulerStatus>, void>('podplan/scheduler');
