// View models for the webview tests and bench/webview.ts: a small plan and explanation with hostile
// strings, and generated ones at scale (5,000 nodes, 10,000 pods), shaped as the server builds them.
import type { FunnelView, MatrixRowView, NodeUseView, PlanView, PodExplanationView, UnplacedView } from '../../src/protocol/webview';

export const HOSTILE = '<img src=x onerror=alert(1)>';
const GIB = 1024 ** 3;

function node(
  name: string,
  zone: string,
  cpu: [number, number, number],
  pods: readonly string[],
  owner: string,
  extra: Partial<NodeUseView> = {},
): NodeUseView {
  return {
    node: name,
    zone,
    labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone },
    bound: 3,
    pods,
    owners: pods.length > 0 ? [{ owner, pods }] : [],
    resources: [
      { resource: 'cpu', unit: 'millicores', allocatable: cpu[0], requested: cpu[1], planned: cpu[2] },
      { resource: 'memory', unit: 'bytes', allocatable: 32 * GIB, requested: 4 * GIB, planned: pods.length * GIB },
      { resource: 'pods', unit: 'count', allocatable: 110, requested: 3, planned: pods.length },
    ],
    ...extra,
  };
}

export const setFunnel: FunnelView = {
  subject: 'nightly-batch',
  unit: 'pod × node pairs',
  pods: 5,
  steps: [
    { stage: 'Sort', entered: 15, left: 15, skipped: 0, rejected: [], podsStopped: [] },
    { stage: 'PreFilter', entered: 15, left: 15, skipped: 0, rejected: [], podsStopped: [] },
    {
      stage: 'Filter',
      plugin: 'TaintToleration',
      entered: 15,
      left: 12,
      skipped: 0,
      rejected: [{ reason: 'node(s) had untolerated taint {dedicated: gpu}', count: 3, nodes: ['worker-c'] }],
      podsStopped: [],
    },
    {
      stage: 'Filter',
      plugin: 'NodeResourcesFit',
      entered: 12,
      left: 6,
      skipped: 0,
      rejected: [
        { reason: 'Insufficient cpu', count: 4, nodes: ['worker-a', 'worker-b'] },
        { reason: HOSTILE, count: 2, nodes: [HOSTILE] },
      ],
      podsStopped: ['etl-3', 'feature-store-1'],
    },
    { stage: 'Score', entered: 6, left: 6, skipped: 0, rejected: [], podsStopped: [] },
    {
      stage: 'SelectHost',
      picks: true,
      entered: 6,
      left: 3,
      skipped: 0,
      rejected: [{ reason: 'scored lower than the chosen node', count: 3, nodes: ['worker-b'] }],
      podsStopped: [],
    },
  ],
};

const unplaced: UnplacedView[] = [
  {
    pod: 'etl-3',
    stage: 'Filter',
    plugin: 'NodeResourcesFit',
    reason: 'Insufficient cpu',
    message: '0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}.',
    reasons: [{ reason: 'Insufficient cpu', nodes: 2 }],
  },
  {
    pod: 'etl-4',
    stage: 'Filter',
    plugin: 'NodeResourcesFit',
    reason: 'Insufficient cpu',
    message: '0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint {dedicated: gpu}.',
    reasons: [{ reason: 'Insufficient cpu', nodes: 2 }],
  },
  {
    pod: 'feature-store-1',
    stage: 'Filter',
    plugin: HOSTILE,
    reason: HOSTILE,
    message: `0/3 nodes are available: 3 ${HOSTILE}.`,
    reasons: [{ reason: HOSTILE, nodes: 3 }],
  },
];

export const plan: PlanView = {
  podSet: 'nightly-batch',
  namespace: 'analytics',
  trigger: 'nightly-batch',
  planner: 'greedy',
  profile: 'podset-planner-scheduler',
  createdAt: Date.UTC(2025, 2, 14, 9, 30),
  snapshotHash: 'c0ffee',
  historyId: 42,
  assignments: [
    { pod: 'etl-0', node: 'worker-a', score: 187, owner: 'Job/etl' },
    { pod: 'etl-1', node: 'worker-b', score: 164, owner: 'Job/etl' },
    { pod: HOSTILE, node: 'worker-a', score: 150, owner: 'Job/etl' },
  ],
  nodes: [
    node('worker-a', 'z1', [8000, 2000, 3000], ['etl-0', HOSTILE], 'Job/etl'),
    node('worker-b', 'z2', [4000, 3000, 1500], ['etl-1'], 'Job/etl'),
    node('worker-c', 'z2', [4000, 0, 0], [], '', { labels: { dedicated: 'gpu', [HOSTILE]: HOSTILE }, unschedulable: true }),
  ],
  unplaced,
  unplacedGroups: [
    {
      stage: 'Filter',
      plugin: 'NodeResourcesFit',
      reason: 'Insufficient cpu',
      message: unplaced[0]?.message ?? '',
      pods: ['etl-3', 'etl-4'],
    },
    { stage: 'Filter', plugin: HOSTILE, reason: HOSTILE, message: `0/3 nodes are available: 3 ${HOSTILE}.`, pods: ['feature-store-1'] },
  ],
  funnel: setFunnel,
};

const FILTERS = [
  'NodeUnschedulable',
  'NodeName',
  'TaintToleration',
  'NodeAffinity',
  'NodePorts',
  'NodeResourcesFit',
  'VolumeRestrictions',
  'PodTopologySpread',
  'InterPodAffinity',
];
const SCORERS = [
  { plugin: 'TaintToleration', weight: 3 },
  { plugin: 'NodeAffinity', weight: 2 },
  { plugin: 'NodeResourcesFit', weight: 1 },
  { plugin: 'PodTopologySpread', weight: 2 },
  { plugin: 'InterPodAffinity', weight: 2 },
  { plugin: 'NodeResourcesBalancedAllocation', weight: 1 },
  { plugin: 'ImageLocality', weight: 1 },
];

/** A cycle over `count` nodes: every fifth rejected (by NodeResourcesFit, or a taint), the rest scored. */
export function explanation(count: number, planned = true): PodExplanationView {
  const scored: MatrixRowView[] = [];
  const rejectedRows: MatrixRowView[] = [];
  for (let i = 0; i < count; i++) {
    const name = `node-${String(i).padStart(4, '0')}`;
    if (i % 5 === 4) {
      const taint = i % 10 === 9;
      rejectedRows.push({
        node: name,
        verdict: 'rejected',
        stage: 'Filter',
        plugin: taint ? 'TaintToleration' : 'NodeResourcesFit',
        reasons: [taint ? 'node(s) had untolerated taint {dedicated: gpu}' : 'Insufficient cpu'],
        rejectedAt: taint ? 2 : 5,
      });
      continue;
    }
    const scores = SCORERS.map((s, j): readonly [number, number, number] => {
      const raw = (i * 7 + j * 13) % 101;
      return [raw, raw, raw * s.weight];
    });
    scored.push({ node: name, verdict: 'feasible', scores, total: scores.reduce((t, s) => t + s[2], 0) });
  }
  // As the server sends them: the chosen node, the feasible by rank, then the rejected.
  scored.sort((a, b) => (b.total ?? 0) - (a.total ?? 0) || (a.node < b.node ? -1 : 1));
  const rows: MatrixRowView[] = [
    ...scored.map((r, i): MatrixRowView => ({ ...r, verdict: i === 0 ? 'chosen' : 'feasible', rank: i + 1 })),
    ...rejectedRows,
  ];
  const feasible = rows.filter((r) => r.verdict !== 'rejected');
  const rejected = rows.filter((r) => r.verdict === 'rejected');
  const first = feasible[0]?.node ?? '';
  const target = feasible[Math.min(2, feasible.length - 1)]?.node ?? first;
  return {
    pod: 'etl-0',
    namespace: 'analytics',
    podSet: 'nightly-batch',
    schedulerName: 'podset-planner-scheduler',
    profile: 'podset-planner-scheduler',
    requests: [
      { resource: 'cpu', unit: 'millicores', amount: 1500 },
      { resource: 'memory', unit: 'bytes', amount: 3 * GIB },
    ],
    ...(planned ? { plannedNode: target, plan: 'nightly-batch-plan' } : {}),
    cycle: 'now',
    verdict: planned
      ? `${target}, the planned node, fits: ranked 3 of ${feasible.length} feasible nodes.`
      : `${first}, the chosen node, is where a cycle puts the pod now.`,
    chosenNode: first,
    nodes: { total: count, evaluated: count, feasible: feasible.length },
    filters: FILTERS.map((plugin) => ({ plugin, evaluated: count, passed: count })),
    rejections: [
      {
        stage: 'Filter',
        plugin: 'NodeResourcesFit',
        reason: 'Insufficient cpu',
        nodes: rejected.filter((r) => r.plugin === 'NodeResourcesFit').map((r) => r.node),
      },
      {
        stage: 'Filter',
        plugin: 'TaintToleration',
        reason: 'node(s) had untolerated taint {dedicated: gpu}',
        nodes: rejected.filter((r) => r.plugin === 'TaintToleration').map((r) => r.node),
      },
    ],
    scores: [],
    funnel: {
      subject: 'etl-0',
      unit: 'nodes',
      pods: 1,
      steps: [
        { stage: 'Sort', entered: count, left: count, skipped: 0, rejected: [] },
        { stage: 'PreFilter', entered: count, left: count, skipped: 0, rejected: [] },
        {
          stage: 'Filter',
          plugin: 'TaintToleration',
          entered: count,
          left: count - rejected.length / 2,
          skipped: 0,
          rejected: [
            {
              reason: 'node(s) had untolerated taint {dedicated: gpu}',
              count: rejected.length / 2,
              nodes: rejected.filter((r) => r.plugin === 'TaintToleration').map((r) => r.node),
            },
          ],
        },
        {
          stage: 'Filter',
          plugin: 'NodeResourcesFit',
          entered: count - rejected.length / 2,
          left: feasible.length,
          skipped: 0,
          rejected: [
            {
              reason: 'Insufficient cpu',
              count: rejected.length / 2,
              nodes: rejected.filter((r) => r.plugin === 'NodeResourcesFit').map((r) => r.node),
            },
          ],
        },
        {
          stage: 'Score',
          entered: feasible.length,
          left: 1,
          skipped: 0,
          rejected: [
            { reason: 'scored lower than the chosen node', count: feasible.length - 1, nodes: feasible.slice(1).map((r) => r.node) },
          ],
        },
      ],
    },
    matrix: { filterPlugins: FILTERS, scorePlugins: SCORERS, rows },
  };
}

/** An unplaced pod over the same nodes, every node rejected, with the closest one named. */
export function unplacedExplanation(count: number): PodExplanationView {
  const x = explanation(count, false);
  const rows = x.matrix.rows.map((r): MatrixRowView => ({
    node: r.node,
    verdict: 'rejected',
    stage: 'Filter',
    plugin: 'NodeResourcesFit',
    reasons: ['Insufficient cpu'],
    rejectedAt: 5,
  }));
  const { chosenNode: _chosen, ...rest } = x;
  return {
    ...rest,
    pod: 'etl-3',
    verdict: `No node fits. Closest: node-0002, which passed 5 of 9 filter plugins, then NodeResourcesFit rejected it: Insufficient cpu (short by 200m cpu).`,
    message: `0/${count} nodes are available: ${count} Insufficient cpu.`,
    nodes: { total: count, evaluated: count, feasible: 0 },
    matrix: {
      ...x.matrix,
      rows,
      closest: {
        node: 'node-0002',
        why: 'passed 5 of 9 filter plugins, then NodeResourcesFit rejected it: Insufficient cpu (short by 200m cpu)',
      },
    },
  };
}

/** A plan of `pods` pods over `nodes` nodes in 3 zones, owners by tens, one pod in 50 unplaced for one of 4 reasons. */
export function bigPlan(nodes: number, pods: number): PlanView {
  const REASONS = [
    'Insufficient cpu',
    'Insufficient memory',
    'node(s) had untolerated taint {dedicated: gpu}',
    "node(s) didn't match Pod's node affinity/selector",
  ];
  const names = Array.from({ length: nodes }, (_, i) => `node-${String(i).padStart(4, '0')}`);
  const byNode = new Map<number, string[]>();
  const assignments: PlanView['assignments'][number][] = [];
  const unplacedPods: UnplacedView[] = [];
  for (let p = 0; p < pods; p++) {
    const pod = `app-${Math.floor(p / 10)}-${p % 10}`;
    if (p % 50 === 49) {
      const reason = REASONS[Math.floor(p / 50) % REASONS.length] as string;
      unplacedPods.push({
        pod,
        stage: 'Filter',
        plugin: 'NodeResourcesFit',
        reason,
        message: `0/${nodes} nodes are available: ${nodes} ${reason}.`,
        reasons: [{ reason, nodes }],
      });
      continue;
    }
    const n = (p * 7919) % nodes;
    assignments.push({ pod, node: names[n] as string, score: 100 + (p % 50), owner: `Deployment/app-${Math.floor(p / 10) % 40}` });
    const list = byNode.get(n);
    if (list) list.push(pod);
    else byNode.set(n, [pod]);
  }
  const groups = new Map<string, string[]>();
  for (const u of unplacedPods) groups.set(u.reason, [...(groups.get(u.reason) ?? []), u.pod]);
  return {
    ...plan,
    podSet: 'big-set',
    assignments,
    nodes: names.map((name, i) => {
      const planned = byNode.get(i) ?? [];
      return node(name, `zone-${i % 3}`, [16000, (i * 37) % 12000, planned.length * 500], planned, `Deployment/app-${i % 40}`);
    }),
    unplaced: unplacedPods,
    unplacedGroups: [...groups].map(([reason, podsOf]) => ({
      stage: 'Filter',
      plugin: 'NodeResourcesFit',
      reason,
      message: `0/${nodes} nodes are available: ${nodes} ${reason}.`,
      pods: podsOf,
    })),
    funnel: { ...setFunnel, subject: 'big-set', pods },
  };
}

/** A pod only preemption places: the victims on the chosen node and the candidates that lost, each on its criterion. */
export function preemptingExplanation(): PodExplanationView {
  const x = unplacedExplanation(12);
  const victim = (pod: string, priority: number, violatesPdb = false) => ({ pod, priority, violatesPdb });
  return {
    ...x,
    pod: 'ingest',
    namespace: 'data',
    message: `0/12 nodes are available: 12 Insufficient cpu. ${HOSTILE}`,
    preemption: {
      node: 'node-0002',
      victims: ['data/batch-3', 'data/batch-4'],
      reportOnly: false,
      candidates: [
        { node: 'node-0002', victims: [victim('data/batch-3', 1000), victim('data/batch-4', 1000)], pdbViolations: 0 },
        {
          node: 'node-0005',
          victims: [victim('data/batch-7', 1000), victim('data/batch-8', 1000), victim('data/batch-9', 1000)],
          pdbViolations: 0,
          lostOn: 'smaller sum of victim priorities',
        },
        { node: 'node-0007', victims: [victim('shop/cache-0', 5000)], pdbViolations: 0, lostOn: 'lower highest victim priority' },
        { node: 'node-0009', victims: [victim(`data/${HOSTILE}`, 10, true)], pdbViolations: 1, lostOn: 'fewer PDB violations' },
      ],
      failures: [
        {
          reason: 'No preemption victims found for incoming pod',
          nodes: ['node-0000', 'node-0001', 'node-0003', 'node-0004', 'node-0006', 'node-0008'],
        },
        { reason: 'Insufficient cpu', nodes: ['node-0010', 'node-0011'] },
      ],
    },
  };
}
