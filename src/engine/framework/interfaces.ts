// One interface per extension point, as upstream's pkg/scheduler/framework/interface.go. A plugin
// implements the stages it takes part in; the runtime calls them in profile order.
import type { Clock } from '../api/clock';
import type { Random } from '../api/random';
import type { ClusterObjects, Pod } from '../api/types';
import type { PreemptionRecord } from './preemption/record';
import type { Binder, ClaimWriter } from './binder';
import type { ArgsError } from '../api/field';
import type { Result } from '../api/result';
import type { CycleState } from './cycle-state';
import type { NodeInfo, NodeInfoLister, PodInfo } from './node-info';
import type { FilterStatus, Status } from './status';

export interface Plugin {
  readonly name: string;
}

/** A pod waiting in the scheduling queue. */
export interface QueuedPodInfo {
  readonly info: PodInfo;
  /** When it entered the queue (injected clock, ms). */
  readonly timestamp: number;
  readonly attempts: number;
}

export interface QueueSortPlugin extends Plugin {
  /** Whether `a` should be scheduled before `b`. */
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
}

/** Chooses which of the feasible-candidate nodes a cycle evaluates (node sampling). */
export interface SampleNodesPlugin extends Plugin {
  /** The nodes to evaluate, in the order to evaluate them; `count` is how many to find feasible. */
  sampleNodes(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], count: number): readonly NodeInfo[];
}

export interface PreFilterResult {
  /** When set, only these nodes can be feasible (e.g. spec.nodeName or matchFields metadata.name). */
  readonly nodeNames?: ReadonlySet<string>;
}

/**
 * Upstream's PreEnqueue, for a plugin that has it (DynamicResources, DefaultPreemption): whether the
 * pod may enter the scheduling queue's active part now; a live scheduler's queue holds it until it may.
 */
export interface PreEnqueuePlugin extends Plugin {
  preEnqueue(pod: Pod): Status;
}

export interface PreFilterPlugin extends Plugin {
  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): { status: Status; result?: PreFilterResult };
  /** Optional: keep the pre-computed state in step when a what-if adds or removes a pod (planning, preemption). */
  addPod?(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status;
  removePod?(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status;
}

export interface FilterPlugin extends Plugin {
  filter(state: CycleState, pod: PodInfo, node: NodeInfo): FilterStatus;
  /**
   * Optional: a key for everything Filter reads besides the node (the pod's fields, what PreFilter
   * wrote of them), asked after PreFilter. The runtime then keeps the verdict on each node across
   * cycles, for pods with the same key, until the node changes. Leave it out when the verdict depends
   * on anything else (other nodes, counts over the cluster).
   */
  filterKey?(state: CycleState, pod: PodInfo): string;
}

export interface PostFilterResult {
  readonly nominatedNode?: string;
  /** The pods to evict from the nominated node so the pod fits there (preemption). */
  readonly victims?: readonly PodInfo[];
  /** What preemption weighed, for explain. */
  readonly preemption?: PreemptionRecord;
}

export interface PostFilterPlugin extends Plugin {
  /** Runs when no node is feasible; `statuses` maps node name to why it was rejected. */
  postFilter(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): { status: Status; result?: PostFilterResult };
}

export interface PreScorePlugin extends Plugin {
  /** `nodes`: the cycle's feasible nodes, in a list of this cycle's own (a plugin may keep it). */
  preScore(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Status;
}

export interface NodeScore {
  readonly name: string;
  score: number;
}

export const MIN_NODE_SCORE = 0;
export const MAX_NODE_SCORE = 100;

export interface ScorePlugin extends Plugin {
  /** A raw score for the node; a Status only for an internal error. */
  score(state: CycleState, pod: PodInfo, node: NodeInfo): number | Status;
  /** Optional: rewrites the raw scores in place to MIN_NODE_SCORE..MAX_NODE_SCORE. */
  normalizeScore?(state: CycleState, pod: PodInfo, scores: NodeScore[]): Status;
  /** Optional, as FilterPlugin.filterKey for the raw score: asked after PreScore; undefined: not kept for this pod. */
  scoreKey?(state: CycleState, pod: PodInfo): string | undefined;
}

export interface ReservePlugin extends Plugin {
  reserve(state: CycleState, pod: PodInfo, nodeName: string): Status;
  /** Undoes reserve; must be idempotent and cannot fail. */
  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void;
}

/**
 * Upstream's PreBind: what Reserve started, made real before the pod is bound (DynamicResources
 * writes its claims' allocation and reservation). The framework runs it for its Reserve plugins that
 * have it, in their order; Skip means nothing to do.
 */
export interface PreBindPlugin extends ReservePlugin {
  preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status>;
}

export interface PermitPlugin extends Plugin {
  permit(state: CycleState, pod: PodInfo, nodeName: string): Status;
}

/** The binding pipeline's first step: is the chosen node still right (nothing changed under us)? */
export interface CheckConflictsPlugin extends Plugin {
  checkConflicts(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status>;
}

export interface BindPlugin extends Plugin {
  /** Skip means "not mine": the next bind plugin is asked. */
  bind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status>;
}

/** The framework's own steps, for a plugin that tries what-ifs on copies of nodes (preemption). */
export interface PodEvaluator {
  /** The profile's Filter plugins on one node, with a state PreFilter prepared. */
  filterNode(state: CycleState, pod: PodInfo, node: NodeInfo): Status;
  /** The PreFilter extensions (AddPod, RemovePod) of every PreFilter plugin that has them. */
  preFilterAddPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status;
  preFilterRemovePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status;
}

/** An event about a pod as a plugin records it (events.k8s.io/v1 type, reason, action and note). */
export interface PodEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
}

/** What a plugin factory receives from the framework it is built for. */
export interface FrameworkHandle {
  /** The snapshot of the cycle being run (replaced at the start of each cycle). */
  snapshot(): NodeInfoLister;
  readonly random: Random;
  /** Where the DefaultBinder plugin binds pods. */
  readonly binder: Binder;
  /** Where DynamicResources' PreBind writes claims; none in previews and planning. */
  readonly claimWriter?: ClaimWriter;
  /** FrameworkOptions.clusterControllers: a template's claim is waited for, not made up. */
  readonly clusterControllers?: boolean;
  /** Set by the framework runtime (not by a plugin test's handle). */
  readonly evaluator?: PodEvaluator;
  /** The cluster's other objects (PriorityClasses, PodDisruptionBudgets, …) as of the cycle. */
  objects?(): ClusterObjects;
  /** The injected clock's time (ms since the epoch), when the framework was given one. */
  now?(): number | undefined;
  /** The injected clock, when the framework was given one (DynamicResources' PreBind waits on it). */
  readonly clock?: Clock;
  /** Where a plugin's events about a pod go (a live scheduler's event recorder); none: not recorded. */
  readonly recordEvent?: (pod: Pod, event: PodEvent) => void;
  /** Whether the pod's own preemption is still being carried out (a live scheduler's executor); none: never. */
  readonly preemptionRunning?: (pod: Pod) => boolean;
}

/** Builds a plugin from its args (from the profile's pluginConfig); bad args are an error value naming each field. */
export type PluginFactory = (args: unknown, handle: FrameworkHandle) => Result<Plugin, ArgsError>;
