// The store's public types: what callers pass in and what the history hands back.
import type { Clock } from '../engine/api/clock';
import type { ClusterSnapshot } from '../engine/api/types';
import type { Profile } from '../engine/framework/profile';
import type { PlacedPod, Plan, PlanVictim } from '../engine/planner/plan';
import type { PlannedDevice } from '../engine/plugins/dynamicresources/plan-devices';
import type { DiagnosisSummary, ReasonCount } from './diagnoses';
import type { DriverLoader } from './driver';

export type StoreErrorKind = 'no-driver' | 'cannot-open' | 'not-a-database' | 'newer-schema' | 'not-found' | 'invalid' | 'sqlite';

export interface StoreError {
  readonly kind: StoreErrorKind;
  readonly message: string;
  /** Details for a log, not for the user (e.g. each SQLite driver's own load error). */
  readonly detail?: string;
}

export type SourceKind = 'workspace' | 'kube-context';

/**
 * What a run's cluster state came from, by name only. Only these fields are read, so a kube context
 * object with its user's credentials can be passed as is and nothing else reaches the file; user
 * info, query and fragment are cut from the server URL for the same reason.
 */
export interface SourceRef {
  readonly kind: SourceKind;
  readonly name: string;
  /** The API server URL of a kube context; a workspace snapshot may give its path. */
  readonly server?: string;
}

export type RunKind = 'preview' | 'trigger' | 'live';
export type RunOutcome = 'running' | 'succeeded' | 'failed';
export type PlanStatus = 'draft' | 'applied' | 'superseded';
export type TriggerCause = 'manual' | 'quiet-time' | 'dependency';
export type ClaimOutcome = 'claimed' | 'conflict' | 'failed';

export interface Source {
  readonly kind: SourceKind;
  readonly name: string;
  readonly server: string;
}

export interface RunSummary {
  readonly id: number;
  readonly source: Source;
  readonly kind: RunKind;
  readonly startedAt: number;
  readonly finishedAt?: number;
  readonly outcome: RunOutcome;
  readonly message?: string;
}

/**
 * What a plan was made from beside its settings (planner, trigger, objective): the whole cluster
 * (nodes, pods and every object a plugin reads: claims, templates, classes, slices, volumes,
 * priority classes, the claims admission did not create) and the pod-set profile. The history keeps
 * it with the plan (the clusters table: the cluster since schema version 8, the profile since 9), a
 * stored plan's pods are explained on it (with the pods placed before the plan, StoredBasis), and a
 * preview reuses the latest draft only when its basis is the same (basisHash).
 */
export interface PlanBasis {
  readonly cluster: ClusterSnapshot;
  /** Absent on plans kept before schema version 9. */
  readonly profile?: Profile;
}

/**
 * A stored plan's basis as planBasis reads it back: the cluster and profile it shares with the plans
 * made from the same, and the pods the plans of other sets placed before it was made (the plan's own
 * Plan.placedBefore, kept on its row since schema version 10; absent on older rows, where it is not
 * known): the cluster the plan saw is `cluster` with those placed.
 */
export interface StoredBasis extends PlanBasis {
  readonly placedBefore?: readonly PlacedPod[];
}

/**
 * A stored plan's row: the engine Plan's own fields (`objective` absent on plans recorded before
 * schema version 4, `bound` when a solver said), and what the history adds.
 */
export interface PlanSummary extends Pick<
  Plan,
  'podSet' | 'namespace' | 'trigger' | 'planner' | 'objective' | 'bound' | 'profile' | 'snapshotHash'
> {
  readonly id: number;
  readonly runId: number;
  /** What its run was: a preview (the CLI's plan and schedule, the editor's previews), a trigger firing, a live scheduler. */
  readonly runKind: RunKind;
  readonly source: Source;
  readonly profileHash: string;
  readonly status: PlanStatus;
  readonly createdAt: number;
  readonly placed: number;
  readonly unplaced: number;
  /** Running pods the plan evicts (0 on plans recorded before schema version 5). */
  readonly evicted: number;
  /**
   * The plan's pods (as it names them) whose names were made up for workload replicas with no pod in
   * the files: no real pod has them. Absent when there are none (and on plans before schema version 6).
   */
  readonly madeUp?: readonly string[];
  /** The sha256 its basis is kept under (store basisHash); absent when it was kept without one (before schema version 8, a live scheduler's plans and decisions). */
  readonly basis?: string;
}

export interface StoredAssignment {
  readonly pod: string;
  readonly node: string;
  readonly diagnosis?: DiagnosisSummary;
  /** The devices its claims get (DRA), as the plan allocates them. */
  readonly devices?: readonly PlannedDevice[];
}

export interface StoredUnplaced {
  readonly pod: string;
  readonly message: string;
  readonly diagnosis?: DiagnosisSummary;
}

/** A plan as `show` reads it: full diagnoses stay compressed until `diagnosis(planId, pod)`. */
export interface StoredPlan {
  readonly summary: PlanSummary;
  readonly assignments: readonly StoredAssignment[];
  readonly unplaced: readonly StoredUnplaced[];
  /** The running pods the plan evicts, in its order (a profile that lets plans preempt). */
  readonly victims: readonly PlanVictim[];
}

export interface TriggerTransition {
  readonly id: number;
  readonly namespace: string;
  readonly trigger: string;
  /** Absent for the first state a trigger is seen in. */
  readonly from?: string;
  readonly to: string;
  readonly cause: TriggerCause;
  readonly at: number;
}

export interface ClaimRecord {
  readonly id: number;
  readonly namespace: string;
  readonly pool: string;
  readonly request: string;
  readonly pod?: string;
  readonly outcome: ClaimOutcome;
  readonly message?: string;
  readonly at: number;
}

/** Newest first. Pass `next` back as `before` for the following page; absent on the last page. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next?: number;
}

export interface Paging {
  /** At most this many items (default 50). */
  readonly limit?: number;
  /** Only items older than this id (the `next` of the previous page). */
  readonly before?: number;
}

export interface HistoryQuery extends Paging {
  readonly podSet?: string;
  readonly namespace?: string;
  readonly trigger?: string;
  readonly source?: SourceRef;
  readonly status?: PlanStatus;
}

export interface StoreOptions {
  /** Stamps runs (default: the system clock). */
  readonly clock?: Clock;
  /** Which SQLite bindings to try, in order (default: better-sqlite3, then node:sqlite). */
  readonly loaders?: readonly DriverLoader[];
  /** Plans kept per pod set, newest first; the applied plan is kept besides (default 100). */
  readonly keepPerPodSet?: number;
  /** Scored nodes kept per pod outside the compressed diagnosis (default 3). */
  readonly topScores?: number;
  /** How long a write waits for another process's transaction (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

/** How plan `to` differs from plan `from`, pod by pod; each list is sorted by pod name. */
export interface PlanDiff {
  readonly from: PlanSummary;
  readonly to: PlanSummary;
  /** Placed in both, on different nodes. */
  readonly moved: ReadonlyArray<{ readonly pod: string; readonly from: string; readonly to: string }>;
  /** Unplaced before, placed now; `was` is the old failure message. */
  readonly becamePlaced: ReadonlyArray<{ readonly pod: string; readonly node: string; readonly was: string }>;
  /** Placed before, unplaced now, with the new message and reason histogram. */
  readonly becameUnplaced: ReadonlyArray<{
    readonly pod: string;
    readonly was: string;
    readonly message: string;
    readonly reasons: readonly ReasonCount[];
  }>;
  /** Only in `to`: a node when placed, a message when not. */
  readonly added: ReadonlyArray<{ readonly pod: string; readonly node?: string; readonly message?: string }>;
  /** Only in `from`. */
  readonly removed: ReadonlyArray<{ readonly pod: string; readonly node?: string; readonly message?: string }>;
  /** Placed on the same node in both. */
  readonly unchanged: number;
  /** Unplaced in both. */
  readonly stillUnplaced: number;
  /** Running pods only `to` evicts, with the node and the pod they make room for. */
  readonly newlyEvicted: readonly PlanVictim[];
  /** Running pods only `from` evicts: `to` leaves them running. */
  readonly noLongerEvicted: readonly PlanVictim[];
  /** Evicted by both. */
  readonly stillEvicted: number;
}
