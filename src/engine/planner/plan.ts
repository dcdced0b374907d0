// A plan for a pod set (docs/architecture.md, Contracts): where each pod goes, and why each unplaced pod could
// not be placed. In the cluster it is a SchedulePlan (planner.ciena.io/v1alpha1, spec.plan).
import type { Diagnosis } from '../framework/diagnosis';
import type { PlanBound } from './solver/bound';
import type { PlannedDevice } from '../plugins/dynamicresources/plan-devices';
import type { Objective } from './planner';

export interface PlanAssignment {
  /** Pod name (the plan's namespace holds every pod of the set), as in SchedulePlan spec.plan. */
  readonly pod: string;
  readonly node: string;
  /** The cycle that chose the node, when the planner ran one. */
  readonly diagnosis?: Diagnosis;
  /** The devices its claims get there (DRA), as the scheduler following the plan pod by pod allocates them. */
  readonly devices?: readonly PlannedDevice[];
}

export interface UnplacedPod {
  readonly pod: string;
  /** The upstream-format message ("0/5 nodes are available: …"). */
  readonly message: string;
  readonly diagnosis: Diagnosis;
}

/**
 * A pod another set's plan put on the cluster before this plan was made (planWorkspace plans a
 * trigger's dependencies first and assumes each plan on the cluster before the next; the live
 * coordinator puts the other sets' planned, unbound pods and the written plans that stand).
 */
export interface PlacedPod {
  readonly namespace: string;
  readonly pod: string;
  readonly node: string;
}

/** A running pod the plan evicts (the profile lets plans preempt): where, and for which pod of the set. */
export interface PlanVictim {
  /** namespace/name */
  readonly pod: string;
  readonly node: string;
  /** The set's pod (name) it makes room for. */
  readonly by: string;
}

export interface Plan {
  readonly podSet: string;
  readonly namespace: string;
  /** The ScheduleTrigger that asked for it, if any. */
  readonly trigger?: string;
  readonly planner: string;
  /** What the planner minimized once it placed all it could (absent on plans recorded before objectives were kept). */
  readonly objective?: Objective;
  /** How far from the best possible the plan is proven to be, when a solver was at hand. */
  readonly bound?: PlanBound;
  readonly profile: string;
  readonly assignments: readonly PlanAssignment[];
  readonly unplaced: readonly UnplacedPod[];
  /** The running pods the plan evicts to place its pods; only when the profile lets plans preempt (PodSetPlanner allowPreemption). */
  readonly victims?: readonly PlanVictim[];
  /** Injected clock, ms since the epoch. */
  readonly createdAt: number;
  /** A hash of the nodes and pods the plan was made from, to tell whether it is stale. */
  readonly snapshotHash: string;
  /**
   * The pending pods the plans of other sets made before it put on their nodes, in that order: the
   * cluster it was made on is its input's with these placed. Absent when there were none.
   */
  readonly placedBefore?: readonly PlacedPod[];
}

/** The API group/version of Pallet's ScheduleTrigger and SchedulePlan objects. */
export const PLANNER_API_VERSION = 'planner.ciena.io/v1alpha1';

/** The label that puts a pod in a pod set, and names the set on its ScheduleTrigger and SchedulePlan. */
export const POD_SET_LABEL = 'planner.ciena.io/pod-set';

/** On a ScheduleTrigger: how long the set must see no new pod before it turns to Schedule (a Go duration, "2m0s"). */
export const QUIET_TIME_LABEL = 'planner.ciena.io/quiet-time';

/** A plan's status (our addition to Pallet's SchedulePlan): what it placed, what not and why, and how it was made. */
export interface PlanStatus {
  readonly placed: number;
  readonly unplaced: number;
  /** Each pod left out, with the upstream-format reason. */
  readonly reasons: readonly { readonly pod: string; readonly message: string }[];
  readonly planner: string;
  readonly objective?: Objective;
  /** How far from the best possible, when a solver proved it. */
  readonly bound?: PlanBound;
  readonly profile: string;
  readonly snapshotHash: string;
  readonly createdAt: number;
}

export function planStatus(plan: Plan): PlanStatus {
  return {
    placed: plan.assignments.length,
    unplaced: plan.unplaced.length,
    reasons: plan.unplaced.map(({ pod, message }) => ({ pod, message })),
    planner: plan.planner,
    ...(plan.objective ? { objective: plan.objective } : {}),
    ...(plan.bound ? { bound: plan.bound } : {}),
    profile: plan.profile,
    snapshotHash: plan.snapshotHash,
    createdAt: plan.createdAt,
  };
}
