// Resource vectors and a pod's effective request, computed as upstream does
// (k8s.io/component-helpers/resource PodRequests): max(sum of app containers + sidecars, each init
// container's peak), where pod-level requests (spec.resources) win for the resources they may set
// (cpu, memory, hugepages), + overhead; and the "non-zero" variant used for scoring, where a
// container that requests no cpu or memory counts as 100m / 200Mi (with pod-level requests, only for
// a resource neither the pod nor any container asks for). A container's limits stand in for requests
// it leaves out, as the API server's defaulting does; so do the pod's, as its pod-level defaulting does.
import { parseQuantity, quantityMilliValue, quantityValue } from './quantity';
import { err, ok, type Result } from './result';
import type { Container, Node, Pod, ResourceList } from './types';

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';

/** Upstream's defaults for containers without a request, used only for scoring (non-zero requests). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** A resource vector: cpu in millicores, memory and storage in bytes, pods and extended resources as counts. */
export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  allowedPodNumber = 0;
  readonly scalar = new Map<string, number>();

  static of(values: {
    milliCPU?: number;
    memory?: number;
    ephemeralStorage?: number;
    allowedPodNumber?: number;
    scalar?: Record<string, number>;
  }): Resource {
    const r = new Resource();
    r.milliCPU = values.milliCPU ?? 0;
    r.memory = values.memory ?? 0;
    r.ephemeralStorage = values.ephemeralStorage ?? 0;
    r.allowedPodNumber = values.allowedPodNumber ?? 0;
    for (const [name, value] of Object.entries(values.scalar ?? {})) r.scalar.set(name, value);
    return r;
  }

  /** Becomes a copy of `other` (its requests and pod count), in place. */
  assign(other: Resource): void {
    this.milliCPU = other.milliCPU;
    this.memory = other.memory;
    this.ephemeralStorage = other.ephemeralStorage;
    this.allowedPodNumber = other.allowedPodNumber;
    if (this.scalar.size > 0) this.scalar.clear();
    if (other.scalar.size > 0) for (const [name, value] of other.scalar) this.scalar.set(name, value);
  }

  clone(): Resource {
    const r = new Resource();
    r.add(this);
    r.allowedPodNumber = this.allowedPodNumber;
    return r;
  }

  /** Adds another vector's requests (not its pod count). */
  add(other: Resource): void {
    this.milliCPU += other.milliCPU;
    this.memory += other.memory;
    this.ephemeralStorage += other.ephemeralStorage;
    if (other.scalar.size > 0) for (const [name, value] of other.scalar) this.scalar.set(name, (this.scalar.get(name) ?? 0) + value);
  }

  subtract(other: Resource): void {
    this.milliCPU -= other.milliCPU;
    this.memory -= other.memory;
    this.ephemeralStorage -= other.ephemeralStorage;
    if (other.scalar.size > 0) for (const [name, value] of other.scalar) this.scalar.set(name, (this.scalar.get(name) ?? 0) - value);
  }

  /** Raises each component to at least the other's. */
  setMax(other: Resource): void {
    this.milliCPU = Math.max(this.milliCPU, other.milliCPU);
    this.memory = Math.max(this.memory, other.memory);
    this.ephemeralStorage = Math.max(this.ephemeralStorage, other.ephemeralStorage);
    for (const [name, value] of other.scalar) this.scalar.set(name, Math.max(this.scalar.get(name) ?? 0, value));
  }

  /** The amount of a named resource ("cpu" in millicores, "memory" in bytes, extended by name). */
  get(name: string): number {
    switch (name) {
      case CPU:
        return this.milliCPU;
      case MEMORY:
        return this.memory;
      case EPHEMERAL_STORAGE:
        return this.ephemeralStorage;
      case PODS:
        return this.allowedPodNumber;
      default:
        return this.scalar.get(name) ?? 0;
    }
  }

  /** Names of every resource this vector holds a non-zero amount of. */
  names(): string[] {
    const names: string[] = [];
    if (this.milliCPU) names.push(CPU);
    if (this.memory) names.push(MEMORY);
    if (this.ephemeralStorage) names.push(EPHEMERAL_STORAGE);
    if (this.allowedPodNumber) names.push(PODS);
    for (const [name, value] of this.scalar) if (value) names.push(name);
    return names;
  }

  /** The non-zero amounts by resource name ({ cpu: millicores, memory: bytes, ... }), for views and tests. */
  toRecord(): Record<string, number> {
    return Object.fromEntries(this.names().map((name) => [name, this.get(name)]));
  }
}

/**
 * Amounts already worked out, by unit and text: a workspace writes the same few quantities thousands
 * of times ("100m", "1Gi"), and each parse is BigInt arithmetic. The function is pure, so a hit is the
 * answer a parse gives. Budget: AMOUNTS_KEPT entries, all dropped when full.
 */
const amounts = new Map<string, Result<number>>();
const AMOUNTS_KEPT = 4096;

/** The amount of one resource of a ResourceList (millicores for cpu), or why `text` is none (without the field: the caller names it). */
export function resourceAmount(name: string, text: string): Result<number> {
  const key = (name === CPU ? 'm' : 'v') + text;
  let amount = amounts.get(key);
  if (amount === undefined) {
    if (amounts.size >= AMOUNTS_KEPT) amounts.clear();
    amounts.set(key, (amount = parsedAmount(name, text)));
  }
  return amount;
}

function parsedAmount(name: string, text: string): Result<number> {
  const q = parseQuantity(text);
  if (!q.ok) return q;
  const amount = name === CPU ? quantityMilliValue(q.value) : quantityValue(q.value);
  if (!amount.ok) return amount;
  return amount.value < 0 ? err(`"${text}" must not be negative`) : amount;
}

/** Parses a ResourceList (requests, limits, allocatable) into a vector; `field` names where it came from. */
export function parseResourceList(list: ResourceList | undefined, field: string): Result<Resource> {
  const r = new Resource();
  for (const [name, text] of Object.entries(list ?? {})) {
    const amount = resourceAmount(name, String(text));
    if (!amount.ok) return err(`${field}.${name}: ${amount.error}`);
    switch (name) {
      case CPU:
        r.milliCPU = amount.value;
        break;
      case MEMORY:
        r.memory = amount.value;
        break;
      case EPHEMERAL_STORAGE:
        r.ephemeralStorage = amount.value;
        break;
      case PODS:
        r.allowedPodNumber = amount.value;
        break;
      default:
        r.scalar.set(name, amount.value);
    }
  }
  return ok(r);
}

export interface PodResources {
  /** What the pod asks for: used by the fit filter. */
  readonly requests: Resource;
  /** The same with upstream's defaults for containers that ask for no cpu or memory: used for scoring. */
  readonly nonZero: Resource;
}

/** A pod's requests, and what NodeResourcesFit's scoring reads of an incoming pod. */
export interface PodRequestVectors extends PodResources {
  /**
   * The non-zero requests of the containers (and overhead) without the pod-level ones: upstream
   * 1.37's NodeResourcesFit builds its scorer without the PodLevelResources switch, so its scores
   * read the containers alone (BalancedAllocation, and every node's totals, read the pod level).
   */
  readonly nonZeroContainers: Resource;
}

interface ContainerResources extends PodResources {
  /** The resources it asks for (explicitly or by its limits), even as "0". */
  readonly asked: ReadonlySet<string>;
}

function containerRequests(c: Container, field: string): Result<ContainerResources> {
  const explicit = c.resources?.requests ?? {};
  // As the API server defaults every pod it stores (SetDefaults_Pod): a resource with a limit but no
  // request requests its limit. Pods read from workspace manifests never went through that defaulting.
  const fromLimits = Object.fromEntries(Object.entries(c.resources?.limits ?? {}).filter(([name]) => !Object.hasOwn(explicit, name)));
  const requests = parseResourceList(explicit, `${field}.resources.requests`);
  if (!requests.ok) return requests;
  const defaulted = parseResourceList(fromLimits, `${field}.resources.limits`);
  if (!defaulted.ok) return defaulted;
  requests.value.add(defaulted.value);
  const nonZero = requests.value.clone();
  const asked = (name: string) => Object.hasOwn(explicit, name) || Object.hasOwn(fromLimits, name);
  // Only a request that is absent gets the default: an explicit "0" stays 0, as upstream.
  if (!asked(CPU)) nonZero.milliCPU = DEFAULT_MILLI_CPU_REQUEST;
  if (!asked(MEMORY)) nonZero.memory = DEFAULT_MEMORY_REQUEST;
  return ok({ requests: requests.value, nonZero, asked: new Set([...Object.keys(explicit), ...Object.keys(fromLimits)]) });
}

/** Upstream IsSupportedPodLevelResource: cpu, memory and hugepages of any page size. */
export function isSupportedPodLevelResource(name: string): boolean {
  return name === CPU || name === MEMORY || name.startsWith('hugepages-');
}

const cache = new WeakMap<Pod, Result<PodRequestVectors>>();

/** The pod's effective requests; memoized per pod object (engine objects are immutable). */
export function podResources(pod: Pod): Result<PodRequestVectors> {
  let result = cache.get(pod);
  if (!result) {
    result = computePodResources(pod);
    cache.set(pod, result);
  }
  return result;
}

function computePodResources(pod: Pod): Result<PodRequestVectors> {
  const requests = new Resource();
  const nonZero = new Resource();
  const asked = new Set<string>();
  for (const [i, c] of pod.spec.containers.entries()) {
    const r = containerRequests(c, `spec.containers[${i}]`);
    if (!r.ok) return r;
    requests.add(r.value.requests);
    nonZero.add(r.value.nonZero);
    for (const name of r.value.asked) asked.add(name);
  }
  // Init containers run one at a time before the app; sidecars (restartPolicy Always) keep running,
  // so each init container's peak is its own request plus the sidecars started before it.
  const sidecars = { requests: new Resource(), nonZero: new Resource() };
  const initPeak = { requests: new Resource(), nonZero: new Resource() };
  for (const [i, c] of (pod.spec.initContainers ?? []).entries()) {
    const r = containerRequests(c, `spec.initContainers[${i}]`);
    if (!r.ok) return r;
    for (const name of r.value.asked) asked.add(name);
    for (const key of ['requests', 'nonZero'] as const) {
      const peak = r.value[key].clone();
      peak.add(sidecars[key]);
      initPeak[key].setMax(peak);
      if (c.restartPolicy === 'Always') sidecars[key].add(r.value[key]);
    }
  }
  requests.add(sidecars.requests);
  nonZero.add(sidecars.nonZero);
  requests.setMax(initPeak.requests);
  nonZero.setMax(initPeak.nonZero);
  const nonZeroContainers = nonZero.clone();
  const podLevel = podLevelRequests(pod, asked);
  if (!podLevel.ok) return podLevel;
  if (podLevel.value) {
    // With pod-level requests, scoring's defaults apply only to a resource no one asks for.
    if (asked.has(CPU)) nonZero.milliCPU = requests.milliCPU;
    if (asked.has(MEMORY)) nonZero.memory = requests.memory;
    for (const [name, amount] of podLevel.value) {
      setAmount(requests, name, amount);
      setAmount(nonZero, name, amount);
    }
  }
  if (pod.spec.overhead) {
    const overhead = parseResourceList(pod.spec.overhead, 'spec.overhead');
    if (!overhead.ok) return overhead;
    requests.add(overhead.value);
    nonZero.add(overhead.value);
    nonZeroContainers.add(overhead.value);
  }
  return ok({ requests, nonZero, nonZeroContainers: podLevel.value ? nonZeroContainers : nonZero });
}

/**
 * The pod-level requests of the resources they may set, by name; undefined when the pod sets none
 * (upstream IsPodLevelRequestsSet). A pod-level limit without a request stands for it when no
 * container asks for that resource (the API server's pod-level defaulting; when one does, the
 * containers' total is the request, which is what leaving it out gives).
 */
function podLevelRequests(pod: Pod, askedByContainers: ReadonlySet<string>): Result<Map<string, number> | undefined> {
  const level = pod.spec.resources;
  if (!level) return ok(undefined);
  const chosen: Record<string, string> = {};
  for (const [name, value] of Object.entries(level.limits ?? {}))
    if (isSupportedPodLevelResource(name) && !askedByContainers.has(name)) chosen[name] = value;
  for (const [name, value] of Object.entries(level.requests ?? {})) if (isSupportedPodLevelResource(name)) chosen[name] = value;
  if (Object.keys(chosen).length === 0) return ok(undefined);
  const parsed = parseResourceList(chosen, 'spec.resources');
  if (!parsed.ok) return parsed;
  return ok(new Map(Object.keys(chosen).map((name) => [name, parsed.value.get(name)])));
}

function setAmount(r: Resource, name: string, amount: number): void {
  if (name === CPU) r.milliCPU = amount;
  else if (name === MEMORY) r.memory = amount;
  else r.scalar.set(name, amount);
}

const allocatableCache = new WeakMap<Node, Result<Resource>>();

/** What the node offers pods: status.allocatable, else status.capacity. */
export function nodeAllocatable(node: Node): Result<Resource> {
  let result = allocatableCache.get(node);
  if (!result) {
    result = node.status?.allocatable
      ? parseResourceList(node.status.allocatable, 'status.allocatable')
      : parseResourceList(node.status?.capacity, 'status.capacity');
    allocatableCache.set(node, result);
  }
  return result;
}
