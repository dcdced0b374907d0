// What the webview is sent and what it posts back. The webview is built for the browser, so this
// file imports nothing: the view models are plain data the server computes (DESIGN.md: the webview
// computes nothing the engine owns), and the extension passes them through.

/** How an amount is counted, so the webview can print it (2.5 cores, 3.2 GiB, 17 pods). */
export type AmountUnit = 'millicores' | 'bytes' | 'count';

export interface ResourceAmountView {
  /** cpu, memory, pods, ephemeral-storage, or an extended resource name. */
  readonly resource: string;
  readonly unit: AmountUnit;
  readonly amount: number;
}

/** One resource of one node: what it offers, what bound pods use, what the plan adds. */
export interface ResourceUseView {
  readonly resource: string;
  readonly unit: AmountUnit;
  readonly allocatable: number;
  /** By pods already bound to the node. */
  readonly requested: number;
  /** By the pods the plan puts there. */
  readonly planned: number;
}

export interface NodeUseView {
  readonly node: string;
  /** Pods the plan puts on the node, by name. */
  readonly pods: readonly string[];
  readonly resources: readonly ResourceUseView[];
}

export interface AssignmentView {
  readonly pod: string;
  readonly node: string;
  /** The node's total score in the cycle that chose it, when scored. */
  readonly score?: number;
}

/** How many nodes a reason rejected the pod on ("3 × Insufficient cpu"). */
export interface ReasonCountView {
  readonly reason: string;
  readonly nodes: number;
}

export interface UnplacedView {
  readonly pod: string;
  /** The stage and plugin that stopped the pod, when one did. */
  readonly stage?: string;
  readonly plugin?: string;
  /** The most frequent reason. */
  readonly reason: string;
  /** Upstream's message: "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint …". */
  readonly message: string;
  readonly reasons: readonly ReasonCountView[];
}

export interface PlanView {
  readonly podSet: string;
  readonly namespace: string;
  readonly trigger?: string;
  readonly planner: string;
  readonly profile: string;
  /** ms since the epoch. */
  readonly createdAt: number;
  readonly snapshotHash: string;
  readonly assignments: readonly AssignmentView[];
  /** The nodes the plan puts pods on, by name. */
  readonly nodes: readonly NodeUseView[];
  readonly unplaced: readonly UnplacedView[];
  /** The history entry the plan was stored as, when the history is available. */
  readonly historyId?: number;
}

export interface FilterView {
  readonly plugin: string;
  readonly evaluated: number;
  readonly passed: number;
}

export interface RejectionGroupView {
  readonly stage: string;
  readonly plugin: string;
  readonly reason: string;
  readonly nodes: readonly string[];
}

export interface PluginScoreView {
  readonly plugin: string;
  readonly raw: number;
  readonly normalized: number;
  readonly weight: number;
  readonly weighted: number;
}

export interface NodeScoreView {
  readonly node: string;
  readonly total: number;
  readonly plugins: readonly PluginScoreView[];
}

/** Why one pod goes where it goes, or why it goes nowhere. */
export interface PodExplanationView {
  readonly pod: string;
  readonly namespace: string;
  readonly podSet?: string;
  readonly schedulerName: string;
  readonly profile: string;
  readonly requests: readonly ResourceAmountView[];
  /** The node a SchedulePlan of the workspace gives it. */
  readonly plannedNode?: string;
  /** Already bound (spec.nodeName). */
  readonly boundNode?: string;
  /** The node a scheduling cycle chooses now; absent when none fits. */
  readonly chosenNode?: string;
  /** Upstream's message when no node fits. */
  readonly message?: string;
  readonly nodes: { readonly total: number; readonly evaluated: number; readonly feasible: number };
  readonly filters: readonly FilterView[];
  readonly rejections: readonly RejectionGroupView[];
  /** The best scored nodes, best first. */
  readonly scores: readonly NodeScoreView[];
}

export type PlanStatusView = 'draft' | 'applied' | 'superseded';

export interface HistoryEntryView {
  readonly id: number;
  readonly podSet: string;
  readonly namespace: string;
  readonly trigger?: string;
  readonly planner: string;
  readonly profile: string;
  readonly status: PlanStatusView;
  readonly createdAt: number;
  readonly placed: number;
  readonly unplaced: number;
}

export interface PlanDiffView {
  readonly from: HistoryEntryView;
  readonly to: HistoryEntryView;
  readonly moved: ReadonlyArray<{ readonly pod: string; readonly from: string; readonly to: string }>;
  readonly becamePlaced: ReadonlyArray<{ readonly pod: string; readonly node: string; readonly was: string }>;
  readonly becameUnplaced: ReadonlyArray<{ readonly pod: string; readonly was: string; readonly message: string }>;
  readonly added: ReadonlyArray<{ readonly pod: string; readonly node?: string; readonly message?: string }>;
  readonly removed: ReadonlyArray<{ readonly pod: string; readonly node?: string; readonly message?: string }>;
  readonly unchanged: number;
  readonly stillUnplaced: number;
}

/** An object of the workspace the webview can ask to be shown in the editor. */
export type ObjectKindView = 'Pod' | 'Node' | 'ScheduleTrigger' | 'SchedulePlan';

/** extension → webview */
export type HostToWebview =
  | { readonly type: 'loading'; readonly what: string }
  | { readonly type: 'plan'; readonly plan: PlanView }
  | { readonly type: 'explanation'; readonly explanation: PodExplanationView }
  | { readonly type: 'history'; readonly entries: readonly HistoryEntryView[]; readonly next?: number }
  | { readonly type: 'diff'; readonly diff: PlanDiffView }
  | { readonly type: 'error'; readonly message: string };

/** webview → extension: what the user asked for; the extension asks the server. */
export type WebviewToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'refresh' }
  | { readonly type: 'explainPod'; readonly namespace: string; readonly pod: string }
  | { readonly type: 'openPlan'; readonly id: number }
  | { readonly type: 'comparePlans'; readonly from: number; readonly to: number }
  | { readonly type: 'moreHistory'; readonly before: number }
  | { readonly type: 'reveal'; readonly kind: ObjectKindView; readonly namespace?: string; readonly name: string }
  | { readonly type: 'scheduleNow'; readonly namespace: string; readonly trigger: string };

export type WebviewMessage = HostToWebview | WebviewToHost;
