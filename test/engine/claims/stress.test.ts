// The claim scheduler on the real clock under load. Sizes scale with PODPLAN_STRESS_SCALE (default
// 1.0). The checks are invariants (no pod held by two requests, every swap the pool made reaches
// exactly one request, every request answered), never timings. Shutdown's 5 s bound is proven on
// the manual clock in scheduler.test.ts; here shutdown must leave nothing queued or in flight.
import assert from 'node:assert/strict';
import { seededRandom, type Random } from '../../../src/engine/api/random';
import {
  ClaimScheduler,
  claimRequest,
  type ClaimOptions,
  type ClaimOutcome,
  type ClaimSchedulerOptions,
  InMemoryPoolTarget,
} from '../../../src/engine/claims';
import { systemClock } from '../../../src/platform/clock';
import { ScriptedTarget } from './harness';

const SCALE = Number(process.env.PODPLAN_STRESS_SCALE ?? '1');
if (!(SCALE > 0)) throw new Error(`PODPLAN_STRESS_SCALE must be a positive number (got ${process.env.PODPLAN_STRESS_SCALE})`);
const scaled = (n: number): number => Math.max(1, Math.round(n * SCALE));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Init {
  readonly deadline?: number;
  readonly signal?: AbortSignal;
  readonly options?: ClaimOptions;
}

/**
 * A pool of `pods` idle pods and claimers that hold a pod for 0-3 ms, then put it back Idle and
 * notify the scheduler, as a user of a warm pool does. Checks the invariants as answers arrive.
 */
class Workload {
  readonly pool = new InMemoryPoolTarget(systemClock);
  readonly target = new ScriptedTarget(this.pool, systemClock);
  readonly scheduler: ClaimScheduler;
  readonly random: Random;
  readonly violations: string[] = [];
  readonly kinds = new Map<string, number>();
  private readonly holders = new Map<string, string>();
  private recycling: Array<Promise<void>> = [];
  private sequence = 0;

  constructor(pods: number, seed: number, options: Partial<ClaimSchedulerOptions> = {}) {
    this.random = seededRandom(seed);
    for (let i = 0; i < pods; i++) this.pool.add(`pod-${i}`);
    // A little real latency so that many swaps are in flight at once.
    this.target.latency = () => sleep(this.random.int(3));
    this.scheduler = new ClaimScheduler({ pool: 'stress', target: this.target, clock: systemClock, ...options });
  }

  /** Enqueues (retrying while the scheduler pushes back) and waits for the answer. */
  async claim(init: Init = {}): Promise<ClaimOutcome> {
    const id = `r${++this.sequence}`;
    const { request, answer } = claimRequest({ id, ...init });
    while (!this.scheduler.enqueue(request)) await sleep(1);
    const outcome = await answer;
    const kind = outcome.ok ? 'claimed' : outcome.error.kind;
    this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
    if (outcome.ok) this.hold(outcome.value.uid, id);
    return outcome;
  }

  count(kind: string): number {
    return this.kinds.get(kind) ?? 0;
  }

  /** Waits for every claimed pod to be back in the pool. */
  async recycled(): Promise<void> {
    while (this.recycling.length > 0) {
      const pending = this.recycling;
      this.recycling = [];
      await Promise.all(pending);
    }
  }

  checkInvariants(): void {
    assert.deepEqual(this.violations, []);
    assert.equal(this.target.swapped, this.count('claimed'), 'every swap the pool made reached exactly one request');
  }

  private hold(uid: string, id: string): void {
    const holder = this.holders.get(uid);
    if (holder) this.violations.push(`${uid} handed to ${id} while ${holder} holds it`);
    this.holders.set(uid, id);
    this.recycling.push(
      sleep(this.random.int(4)).then(() => {
        this.holders.delete(uid);
        this.pool.setPhase(uid, 'Idle');
        this.scheduler.notifyIdle();
      }),
    );
  }
}

describe('engine/claims/scheduler under load (real clock)', function () {
  this.timeout(60_000 * Math.max(1, SCALE));

  const requests = scaled(2000);
  const pods = scaled(500);
  for (const conflictShare of [0, 0.3]) {
    it(`answers ${requests} concurrent requests on ${pods} recycled pods, ${conflictShare * 100}% of pods conflicting on their first swap`, async () => {
      const w = new Workload(pods, 7);
      let conflicting = 0;
      for (let i = 0; i < pods; i++) {
        if (w.random.next() < conflictShare) {
          w.target.faults.set(`pod-${i}`, 'touch');
          conflicting++;
        }
      }
      const outcomes = await Promise.all(Array.from({ length: requests }, () => w.claim()));
      await w.recycled();
      await w.scheduler.shutdown();
      assert.equal(outcomes.filter((o) => o.ok).length, requests, 'every request got a pod');
      w.checkInvariants();
      assert.equal(w.scheduler.snapshot().conflicts, conflicting, 'each conflicting pod conflicted once and was claimed after');
    });
  }

  it('shuts down and answers everyone after a 600 ms storm of enqueues, cancellations, deadlines and idle notices', async () => {
    // Fewer pods than the storm asks for: requests pile up, get pushed back, time out, are cancelled.
    const w = new Workload(scaled(100), 11);
    const answers: Array<Promise<ClaimOutcome>> = [];
    const stormEnds = Date.now() + 600;
    while (Date.now() < stormEnds) {
      for (let i = 0; i < scaled(50); i++) {
        const roll = w.random.int(4);
        const abort = new AbortController();
        if (roll === 0) setTimeout(() => abort.abort(), w.random.int(50));
        const deadline = roll === 1 ? systemClock.now() + w.random.int(300) : undefined;
        answers.push(w.claim({ signal: abort.signal, deadline }));
        w.scheduler.notifyIdle();
      }
      await sleep(1);
    }
    assert.ok(w.scheduler.snapshot().queued > 0, 'the storm left requests waiting');
    await w.scheduler.shutdown();
    // Claimers that were being pushed back enqueue after shutdown: they are answered at once too.
    const outcomes = await Promise.all(answers);
    await w.recycled();
    assert.equal(outcomes.length, answers.length);
    assert.ok(w.count('shutdown') > 0 && w.count('claimed') > 0);
    w.checkInvariants();
    assert.deepEqual({ queued: w.scheduler.snapshot().queued, inFlight: w.scheduler.snapshot().inFlight }, { queued: 0, inFlight: 0 });
  });

  it('lets nobody hang: enqueuers running during shutdown all finish', async () => {
    const w = new Workload(scaled(50), 13, { capacity: 64 });
    let rounds = 0;
    const enqueuer = async (): Promise<void> => {
      for (;;) {
        rounds++;
        const outcome = await w.claim();
        if (!outcome.ok && outcome.error.kind === 'shutdown') return;
      }
    };
    const enqueuers = Array.from({ length: scaled(200) }, enqueuer);
    await sleep(100);
    const stopped = w.scheduler.shutdown();
    await Promise.all([stopped, ...enqueuers]);
    await w.recycled();
    assert.ok(rounds > enqueuers.length, 'the enqueuers got pods before shutdown');
    assert.equal(w.count('shutdown'), enqueuers.length, 'each enqueuer stopped on its shutdown answer');
    w.checkInvariants();
  });
});
