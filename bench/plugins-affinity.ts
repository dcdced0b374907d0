// PodTopologySpread and InterPodAffinity alone, on the shapes of upstream's scheduler_perf
// workloads: every measured pod goes through PreFilter, Filter on every node, PreScore, Score and
// NormalizeScore on every feasible node (no sampling: the worst case), and is then bound to the
// best node so the next pod sees it. Resources are left out (these figures are the two plugins'),
// except that a node takes at most 110 pods and ties go to the emptiest node, roughly what
// NodeResourcesFit would add.
import { InMemoryBinder } from '../src/engine/framework/binder';
import { performance } from 'node:perf_hooks';
import { argsErrorText } from '../src/engine/api/field';
import { seededRandom } from '../src/engine/api/random';
import { type Node, type Pod, type PodAffinityTerm } from '../src/engine/api/types';
import { CycleState } from '../src/engine/framework/cycle-state';
import {
  type FilterPlugin,
  type FrameworkHandle,
  type NodeScore,
  type PluginFactory,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../src/engine/framework/interfaces';
import { podInfo, type NodeInfo } from '../src/engine/framework/node-info';
import { Snapshot } from '../src/engine/framework/snapshot';
import { Code } from '../src/engine/framework/status';
import * as InterPodAffinity from '../src/engine/plugins/interpodaffinity/plugin';
import * as PodTopologySpread from '../src/engine/plugins/podtopologyspread/plugin';
import { type Benchmark } from './benchmark';

type FullPlugin = PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin;

const ZONE = 'topology.kubernetes.io/zone';
const HOSTNAME = 'kubernetes.io/hostname';
const ZONES = 3;
const MAX_PODS = 110;

function makeNodes(count: number): Node[] {
  return Array.from({ length: count }, (_, i) => ({
    metadata: { name: `node-${i}`, labels: { [HOSTNAME]: `node-${i}`, [ZONE]: `zone-${i % ZONES}` } },
    status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
  }));
}

function makePod(name: string, shape: (pod: Pod) => Pod): Pod {
  return shape({
    metadata: { name, namespace: 'sched-0', uid: name },
    spec: { containers: [{ name: 'c', resources: { requests: { cpu: '100m', memory: '500Mi' } } }] },
  });
}

const required = (labelKey: string, value: string, topologyKey: string): PodAffinityTerm => ({
  labelSelector: { matchExpressions: [{ key: labelKey, operator: 'In', values: [value] }] },
  topologyKey,
});

/** The shapes of scheduler_perf's pod templates for these workloads. */
const shapes = {
  spreading: (pod: Pod): Pod => ({
    ...pod,
    metadata: { ...pod.metadata, labels: { color: 'blue' } },
    spec: {
      ...pod.spec,
      topologySpreadConstraints: [
        { maxSkew: 5, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { color: 'blue' } } },
      ],
    },
  }),
  affinity: (pod: Pod): Pod => ({
    ...pod,
    metadata: { ...pod.metadata, labels: { color: 'blue' } },
    spec: { ...pod.spec, affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [required('color', 'blue', ZONE)] } } },
  }),
  antiAffinity: (pod: Pod): Pod => ({
    ...pod,
    metadata: { ...pod.metadata, labels: { color: 'green' } },
    spec: {
      ...pod.spec,
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [required('color', 'green', HOSTNAME)] } },
    },
  }),
  plain: (pod: Pod): Pod => pod,
};

interface Workload {
  readonly name: string;
  readonly factory: PluginFactory;
  readonly nodes: number;
  readonly existing: number;
  readonly existingShape: (pod: Pod) => Pod;
  readonly measured: number;
  readonly measuredShape: (pod: Pod) => Pod;
}

const workloads: Workload[] = [
  {
    name: 'TopologySpreading',
    factory: PodTopologySpread.factory,
    nodes: 5000,
    existing: 5000,
    existingShape: shapes.plain,
    measured: 5000,
    measuredShape: shapes.spreading,
  },
  {
    name: 'PodAffinity',
    factory: InterPodAffinity.factory,
    nodes: 5000,
    existing: 5000,
    existingShape: shapes.affinity,
    measured: 5000,
    measuredShape: shapes.affinity,
  },
  {
    name: 'PodAntiAffinity',
    factory: InterPodAffinity.factory,
    nodes: 5000,
    existing: 1000,
    existingShape: shapes.antiAffinity,
    measured: 2000,
    measuredShape: shapes.antiAffinity,
  },
];

function bind(snapshot: Snapshot, node: NodeInfo, pod: Pod): void {
  const info = podInfo({ ...pod, spec: { ...pod.spec, nodeName: node.name } });
  if (!info.ok) throw new Error(info.error);
  node.addPod(info.value);
  snapshot.invalidate();
}

/** One cycle of the plugin's stages; the chosen node, or undefined when none is feasible. */
function schedule(plugin: FullPlugin, snapshot: Snapshot, pod: Pod): NodeInfo | undefined {
  const info = podInfo(pod);
  if (!info.ok) throw new Error(info.error);
  const state = new CycleState();
  const nodes = snapshot.list();
  const pre = plugin.preFilter(state, info.value, nodes);
  const fits = (n: NodeInfo) =>
    n.pods.length < MAX_PODS && (pre.status.code === Code.Skip || plugin.filter(state, info.value, n).code === Code.Success);
  const feasible = nodes.filter(fits);
  if (feasible.length === 0) return undefined;
  const skipScore = plugin.preScore(state, info.value, feasible).code === Code.Skip;
  const scores: NodeScore[] = feasible.map((n) => ({
    name: n.name,
    score: skipScore ? 0 : (plugin.score(state, info.value, n) as number),
  }));
  if (!skipScore) plugin.normalizeScore?.(state, info.value, scores);
  let best = 0;
  scores.forEach((s, i) => {
    const current = scores[best] as NodeScore;
    if (
      s.score > current.score ||
      (s.score === current.score && (feasible[i] as NodeInfo).pods.length < (feasible[best] as NodeInfo).pods.length)
    )
      best = i;
  });
  return feasible[best];
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

function run(w: Workload): void {
  const random = seededRandom(42);
  const snapshot = Snapshot.fromCluster({ nodes: makeNodes(w.nodes), pods: [] });
  if (!snapshot.ok) throw new Error(snapshot.error);
  const s = snapshot.value;
  const nodes = s.list();
  for (let i = 0; i < w.existing; i++) bind(s, nodes[random.int(nodes.length)] as NodeInfo, makePod(`init-${i}`, w.existingShape));
  const handle: FrameworkHandle = { snapshot: () => s, random, binder: new InMemoryBinder() };
  const made = w.factory(undefined, handle);
  if (!made.ok) throw new Error(argsErrorText(made.error));
  const plugin = made.value as FullPlugin;

  const times: number[] = [];
  let unplaced = 0;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < w.measured; i++) {
    const pod = makePod(`pod-${i}`, w.measuredShape);
    const t0 = performance.now();
    const node = schedule(plugin, s, pod);
    times.push(performance.now() - t0);
    if (node) bind(s, node, pod);
    else unplaced++;
  }
  const elapsed = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  times.sort((a, b) => a - b);
  console.log(
    `workload: ${w.nodes} nodes, ${w.existing} existing pods, ${w.measured} measured pods (${ZONES} zones), plugin ${made.value.name} only, Filter on every node`,
  );
  // CPU time is printed beside wall time because a shared machine's wall time says little.
  console.log(
    `${(w.measured / elapsed).toFixed(0)} pods/s wall (${(w.measured / ((cpu.user + cpu.system) / 1e6)).toFixed(0)} pods per CPU second), ` +
      `decision p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms (wall), unplaced ${unplaced}`,
  );
}

export const benchmarks: readonly Benchmark[] = workloads.map((w) => ({ name: `plugins/${w.name}`, run: async () => run(w) }));
