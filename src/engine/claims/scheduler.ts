// The claim scheduler of one pool: pairs waiting claim requests with idle pods, FIFO on both sides.
//
// The loop is the synchronous `dispatch` pass; it never waits. Listings and compare-and-swaps run
// off the loop (at most `maxInFlight` swaps at once) and come back into it when they settle. Time
// comes only from the injected Clock, so tests drive every timer by hand.
import { type Clock, type Timer } from '../api/clock';
import { err, ok, type Result } from '../api/result';
import { Backoff } from './backoff';
import { Fifo, type FifoNode } from './fifo';
import { ReadyQueue } from './ready-queue';
import { Reservations } from './reservations';
import {
  type ClaimError,
  type ClaimOutcome,
  type ClaimRequest,
  type ClaimsSnapshot,
  type PoolPod,
  type PoolTarget,
  type ScaleUpSignal,
  type SwapRequest,
  type SwapResult,
} from './types';
import { errorMessage } from '../api/errors';

export interface ClaimSchedulerOptions {
  readonly pool: string;
  readonly target: PoolTarget;
  readonly clock: Clock;
  /** Requests that may wait at once (new plus parked); `enqueue` refuses more. */
  readonly capacity?: number;
  /** Compare-and-swaps in flight at once. */
  readonly maxInFlight?: number;
  readonly reservationTtlMs?: number;
  /** Delay between an idle notice and the refresh it causes, so a watch-fed listing has caught up. */
  readonly idleRefreshDelayMs?: number;
  readonly pollMinMs?: number;
  readonly pollMaxMs?: number;
  /** How long `shutdown` waits for swaps in flight before answering their requests anyway. */
  readonly shutdownGraceMs?: number;
  /** Raised once per burst: requests wait and a listing found nothing to give them. */
  readonly onScaleUp?: (signal: ScaleUpSignal) => void;
}

export const CLAIM_DEFAULTS = {
  capacity: 1024,
  maxInFlight: 128,
  reservationTtlMs: 2_000,
  idleRefreshDelayMs: 200,
  pollMinMs: 10_000,
  pollMaxMs: 300_000,
  shutdownGraceMs: 5_000,
} as const;

/** A request and the promise of its answer, for callers that would rather await than pass a callback. */
export interface PendingClaim {
  readonly request: ClaimRequest;
  readonly answer: Promise<ClaimOutcome>;
}

export function claimRequest(init: Omit<ClaimRequest, 'reply'>): PendingClaim {
  let reply: (outcome: ClaimOutcome) => void = () => undefined;
  const answer = new Promise<ClaimOutcome>((resolve) => (reply = resolve));
  return { request: { ...init, reply }, answer };
}

interface Entry {
  readonly request: ClaimRequest;
  state: 'waiting' | 'inFlight' | 'answered';
  node: FifoNode<Entry> | undefined;
  deadlineTimer: Timer | undefined;
  onAbort: (() => void) | undefined;
}

export class ClaimScheduler {
  private readonly pool: string;
  private readonly target: PoolTarget;
  private readonly clock: Clock;
  private readonly settings: { readonly [K in keyof typeof CLAIM_DEFAULTS]: number };
  private readonly onScaleUp: ((signal: ScaleUpSignal) => void) | undefined;

  private readonly intake = new Fifo<Entry>();
  /** Requests whose swap hit a conflict: they were first, so they go first. */
  private readonly parked = new Fifo<Entry>();
  private readonly inFlight = new Set<Entry>();
  /** Requests accepted and not answered yet. */
  private readonly pending = new Set<ClaimRequest>();
  private readonly ready = new ReadyQueue();
  private readonly reservations: Reservations;
  private readonly backoff: Backoff;

  private dispatching = false;
  private dispatchAgain = false;
  private listIfStarved = false;
  private listing = false;
  private listAgain = false;
  private pollTimer: Timer | undefined;
  private idleTimer: Timer | undefined;
  private graceTimer: Timer | undefined;
  private stopped = false;
  private drained: Promise<void> | undefined;
  private resolveDrained: (() => void) | undefined;

  private lastDispatchAt: number | undefined;
  private scaleUpSignalled = false;
  private claimed = 0;
  private conflicts = 0;
  private lastListError: string | undefined;

  /** Starts the loop: lists the pool at once and keeps polling it until `shutdown`. */
  constructor(options: ClaimSchedulerOptions) {
    this.pool = options.pool;
    this.target = options.target;
    this.clock = options.clock;
    this.onScaleUp = options.onScaleUp;
    const d = CLAIM_DEFAULTS;
    this.settings = {
      capacity: options.capacity ?? d.capacity,
      maxInFlight: options.maxInFlight ?? d.maxInFlight,
      reservationTtlMs: options.reservationTtlMs ?? d.reservationTtlMs,
      idleRefreshDelayMs: options.idleRefreshDelayMs ?? d.idleRefreshDelayMs,
      pollMinMs: options.pollMinMs ?? d.pollMinMs,
      pollMaxMs: options.pollMaxMs ?? d.pollMaxMs,
      shutdownGraceMs: options.shutdownGraceMs ?? d.shutdownGraceMs,
    };
    const { capacity, maxInFlight } = this.settings;
    if (!(capacity >= 1 && maxInFlight >= 1))
      throw new Error(`capacity and maxInFlight must be at least 1 (got ${capacity}, ${maxInFlight})`);
    this.reservations = new Reservations(this.clock, this.settings.reservationTtlMs);
    this.backoff = new Backoff(this.settings.pollMinMs, this.settings.pollMaxMs);
    this.requestListing();
  }

  /**
   * Accepts a request, or returns false (back-pressure) when `capacity` requests already wait; a
   * refused request is not answered and may be enqueued again. After `shutdown`, and for a request
   * already cancelled or past its deadline, the answer comes at once.
   */
  enqueue(request: ClaimRequest): boolean {
    if (this.pending.has(request)) throw new Error(`claim request ${request.id} was enqueued twice`);
    if (!this.stopped && this.queued >= this.settings.capacity) return false;
    this.pending.add(request);
    const entry: Entry = { request, state: 'waiting', node: undefined, deadlineTimer: undefined, onAbort: undefined };
    const early = this.stopped ? shutdownError(request) : this.stopReason(request);
    if (early) {
      this.answer(entry, err(early));
      return true;
    }
    entry.node = this.intake.push(entry);
    const { deadline, signal } = request;
    if (deadline !== undefined && Number.isFinite(deadline))
      entry.deadlineTimer = this.clock.setTimer(deadline - this.clock.now(), () => this.dropWaiting(entry));
    if (signal) {
      entry.onAbort = () => this.dropWaiting(entry);
      signal.addEventListener('abort', entry.onAbort);
    }
    this.wake(true);
    return true;
  }

  /** A pod of the pool went Idle: dispatch now, and refresh the ready queue shortly. */
  notifyIdle(): void {
    if (this.stopped) return;
    this.wake(false);
    this.idleTimer ??= this.clock.setTimer(this.settings.idleRefreshDelayMs, () => {
      this.idleTimer = undefined;
      this.requestListing();
    });
  }

  snapshot(): ClaimsSnapshot {
    return {
      pool: this.pool,
      idleReady: this.ready.size,
      queued: this.queued,
      reserved: this.reservations.size,
      inFlight: this.inFlight.size,
      lastDispatchAt: this.lastDispatchAt,
      scaleUpSignalled: this.scaleUpSignalled,
      stopped: this.stopped,
      claimed: this.claimed,
      conflicts: this.conflicts,
      lastListError: this.lastListError,
    };
  }

  /**
   * Stops the loop and answers every waiting request (`shutdown`); resolves once the swaps in
   * flight have settled (their requests get the swap's outcome) or the grace time is over.
   */
  shutdown(): Promise<void> {
    if (this.drained) return this.drained;
    this.stopped = true;
    this.drained = new Promise((resolve) => (this.resolveDrained = resolve));
    this.pollTimer?.cancel();
    this.idleTimer?.cancel();
    this.reservations.dispose();
    this.ready.clear();
    for (let entry = this.nextWaiting(); entry; entry = this.nextWaiting()) this.answer(entry, err(shutdownError(entry.request)));
    if (this.inFlight.size > 0) {
      this.graceTimer = this.clock.setTimer(this.settings.shutdownGraceMs, () => {
        for (const entry of this.inFlight) {
          const message = `pool ${this.pool} shut down while a swap for ${entry.request.id} was still in flight; its pod may be left Starting`;
          this.answer(entry, err({ kind: 'shutdown', message }));
        }
        this.inFlight.clear();
        this.checkDrained();
      });
    }
    this.checkDrained();
    return this.drained;
  }

  private get queued(): number {
    return this.intake.size + this.parked.size;
  }

  private nextWaiting(): Entry | undefined {
    return this.parked.first() ?? this.intake.first();
  }

  /**
   * New request or conflict (`listIfStarved`), or idle notice: dispatch now and start the back-off
   * over. The poll timer needs no change here: a starved wake lists at once, a notice 200 ms later,
   * and that listing sets the next poll (while pods are ready, polls run at the minimum anyway).
   */
  private wake(listIfStarved: boolean): void {
    this.backoff.reset();
    this.dispatch(listIfStarved);
  }

  // Re-entrant calls (a reply that enqueues, a swap that settles synchronously) fold into the pass
  // under way, which runs again.
  private dispatch(listIfStarved: boolean): void {
    this.listIfStarved ||= listIfStarved;
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = true;
    try {
      do {
        this.dispatchAgain = false;
        const list = this.listIfStarved;
        this.listIfStarved = false;
        this.pass(list);
      } while (this.dispatchAgain);
    } finally {
      this.dispatching = false;
    }
  }

  private pass(listIfStarved: boolean): void {
    while (!this.stopped && this.inFlight.size < this.settings.maxInFlight) {
      const entry = this.nextWaiting();
      if (!entry) break;
      const stop = this.stopReason(entry.request);
      if (stop) {
        this.answer(entry, err(stop));
        continue;
      }
      const pod = this.ready.take();
      if (!pod) break;
      this.leaveQueue(entry);
      this.startSwap(entry, pod);
    }
    if (listIfStarved && this.queued > 0 && this.ready.size === 0) this.requestListing();
  }

  private startSwap(entry: Entry, pod: PoolPod): void {
    entry.state = 'inFlight';
    this.inFlight.add(entry);
    this.reservations.hold(pod);
    this.lastDispatchAt = this.clock.now();
    const { id, options = {} } = entry.request;
    const swap: SwapRequest = {
      pod,
      requestId: id,
      images: options.images ?? [],
      labels: options.labels ?? {},
      annotations: options.annotations ?? {},
      targetPhase: options.targetPhase ?? 'Running',
    };
    attempt(() => this.target.swap(swap)).then(
      (result) => this.settle(entry, pod, result),
      (error: unknown) => this.settle(entry, pod, { kind: 'error', message: errorMessage(error) }),
    );
  }

  private settle(entry: Entry, pod: PoolPod, result: SwapResult): void {
    this.inFlight.delete(entry);
    if (result.kind === 'swapped') this.claimed++;
    else if (result.kind !== 'error') this.conflicts++;
    // The version the swap was tried at is stale now (swapped, conflict, not Idle): keep it blocked
    // until a listing shows the pod's next version, or the TTL runs out; a listing that lags would
    // otherwise send the same swap again at once. A hard error says nothing about the pod.
    if (!this.stopped) this.reservations.settle(pod.uid, result.kind !== 'error');
    switch (result.kind) {
      case 'swapped':
        this.answer(entry, ok(result.pod));
        break;
      case 'error':
        this.answer(entry, err({ kind: 'failed', message: `claiming pod ${pod.name} for ${entry.request.id} failed: ${result.message}` }));
        break;
      default: {
        const stop = this.stopped ? shutdownError(entry.request) : this.stopReason(entry.request);
        if (!stop) {
          entry.state = 'waiting';
          entry.node = this.parked.push(entry);
          this.wake(true);
          return;
        }
        this.answer(entry, err(stop));
      }
    }
    this.dispatch(false);
    this.checkDrained();
  }

  private requestListing(): void {
    if (this.stopped) return;
    if (this.listing) {
      this.listAgain = true;
      return;
    }
    this.listing = true;
    this.listAgain = false;
    attempt(() => this.target.listIdle()).then(
      (result) => this.listed(result),
      (error: unknown) => this.listed(err(errorMessage(error))),
    );
  }

  private listed(result: Result<readonly PoolPod[]>): void {
    this.listing = false;
    if (this.stopped) return;
    if (result.ok) {
      this.lastListError = undefined;
      this.ready.refresh(result.value, (pod) => this.reservations.blocks(pod));
    } else {
      this.lastListError = result.error;
    }
    if (this.ready.size === 0) {
      this.schedulePoll(this.backoff.next());
    } else {
      this.backoff.reset();
      this.schedulePoll(this.backoff.minMs);
    }
    this.dispatch(false);
    // Only a listing that worked can say the pool has nothing to give.
    if (result.ok && this.queued > 0 && this.ready.size === 0 && !this.scaleUpSignalled) {
      this.scaleUpSignalled = true;
      this.onScaleUp?.({ pool: this.pool, waiting: this.queued });
    }
    if (this.listAgain) this.requestListing();
  }

  private schedulePoll(delayMs: number): void {
    this.pollTimer?.cancel();
    this.pollTimer = this.clock.setTimer(delayMs, () => {
      this.pollTimer = undefined;
      this.requestListing();
    });
  }

  private stopReason(request: ClaimRequest): ClaimError | undefined {
    if (request.signal?.aborted) return { kind: 'cancelled', message: `claim request ${request.id} was cancelled` };
    if (request.deadline !== undefined && this.clock.now() >= request.deadline) {
      return { kind: 'deadline', message: `claim request ${request.id} passed its deadline before a pod of pool ${this.pool} was free` };
    }
    return undefined;
  }

  /** Deadline or cancellation of a waiting request; one in flight is settled by its swap. */
  private dropWaiting(entry: Entry): void {
    if (entry.state !== 'waiting') return;
    const stop = this.stopReason(entry.request);
    if (stop) this.answer(entry, err(stop));
  }

  private leaveQueue(entry: Entry): void {
    if (entry.node) entry.node.list?.remove(entry.node);
    entry.node = undefined;
    // The burst is over once nobody waits: the next starvation raises a new signal.
    if (this.queued === 0) this.scaleUpSignalled = false;
  }

  private answer(entry: Entry, outcome: ClaimOutcome): void {
    if (entry.state === 'answered') return;
    this.leaveQueue(entry);
    entry.state = 'answered';
    this.pending.delete(entry.request);
    entry.deadlineTimer?.cancel();
    if (entry.onAbort) entry.request.signal?.removeEventListener('abort', entry.onAbort);
    entry.request.reply(outcome);
  }

  private checkDrained(): void {
    if (!this.stopped || this.inFlight.size > 0 || !this.resolveDrained) return;
    this.graceTimer?.cancel();
    this.resolveDrained();
    this.resolveDrained = undefined;
  }
}

function shutdownError(request: ClaimRequest): ClaimError {
  return { kind: 'shutdown', message: `claim request ${request.id} was cancelled: the pool scheduler shut down` };
}

/** Runs `start`, turning a synchronous throw into a rejected promise. */
function attempt<T>(start: () => Promise<T>): Promise<T> {
  try {
    return start();
  } catch (error) {
    return Promise.reject(error);
  }
}
