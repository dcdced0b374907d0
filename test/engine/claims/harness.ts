// Builders for the claims tests: a pool in memory behind a target that records what the scheduler
// asks and can answer differently once (a conflict, an error), hold swaps, or serve a stale listing.
import { type Clock, ManualClock } from '../../../src/engine/api/clock';
import { err, ok, type Result } from '../../../src/engine/api/result';
import {
  ClaimScheduler,
  type ClaimOptions,
  type ClaimOutcome,
  type ClaimSchedulerOptions,
  type ClaimsSnapshot,
  type CancelSignal,
  InMemoryPoolTarget,
  type PoolPod,
  type PoolTarget,
  type ScaleUpSignal,
  type SwapRequest,
  type SwapResult,
} from '../../../src/engine/claims';

/** What a scripted swap does instead of (or before) the real one. */
export type SwapFault = SwapResult | 'touch' | 'throw';

export class ScriptedTarget implements PoolTarget {
  /** Clock time of every listing. */
  readonly listings: number[] = [];
  readonly swaps: SwapRequest[] = [];
  /** Swaps the pool carried out: each must reach exactly one request. */
  swapped = 0;
  /** Per pod uid, what its next swap does; used once. 'touch' bumps the version first: a real conflict. */
  readonly faults = new Map<string, SwapFault>();
  /** While set, swaps and listings (with what they saw when called) wait until `release()`. */
  holdSwaps = false;
  holdListings = false;
  /** While set, listings return this instead of the pool (a lagging cache). */
  staleListing: readonly PoolPod[] | undefined;
  /** While set, listings fail with this message. */
  listingError: string | undefined;
  /** Called from inside each swap, before it resolves (to look at the scheduler mid-dispatch). */
  duringSwap: ((request: SwapRequest) => void) | undefined;
  /** Extra wait before a swap (real latency in the stress suite). */
  latency: (() => Promise<void>) | undefined;
  private waiting: Array<() => void> = [];

  constructor(
    readonly pool: InMemoryPoolTarget,
    private readonly clock: Clock,
  ) {}

  async listIdle(): Promise<Result<readonly PoolPod[]>> {
    this.listings.push(this.clock.now());
    const held = this.holdListings;
    if (this.listingError) return err(this.listingError);
    const listing = this.staleListing ? ok(this.staleListing) : await this.pool.listIdle();
    if (held) await this.held();
    return listing;
  }

  async swap(request: SwapRequest): Promise<SwapResult> {
    this.swaps.push(request);
    this.duringSwap?.(request);
    if (this.latency) await this.latency();
    if (this.holdSwaps) await this.held();
    const fault = this.faults.get(request.pod.uid);
    this.faults.delete(request.pod.uid);
    if (fault === 'throw') throw new Error('connection reset');
    if (fault === 'touch') this.pool.touch(request.pod.uid);
    else if (fault) return fault;
    const result = await this.pool.swap(request);
    if (result.kind === 'swapped') this.swapped++;
    return result;
  }

  /** Lets everything held go on. */
  release(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const go of waiting) go();
  }

  private held(): Promise<void> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  swapsOf(requestId: string): string[] {
    return this.swaps.filter((s) => s.requestId === requestId).map((s) => s.pod.uid);
  }
}

/** Lets every promise continuation that is ready run (a macrotask comes after all microtasks). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A request that records its answer. */
export interface Claim {
  readonly id: string;
  accepted: boolean;
  outcome: ClaimOutcome | undefined;
  /** Clock time of the answer. */
  answeredAt: number | undefined;
}

export interface ClaimInit {
  readonly options?: ClaimOptions;
  readonly deadline?: number;
  readonly signal?: CancelSignal;
}

/** A scheduler on a ManualClock over a scripted in-memory pool, started and settled. */
export class Harness {
  readonly clock = new ManualClock(0);
  readonly pool = new InMemoryPoolTarget(this.clock);
  readonly target = new ScriptedTarget(this.pool, this.clock);
  readonly scaleUps: ScaleUpSignal[] = [];
  readonly scheduler: ClaimScheduler;
  private sequence = 0;

  /** `pods` are added Idle, one millisecond apart, before the scheduler's first listing. */
  constructor(pods: readonly string[] = [], options: Partial<ClaimSchedulerOptions> = {}) {
    for (const uid of pods) this.addPod(uid);
    this.scheduler = new ClaimScheduler({
      pool: 'warm',
      target: this.target,
      clock: this.clock,
      onScaleUp: (signal) => this.scaleUps.push(signal),
      ...options,
    });
  }

  addPod(uid: string): PoolPod {
    this.clock.advance(1);
    return this.pool.add(uid);
  }

  /** Enqueues a request whose answer is recorded the moment it is given. */
  claim(init: ClaimInit = {}, id = `r${++this.sequence}`): Claim {
    const claim: Claim = { id, accepted: false, outcome: undefined, answeredAt: undefined };
    const reply = (outcome: ClaimOutcome): void => {
      if (claim.outcome) throw new Error(`${id} was answered twice`);
      claim.outcome = outcome;
      claim.answeredAt = this.clock.now();
    };
    claim.accepted = this.scheduler.enqueue({ id, ...init, reply });
    return claim;
  }

  /** Lets what is due now run, then moves time by `ms` in steps of `step`, settling after each. */
  async advance(ms: number, step = ms): Promise<void> {
    await this.settle();
    for (let left = ms; left > 0; left -= step) {
      this.clock.advance(Math.min(step, left));
      await this.settle();
    }
  }

  /** Runs continuations and the timers they set for now, until nothing is left to run now. */
  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) {
      await flush();
      this.clock.runDue();
    }
    await flush();
  }

  snapshot(): ClaimsSnapshot {
    return this.scheduler.snapshot();
  }
}

/** The pod uid a claim got, or its error kind. */
export function got(claim: Claim): string | undefined {
  if (!claim.outcome) return undefined;
  return claim.outcome.ok ? claim.outcome.value.uid : claim.outcome.error.kind;
}
