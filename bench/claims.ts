// Claim scheduler throughput and latency: many concurrent claimers on a warm pool in memory whose
// compare-and-swap takes 1-5 ms (seeded), each claimer putting its pod back Idle once it has it.
import { seededRandom } from '../src/engine/api/random';
import { ClaimScheduler, claimRequest, CLAIM_DEFAULTS, InMemoryPoolTarget, type PoolTarget } from '../src/engine/claims';
import { systemClock } from '../src/platform/clock';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** With `recycle`, each claimer puts its pod back Idle at once (so fewer pods serve all requests). */
async function claimWorkload(requests: number, pods: number, recycle: boolean, seed: number): Promise<void> {
  const random = seededRandom(seed);
  const pool = new InMemoryPoolTarget(systemClock);
  for (let i = 0; i < pods; i++) pool.add(`pod-${i}`);
  const slowTarget: PoolTarget = {
    listIdle: () => pool.listIdle(),
    swap: async (request) => {
      await sleep(1 + random.int(5));
      return pool.swap(request);
    },
  };
  const scheduler = new ClaimScheduler({ pool: 'bench', target: slowTarget, clock: systemClock });
  let refused = 0;
  const claimOne = async (i: number): Promise<number> => {
    const started = performance.now();
    const { request, answer } = claimRequest({ id: `r${i}` });
    while (!scheduler.enqueue(request)) {
      refused++;
      await sleep(1);
    }
    const outcome = await answer;
    const latency = performance.now() - started;
    if (!outcome.ok) throw new Error(`claim ${i} failed: ${outcome.error.message}`);
    if (recycle) {
      pool.setPhase(outcome.value.uid, 'Idle');
      scheduler.notifyIdle();
    }
    return latency;
  };

  const started = performance.now();
  const latencies = (await Promise.all(Array.from({ length: requests }, (_, i) => claimOne(i)))).sort((a, b) => a - b);
  const elapsed = performance.now() - started;
  const { conflicts } = scheduler.snapshot();
  await scheduler.shutdown();

  const d = CLAIM_DEFAULTS;
  console.log(
    `workload: ${requests} concurrent claim requests on ${pods} idle pods, in-memory target, swap latency 1-5 ms (seed ${seed}); ` +
      (recycle ? 'each claimer puts its pod back Idle and calls notifyIdle() as soon as it has it; ' : 'no recycling; ') +
      `scheduler defaults (capacity ${d.capacity}, ${d.maxInFlight} swaps in flight, idle refresh ${d.idleRefreshDelayMs} ms, reservation TTL ${d.reservationTtlMs} ms); real clock`,
  );
  console.log(`claims/second: ${((requests / elapsed) * 1000).toFixed(0)} (${requests} claims in ${elapsed.toFixed(0)} ms)`);
  console.log(
    `claim latency (enqueue to answer): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${percentile(latencies, 100).toFixed(1)} ms`,
  );
  console.log(`enqueues refused by back-pressure (retried after 1 ms): ${refused}; swap conflicts: ${conflicts}`);
}

export const benchmarks: Array<{ name: string; run(): Promise<void> }> = [
  { name: 'claims: 2000 requests on 500 recycled pods', run: () => claimWorkload(2000, 500, true, 1) },
  // The same without waiting for recycled pods: what the dispatch and the swaps in flight allow.
  { name: 'claims: 2000 requests on 2000 pods', run: () => claimWorkload(2000, 2000, false, 1) },
];
