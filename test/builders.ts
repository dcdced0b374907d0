// Small builders for engine objects, so tests read as tables:
//   makePod('web-1').req({ cpu: '500m', memory: '1Gi' }).labels({ app: 'web' }).obj
//   makeNode('n1').alloc({ cpu: '4', memory: '32Gi', pods: '110' }).taint('dedicated', 'gpu').obj
import type {
  Affinity,
  ClusterObjects,
  Container,
  ContainerPort,
  Labels,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  PodAffinityTerm,
  ResourceList,
  Taint,
  TaintEffect,
  Toleration,
  TopologySpreadConstraint,
} from '../src/engine/api/types';
import { seededRandom } from '../src/engine/api/random';
import type { FrameworkHandle } from '../src/engine/framework/interfaces';
import { InMemoryBinder } from '../src/engine/framework/binder';
import { NodeInfo, podInfo, type NodeInfoLister, type PodInfo } from '../src/engine/framework/node-info';
import { Snapshot } from '../src/engine/framework/snapshot';

type Mutable<T> = T extends ReadonlyArray<infer U> ? Mutable<U>[] : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T;

export class PodBuilder {
  readonly obj: Pod;
  private readonly m: Mutable<Pod>;

  constructor(name: string, namespace = 'default') {
    this.m = { metadata: { name, namespace, uid: `uid-${namespace}-${name}` }, spec: { containers: [{ name: 'main' }] } } as Mutable<Pod>;
    this.obj = this.m as Pod;
  }

  private get main(): Mutable<Container> {
    return this.m.spec.containers[0] as Mutable<Container>;
  }

  /** Requests of the first container. */
  req(requests: ResourceList): this {
    this.main.resources = { ...this.main.resources, requests: { ...requests } };
    return this;
  }

  /** Limits of the first container. */
  limits(limits: ResourceList): this {
    this.main.resources = { ...this.main.resources, limits: { ...limits } };
    return this;
  }

  /** Adds another app container with these requests. */
  container(requests: ResourceList, ports: ContainerPort[] = [], image?: string): this {
    this.m.spec.containers.push({
      name: `c${this.m.spec.containers.length}`,
      resources: { requests: { ...requests } },
      ports,
      ...(image ? { image } : {}),
    } as Mutable<Container>);
    return this;
  }

  init(requests: ResourceList, sidecar = false, image?: string): this {
    const list = (this.m.spec.initContainers ??= []);
    list.push({
      name: `init${list.length}`,
      resources: { requests: { ...requests } },
      ...(sidecar ? { restartPolicy: 'Always' } : {}),
      ...(image ? { image } : {}),
    } as Mutable<Container>);
    return this;
  }

  overhead(overhead: ResourceList): this {
    this.m.spec.overhead = { ...overhead };
    return this;
  }

  image(image: string): this {
    this.main.image = image;
    return this;
  }

  hostPort(port: number, protocol: 'TCP' | 'UDP' = 'TCP', hostIP?: string): this {
    (this.main.ports ??= []).push({ containerPort: port, hostPort: port, protocol, ...(hostIP ? { hostIP } : {}) });
    return this;
  }

  labels(labels: Labels): this {
    this.m.metadata.labels = { ...this.m.metadata.labels, ...labels };
    return this;
  }

  annotations(annotations: Labels): this {
    this.m.metadata.annotations = { ...this.m.metadata.annotations, ...annotations };
    return this;
  }

  uid(uid: string): this {
    this.m.metadata.uid = uid;
    return this;
  }

  node(nodeName: string): this {
    this.m.spec.nodeName = nodeName;
    return this;
  }

  scheduler(name: string): this {
    this.m.spec.schedulerName = name;
    return this;
  }

  priority(priority: number): this {
    this.m.spec.priority = priority;
    return this;
  }

  /** Pod-level requests and limits (spec.resources). */
  podResources(requests: ResourceList, limits?: ResourceList): this {
    this.m.spec.resources = { requests: { ...requests }, ...(limits ? { limits: { ...limits } } : {}) };
    return this;
  }

  /** The first container's limits and requests together. */
  containerResources(requests: ResourceList, limits: ResourceList): this {
    this.main.resources = { requests: { ...requests }, limits: { ...limits } };
    return this;
  }

  /** Volumes using these PersistentVolumeClaims (v0, v1, …). */
  claims(...claimNames: string[]): this {
    this.m.spec.volumes = claimNames.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } }));
    return this;
  }

  /** spec.resourceClaims: DRA claims by template (`{ template }`) or by name (`{ claim }`), entries named c0, c1, …. */
  deviceClaims(...entries: Array<{ template: string } | { claim: string }>): this {
    this.m.spec.resourceClaims = entries.map((e, i) =>
      'template' in e ? { name: `c${i}`, resourceClaimTemplateName: e.template } : { name: `c${i}`, resourceClaimName: e.claim },
    );
    return this;
  }

  priorityClass(name: string): this {
    this.m.spec.priorityClassName = name;
    return this;
  }

  preemptionPolicy(policy: 'PreemptLowerPriority' | 'Never'): this {
    this.m.spec.preemptionPolicy = policy;
    return this;
  }

  /** When the kubelet started it (RFC 3339). */
  started(startTime: string): this {
    this.m.status = { ...this.m.status, startTime };
    return this;
  }

  nodeSelector(selector: Labels): this {
    this.m.spec.nodeSelector = { ...selector };
    return this;
  }

  /** Required node affinity: one term per call (terms are ORed). */
  requireNode(...requirements: NodeSelectorRequirement[]): this {
    return this.requireNodeTerm({ matchExpressions: requirements });
  }

  /** Required node affinity: a whole term (matchExpressions and/or matchFields). */
  requireNodeTerm(term: NodeSelectorTerm): this {
    const affinity = (this.m.spec.affinity ??= {}) as Mutable<Affinity>;
    const nodeAffinity = (affinity.nodeAffinity ??= {});
    const required = (nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
    required.nodeSelectorTerms.push(term as Mutable<NodeSelectorTerm>);
    return this;
  }

  preferNode(weight: number, ...requirements: NodeSelectorRequirement[]): this {
    const affinity = (this.m.spec.affinity ??= {}) as Mutable<Affinity>;
    const nodeAffinity = (affinity.nodeAffinity ??= {});
    (nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution ??= []).push({
      weight,
      preference: { matchExpressions: requirements as Mutable<NodeSelectorRequirement>[] },
    });
    return this;
  }

  /** Required pod affinity (kind 'podAffinity') or anti-affinity ('podAntiAffinity'). */
  requirePods(kind: 'podAffinity' | 'podAntiAffinity', term: PodAffinityTerm): this {
    const affinity = (this.m.spec.affinity ??= {}) as Mutable<Affinity>;
    const section = (affinity[kind] ??= {});
    (section.requiredDuringSchedulingIgnoredDuringExecution ??= []).push(term as Mutable<PodAffinityTerm>);
    return this;
  }

  preferPods(kind: 'podAffinity' | 'podAntiAffinity', weight: number, term: PodAffinityTerm): this {
    const affinity = (this.m.spec.affinity ??= {}) as Mutable<Affinity>;
    const section = (affinity[kind] ??= {});
    (section.preferredDuringSchedulingIgnoredDuringExecution ??= []).push({ weight, podAffinityTerm: term as Mutable<PodAffinityTerm> });
    return this;
  }

  tolerate(toleration: Toleration): this {
    (this.m.spec.tolerations ??= []).push({ ...toleration });
    return this;
  }

  spread(constraint: TopologySpreadConstraint): this {
    (this.m.spec.topologySpreadConstraints ??= []).push(constraint as Mutable<TopologySpreadConstraint>);
    return this;
  }

  gate(name: string): this {
    (this.m.spec.schedulingGates ??= []).push({ name });
    return this;
  }

  /** Marks the pod terminating (deletionTimestamp set). */
  deleting(): this {
    this.m.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
    return this;
  }

  /** Nominated to the node by an earlier preemption (status.nominatedNodeName). */
  nominatedTo(node: string): this {
    this.m.status = { ...this.m.status, nominatedNodeName: node };
    return this;
  }

  /** Being deleted by a scheduler's preemption: deletionTimestamp and DisruptionTarget (PreemptionByScheduler). */
  preemptedByScheduler(): this {
    this.deleting();
    const target = { type: 'DisruptionTarget', status: 'True' as const, reason: 'PreemptionByScheduler' };
    this.m.status = { ...this.m.status, conditions: [...(this.m.status?.conditions ?? []), target] };
    return this;
  }

  /** A controller ownerReference (ReplicaSet, StatefulSet, …). */
  controlledBy(kind: string, name: string): this {
    (this.m.metadata.ownerReferences ??= []).push({ kind, name, controller: true });
    return this;
  }

  phase(phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed'): this {
    this.m.status = { ...this.m.status, phase };
    return this;
  }

  /** Running with its Ready condition True. */
  ready(): this {
    this.m.status = { ...this.m.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    return this;
  }

  /** The PodInfo the framework works with (throws on a malformed pod: a test bug). */
  get info(): PodInfo {
    const info = podInfo(this.obj);
    if (!info.ok) throw new Error(info.error);
    return info.value;
  }
}

export class NodeBuilder {
  readonly obj: Node;
  private readonly m: Mutable<Node>;

  constructor(name: string) {
    this.m = {
      metadata: { name, uid: `uid-node-${name}`, labels: { 'kubernetes.io/hostname': name } },
      spec: {},
      status: { allocatable: { cpu: '4', memory: '32Gi', pods: '110' } },
    } as Mutable<Node>;
    this.obj = this.m as Node;
  }

  alloc(allocatable: ResourceList): this {
    this.m.status = { ...this.m.status, allocatable: { ...allocatable } };
    return this;
  }

  labels(labels: Labels): this {
    this.m.metadata.labels = { ...this.m.metadata.labels, ...labels };
    return this;
  }

  annotations(annotations: Labels): this {
    this.m.metadata.annotations = { ...this.m.metadata.annotations, ...annotations };
    return this;
  }

  taint(key: string, value: string | undefined, effect: TaintEffect = 'NoSchedule'): this {
    const spec = (this.m.spec ??= {});
    (spec.taints ??= []).push({ key, ...(value !== undefined ? { value } : {}), effect } as Mutable<Taint>);
    return this;
  }

  unschedulable(): this {
    (this.m.spec ??= {}).unschedulable = true;
    return this;
  }

  image(names: string[], sizeBytes: number): this {
    const status = (this.m.status ??= {});
    (status.images ??= []).push({ names, sizeBytes });
    return this;
  }
}

export const makePod = (name: string, namespace?: string): PodBuilder => new PodBuilder(name, namespace);
export const makeNode = (name: string): NodeBuilder => new NodeBuilder(name);

/** A NodeInfo for `node` holding `pods` (as if bound there). */
export function nodeInfoOf(node: NodeBuilder | Node, ...pods: Array<PodBuilder | Pod>): NodeInfo {
  const info = new NodeInfo(node instanceof NodeBuilder ? node.obj : node);
  for (const p of pods) {
    const pi = podInfo(p instanceof PodBuilder ? p.obj : p);
    if (!pi.ok) throw new Error(pi.error);
    info.addPod(pi.value);
  }
  return info;
}

/** A snapshot of nodes and the pods bound to them (pods with spec.nodeName). */
export function snapshotOf(nodes: Array<NodeBuilder | Node>, pods: Array<PodBuilder | Pod> = []): Snapshot {
  const s = Snapshot.fromCluster({
    nodes: nodes.map((n) => (n instanceof NodeBuilder ? n.obj : n)),
    pods: pods.map((p) => (p instanceof PodBuilder ? p.obj : p)),
  });
  if (!s.ok) throw new Error(s.error);
  return s.value;
}

/** A framework handle over a fixed snapshot, as a plugin factory receives it. */
export function handleOf(snapshot: NodeInfoLister, seed = 1, objects: ClusterObjects = {}): FrameworkHandle {
  return { snapshot: () => snapshot, random: seededRandom(seed), binder: new InMemoryBinder(), objects: () => objects };
}
