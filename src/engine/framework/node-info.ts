// What a scheduling cycle knows about one node: the node, the pods on it (bound or assumed) and the
// totals the plugins read, kept up to date as pods are added and removed (upstream framework.NodeInfo).
import { nodeAllocatable, podResources, Resource, type PodRequestVectors, type PodResources } from '../api/resources';
import { podId, podKey, podNamespace, type ClusterObjects, type Container, type ContainerPort, type Node, type Pod } from '../api/types';
import { err, ok, type Result } from '../api/result';

/** A pod with what the cycle reads of it often, computed once. */
export interface PodInfo {
  readonly pod: Pod;
  /** namespace/name */
  readonly key: string;
  /** uid, or the key when the pod has none */
  readonly id: string;
  readonly requests: PodResources['requests'];
  readonly nonZero: PodResources['nonZero'];
  /** What NodeResourcesFit's scoring reads of the pod (PodRequestVectors). */
  readonly nonZeroContainers: PodRequestVectors['nonZeroContainers'];
  /** The pod has pod affinity or anti-affinity terms (required or preferred). */
  readonly hasAffinity: boolean;
  readonly hasRequiredAntiAffinity: boolean;
  /** The host ports it holds (podHostPorts): read whenever it is added to or removed from a node. */
  readonly hostPorts: readonly HostPort[];
}

const podInfos = new WeakMap<Pod, PodInfo>();

/** Builds (once per pod object) the PodInfo; an error names the malformed field. */
export function podInfo(pod: Pod): Result<PodInfo> {
  const cached = podInfos.get(pod);
  if (cached) return ok(cached);
  const resources = podResources(pod);
  if (!resources.ok) return err(`pod ${podKey(pod)}: ${resources.error}`);
  const affinity = pod.spec.affinity;
  const info: PodInfo = {
    pod,
    key: podKey(pod),
    id: podId(pod),
    requests: resources.value.requests,
    nonZero: resources.value.nonZero,
    nonZeroContainers: resources.value.nonZeroContainers,
    hasAffinity: Boolean(affinity?.podAffinity || affinity?.podAntiAffinity),
    hasRequiredAntiAffinity: Boolean(affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.length),
    hostPorts: podHostPorts(pod),
  };
  podInfos.set(pod, info);
  return ok(info);
}

/**
 * The PodInfo of a copy of the pod bound to `nodeName` (what the cache holds for an assumed pod, and
 * what the binding's confirmation adds): nothing in a PodInfo depends on the node name, so the copy
 * shares it, memoized for the copy's object, and its requests are not read again.
 */
export function boundPodInfo(info: PodInfo, nodeName: string): PodInfo {
  if (info.pod.spec.nodeName === nodeName) return info;
  const pod: Pod = { ...info.pod, spec: { ...info.pod.spec, nodeName } };
  const bound: PodInfo = { ...info, pod };
  podInfos.set(pod, bound);
  return bound;
}

/**
 * Gives `pod` the PodInfo of `info.pod`, for its own object: `pod` is a newer version of the same
 * pod (same namespace, name and uid) whose spec differs only in nodeName (a watch's update after
 * the binding), and nothing in a PodInfo depends on anything else, so its requests are not read again.
 */
export function sharePodInfo(info: PodInfo, pod: Pod): void {
  if (!podInfos.has(pod)) podInfos.set(pod, { ...info, pod });
}

/** A container port bound on the node. */
export type HostPort = ContainerPort & { readonly hostPort: number };

/** The host ports a pod holds while it runs: its app containers' and its sidecars' (upstream GetHostPorts). */
export function podHostPorts(pod: Pod): HostPort[] {
  const ports: HostPort[] = [];
  const collect = (c: Container) => {
    for (const p of c.ports ?? []) if (p.hostPort && p.hostPort > 0) ports.push(p as HostPort);
  };
  for (const c of pod.spec.initContainers ?? []) if (c.restartPolicy === 'Always') collect(c);
  for (const c of pod.spec.containers) collect(c);
  return ports;
}

const WILDCARD_IP = '0.0.0.0';

/** Host ports in use on a node: ip → set of "protocol/port". */
export class HostPorts {
  private readonly byIP = new Map<string, Map<string, number>>();

  /** Whether `ip:protocol/port` clashes with a port in use (0.0.0.0 clashes with every address). */
  conflicts(ip: string | undefined, protocol: string | undefined, port: number): boolean {
    const entry = `${protocol ?? 'TCP'}/${port}`;
    const address = ip || WILDCARD_IP;
    if (address === WILDCARD_IP) {
      for (const ports of this.byIP.values()) if (ports.has(entry)) return true;
      return false;
    }
    return Boolean(this.byIP.get(address)?.has(entry) || this.byIP.get(WILDCARD_IP)?.has(entry));
  }

  add(ip: string | undefined, protocol: string | undefined, port: number, delta: 1 | -1): void {
    const address = ip || WILDCARD_IP;
    const entry = `${protocol ?? 'TCP'}/${port}`;
    let ports = this.byIP.get(address);
    if (!ports) this.byIP.set(address, (ports = new Map()));
    const count = (ports.get(entry) ?? 0) + delta;
    if (count > 0) ports.set(entry, count);
    else ports.delete(entry);
    if (ports.size === 0) this.byIP.delete(address);
  }

  get size(): number {
    let n = 0;
    for (const ports of this.byIP.values()) n += ports.size;
    return n;
  }

  clone(): HostPorts {
    const copy = new HostPorts();
    for (const [ip, ports] of this.byIP) copy.byIP.set(ip, new Map(ports));
    return copy;
  }
}

/** Told of every change to the pods of a NodeInfo it watches (how a snapshot follows what-if changes to its copies). */
export interface NodeInfoObserver {
  nodeInfoChanged(info: NodeInfo): void;
}

export class NodeInfo {
  readonly name: string;
  /** What the node offers; when its allocatable is malformed, zero and `allocatableError` says why. */
  readonly allocatable: Resource;
  readonly allocatableError?: string;
  readonly requested = new Resource();
  readonly nonZeroRequested = new Resource();
  readonly pods: PodInfo[] = [];
  readonly podsWithAffinity: PodInfo[] = [];
  readonly podsWithRequiredAntiAffinity: PodInfo[] = [];
  readonly usedPorts = new HostPorts();
  /** image name → size in bytes, from node.status.images */
  readonly imageSizes = new Map<string, number>();
  /** Bumped on every change, so a snapshot can copy only what changed. */
  generation = 0;
  /** The one watcher of this NodeInfo, if any: the snapshot holding it. Copies start unwatched. */
  observer: NodeInfoObserver | undefined = undefined;
  /** `pods` by namespace, made when first asked for after a change (podsInNamespace). */
  private byNamespace: Map<string, PodInfo[]> | undefined = undefined;

  constructor(readonly node: Node) {
    this.name = node.metadata.name;
    const allocatable = nodeAllocatable(node);
    if (allocatable.ok) {
      this.allocatable = allocatable.value;
    } else {
      this.allocatable = new Resource();
      this.allocatableError = allocatable.error;
    }
    for (const image of node.status?.images ?? []) {
      for (const name of image.names ?? []) this.imageSizes.set(name, image.sizeBytes ?? 0);
    }
  }

  addPod(info: PodInfo): void {
    this.pods.push(info);
    if (info.hasAffinity) this.podsWithAffinity.push(info);
    if (info.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity.push(info);
    this.account(info, 1);
  }

  /**
   * The node's pods in `namespace`, in the order of `pods`. Counting a namespace's matching pods on
   * every node (PodTopologySpread, per pod shape) then visits only that namespace's pods: on a dump
   * of many namespaces a node holds a few of each.
   */
  podsInNamespace(namespace: string): readonly PodInfo[] {
    let index = this.byNamespace;
    if (!index) {
      index = new Map();
      for (const info of this.pods) {
        const ns = podNamespace(info.pod);
        const list = index.get(ns);
        if (list) list.push(info);
        else index.set(ns, [info]);
      }
      this.byNamespace = index;
    }
    return index.get(namespace) ?? NO_PODS;
  }

  /** Removes the pod with this id; false when the node does not hold it. */
  removePod(id: string): boolean {
    const index = this.pods.findIndex((p) => p.id === id);
    if (index < 0) return false;
    const [info] = this.pods.splice(index, 1);
    if (!info) return false;
    removeById(this.podsWithAffinity, id);
    removeById(this.podsWithRequiredAntiAffinity, id);
    this.account(info, -1);
    return true;
  }

  /** A deep copy that later changes to this one do not touch (for snapshots and what-if planning). */
  clone(): NodeInfo {
    const copy = new NodeInfo(this.node);
    copy.pods.push(...this.pods);
    copy.podsWithAffinity.push(...this.podsWithAffinity);
    copy.podsWithRequiredAntiAffinity.push(...this.podsWithRequiredAntiAffinity);
    copy.requested.add(this.requested);
    copy.nonZeroRequested.add(this.nonZeroRequested);
    (copy as { usedPorts: HostPorts }).usedPorts = this.usedPorts.clone();
    copy.generation = this.generation;
    return copy;
  }

  /**
   * Makes this copy of `source` (on the same Node object) what `source` is now, keeping this object:
   * how a snapshot refreshes the copy of a node whose pods changed without allocating a new one.
   */
  refreshFrom(source: NodeInfo): void {
    if (source.node !== this.node) throw new Error(`NodeInfo ${this.name}: refreshFrom needs the same Node object`);
    copyInto(this.pods, source.pods);
    copyInto(this.podsWithAffinity, source.podsWithAffinity);
    copyInto(this.podsWithRequiredAntiAffinity, source.podsWithRequiredAntiAffinity);
    this.requested.assign(source.requested);
    this.nonZeroRequested.assign(source.nonZeroRequested);
    if (this.usedPorts.size > 0 || source.usedPorts.size > 0) (this as { usedPorts: HostPorts }).usedPorts = source.usedPorts.clone();
    this.generation = source.generation;
    this.byNamespace = undefined;
  }

  /** A copy on another Node object (the node was updated), keeping its pods. */
  withNode(node: Node): NodeInfo {
    const copy = new NodeInfo(node);
    for (const p of this.pods) copy.addPod(p);
    copy.generation = this.generation + 1;
    return copy;
  }

  private account(info: PodInfo, sign: 1 | -1): void {
    const apply = (target: Resource, delta: Resource) => (sign === 1 ? target.add(delta) : target.subtract(delta));
    apply(this.requested, info.requests);
    apply(this.nonZeroRequested, info.nonZero);
    for (const port of info.hostPorts) this.usedPorts.add(port.hostIP, port.protocol, port.hostPort, sign);
    this.byNamespace = undefined;
    this.generation++;
    this.observer?.nodeInfoChanged(this);
  }
}

const NO_PODS: readonly PodInfo[] = Object.freeze([]);

function copyInto(target: PodInfo[], source: readonly PodInfo[]): void {
  target.length = source.length;
  for (let i = 0; i < source.length; i++) target[i] = source[i] as PodInfo;
}

function removeById(list: PodInfo[], id: string): void {
  const index = list.findIndex((p) => p.id === id);
  if (index >= 0) list.splice(index, 1);
}

/** The read side of a cycle's snapshot, as plugins see it. */
export interface NodeInfoLister {
  list(): readonly NodeInfo[];
  get(name: string): NodeInfo | undefined;
  havePodsWithAffinity(): readonly NodeInfo[];
  havePodsWithRequiredAntiAffinity(): readonly NodeInfo[];
  /** On how many nodes an image is present (ImageLocality's spread factor). */
  imageNumNodes(image: string): number;
  /** Optional: the cluster's other objects (PriorityClasses, claims, …) the snapshot was taken with. */
  objects?(): ClusterObjects;
  /**
   * Optional, with changedSince: a mark of the list as it is now. A consumer keeping per-node results
   * over list() across cycles refreshes only the positions changed since its mark (NodeAggregate).
   */
  changeMark?(): number;
  /**
   * The positions of list() whose NodeInfo was replaced or changed since `mark` (taken from this
   * lister), possibly repeated; undefined when that cannot be told (the list was rebuilt, or changed
   * too much): compare every node then.
   */
  changedSince?(mark: number): readonly number[] | undefined;
}
