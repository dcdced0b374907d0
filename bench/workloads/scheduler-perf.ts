// The shapes of upstream's scheduler_perf workloads (test/integration/scheduler_perf), generated in
// process: node template 4 cpu / 32Gi / 110 pods, pod template 100m cpu / 500Mi / containerPort 80,
// node labels assigned from a value list by a seeded random source as upstream's
// LabelNodePrepareStrategy does.
import { seededRandom } from '../../src/engine/api/random';
import type { Affinity, Node, Pod, TopologySpreadConstraint } from '../../src/engine/api/types';

export interface Workload {
  readonly name: string;
  readonly nodes: readonly Node[];
  /** Pods created (and scheduled) before measuring. */
  readonly initPods: readonly Pod[];
  /** The pods whose scheduling is measured. */
  readonly measuredPods: readonly Pod[];
  /**
   * Pods created while the measured ones are scheduled, one after every `every` measured pods
   * (upstream's churn op at a fixed rate), scheduled but not counted.
   */
  readonly churn?: { readonly pods: readonly Pod[]; readonly every: number };
  /** One line saying what it is, printed with the figures. */
  readonly description: string;
}

const ZONE = 'topology.kubernetes.io/zone';
const HOSTNAME = 'kubernetes.io/hostname';

function makeNodes(count: number, zoneValues: readonly string[] | undefined, seed: number): Node[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const name = `node-${i}`;
    const labels: Record<string, string> = { [HOSTNAME]: name };
    if (zoneValues) labels[ZONE] = zoneValues[random.int(zoneValues.length)] ?? '';
    return {
      metadata: { name, uid: `node-uid-${i}`, labels },
      status: {
        capacity: { cpu: '4', memory: '32Gi', pods: '110' },
        allocatable: { cpu: '4', memory: '32Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    };
  });
}

interface PodShape {
  readonly prefix: string;
  readonly namespace: string;
  readonly labels?: Record<string, string>;
  readonly affinity?: Affinity;
  readonly spread?: readonly TopologySpreadConstraint[];
  /** cpu request and limit (templates/pod-default.yaml: 100m). */
  readonly cpu?: string;
  readonly priority?: number;
}

function makePods(count: number, shape: PodShape): Pod[] {
  return Array.from({ length: count }, (_, i) => ({
    metadata: {
      name: `${shape.prefix}-${i}`,
      namespace: shape.namespace,
      uid: `${shape.namespace}-${shape.prefix}-${i}`,
      ...(shape.labels ? { labels: shape.labels } : {}),
    },
    spec: {
      containers: [
        {
          name: 'pause',
          image: 'registry.k8s.io/pause:3.10',
          ports: [{ containerPort: 80 }],
          resources: { requests: { cpu: shape.cpu ?? '100m', memory: '500Mi' }, limits: { cpu: shape.cpu ?? '100m', memory: '500Mi' } },
        },
      ],
      ...(shape.priority !== undefined ? { priority: shape.priority } : {}),
      ...(shape.affinity ? { affinity: shape.affinity } : {}),
      ...(shape.spread ? { topologySpreadConstraints: shape.spread } : {}),
    },
    status: { phase: 'Pending' },
  }));
}

const nodeAffinity: Affinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['zone1', 'zone2'] }] }],
    },
  },
};
const podAffinity: Affinity = {
  podAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: { color: 'blue' } }, topologyKey: ZONE, namespaces: ['sched-1', 'sched-0'] },
    ],
  },
};
const podAntiAffinity: Affinity = {
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: { color: 'green' } }, topologyKey: HOSTNAME, namespaces: ['sched-1', 'sched-0'] },
    ],
  },
};
const spread: TopologySpreadConstraint[] = [
  { maxSkew: 5, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { color: 'blue' } } },
];

export interface WorkloadSize {
  readonly nodes: number;
  readonly initPods: number;
  readonly measuredPods: number;
}

/**
 * Upstream's sizes for each workload (its 5000Nodes cases), scaled by `scale` (1 = full size), each
 * made when asked for: a workload's nodes and pods are not held while another one runs.
 */
export function schedulerPerfWorkloads(scale = 1, seed = 1): ReadonlyArray<{ readonly name: string; readonly make: () => Workload }> {
  const size = (nodes: number, initPods: number, measuredPods: number): WorkloadSize => ({
    nodes: Math.max(1, Math.round(nodes * scale)),
    initPods: Math.round(initPods * scale),
    measuredPods: Math.max(1, Math.round(measuredPods * scale)),
  });
  const describe = (name: string, s: WorkloadSize, what: string) =>
    `${name}: ${s.nodes} nodes, ${s.initPods} existing pods, ${s.measuredPods} measured pods; ${what}`;
  const build = (
    name: string,
    s: WorkloadSize,
    zones: readonly string[] | undefined,
    init: PodShape,
    measured: PodShape,
    what: string,
  ): Workload => ({
    name,
    nodes: makeNodes(s.nodes, zones, seed),
    initPods: makePods(s.initPods, init),
    measuredPods: makePods(s.measuredPods, measured),
    description: describe(name, s, what),
  });
  const plain = (namespace: string): PodShape => ({ prefix: 'pod', namespace });
  const basic = size(5000, 1000, 10000);
  const affinity = size(5000, 5000, 10000);
  const topology = size(5000, 5000, 5000);
  const podAff = size(5000, 5000, 5000);
  const anti = size(5000, 1000, 2000);
  const preemptionBasic = size(1000, 4000, 1000);
  const preemptionAsync = size(5000, 20000, 5000);
  const lowPriority: PodShape = { prefix: 'low', namespace: 'sched-0', cpu: '900m' };
  const highPriority = (prefix: string): PodShape => ({ prefix, namespace: 'sched-2', cpu: '3', priority: 10 });
  return [
    {
      name: 'SchedulingBasic',
      make: () =>
        build('SchedulingBasic', basic, undefined, plain('sched-0'), { prefix: 'measured', namespace: 'sched-1' }, 'default pods'),
    },
    {
      name: 'NodeAffinity',
      make: () =>
        build(
          'NodeAffinity',
          affinity,
          ['zone1'],
          { prefix: 'init', namespace: 'sched-0', affinity: nodeAffinity },
          { prefix: 'measured', namespace: 'sched-1', affinity: nodeAffinity },
          'required node affinity zone In [zone1, zone2]',
        ),
    },
    {
      name: 'TopologySpreading',
      make: () =>
        build(
          'TopologySpreading',
          topology,
          ['moon-1', 'moon-2', 'moon-3'],
          plain('sched-0'),
          { prefix: 'measured', namespace: 'sched-1', labels: { color: 'blue' }, spread },
          'hard zone spread maxSkew 5 over 3 zones',
        ),
    },
    {
      name: 'PodAffinity',
      make: () =>
        build(
          'PodAffinity',
          podAff,
          ['zone1'],
          { prefix: 'init', namespace: 'sched-0', labels: { color: 'blue' }, affinity: podAffinity },
          { prefix: 'measured', namespace: 'sched-1', labels: { color: 'blue' }, affinity: podAffinity },
          'required pod affinity color=blue per zone',
        ),
    },
    {
      name: 'PodAntiAffinity',
      make: () =>
        build(
          'PodAntiAffinity',
          anti,
          undefined,
          { prefix: 'init', namespace: 'sched-0', labels: { color: 'green' }, affinity: podAntiAffinity },
          { prefix: 'measured', namespace: 'sched-1', labels: { color: 'green' }, affinity: podAntiAffinity },
          'required pod anti-affinity color=green per hostname',
        ),
    },
    // misc/performance-config.yaml PreemptionBasic/1000Nodes: 4 low-priority pods of 900m per node
    // (templates/pod-low-priority.yaml), then pods of priority 10 asking 3 cpu
    // (templates/pod-high-priority.yaml): each evicts 3 of them.
    {
      name: 'PreemptionBasic',
      make: () =>
        build(
          'PreemptionBasic',
          preemptionBasic,
          undefined,
          lowPriority,
          highPriority('measured'),
          'each measured pod (priority 10, 3 cpu) preempts 3 low-priority pods (900m)',
        ),
    },
    {
      // PreemptionAsync/5000Nodes: measured default pods interleaved with preemptors. Upstream
      // creates a preemptor every 200 ms (5/s) while measuring; at its 570 pods/s threshold that is
      // one per ~114 measured pods: one per 100 here, scheduled and timed but not counted.
      name: 'PreemptionAsync',
      make: () => ({
        ...build(
          'PreemptionAsync',
          preemptionAsync,
          undefined,
          lowPriority,
          plain('sched-1'),
          'default pods (100m), a preemptor (priority 10, 3 cpu) after every 100',
        ),
        churn: {
          pods: makePods(Math.ceil(preemptionAsync.measuredPods / PREEMPTOR_EVERY), highPriority('preemptor')),
          every: PREEMPTOR_EVERY,
        },
      }),
    },
  ];
}

/** PreemptionAsync: one preemptor per this many measured pods. */
const PREEMPTOR_EVERY = 100;
