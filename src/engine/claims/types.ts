// The vocabulary of a warm pool: pods that wait Idle, claim requests, and the target the scheduler
// swaps pods through (in memory now, the cluster later). Expected outcomes are values.
import { type Result } from '../api/result';

/** The phase a pool pod carries in its phase annotation. */
export type PoolPhase = 'Idle' | 'Starting' | 'Running' | 'Stopping';

export interface PoolPod {
  readonly uid: string;
  readonly name: string;
  /** Opaque; changes on every write, so it guards the compare-and-swap. */
  readonly resourceVersion: string;
  readonly phase: PoolPhase;
  /** Clock time the pod last became Idle: new pods of one listing are queued oldest first. */
  readonly idleSince?: number;
  /** The phase the claimer asked for, once claimed. */
  readonly targetPhase?: PoolPhase;
  readonly images: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** What a claimer wants written on the pod it gets. */
export interface ClaimOptions {
  readonly images?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** Default Running. */
  readonly targetPhase?: PoolPhase;
}

/** The subset of AbortSignal the scheduler uses; an AbortSignal fits. */
export interface CancelSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export type ClaimErrorKind = 'cancelled' | 'deadline' | 'failed' | 'shutdown';

export interface ClaimError {
  readonly kind: ClaimErrorKind;
  readonly message: string;
}

/** The one answer a request gets: the claimed pod (now Starting) or why not. */
export type ClaimOutcome = Result<PoolPod, ClaimError>;

export interface ClaimRequest {
  /** Names the request in messages. */
  readonly id: string;
  readonly options?: ClaimOptions;
  /** Clock time after which the request is answered `deadline` instead of dispatched. */
  readonly deadline?: number;
  readonly signal?: CancelSignal;
  /** Called exactly once per accepted request; must not throw. */
  reply(outcome: ClaimOutcome): void;
}

/** Idle → Starting for one pod, applied only if the pod still has `pod.resourceVersion`. */
export interface SwapRequest {
  readonly pod: PoolPod;
  readonly requestId: string;
  readonly images: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly targetPhase: PoolPhase;
}

export type SwapResult =
  | { readonly kind: 'swapped'; readonly pod: PoolPod }
  /** The resourceVersion moved (or the pod is gone): retriable. */
  | { readonly kind: 'conflict'; readonly message: string }
  /** The pod is no longer Idle: retriable with another pod. */
  | { readonly kind: 'unexpectedPhase'; readonly phase: PoolPhase; readonly message: string }
  /** Anything else: the request fails. */
  | { readonly kind: 'error'; readonly message: string };

/**
 * Where the pool lives. A rejected promise counts as an error result. A cluster target lists from
 * its informer cache and swaps with an update guarded by `pod.resourceVersion`: 409 or 404 is a
 * conflict, a phase annotation other than Idle an unexpected phase, anything else an error.
 */
export interface PoolTarget {
  /** The pods of the pool that are Idle now (possibly from a lagging cache). */
  listIdle(): Promise<Result<readonly PoolPod[]>>;
  swap(request: SwapRequest): Promise<SwapResult>;
}

export interface ScaleUpSignal {
  readonly pool: string;
  /** Requests waiting when the signal was raised. */
  readonly waiting: number;
}

/** Counters for a view; taking one costs O(1). */
export interface ClaimsSnapshot {
  readonly pool: string;
  /** Idle pods in the ready queue, not reserved. */
  readonly idleReady: number;
  /** Requests waiting: new ones plus ones parked after a conflict. */
  readonly queued: number;
  /** Pods whose last listed version is held back from listings (swap in flight or settled within the TTL). */
  readonly reserved: number;
  readonly inFlight: number;
  readonly lastDispatchAt: number | undefined;
  /** A scale-up signal was raised and requests still wait. */
  readonly scaleUpSignalled: boolean;
  readonly stopped: boolean;
  readonly claimed: number;
  readonly conflicts: number;
  readonly lastListError: string | undefined;
}
