// Generated pod sets for the planners: a seeded cluster of mixed node sizes over three zones (some
// GPU nodes kept for GPU pods by a taint, a few nodes tainted for infrastructure) and a pod set made
// of templates, each with replicas: mixed cpu and memory requests, GPU requests, required hostname
// anti-affinity among a template's replicas, and zone topology spread. The same seed gives the same
// workload.
import { seededRandom, type Random } from '../../src/engine/api/random';
import type { Node, Pod } from '../../src/engine/api/types';
import { POD_SET_LABEL } from '../../src/engine/planner/plan';
import { POD_SET_SCHEDULER_NAME } from '../../src/engine/planner/podset/podset';

const ZONE = 'topology.kubernetes.io/zone';
const HOSTNAME = 'kubernetes.io/hostname';
const GPU = 'nvidia.com/gpu';
const ZONES = ['zone-a', 'zone-b', 'zone-c'];

export interface PodSetWorkload {
  readonly name: string;
  readonly nodes: readonly Node[];
  /** The pending pods of pod set `bench` in namespace `bench`. */
  readonly pods: readonly Pod[];
  readonly description: string;
}

export interface PodSetShape {
  readonly pods: number;
  readonly nodes: number;
  readonly seed: number;
  /** What the set asks for over what the cluster offers (cpu), roughly. */
  readonly load?: number;
}

const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(items.length)] as T;

const NODE_SIZES = [
  { cpu: 4, memory: 16 },
  { cpu: 8, memory: 32 },
  { cpu: 16, memory: 64 },
  { cpu: 32, memory: 128 },
];

function makeNodes(count: number, random: Random): Node[] {
  return Array.from({ length: count }, (_, i): Node => {
    const name = `node-${String(i).padStart(4, '0')}`;
    const size = pick(random, NODE_SIZES);
    const gpu = i % 10 === 9;
    const infra = i % 20 === 7;
    const allocatable: Record<string, string> = { cpu: String(size.cpu), memory: `${size.memory}Gi`, pods: '110' };
    if (gpu) allocatable[GPU] = String(pick(random, [4, 8]));
    const taints = [
      ...(gpu ? [{ key: GPU, value: 'present', effect: 'NoSchedule' as const }] : []),
      ...(infra ? [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' as const }] : []),
    ];
    return {
      metadata: { name, uid: `uid-${name}`, labels: { [HOSTNAME]: name, [ZONE]: ZONES[i % ZONES.length] as string } },
      spec: taints.length > 0 ? { taints } : {},
      status: { allocatable },
    };
  });
}

const CPU_REQUESTS = [100, 250, 500, 1000, 1500, 2000, 3000, 4000];
const MEMORY_PER_CPU = [1, 2, 4, 8];

interface Template {
  readonly name: string;
  readonly cpu: number;
  readonly memoryMi: number;
  readonly gpu: number;
  readonly antiAffinity: boolean;
  readonly spread: boolean;
}

function makeTemplate(i: number, random: Random): Template {
  const cpu = pick(random, CPU_REQUESTS);
  const kind = random.next();
  return {
    name: `app-${i}`,
    cpu,
    memoryMi: Math.round((cpu * pick(random, MEMORY_PER_CPU) * 1024) / 1000),
    gpu: kind < 0.08 ? pick(random, [1, 2]) : 0,
    antiAffinity: kind >= 0.08 && kind < 0.23,
    spread: kind >= 0.23 && kind < 0.4,
  };
}

function makePod(t: Template, replica: number): Pod {
  const labels = { app: t.name, [POD_SET_LABEL]: 'bench' };
  const requests: Record<string, string> = { cpu: `${t.cpu}m`, memory: `${t.memoryMi}Mi` };
  if (t.gpu) requests[GPU] = String(t.gpu);
  const selector = { matchLabels: { app: t.name } };
  return {
    metadata: { name: `${t.name}-${replica}`, namespace: 'bench', uid: `uid-${t.name}-${replica}`, labels },
    spec: {
      schedulerName: POD_SET_SCHEDULER_NAME,
      containers: [{ name: 'main', image: `registry.example/${t.name}:1`, resources: { requests } }],
      ...(t.gpu ? { tolerations: [{ key: GPU, operator: 'Exists', effect: 'NoSchedule' }] } : {}),
      ...(t.antiAffinity
        ? {
            affinity: {
              podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: HOSTNAME, labelSelector: selector }] },
            },
          }
        : {}),
      ...(t.spread
        ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: selector }] }
        : {}),
    },
  };
}

/** The largest cpu request a generated pod makes (in millicores), so every pod fits some node. */
const MAX_CPU = 8000;

/** A cluster and a pod set whose cpu requests add up to about `load` of the cluster's cpu (0.6 by default). */
export function generatePodSet(shape: PodSetShape): PodSetWorkload {
  const random = seededRandom(shape.seed);
  const nodes = makeNodes(shape.nodes, random);
  const templates: Array<{ template: Template; replicas: number }> = [];
  for (let t = 0, count = 0; count < shape.pods; t++) {
    const template = makeTemplate(t, random);
    // Up to 12 replicas, as deployments go; anti-affine replicas need a node each, so fewer than a third of the nodes.
    const most = template.antiAffinity ? Math.max(1, Math.min(12, Math.floor(shape.nodes / 3))) : 12;
    const replicas = Math.min(1 + random.int(most), shape.pods - count);
    templates.push({ template, replicas });
    count += replicas;
  }
  // Requests scaled so the set asks for the load wanted of the cluster's cpu, memory in proportion;
  // GPU pods keep theirs (a tenth of the nodes hold them).
  const capacity = nodes.reduce((sum, n) => sum + Number(n.status?.allocatable?.['cpu'] ?? 0) * 1000, 0);
  const asked = templates.reduce((sum, t) => sum + t.template.cpu * t.replicas, 0);
  const scale = (capacity * (shape.load ?? 0.6)) / asked;
  const pods = templates.flatMap(({ template, replicas }) => {
    const cpu = template.gpu ? template.cpu : Math.max(50, Math.min(MAX_CPU, Math.round((template.cpu * scale) / 50) * 50));
    const scaled = { ...template, cpu, memoryMi: Math.round((template.memoryMi * cpu) / template.cpu) };
    return Array.from({ length: replicas }, (_, r) => makePod(scaled, r));
  });
  const features = 'mixed cpu/memory, GPU pods (tolerating the GPU taint), hostname anti-affinity, zone spread (maxSkew 1)';
  return {
    name: `${shape.pods} pods / ${shape.nodes} nodes`,
    nodes,
    pods,
    description: `${shape.pods} pods in templates of 1-12 replicas asking for ~${Math.round((shape.load ?? 0.6) * 100)}% of the cluster's cpu, ${features}, on ${shape.nodes} nodes of 4-32 cpu (every 10th with GPUs, tainted; every 20th tainted for infra), seed ${shape.seed}`,
  };
}
