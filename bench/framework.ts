// The framework runtime on a 5,000-node snapshot: one scheduling cycle per pod (PreFilter, adaptive
// sampling, Filter, Score + NormalizeScore, host selection, Diagnosis), with stand-in plugins of the
// real ones' cost shape (constant work per node), so the figure is the runtime's own overhead.
import { seededRandom } from '../src/engine/api/random';
import { ok } from '../src/engine/api/result';
import type { Node } from '../src/engine/api/types';
import { CycleState } from '../src/engine/framework/cycle-state';
import type { FilterPlugin, Plugin, QueueSortPlugin, ScorePlugin } from '../src/engine/framework/interfaces';
import { NodeInfo, podInfo, type PodInfo } from '../src/engine/framework/node-info';
import type { Profile } from '../src/engine/framework/profile';
import { Registry } from '../src/engine/framework/registry';
import { Framework } from '../src/engine/framework/runtime';
import { Snapshot } from '../src/engine/framework/snapshot';
import { SUCCESS, unresolvable, unschedulable } from '../src/engine/framework/status';
import type { Benchmark } from './benchmark';

const NODES = 5000;
const PODS = 20000;

const sort: QueueSortPlugin = { name: 'Sort', less: (a, b) => a.timestamp < b.timestamp };
const cordon: FilterPlugin = {
  name: 'Cordon',
  filter: (_s, _p, n) => (n.node.spec?.unschedulable ? unresolvable('node(s) were unschedulable') : SUCCESS),
};
const fit: FilterPlugin = {
  name: 'Fit',
  filter: (_s, pod, n) =>
    n.requested.milliCPU + pod.requests.milliCPU > n.allocatable.milliCPU
      ? unschedulable('Insufficient cpu')
      : n.requested.memory + pod.requests.memory > n.allocatable.memory
        ? unschedulable('Insufficient memory')
        : SUCCESS,
};
const leastAllocated: ScorePlugin = {
  name: 'LeastAllocated',
  score: (_s, pod, n) => {
    const cpu = (n.allocatable.milliCPU - n.requested.milliCPU - pod.nonZero.milliCPU) / n.allocatable.milliCPU;
    const memory = (n.allocatable.memory - n.requested.memory - pod.nonZero.memory) / n.allocatable.memory;
    return Math.max(0, Math.floor(((cpu + memory) / 2) * 100));
  },
};
const spread: ScorePlugin = {
  name: 'Spread',
  score: (_s, _p, n) => n.pods.length,
  normalizeScore: (_s, _p, scores) => {
    let max = 0;
    for (const s of scores) if (s.score > max) max = s.score;
    for (const s of scores) s.score = max === 0 ? 100 : 100 - Math.floor((s.score * 100) / max);
    return SUCCESS;
  },
};

function snapshot(): Snapshot {
  const infos: NodeInfo[] = [];
  for (let i = 0; i < NODES; i++) {
    const node: Node = {
      metadata: { name: `node-${i}`, labels: { zone: `z${i % 3}` } },
      spec: i % 10 === 0 ? { unschedulable: true } : {},
      status: { allocatable: { cpu: String(4 + (i % 8) * 4), memory: `${16 + (i % 4) * 16}Gi`, pods: '110' } },
    } as Node;
    infos.push(new NodeInfo(node));
  }
  return new Snapshot(infos);
}

function framework(profile: Omit<Profile, 'schedulerName' | 'plugins'>): Framework {
  const plugins: Plugin[] = [sort, cordon, fit, leastAllocated, spread];
  const registry = new Registry();
  for (const p of plugins) registry.register(p.name, () => ok(p));
  const built = Framework.build(
    registry,
    { schedulerName: 'bench', ...profile, plugins: { multiPoint: { enabled: plugins.map(({ name }) => ({ name })) } } },
    { random: seededRandom(1) },
  );
  if (!built.ok) throw new Error(built.error.map((e) => e.message).join('\n'));
  return built.value;
}

function pod(cpu: string): PodInfo {
  const info = podInfo({
    metadata: { name: `web-${cpu}`, namespace: 'default' },
    spec: { containers: [{ name: 'main', resources: { requests: { cpu, memory: '1Gi' } } }] },
  });
  if (!info.ok) throw new Error(info.error);
  return info.value;
}

function run(what: string, fw: Framework, info: PodInfo, pods: number): void {
  const snap = snapshot();
  let placed = 0;
  let evaluated = 0;
  for (let i = 0; i < 200; i++) fw.scheduleOne(new CycleState(), info, snap); // warm-up
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < pods; i++) {
    const result = fw.scheduleOne(new CycleState(), info, snap);
    if (result.ok) placed++;
    evaluated += result.evaluatedNodes;
  }
  const cpu = process.cpuUsage(cpuStart);
  const ms = performance.now() - start;
  // CPU time as well as wall time: on a shared machine the wall clock also counts other processes.
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `${what}: ${pods} pods, ${(evaluated / pods).toFixed(0)} nodes evaluated per pod, ${placed} placed → ` +
      `${Math.round((pods / cpuMs) * 1000)} pods per CPU-second (${((cpuMs * 1000) / pods).toFixed(1)} µs/pod), ${Math.round((pods / ms) * 1000)} pods/s wall`,
  );
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'framework/scheduleOne',
    async run() {
      console.log(
        'workload: 5,000 nodes (10% cordoned, 4–32 cpu), filters Cordon + Fit, scores LeastAllocated + Spread (normalized), adaptive sampling',
      );
      run('placed, top 3 score records', framework({ recordScores: 3 }), pod('500m'), PODS);
      run('placed, every score recorded', framework({}), pod('500m'), PODS / 4);
      run('unschedulable (every node rejected), FitError message', framework({ recordScores: 3 }), pod('64'), PODS / 20);
    },
  },
];
