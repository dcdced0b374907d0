// Synthetic plans with diagnoses in the shape of src/engine/framework/diagnosis.ts, for the store's
// tests, its child processes and its benchmark. Seeded, so every run writes the same plan.
import { seededRandom, type Random } from '../../src/engine/api/random';
import type { Diagnosis, NodeRejection, NodeScoreRecord } from '../../src/engine/framework/diagnosis';
import { Code } from '../../src/engine/framework/status';
import type { Plan } from '../../src/engine/planner/plan';

export interface SyntheticPlan {
  readonly podSet?: string;
  readonly namespace?: string;
  readonly trigger?: string;
  /** Pods in the set; the last `unplaced` of them are not placed. */
  readonly pods: number;
  readonly unplaced?: number;
  readonly nodes: number;
  /** Nodes a placed pod's cycle rejected before finding feasible ones. */
  readonly rejections?: number;
  /** Nodes an unplaced pod's diagnosis lists as rejected (default: every node). */
  readonly unplacedRejections?: number;
  /** Scored nodes kept in each placed pod's diagnosis. */
  readonly scores?: number;
  readonly seed?: number;
  readonly createdAt?: number;
}

const REASONS: ReadonlyArray<Pick<NodeRejection, 'plugin' | 'code' | 'reasons'>> = [
  { plugin: 'NodeResourcesFit', code: Code.Unschedulable, reasons: ['Insufficient cpu'] },
  { plugin: 'NodeResourcesFit', code: Code.Unschedulable, reasons: ['Insufficient memory'] },
  { plugin: 'TaintToleration', code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) had untolerated taint {dedicated: gpu}'] },
];

const SCORE_PLUGINS = ['NodeResourcesFit', 'NodeResourcesBalancedAllocation', 'ImageLocality', 'TaintToleration'];

export const nodeName = (i: number): string => `node-${String(i).padStart(4, '0')}`;

/** One string per node, shared by every diagnosis, as the engine's NodeInfos share their node's name. */
function nodeNames(count: number): readonly string[] {
  return Array.from({ length: count }, (_, i) => nodeName(i));
}

export function syntheticPlan(o: SyntheticPlan): Plan {
  const random = seededRandom(o.seed ?? 1);
  const podSet = o.podSet ?? 'web';
  const namespace = o.namespace ?? 'default';
  const unplacedCount = o.unplaced ?? 0;
  const placedCount = o.pods - unplacedCount;
  const pods = Array.from({ length: o.pods }, (_, i) => `${podSet}-${i}`);
  const nodes = nodeNames(o.nodes);
  return {
    podSet,
    namespace,
    ...(o.trigger !== undefined ? { trigger: o.trigger } : {}),
    planner: 'default',
    profile: 'default-scheduler',
    createdAt: o.createdAt ?? 1_700_000_000_000,
    snapshotHash: `sha256:${(o.seed ?? 1).toString(16).padStart(8, '0')}`,
    assignments: pods.slice(0, placedCount).map((pod) => {
      const node = nodes[random.int(o.nodes)]!;
      return { pod, node, diagnosis: diagnosis(random, `${namespace}/${pod}`, nodes, o.rejections ?? 5, o.scores ?? 5, node) };
    }),
    unplaced: pods.slice(placedCount).map((pod) => {
      const d = diagnosis(random, `${namespace}/${pod}`, nodes, o.unplacedRejections ?? o.nodes, 0);
      return { pod, message: d.message ?? '', diagnosis: d };
    }),
  };
}

function diagnosis(random: Random, pod: string, names: readonly string[], rejected: number, scored: number, chosen?: string): Diagnosis {
  const nodes = names.length;
  const start = random.int(nodes);
  const rejections: NodeRejection[] = Array.from({ length: Math.min(rejected, nodes) }, (_, i) => ({
    node: names[(start + i) % nodes]!,
    stage: 'Filter',
    ...REASONS[random.int(REASONS.length)]!,
  }));
  const scores: NodeScoreRecord[] = Array.from({ length: scored }, (_, i) => {
    const plugins = SCORE_PLUGINS.map((plugin) => {
      const normalized = random.int(101);
      return { plugin, raw: normalized * 3, normalized, weight: 1, weighted: normalized };
    });
    return { node: i === 0 && chosen ? chosen : names[random.int(nodes)]!, total: plugins.reduce((t, p) => t + p.weighted, 0), plugins };
  }).sort((a, b) => b.total - a.total);
  const counts = new Map<string, number>();
  for (const r of rejections) for (const reason of r.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const placed = chosen !== undefined;
  return {
    pod,
    profile: 'default-scheduler',
    nodesTotal: nodes,
    nodesEvaluated: placed ? Math.min(nodes, rejected + scored) : nodes,
    feasibleNodes: scored,
    status: placed
      ? { code: Code.Success, reasons: [] }
      : { code: Code.Unschedulable, reasons: [...counts.keys()], plugin: 'NodeResourcesFit', stage: 'Filter' },
    ...(placed ? { chosenNode: chosen } : {}),
    rejections,
    filters: ['NodeUnschedulable', 'NodeResourcesFit', 'TaintToleration', 'NodeAffinity'].map((plugin, i) => ({
      plugin,
      evaluated: nodes,
      passed: nodes - Math.floor(rejected / (i + 1)),
    })),
    scores,
    stages: [{ stage: 'PreFilter', plugin: 'NodeResourcesFit', status: { code: Code.Success, reasons: [] } }],
    ...(placed
      ? {}
      : {
          message: `0/${nodes} nodes are available: ${[...counts]
            .sort((a, b) => b[1] - a[1])
            .map(([reason, n]) => `${n} ${reason}`)
            .join(', ')}.`,
        }),
  };
}
