// The scheduling loop on upstream's scheduler_perf shapes (bench/workloads/scheduler-perf.ts): the
// existing pods are bound first, then the measured pods are scheduled one by one through the queue,
// the default profile's plugins, the cache's assume/confirm and an in-memory binder. Prints pods/s
// and the per-pod decision time (p50/p99), and the threshold upstream's CI holds the same shape to.
import { cpuUsage } from 'node:process';
import { ManualClock } from '../src/engine/api/clock';
import { seededRandom } from '../src/engine/api/random';
import type { Pod } from '../src/engine/api/types';
import { ClusterCache } from '../src/engine/cache/cache';
import { Framework } from '../src/engine/framework/runtime';
import { DEFAULT_PROFILE } from '../src/engine/plugins/defaults';
import { inTreeRegistry } from '../src/engine/plugins/registry';
import { Scheduler } from '../src/engine/scheduler/scheduler';
import type { Benchmark } from './benchmark';
import { schedulerPerfWorkloads, type Workload } from './workloads/scheduler-perf';

/**
 * Upstream's CI thresholds (pods/s) for the same shapes, from test/integration/scheduler_perf/*
 * /performance-config.yaml on master: misc (SchedulingBasic 5000Nodes_10000Pods, PreemptionAsync
 * 5000Nodes), affinity (SchedulingNodeAffinity 5000Nodes_10000Pods, SchedulingPodAffinity
 * 5000Nodes_5000Pods, SchedulingPodAntiAffinity 5000Nodes_2000Pods), topology_spreading
 * (TopologySpreading 5000Nodes_5000Pods). PreemptionBasic/1000Nodes has none there.
 */
const UPSTREAM_THRESHOLD: Readonly<Record<string, number | undefined>> = {
  SchedulingBasic: 680,
  NodeAffinity: 220,
  TopologySpreading: 460,
  PodAffinity: 35,
  PodAntiAffinity: 60,
  PreemptionBasic: undefined,
  PreemptionAsync: 570,
};

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

async function run(workload: Workload): Promise<void> {
  console.log(`workload: ${workload.description}`);
  const registry = inTreeRegistry();
  if (!registry.ok) throw new Error(registry.error);
  // Upstream's scheduler_perf keeps score records off the hot path too: record the top 3 only.
  const framework = Framework.build(registry.value, { ...DEFAULT_PROFILE, recordScores: 3 }, { random: seededRandom(1) });
  if (!framework.ok) throw new Error(framework.error.map((e) => e.message).join('; '));
  const clock = new ManualClock(0);
  const cache = new ClusterCache({ clock, assumedPodTtlMs: 0 });
  const scheduler = new Scheduler({ framework: framework.value, cache, clock });
  for (const node of workload.nodes) scheduler.onNodeAdd(node);
  // Existing pods are scheduled too (upstream creates them through the scheduler), unmeasured.
  for (const pod of workload.initPods) scheduler.onPodAdd(pod);
  await scheduler.runUntilIdle(clock);
  const initPlaced = [...scheduler.outcomes.values()].filter((o) => o.node).length;
  scheduler.outcomes.clear();

  const measured: Pod[] = [...workload.measuredPods];
  for (const pod of measured) scheduler.onPodAdd(pod);
  const churn = [...(workload.churn?.pods ?? [])];
  const times: number[] = [];
  const cpuStart = cpuUsage();
  const wallStart = performance.now();
  for (let cycles = 0; ; cycles++) {
    if (workload.churn && cycles % (workload.churn.every + 1) === workload.churn.every) {
      const next = churn.shift();
      if (next) scheduler.onPodAdd(next);
    }
    const t0 = performance.now();
    const outcome = await scheduler.scheduleNext();
    if (!outcome) break;
    times.push(performance.now() - t0);
  }
  const wallMs = performance.now() - wallStart;
  const cpu = cpuUsage(cpuStart);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const measuredKeys = new Set(measured.map((p) => `${p.metadata.namespace}/${p.metadata.name}`));
  const placed = [...scheduler.outcomes.values()].filter((o) => o.node && measuredKeys.has(o.pod)).length;
  const preemptors = [...scheduler.outcomes.values()].filter((o) => o.victims?.length).length;
  times.sort((a, b) => a - b);
  const podsPerSecond = (measured.length / wallMs) * 1000;
  const threshold = UPSTREAM_THRESHOLD[workload.name];
  console.log(`  existing pods placed: ${initPlaced}/${workload.initPods.length}; measured pods placed: ${placed}/${measured.length}`);
  if (scheduler.preempted.length > 0)
    console.log(`  preemptions: ${preemptors} pods placed by evicting ${scheduler.preempted.length} pods`);
  console.log(`  ${podsPerSecond.toFixed(0)} pods/s wall (${((measured.length / cpuMs) * 1000).toFixed(0)} pods per CPU-second)`);
  console.log(`  decision time per pod: p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms`);
  if (threshold) console.log(`  upstream CI threshold ${threshold} pods/s → ${(podsPerSecond / threshold).toFixed(1)}x (target 10x)`);
  else console.log('  upstream CI sets no threshold for this workload');
}

const NAMES = Object.keys(UPSTREAM_THRESHOLD);
/** Made when its benchmark runs, so no other workload's objects are held meanwhile. */
const workload = (name: string): Workload => {
  const found = schedulerPerfWorkloads(SCALE).find((w) => w.name === name);
  if (!found) throw new Error(`no workload ${name}`);
  return found.make();
};

export const benchmarks: readonly Benchmark[] = NAMES.map((name) => ({ name: `scheduler ${name}`, run: () => run(workload(name)) }));
