// A seeded generator of clusters and pending pods for the differential suite: each family stresses
// what one group of the default profile's plugins reads, with the rest of the pod shape varied
// around it. Objects are what the API server would hold (valid names, quantities and labels), so
// Podplan and the oracle read the very same JSON.
import { seededRandom, type Random } from '../../../src/engine/api/random';
import { DRA_FAMILIES, generateDraCase, type DraFamily } from './generate-dra';

export type K8sObject = Record<string, unknown> & { readonly kind: string };

export interface FidelityCase {
  readonly id: string;
  readonly family: Family;
  readonly objects: readonly K8sObject[];
}

const BASE_FAMILIES = ['resources', 'placement', 'affinity', 'spread', 'ports-images', 'preemption', 'volumes', 'large'] as const;
type BaseFamily = (typeof BASE_FAMILIES)[number];
export const FAMILIES = [...BASE_FAMILIES, ...DRA_FAMILIES] as const;
export type Family = BaseFamily | DraFamily;

const ZONES = ['zone-a', 'zone-b', 'zone-c'];
const NAMESPACES = ['default', 'team-a', 'team-b'];
const APPS = ['web', 'db', 'cache', 'batch'];
const TIERS = ['front', 'back'];
const IMAGES = ['nginx:1.27', 'redis:7.2', 'postgres:16', 'busybox:1.36', 'registry.example.com/ml/trainer:v3'];
const EXTENDED = 'example.com/gpu';
const IMAGE_SIZES: Record<string, number> = Object.fromEntries(
  IMAGES.map((image, i) => [image, [187, 45, 430, 4, 2900][i]! * 1024 * 1024]),
);

export class Gen {
  constructor(private readonly random: Random) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.random.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.random.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }
  some<T>(items: readonly T[], max = items.length): T[] {
    const n = this.int(1, Math.min(max, items.length));
    const copy = [...items];
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(copy.splice(this.int(0, copy.length - 1), 1)[0] as T);
    return out;
  }
}

interface Knobs {
  readonly nodes: readonly [number, number];
  readonly bound: readonly [number, number];
  readonly pending: readonly [number, number];
  readonly taints: number;
  readonly nodeAffinity: number;
  readonly podAffinity: number;
  readonly spread: number;
  readonly ports: number;
  readonly images: number;
  readonly priorities: number;
  readonly volumes: number;
  readonly shapes: number;
  /** Running pods low, pending pods high: preemption is what the family tests. */
  readonly preempt?: boolean;
}

const BASE: Knobs = {
  nodes: [3, 8],
  bound: [0, 10],
  pending: [1, 6],
  taints: 0.1,
  nodeAffinity: 0.1,
  podAffinity: 0.05,
  spread: 0.05,
  ports: 0.05,
  images: 0.2,
  priorities: 0.1,
  volumes: 0,
  shapes: 0.3,
};

const KNOBS: Record<BaseFamily, Knobs> = {
  resources: { ...BASE, shapes: 0.9, bound: [2, 14] },
  placement: { ...BASE, taints: 0.6, nodeAffinity: 0.7 },
  affinity: { ...BASE, podAffinity: 0.8, bound: [3, 14] },
  spread: { ...BASE, spread: 0.8, bound: [3, 14], nodes: [4, 9] },
  'ports-images': { ...BASE, ports: 0.6, images: 0.9 },
  preemption: { ...BASE, priorities: 0.9, bound: [4, 16], pending: [1, 4], preempt: true },
  volumes: { ...BASE, volumes: 0.8 },
  large: { ...BASE, nodes: [101, 260], bound: [20, 120], pending: [3, 12], taints: 0.2, nodeAffinity: 0.2, podAffinity: 0.05, spread: 0.1 },
};

function quantity(g: Gen, kind: 'cpu' | 'memory' | 'storage', scale = 1): string {
  if (kind === 'cpu') return g.chance(0.5) ? `${g.int(1, 20) * 50 * scale}m` : `${g.int(1, 2) * scale}`;
  if (kind === 'memory') return g.chance(0.6) ? `${g.int(1, 16) * 64 * scale}Mi` : `${g.int(1, 3) * scale}Gi`;
  return `${g.int(1, 10) * scale}Gi`;
}

function makeNode(g: Gen, index: number, knobs: Knobs): K8sObject {
  const name = `node-${index}`;
  const zone = ZONES[index % ZONES.length] as string;
  const labels: Record<string, string> = {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'topology.kubernetes.io/zone': zone,
    'topology.kubernetes.io/region': 'region-1',
  };
  if (g.chance(0.5)) labels.disk = g.pick(['ssd', 'hdd']);
  if (g.chance(0.4)) labels.pool = g.pick(['general', 'batch']);
  const cpu = knobs.preempt ? g.pick([2, 4]) : g.pick([2, 4, 8, 16]);
  const capacity: Record<string, string> = {
    cpu: `${cpu}`,
    memory: `${g.pick([4, 8, 16, 32])}Gi`,
    pods: `${g.pick([4, 8, 16, 110])}`,
    'ephemeral-storage': `${g.pick([20, 50, 100])}Gi`,
  };
  if (g.chance(knobs.shapes * 0.4)) capacity[EXTENDED] = `${g.int(1, 4)}`;
  const spec: Record<string, unknown> = {};
  if (g.chance(knobs.taints)) {
    spec.taints = g.some(
      [
        { key: 'dedicated', value: g.pick(['gpu', 'batch']), effect: 'NoSchedule' },
        { key: 'spot', effect: 'PreferNoSchedule' },
        { key: 'maintenance', value: 'true', effect: 'NoExecute' },
      ],
      2,
    );
  }
  if (g.chance(0.04)) spec.unschedulable = true;
  const status: Record<string, unknown> = { capacity, allocatable: capacity };
  // What the kubelet declares (NodeDeclaredFeatures, GA in 1.37).
  if (g.chance(knobs.nodeAffinity * 0.5)) status.declaredFeatures = ['RestartAllContainersOnContainerExits'];
  if (g.chance(knobs.images)) {
    // One size per image, as one digest has everywhere (upstream keeps the size the cache saw first).
    status.images = g
      .some(IMAGES, 3)
      .map((image) => ({ names: [image.includes('/') ? image : `docker.io/library/${image}`, image], sizeBytes: IMAGE_SIZES[image] }));
  }
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec, status };
}

function selectorTerm(g: Gen): Record<string, unknown> {
  const key = g.pick(['disk', 'pool', 'topology.kubernetes.io/zone']);
  const values = key === 'disk' ? g.some(['ssd', 'hdd'], 1) : key === 'pool' ? g.some(['general', 'batch'], 1) : g.some(ZONES, 2);
  const operator = g.pick(['In', 'In', 'NotIn', 'Exists', 'DoesNotExist']);
  return { matchExpressions: [{ key, operator, ...(operator === 'In' || operator === 'NotIn' ? { values } : {}) }] };
}

function labelSelector(g: Gen): Record<string, unknown> {
  if (g.chance(0.6)) return { matchLabels: { app: g.pick(APPS) } };
  return { matchExpressions: [{ key: 'app', operator: g.pick(['In', 'NotIn']), values: g.some(APPS, 2) }] };
}

function podAffinityTerm(g: Gen, topologyKey?: string): Record<string, unknown> {
  const term: Record<string, unknown> = {
    labelSelector: labelSelector(g),
    topologyKey: topologyKey ?? g.pick(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']),
  };
  if (g.chance(0.25)) term.namespaces = g.some(NAMESPACES, 2);
  if (g.chance(0.15)) term.namespaceSelector = g.chance(0.5) ? {} : { matchLabels: { team: g.pick(['a', 'b']) } };
  if (g.chance(0.15)) term.matchLabelKeys = ['tier'];
  return term;
}

interface PodOptions {
  readonly name: string;
  readonly namespace: string;
  readonly nodeName?: string;
  readonly knobs: Knobs;
  readonly startTime?: string;
  readonly claim?: string;
  /** A pending pod an earlier preemption nominated (status.nominatedNodeName). */
  readonly nominatedNode?: string;
}

function makePod(g: Gen, o: PodOptions): K8sObject {
  const app = g.pick(APPS);
  const labels: Record<string, string> = { app, tier: g.pick(TIERS) };
  const resources = (): Record<string, unknown> => {
    const requests: Record<string, string> = {};
    const limits: Record<string, string> = {};
    if (g.chance(0.8)) requests.cpu = quantity(g, 'cpu');
    if (g.chance(0.7)) requests.memory = quantity(g, 'memory');
    if (g.chance(o.knobs.shapes * 0.3)) requests['ephemeral-storage'] = quantity(g, 'storage');
    if (g.chance(o.knobs.shapes * 0.2)) {
      const n = `${g.int(1, 2)}`;
      requests[EXTENDED] = n;
      limits[EXTENDED] = n;
    }
    if (g.chance(o.knobs.shapes * 0.3)) {
      // Limits alone: the API server's defaulting makes them the requests.
      delete requests.cpu;
      limits.cpu = quantity(g, 'cpu');
    }
    return { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) };
  };
  const image = g.pick(IMAGES);
  const containers: Record<string, unknown>[] = [{ name: 'main', image, resources: resources() }];
  // Pending pods big enough that room must often be made for them.
  if (o.knobs.preempt && !o.nodeName && g.chance(0.7))
    (containers[0] as Record<string, unknown>).resources = { requests: { cpu: `${g.int(1, 3)}`, memory: `${g.int(1, 4)}Gi` } };
  if (g.chance(o.knobs.shapes * 0.4))
    containers.push({
      name: 'helper',
      image: g.pick(IMAGES),
      resources: { requests: { cpu: quantity(g, 'cpu'), memory: quantity(g, 'memory') } },
    });
  const spec: Record<string, unknown> = { containers };
  if (g.chance(o.knobs.shapes * 0.4)) {
    spec.initContainers = [
      { name: 'init', image: 'busybox:1.36', resources: { requests: { cpu: quantity(g, 'cpu'), memory: quantity(g, 'memory') } } },
      ...(g.chance(0.5)
        ? [{ name: 'sidecar', image: 'busybox:1.36', restartPolicy: 'Always', resources: { requests: { cpu: quantity(g, 'cpu') } } }]
        : []),
    ];
  }
  if (g.chance(o.knobs.shapes * 0.15)) {
    spec.runtimeClassName = 'kata';
    spec.overhead = { cpu: '250m', memory: '120Mi' };
  }
  if (g.chance(o.knobs.shapes * 0.15)) {
    // Pod-level resources (beta, on by default): at least what the containers ask for.
    spec.resources = { requests: { cpu: `${g.int(2, 8)}`, memory: `${g.int(4, 12)}Gi` }, limits: { cpu: '8', memory: '12Gi' } };
    for (const c of containers) {
      const r = c.resources as { requests?: Record<string, string>; limits?: Record<string, string> };
      // Container limits may not exceed the pod's; keep the containers' requests small.
      c.resources = {
        requests: { cpu: '100m', memory: '64Mi', ...(r.requests?.[EXTENDED] ? { [EXTENDED]: r.requests[EXTENDED] } : {}) },
        ...(r.limits?.[EXTENDED] ? { limits: { [EXTENDED]: r.limits[EXTENDED] } } : {}),
      };
    }
    delete spec.initContainers;
  }
  if (!o.nodeName && g.chance(o.knobs.nodeAffinity * 0.2)) {
    // A restart rule that restarts the whole pod needs nodes declaring the feature.
    Object.assign(containers[0] as Record<string, unknown>, {
      restartPolicy: 'Never',
      restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [42] } }],
    });
  }
  if (g.chance(o.knobs.ports)) {
    const main = containers[0] as Record<string, unknown>;
    main.ports = [
      {
        containerPort: g.pick([80, 8080, 9090]),
        hostPort: g.pick([80, 8080, 9090]),
        protocol: g.pick(['TCP', 'TCP', 'UDP']),
        ...(g.chance(0.2) ? { hostIP: '127.0.0.1' } : {}),
      },
    ];
  }
  if (!o.nodeName) {
    if (g.chance(o.knobs.nodeAffinity * 0.5))
      spec.nodeSelector = g.chance(0.5) ? { disk: g.pick(['ssd', 'hdd']) } : { 'topology.kubernetes.io/zone': g.pick(ZONES) };
    const affinity: Record<string, unknown> = {};
    if (g.chance(o.knobs.nodeAffinity)) {
      const nodeAffinity: Record<string, unknown> = {};
      if (g.chance(0.6))
        nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
          nodeSelectorTerms: g.chance(0.7) ? [selectorTerm(g)] : [selectorTerm(g), selectorTerm(g)],
        };
      if (g.chance(0.6))
        nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution = [
          { weight: g.int(1, 100), preference: selectorTerm(g) },
          ...(g.chance(0.4) ? [{ weight: g.int(1, 100), preference: selectorTerm(g) }] : []),
        ];
      if (Object.keys(nodeAffinity).length) affinity.nodeAffinity = nodeAffinity;
    }
    if (g.chance(o.knobs.podAffinity)) {
      for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
        if (!g.chance(0.6)) continue;
        const terms: Record<string, unknown> = {};
        if (g.chance(0.6))
          terms.requiredDuringSchedulingIgnoredDuringExecution = [
            podAffinityTerm(g, kind === 'podAntiAffinity' && g.chance(0.6) ? 'kubernetes.io/hostname' : undefined),
          ];
        if (g.chance(0.6))
          terms.preferredDuringSchedulingIgnoredDuringExecution = [{ weight: g.int(1, 100), podAffinityTerm: podAffinityTerm(g) }];
        if (Object.keys(terms).length) affinity[kind] = terms;
      }
    }
    if (Object.keys(affinity).length) spec.affinity = affinity;
    if (g.chance(o.knobs.taints)) {
      spec.tolerations = g.some(
        [
          { key: 'dedicated', operator: 'Equal', value: g.pick(['gpu', 'batch']), effect: 'NoSchedule' },
          { key: 'dedicated', operator: 'Exists' },
          { key: 'spot', operator: 'Exists', effect: 'PreferNoSchedule' },
          { key: 'maintenance', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
          { operator: 'Exists' },
        ],
        2,
      );
    }
    if (g.chance(o.knobs.spread)) {
      const constraint = (): Record<string, unknown> => {
        const c: Record<string, unknown> = {
          maxSkew: g.int(1, 2),
          topologyKey: g.pick(['topology.kubernetes.io/zone', 'kubernetes.io/hostname', 'disk']),
          whenUnsatisfiable: g.pick(['DoNotSchedule', 'ScheduleAnyway']),
          labelSelector: { matchLabels: { app } },
        };
        if (c.whenUnsatisfiable === 'DoNotSchedule' && g.chance(0.25)) c.minDomains = g.int(2, 4);
        if (g.chance(0.2)) c.nodeAffinityPolicy = g.pick(['Honor', 'Ignore']);
        if (g.chance(0.2)) c.nodeTaintsPolicy = g.pick(['Honor', 'Ignore']);
        if (g.chance(0.2)) c.matchLabelKeys = ['tier'];
        return c;
      };
      const constraints = [constraint()];
      if (g.chance(0.3)) {
        const second = constraint();
        if (second.topologyKey !== constraints[0]?.topologyKey || second.whenUnsatisfiable !== constraints[0]?.whenUnsatisfiable)
          constraints.push(second);
      }
      spec.topologySpreadConstraints = constraints;
    }
    if (g.chance(0.03)) spec.schedulingGates = [{ name: 'example.com/wait' }];
  } else {
    spec.nodeName = o.nodeName;
  }
  if (g.chance(o.knobs.priorities)) {
    // Where preemption is the point, running pods are mostly low and pending ones mostly high.
    const lean = o.knobs.preempt ? (o.nodeName ? 0 : 1) : g.int(0, 1);
    if (g.chance(0.6)) spec.priorityClassName = g.pick(lean === 0 ? ['low', 'low', 'high'] : ['high', 'high', 'critical-batch', 'low']);
    // The API server's Priority admission refuses a spec.priority a user writes: values come from classes.
    else spec.priorityClassName = `prio-${g.pick(lean === 0 ? [0, 10, 100] : [1000, 1000, 100, 0])}`;
  }
  const volumes: Record<string, unknown>[] = [];
  if (o.claim) volumes.push({ name: 'data', persistentVolumeClaim: { claimName: o.claim } });
  // Image volumes (ImageVolume, on since 1.35): ImageLocality counts them.
  if (g.chance(o.knobs.images * 0.3)) volumes.push({ name: 'model', image: { reference: g.pick(IMAGES), pullPolicy: 'IfNotPresent' } });
  if (volumes.length > 0) spec.volumes = volumes;
  const pod: Record<string, unknown> = { apiVersion: 'v1', kind: 'Pod', metadata: { name: o.name, namespace: o.namespace, labels }, spec };
  if (o.nodeName) pod.status = { phase: 'Running', ...(o.startTime ? { startTime: o.startTime } : {}) };
  else if (o.nominatedNode) pod.status = { phase: 'Pending', nominatedNodeName: o.nominatedNode };
  return pod as K8sObject;
}

function priorityClasses(): K8sObject[] {
  return [
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'low' }, value: 10 },
    { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' }, value: 1000 },
    {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'critical-batch' },
      value: 5000,
      preemptionPolicy: 'Never',
    },
    ...[0, 10, 100, 1000].map((value): K8sObject => ({
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: `prio-${value}` },
      value,
    })),
  ];
}

function namespaces(): K8sObject[] {
  return NAMESPACES.map((name, i) => ({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...(i > 0 ? { team: i === 1 ? 'a' : 'b' } : {}) } },
  }));
}

/** Storage objects and the claims pods may mount: bound, WaitForFirstConsumer, immediate, missing. */
function storage(g: Gen, nodes: readonly K8sObject[]): { objects: K8sObject[]; claims: string[] } {
  const objects: K8sObject[] = [
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'local' },
      provisioner: 'kubernetes.io/no-provisioner',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'StorageClass',
      metadata: { name: 'csi' },
      provisioner: 'csi.example.com',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      metadata: { name: 'csi.example.com' },
      spec: { storageCapacity: true, attachRequired: true },
    },
  ];
  const claims: string[] = [];
  const nodeName = (n: K8sObject) => (n.metadata as { name: string }).name;
  for (const node of nodes) {
    if (g.chance(0.6)) {
      objects.push({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'CSINode',
        metadata: { name: nodeName(node) },
        spec: {
          drivers: [
            {
              name: 'csi.example.com',
              nodeID: nodeName(node),
              topologyKeys: ['topology.kubernetes.io/zone'],
              allocatable: { count: g.int(1, 3) },
            },
          ],
        },
      });
    }
  }
  for (const zone of g.some(ZONES, 2)) {
    objects.push({
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIStorageCapacity',
      metadata: { name: `cap-${zone}`, namespace: 'default' },
      storageClassName: 'csi',
      nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': zone } },
      capacity: `${g.int(1, 20)}Gi`,
    });
  }
  for (let i = 0; i < g.int(1, 4); i++) {
    const node = g.pick(nodes);
    const size = `${g.int(1, 10)}Gi`;
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `pv-${i}` },
      spec: {
        capacity: { storage: size },
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'local',
        persistentVolumeReclaimPolicy: 'Retain',
        local: { path: `/mnt/disk${i}` },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName(node)] }] }],
          },
        },
      },
      // As a cluster holds it once the PV controller has seen it (mostly Available).
      status: { phase: g.chance(0.85) ? 'Available' : g.pick(['Released', 'Failed']) },
    });
  }
  for (let i = 0; i < g.int(1, 4); i++) {
    const name = `claim-${i}`;
    claims.push(name);
    const cls = g.pick(['local', 'csi']);
    objects.push({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'default' },
      spec: {
        accessModes: [g.pick(['ReadWriteOnce', 'ReadWriteOncePod'])],
        storageClassName: cls,
        resources: { requests: { storage: `${g.int(1, 8)}Gi` } },
      },
    });
  }
  if (g.chance(0.3)) claims.push('missing-claim');
  return { objects, claims };
}

function pdbs(g: Gen): K8sObject[] {
  if (!g.chance(0.5)) return [];
  return [
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb-web', namespace: 'default' },
      spec: { selector: { matchLabels: { app: g.pick(APPS) } }, maxUnavailable: 0 },
      status: { disruptionsAllowed: g.int(0, 1), currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
    },
  ];
}

/** One case of a family, from its seed. */
export function generateCase(family: Family, seed: number): FidelityCase {
  if ((DRA_FAMILIES as readonly string[]).includes(family)) return generateDraCase(family as DraFamily, seed, FAMILIES.indexOf(family));
  const base = family as BaseFamily;
  const g = new Gen(seededRandom(seed * 7919 + FAMILIES.indexOf(family) + 1));
  const knobs = KNOBS[base];
  const nodes: K8sObject[] = [];
  const nodeCount = g.int(knobs.nodes[0], knobs.nodes[1]);
  for (let i = 0; i < nodeCount; i++) nodes.push(makeNode(g, i, knobs));
  const objects: K8sObject[] = [...namespaces(), ...priorityClasses(), ...nodes];
  let claims: string[] = [];
  if (g.chance(knobs.volumes)) {
    const made = storage(g, nodes);
    objects.push(...made.objects);
    claims = made.claims;
  }
  if (family === 'preemption') objects.push(...pdbs(g));
  const bound = g.int(knobs.bound[0], knobs.bound[1]);
  for (let i = 0; i < bound; i++) {
    const node = g.pick(nodes) as unknown as { metadata: { name: string } };
    objects.push(
      makePod(g, {
        name: `running-${i}`,
        namespace: g.pick(NAMESPACES),
        nodeName: node.metadata.name,
        knobs,
        startTime: `2026-01-01T00:${String(g.int(0, 59)).padStart(2, '0')}:00Z`,
      }),
    );
  }
  const pending = g.int(knobs.pending[0], knobs.pending[1]);
  for (let i = 0; i < pending; i++) {
    const claim = claims.length > 0 && g.chance(0.7) ? g.pick(claims) : undefined;
    const nominated = g.chance(knobs.priorities * 0.25)
      ? (g.pick(nodes) as unknown as { metadata: { name: string } }).metadata.name
      : undefined;
    objects.push(
      makePod(g, {
        name: `pending-${i}`,
        namespace: claim ? 'default' : g.pick(NAMESPACES),
        knobs,
        ...(claim ? { claim } : {}),
        ...(nominated ? { nominatedNode: nominated } : {}),
      }),
    );
  }
  return { id: `${family}-${seed}`, family, objects };
}
