// What the webview is sent and what it posts back. The webview is built for the browser, so this
// file imports nothing: the view models are plain data the server computes (docs/architecture.md: the webview
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
  /** By the pods other sets' plans put there before this plan was made (Plan.placedBefore), when there are any. */
  readonly before?: number;
  /** By the pods the plan puts there. */
  readonly planned: number;
}

/** The pods of one owner (a Deployment, a Job, …) the plan puts on a node. */
export interface OwnerPodsView {
  /** "Deployment/web", an `app` label value, or "" when the pod names no owner. */
  readonly owner: string;
  readonly pods: readonly string[];
}

/** One node of the cluster as the node map draws it: every node, whether the plan uses it or not. */
export interface NodeUseView {
  readonly node: string;
  /** topology.kubernetes.io/zone, when labelled. */
  readonly zone?: string;
  readonly labels: Readonly<Record<string, string>>;
  /** spec.unschedulable (cordoned). */
  readonly unschedulable?: boolean;
  /** Pods already bound to the node. */
  readonly bound: number;
  /** Pods other sets' plans put on the node before this plan was made (namespace/name, Plan.placedBefore), when there are any. */
  readonly before?: readonly string[];
  /** Pods the plan puts on the node, by name. */
  readonly pods: readonly string[];
  /** The same pods grouped by owner, most pods first. */
  readonly owners: readonly OwnerPodsView[];
  /** cpu, memory and pods always, then every other resource a planned pod asks for. */
  readonly resources: readonly ResourceUseView[];
  /** DRA: per DeviceClass with a device on the node, its devices, those claims of the cluster hold and those the plan's pods take. */
  readonly devices?: readonly DeviceUseView[];
}

/** The devices of one DeviceClass on one node. */
export interface DeviceUseView {
  readonly deviceClass: string;
  readonly total: number;
  /** Held by claims allocated in the cluster. */
  readonly allocated: number;
  /** Taken by the claims of the pods the plan puts there. */
  readonly planned: number;
}

export interface AssignmentView {
  readonly pod: string;
  readonly node: string;
  /** The node's total score in the cycle that chose it, when scored. */
  readonly score?: number;
  /** As NodeUseView.owners names it. */
  readonly owner: string;
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

/** Unplaced pods that failed for the same reason at the same stage and plugin: one card, not one per pod. */
export interface UnplacedGroupView {
  readonly stage?: string;
  readonly plugin?: string;
  readonly reason: string;
  /** The upstream message of the group's first pod (the others differ only in counts, if at all). */
  readonly message: string;
  readonly pods: readonly string[];
}

/** Nodes (or pod × node pairs, for a pod set) that one step of the cycle dropped for one reason. */
export interface StepRejectionView {
  readonly reason: string;
  /** Rejections counted: nodes for a pod, pod × node pairs for a pod set. */
  readonly count: number;
  /** The distinct nodes rejected, in the order the cycle met them. */
  readonly nodes: readonly string[];
}

/** One step of the scheduling cycle: how many candidates reached it and how many it kept. */
export interface FunnelStepView {
  /** Sort, PreFilter, Filter, Score, SelectHost, Reserve, Permit, CheckConflicts, PreBind, Bind, in that order. */
  readonly stage: string;
  /** The plugin, for the steps run per plugin (Filter). */
  readonly plugin?: string;
  /**
   * The step picks one of what reached it (SelectHost: the best-scored node) rather than rejecting:
   * what it does not keep scored lower. Steps chain: each step's `entered` is the previous one's `left`.
   */
  readonly picks?: boolean;
  readonly entered: number;
  readonly left: number;
  /** Candidates that reached the step but were never evaluated (sampling stopped early). */
  readonly skipped: number;
  readonly rejected: readonly StepRejectionView[];
  /** For a pod set: the pods whose cycle ended at this step. */
  readonly podsStopped?: readonly string[];
}

/** The stage funnel of one pod (candidates are nodes) or of a pod set (pod × node pairs, summed over its pods' cycles). */
export interface FunnelView {
  readonly subject: string;
  readonly unit: 'nodes' | 'pod × node pairs';
  /** The pods the cycles were for (1 for a pod). */
  readonly pods: number;
  readonly steps: readonly FunnelStepView[];
}

export type MatrixVerdict = 'chosen' | 'feasible' | 'rejected' | 'unevaluated';

/** One node's row of the node × plugin matrix. */
export interface MatrixRowView {
  readonly node: string;
  readonly verdict: MatrixVerdict;
  /** For a rejected node: where it was stopped and why. */
  readonly stage?: string;
  readonly plugin?: string;
  readonly reasons?: readonly string[];
  /** For a node DynamicResources rejected: each device request it could not meet there and why, in words (beside upstream's reason). */
  readonly devices?: readonly string[];
  /**
   * The index in MatrixView.filterPlugins of the plugin that rejected the node: the plugins before it
   * passed and the ones after it did not run (a cycle stops at a node's first rejection, as upstream's
   * RunFilterPlugins does). Absent when every filter passed; -1 when rejected before Filter.
   */
  readonly rejectedAt?: number;
  /** [raw, normalized, weighted] per MatrixView.scorePlugins entry; absent when not scored. */
  readonly scores?: ReadonlyArray<readonly [number, number, number]>;
  readonly total?: number;
  /** 1 for the best scored node. */
  readonly rank?: number;
}

/** Every evaluated node × every filter and score plugin, for one pod's cycle. */
export interface MatrixView {
  readonly filterPlugins: readonly string[];
  readonly scorePlugins: ReadonlyArray<{ readonly plugin: string; readonly weight: number }>;
  /** Every node of the cluster: chosen, then feasible by rank, then rejected, then not evaluated. */
  readonly rows: readonly MatrixRowView[];
  /** For an unplaced pod: the node it came closest to fitting, and why that one. */
  readonly closest?: { readonly node: string; readonly why: string };
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
  /** Every node of the cluster, with what the plan puts there. */
  readonly nodes: readonly NodeUseView[];
  readonly unplaced: readonly UnplacedView[];
  /** The same pods, one group per distinct stage, plugin and reason; most pods first. */
  readonly unplacedGroups: readonly UnplacedGroupView[];
  /** The stage funnel summed over the cycles that placed (or failed to place) the set's pods. */
  readonly funnel: FunnelView;
  /** The history entry the plan was stored as, when the history is available. */
  readonly historyId?: number;
  /** The history is on but writing to it failed (keeping the plan, or recording it as applied): what the user is told. */
  readonly historyError?: string;
  /** Running pods the plan evicts to place its own (only when the profile lets plans preempt). */
  readonly victims?: readonly { readonly pod: string; readonly node: string; readonly by: string }[];
  /** How far the plan is from the best possible, as the solver proved it (absent when no solver was loaded). */
  readonly bound?: PlanBoundView;
  /**
   * The bound is still to prove: the plan is shown without waiting for the solver; podplan/planBound
   * with this token proves it, and a `bound` message brings it to the panel.
   */
  readonly boundPending?: string;
}

/** A plan's bound and gap (engine/planner/solver/bound.ts), worded as `podplan plan` prints it. */
export interface PlanBoundView {
  /** The solver that proved it, e.g. "HiGHS 1.8.0". */
  readonly solver: string;
  readonly optimal: boolean;
  /** How far from the best possible, 0..1. */
  readonly gap: number;
  /** e.g. "uses 3 nodes; no plan uses fewer than 2 (within 33.3% of the best possible)". */
  readonly text: string;
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
  /** The node a SchedulePlan of the workspace gives it; the cycle is then run on the cluster as that plan leaves it. */
  readonly plannedNode?: string;
  /** The SchedulePlan that gives it plannedNode. */
  readonly plan?: string;
  /** What the cycle says of the node this explanation is about (the planned node, else the chosen one), in words. */
  readonly verdict: string;
  /** Whose cycle this is: one run now (on the workspace, or as a SchedulePlan leaves it), or the planner's own in the plan. */
  readonly cycle: 'now' | 'planner';
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
  readonly funnel: FunnelView;
  readonly matrix: MatrixView;
  /** Per node DynamicResources rejected: the device requests it could not meet there and why, in words. */
  readonly devices?: ReadonlyArray<{ readonly node: string; readonly lines: readonly string[] }>;
  /** When the cycle tried preemption: which victims make room on which node, and why the other candidate nodes lost. */
  readonly preemption?: PreemptionView;
  /**
   * For a stored plan's pod: what the per-node verdicts were judged on (the cluster that plan was
   * made on), or why none were (a plan recorded before the history kept its cluster).
   */
  readonly judgedOn?: string;
}

export interface VictimView {
  /** namespace/name */
  readonly pod: string;
  readonly priority: number;
  /** Evicting it breaks a PodDisruptionBudget. */
  readonly violatesPdb: boolean;
}

export interface PreemptionCandidateView {
  readonly node: string;
  /** Highest priority first. */
  readonly victims: readonly VictimView[];
  readonly pdbViolations: number;
  /** For a node not chosen: the first of upstream's criteria (pickOneNodeForPreemption) the chosen node beat it on. */
  readonly lostOn?: string;
}

export interface PreemptionView {
  /** The node preemption chose; absent when no eviction helps. */
  readonly node?: string;
  /** The victims on that node, namespace/name. */
  readonly victims: readonly string[];
  /** Nothing was evicted: the cycle only reports (a plan whose profile does not let plans preempt). */
  readonly reportOnly: boolean;
  /** The chosen node first, then the others in the order the search found them. */
  readonly candidates: readonly PreemptionCandidateView[];
  /** Nodes where evicting would not help, grouped by reason, most nodes first. */
  readonly failures: readonly { readonly reason: string; readonly nodes: readonly string[] }[];
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
  /** Running pods the plan evicts (a profile that lets plans preempt); absent: none. */
  readonly evicted?: number;
}

/** A running pod a plan evicts: namespace/name, its node, and the plan's pod it makes room for. */
export interface EvictionView {
  readonly pod: string;
  readonly node: string;
  readonly by: string;
}

export interface PlanDiffView {
  readonly from: HistoryEntryView;
  readonly to: HistoryEntryView;
  /** Each move with why: what the newer plan's cycle said of the old node against the new one. */
  readonly moved: ReadonlyArray<{ readonly pod: string; readonly from: string; readonly to: string; readonly reason: string }>;
  readonly becamePlaced: ReadonlyArray<{ readonly pod: string; readonly node: string; readonly was: string }>;
  readonly becameUnplaced: ReadonlyArray<{ readonly pod: string; readonly was: string; readonly message: string }>;
  readonly added: ReadonlyArray<{ readonly pod: string; readonly node?: string; readonly message?: string }>;
  readonly removed: ReadonlyArray<{ readonly pod: string; readonly node?: string; readonly message?: string }>;
  readonly unchanged: number;
  readonly stillUnplaced: number;
  /** Running pods only the newer plan (`to`) evicts. */
  readonly newlyEvicted: readonly EvictionView[];
  /** Running pods only the older plan (`from`) evicts. */
  readonly noLongerEvicted: readonly EvictionView[];
  /** Evicted by both. */
  readonly stillEvicted: number;
}

/** The plan a pod is explained in: a stored plan (historyId), else the pod set's plan as a preview makes it now. */
export interface PlanRefView {
  readonly podSet: string;
  readonly trigger?: string;
  readonly historyId?: number;
}

/** An object of the workspace the webview can ask to be shown in the editor. */
export type ObjectKindView = 'Pod' | 'Node' | 'ScheduleTrigger' | 'SchedulePlan';

/** Where the panel is in its back/forward history; the webview keeps its own state (tab, selection, filters) per entry. */
export interface NavigationView {
  /** Names the history entry; the same entry shown again has the same id. */
  readonly entry: number;
  readonly back: boolean;
  readonly forward: boolean;
}

/** What a panel shows: one of these, with where it is in the panel's history. */
export type ViewMessage =
  | { readonly type: 'plan'; readonly plan: PlanView }
  | { readonly type: 'explanation'; readonly explanation: PodExplanationView }
  | { readonly type: 'history'; readonly entries: readonly HistoryEntryView[]; readonly next?: number }
  | { readonly type: 'diff'; readonly diff: PlanDiffView }
  | { readonly type: 'error'; readonly message: string };

/** extension → webview */
export type HostToWebview =
  { readonly type: 'loading'; readonly what: string; readonly nav?: NavigationView } | (ViewMessage & { readonly nav?: NavigationView });

/** extension → webview, beside a view: the bound a plan said was coming (PlanView.boundPending); none when the solver could not prove one. */
export interface BoundMessage {
  readonly type: 'bound';
  readonly token: string;
  readonly bound?: PlanBoundView;
}

/** webview → extension: what the user asked for; the extension asks the server. */
export type WebviewToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'refresh' }
  /** Back or forward in the panel's history (Alt+Left / Alt+Right, or the toolbar). */
  | { readonly type: 'back' }
  | { readonly type: 'forward' }
  | { readonly type: 'explainPod'; readonly namespace: string; readonly pod: string; readonly inPlan?: PlanRefView }
  | { readonly type: 'openPlan'; readonly id: number }
  | { readonly type: 'comparePlans'; readonly from: number; readonly to: number }
  | { readonly type: 'moreHistory'; readonly before: number }
  | { readonly type: 'reveal'; readonly kind: ObjectKindView; readonly namespace?: string; readonly name: string }
  | { readonly type: 'scheduleNow'; readonly namespace: string; readonly trigger: string };
