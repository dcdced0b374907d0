// Per-plugin cost of the default plugins on scheduler_perf's node and pod templates: for each plugin,
// PreFilter/PreScore once per pod and Filter/Score on every node, reported as nanoseconds per node.
// This is the plugins' share of a scheduling cycle, measured without the framework around them, in
// CPU time of this process (so other load on the machine counts less than with wall-clock time).
import { cpuUsage } from 'node:process';
import { argsErrorText } from '../src/engine/api/field';
import { seededRandom } from '../src/engine/api/random';
import type { Node, Pod } from '../src/engine/api/types';
import { InMemoryBinder } from '../src/engine/framework/binder';
import { CycleState } from '../src/engine/framework/cycle-state';
import type {
  FilterPlugin,
  FrameworkHandle,
  NodeScore,
  Plugin,
  PluginFactory,
  PreFilterPlugin,
  PreScorePlugin,
  ScorePlugin,
} from '../src/engine/framework/interfaces';
import { podInfo, type NodeInfo, type PodInfo } from '../src/engine/framework/node-info';
import { Snapshot } from '../src/engine/framework/snapshot';
import { SUCCESS } from '../src/engine/framework/status';
import * as ImageLocality from '../src/engine/plugins/ImageLocality';
import * as NodeAffinity from '../src/engine/plugins/NodeAffinity';
import * as NodeName from '../src/engine/plugins/NodeName';
import * as NodePorts from '../src/engine/plugins/NodePorts';
import * as NodeResourcesBalancedAllocation from '../src/engine/plugins/NodeResourcesBalancedAllocation';
import * as NodeResourcesFit from '../src/engine/plugins/NodeResourcesFit';
import * as NodeUnschedulable from '../src/engine/plugins/NodeUnschedulable';
import * as TaintToleration from '../src/engine/plugins/TaintToleration';
import type { Benchmark } from './benchmark';

const NODES = 5000;
const EXISTING_PODS = 1000;
const MEASURED_PODS = 200;

type AnyPlugin = Plugin & Partial<PreFilterPlugin & FilterPlugin & PreScorePlugin & ScorePlugin>;

/** scheduler_perf's node template: 4 cpu, 32Gi, 110 pods; a zone label for the affinity shape. */
function node(i: number): Node {
  return {
    metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
    status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
  };
}

/** scheduler_perf's pod template: 100m cpu, 500Mi, containerPort 80. */
function pod(name: string, extra: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', uid: name },
    spec: {
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10',
          resources: { requests: { cpu: '100m', memory: '500Mi' } },
          ports: [{ containerPort: 80 }],
        },
      ],
      ...extra,
    },
  };
}

function snapshot(): Snapshot {
  const pods = Array.from({ length: EXISTING_PODS }, (_, i) => ({
    ...pod(`existing-${i}`),
    spec: { ...pod(`existing-${i}`).spec, nodeName: `node-${i % NODES}` },
  }));
  const built = Snapshot.fromCluster({ nodes: Array.from({ length: NODES }, (_, i) => node(i)), pods });
  if (!built.ok) throw new Error(built.error);
  return built.value;
}

function infoOf(p: Pod): PodInfo {
  const info = podInfo(p);
  if (!info.ok) throw new Error(info.error);
  return info.value;
}

/** Runs every stage the plugin has for `pods` over all nodes; nanoseconds per (pod, node). */
function measure(plugin: AnyPlugin, pods: readonly PodInfo[], nodes: readonly NodeInfo[]): number {
  const scores: NodeScore[] = nodes.map((n) => ({ name: n.name, score: 0 }));
  let sink = 0;
  const start = cpuUsage();
  for (const p of pods) {
    const state = new CycleState();
    const pre = plugin.preFilter?.(state, p, nodes);
    if (plugin.filter && pre?.status.code !== 'Skip') for (const n of nodes) sink += plugin.filter(state, p, n).reasons.length;
    if (!plugin.score || plugin.preScore?.(state, p, nodes).code === 'Skip') continue;
    for (let i = 0; i < nodes.length; i++) {
      const s = plugin.score(state, p, nodes[i] as NodeInfo);
      (scores[i] as NodeScore).score = typeof s === 'number' ? s : 0;
    }
    plugin.normalizeScore?.(state, p, scores);
    sink += scores[0]?.score ?? 0;
  }
  const used = cpuUsage(start);
  if (sink < 0) console.log(sink);
  return ((used.user + used.system) * 1e3) / (pods.length * nodes.length);
}

function build(factory: PluginFactory, handle: FrameworkHandle): AnyPlugin {
  const built = factory(undefined, handle);
  if (!built.ok) throw new Error(argsErrorText(built.error));
  return built.value as AnyPlugin;
}

function run(shape: string, makePod: (i: number) => Pod): void {
  const snap = snapshot();
  const handle: FrameworkHandle = { snapshot: () => snap, random: seededRandom(1), binder: new InMemoryBinder() };
  const nodes = snap.list();
  const pods = Array.from({ length: MEASURED_PODS }, (_, i) => infoOf(makePod(i)));
  const modules = [
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    NodeResourcesBalancedAllocation,
    ImageLocality,
  ];
  console.log(`${shape}: ${NODES} nodes, ${EXISTING_PODS} existing pods, ${MEASURED_PODS} pods each filtered and scored on every node`);
  // The harness's own cost per node (calls through the same call sites), to read the rows against.
  const noop: AnyPlugin = { name: 'no-op', filter: () => SUCCESS, score: () => 0 };
  measure(noop, pods.slice(0, 20), nodes);
  console.log(`  ${'(harness: a no-op filter+score)'.padEnd(32)} ${measure(noop, pods, nodes).toFixed(1).padStart(7)} ns/node`);
  let total = 0;
  for (const mod of modules) {
    const plugin = build(mod.factory, handle);
    measure(plugin, pods.slice(0, 20), nodes); // warm-up
    const ns = measure(plugin, pods, nodes);
    total += ns;
    console.log(`  ${mod.NAME.padEnd(32)} ${ns.toFixed(1).padStart(7)} ns/node`);
  }
  console.log(
    `  ${'all of the above'.padEnd(32)} ${total.toFixed(1).padStart(7)} ns/node → ${((total * NODES) / 1e6).toFixed(2)} ms per pod over ${NODES} nodes`,
  );
}

export const benchmarks: readonly Benchmark[] = [
  { name: 'plugins: SchedulingBasic shape', run: async () => run('SchedulingBasic', (i) => pod(`measured-${i}`)) },
  {
    name: 'plugins: NodeAffinity shape',
    run: async () =>
      run('NodeAffinity', (i) =>
        pod(`measured-${i}`, {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [
                  { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-0', 'zone-1'] }] },
                ],
              },
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 10,
                  preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-1'] }] },
                },
              ],
            },
          },
        }),
      ),
  },
];
