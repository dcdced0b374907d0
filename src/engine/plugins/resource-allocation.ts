// What NodeResourcesFit's scoring and NodeResourcesBalancedAllocation share (upstream
// noderesources/resource_allocation.go): the resources a profile scores with their weights, the pod's
// request for each (computed once per pod), and, per node, each resource's allocatable and requested
// amount with the pod added.
import { qualifiedNameError, type FieldPath } from '../api/field';
import { CPU, EPHEMERAL_STORAGE, MEMORY, type Resource } from '../api/resources';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import type { ArgsReader } from './args';

export interface ResourceSpec {
  readonly name: string;
  readonly weight: number;
}

/** Upstream's default scoring resources: cpu and memory, weight 1 each. */
export const DEFAULT_RESOURCES: readonly ResourceSpec[] = Object.freeze([
  Object.freeze({ name: CPU, weight: 1 }),
  Object.freeze({ name: MEMORY, weight: 1 }),
]);

const REQUESTS_PREFIX = 'requests.';
const NATIVE_PREFIX = 'kubernetes.io/';

/** A resource outside the kubernetes.io namespace, with a domain prefix (example.com/gpu). */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes(NATIVE_PREFIX) || name.startsWith(REQUESTS_PREFIX)) return false;
  return qualifiedNameError(REQUESTS_PREFIX + name) === undefined;
}

/** A resource kept in the scalar part of a resource vector: extended, hugepages, prefixed native, attachable volumes. */
export function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) || name.startsWith('hugepages-') || name.includes(NATIVE_PREFIX) || name.startsWith('attachable-volumes-')
  );
}

/** Where a resource lives in a resource vector, resolved once so hot loops do not compare names. */
export enum Kind {
  Cpu,
  Memory,
  EphemeralStorage,
  Scalar,
  /** A name no vector holds (e.g. "pods" or a name without a domain): never checked or scored, as upstream. */
  None,
}

function kindOf(name: string): Kind {
  if (name === CPU) return Kind.Cpu;
  if (name === MEMORY) return Kind.Memory;
  if (name === EPHEMERAL_STORAGE) return Kind.EphemeralStorage;
  return isScalarResourceName(name) ? Kind.Scalar : Kind.None;
}

/** The amount of a resource of this kind in the vector. */
export function amountOf(vector: Resource, kind: Kind, name: string): number {
  switch (kind) {
    case Kind.Cpu:
      return vector.milliCPU;
    case Kind.Memory:
      return vector.memory;
    case Kind.EphemeralStorage:
      return vector.ephemeralStorage;
    case Kind.Scalar:
      return vector.scalar.get(name) ?? 0;
    default:
      return 0;
  }
}

/**
 * Per-node figures for a list of resources. `useRequested` scores the node's plain requests; without it
 * cpu and memory use the non-zero requests (a container asking for nothing counts as 100m / 200Mi).
 */
export class ResourceAllocation {
  private readonly kinds: readonly Kind[];
  private readonly names: readonly string[];
  /** Scratch vectors reused for every node: scoring runs one node at a time. */
  readonly requested: number[];
  /** The node's requests without the pod (what BalancedAllocation compares the balance against). */
  readonly allocated: number[];
  readonly allocatable: number[];

  constructor(
    readonly resources: readonly ResourceSpec[],
    private readonly useRequested: boolean,
  ) {
    this.kinds = resources.map((r) => kindOf(r.name));
    this.names = resources.map((r) => r.name);
    this.requested = resources.map(() => 0);
    this.allocated = resources.map(() => 0);
    this.allocatable = resources.map(() => 0);
  }

  /** The pod's request for each resource, in the order of `resources`. */
  podRequests(pod: PodInfo): number[] {
    const vector = this.useRequested ? pod.requests : pod.nonZeroContainers;
    return this.kinds.map((kind, i) => amountOf(vector, kind, this.names[i] ?? ''));
  }

  /**
   * Fills `requested` (node's requests plus the pod's), `allocated` (without the pod) and
   * `allocatable` for the node. A resource the
   * node does not offer, or a scalar resource the pod does not ask for, is left at 0 / 0 so the scorers
   * skip it. Ephemeral storage and scalars always read plain requests, as upstream.
   */
  fill(node: NodeInfo, podRequests: readonly number[]): void {
    const nonZero = this.useRequested ? node.requested : node.nonZeroRequested;
    for (let i = 0; i < this.kinds.length; i++) {
      const kind = this.kinds[i] ?? Kind.None;
      const name = this.names[i] ?? '';
      const podRequest = podRequests[i] ?? 0;
      const alloc = kind === Kind.Scalar && podRequest === 0 ? 0 : amountOf(node.allocatable, kind, name);
      this.allocatable[i] = alloc;
      const allocated = alloc === 0 ? 0 : amountOf(kind === Kind.Cpu || kind === Kind.Memory ? nonZero : node.requested, kind, name);
      this.allocated[i] = allocated;
      this.requested[i] = alloc === 0 ? 0 : allocated + podRequest;
    }
  }
}

/**
 * Reads a `resources: [{name, weight}]` list; absent or empty means `DEFAULT_RESOURCES`, and an absent
 * or zero weight means 1 (upstream's defaulting). Weights are validated by the caller.
 */
export function readResourceSpecs(reader: ArgsReader, value: unknown, path: FieldPath): readonly ResourceSpec[] {
  const list = reader.list(value, path) ?? [];
  if (list.length === 0) return DEFAULT_RESOURCES;
  return list.map((entry, i) => {
    const at = [...path, i];
    const spec = reader.object(entry, at, ['name', 'weight']);
    const name = reader.string(spec?.['name'], [...at, 'name']) ?? '';
    const weight = reader.int(spec?.['weight'], [...at, 'weight']) ?? 0;
    return { name, weight: weight === 0 ? 1 : weight };
  });
}

/** trunc(a * b / c) on non-negative integers (c > 0), exact as upstream's int64 arithmetic. */
export function mulDiv(a: number, b: number, c: number): number {
  const product = a * b;
  if (product + c > Number.MAX_SAFE_INTEGER) return Number((BigInt(a) * BigInt(b)) / BigInt(c));
  // Float division can land one off near an integer when c is large; the remainder corrects it.
  const q = Math.floor(product / c);
  const r = product - q * c;
  return r < 0 ? q - 1 : r >= c ? q + 1 : q;
}
