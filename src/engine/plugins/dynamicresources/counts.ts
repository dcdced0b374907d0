// Devices as the pod-set planners count them (solver/milp.ts adds them to a node's resources): per
// kind of device a pod's own claims ask for (a class with a request's selectors, tolerations and
// capacity), how many each pod wants and how many of that kind each node has free; and for a
// request whose devices must share an attribute (matchAttribute), how many such sets a node can
// give. Each is a condition every allocation meets, never more, so a model holding a plan to them
// excludes no plan the allocator could carry out and a bound built on it stays a bound; the plan
// is then carried out pod by pod through Filter (search/replay.ts), which has the last word.
// Counted: the ExactCount requests (without admin access) of claims not allocated yet: per pod for
// its own (from a template, or a claim made for it), once for a claim several pods share (which,
// where every slice is node-local, puts them all on one node); a firstAvailable list or
// allocationMode All is left to Filter.
import type { DeviceRequestSpec, ResourceClaim } from '../../api/dra';
import { podNamespace, type ClusterObjects, type Node, type Pod } from '../../api/types';
import { deviceId, lookupAttribute, nodeMatches, SliceIndex, taintPreventsAllocation, type Pool } from './allocator';
import { fitsCapacity } from './capacity';
import { compileSelector } from './cel';
import { claimsNotCreated, MADE_UP_ANNOTATION, podResourceClaims } from './claims';

/** What a pod set's pods ask of devices and what nodes offer, over kinds the set itself names. */
export interface DeviceCounts {
  /** One name per counted quantity (`devices/<class>#<i>`, `device-sets/<class>#<i>/<attribute>×<count>`), in a stable order. */
  readonly names: readonly string[];
  /** Per pod: how much of each it wants (names' order); undefined when it wants none. */
  demand(pod: Pod): Float64Array | undefined;
  /** Per node: how much of each it has free, and in all (free and taken). */
  supply(node: Node): { readonly free: Float64Array; readonly total: Float64Array };
  /**
   * Claims not allocated yet that several of the pods share, when every slice is node-local: the
   * claim is allocated once, on one node, where all its pods must go; its devices are counted once
   * (`demand`, names' order).
   */
  readonly shared: ReadonlyArray<{ readonly pods: readonly Pod[]; readonly demand: Float64Array }>;
}

interface Kind {
  readonly spec: DeviceRequestSpec;
}

interface SetKind {
  readonly kind: number;
  readonly attribute: string;
  readonly count: number;
}

function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

/** The request's spec as far as which devices it may take goes (count and mode aside). */
function kindKey(spec: DeviceRequestSpec): string {
  return JSON.stringify([spec.deviceClassName, spec.selectors ?? [], spec.tolerations ?? [], spec.capacity ?? {}]);
}

/** The device counts for `pods` on `objects`' devices; undefined when none of them asks for a device the planners count. */
export function deviceCounts(pods: readonly Pod[], objects: ClusterObjects): DeviceCounts | undefined {
  if (!pods.some((p) => (p.spec.resourceClaims ?? []).length > 0)) return undefined;
  const claims = new Map((objects.resourceClaims ?? []).map((c) => [key(c.metadata.namespace, c.metadata.name), c]));
  const templates = new Map((objects.resourceClaimTemplates ?? []).map((t) => [key(t.metadata.namespace, t.metadata.name), t]));
  const notCreated = claimsNotCreated(objects);
  const classes = new Map((objects.deviceClasses ?? []).map((c) => [c.metadata.name, c]));
  const kinds: Kind[] = [];
  const kindIndex = new Map<string, number>();
  const sets: SetKind[] = [];
  const setIndex = new Map<string, number>();
  const perPod = new Map<Pod, Map<number, number>>();
  /** Shared claims: their pods and what they want, counted once. */
  const sharedClaims = new Map<string, { pods: Pod[]; wants: Map<number, number> }>();
  const kindOf = (spec: DeviceRequestSpec): number => {
    const k = kindKey(spec);
    let i = kindIndex.get(k);
    if (i === undefined) kindIndex.set(k, (i = kinds.push({ spec }) - 1));
    return i;
  };
  for (const pod of pods) {
    const found = podResourceClaims(pod, {
      claim: (ns, n) => claims.get(key(ns, n)),
      template: (ns, n) => templates.get(key(ns, n)),
      notCreated: (ns, n) => notCreated.has(key(ns, n)),
    });
    if (!found.ok) continue;
    const own = new Map<number, number>();
    for (const claim of found.value) {
      if (claim.status?.allocation) continue;
      let wants = own;
      if (!ownClaim(claim, pod)) {
        const k = key(claim.metadata.namespace, claim.metadata.name);
        const known = sharedClaims.get(k);
        if (known) {
          known.pods.push(pod);
          continue;
        }
        wants = new Map();
        sharedClaims.set(k, { pods: [pod], wants });
      }
      const add = (column: number, n: number) => wants.set(column, (wants.get(column) ?? 0) + n);
      const requests = claim.spec.devices?.requests ?? [];
      const counted = new Map<string, { kind: number; count: number }>();
      for (const r of requests) {
        const spec = r.exactly;
        if (!spec || spec.adminAccess === true || (spec.allocationMode ?? 'ExactCount') !== 'ExactCount') continue;
        if (!classes.has(spec.deviceClassName)) continue;
        const kind = kindOf(spec);
        const count = spec.count ?? 1;
        counted.set(r.name, { kind, count });
        add(kind, count);
      }
      // A matchAttribute constraint over one counted request: its devices come as one set sharing the attribute.
      for (const c of claim.spec.devices?.constraints ?? []) {
        if (c.matchAttribute === undefined) continue;
        const covered = (c.requests ?? []).length > 0 ? (c.requests ?? []) : requests.map((r) => r.name);
        if (covered.length !== 1) continue;
        const one = counted.get(covered[0]!);
        if (!one || one.count < 2) continue;
        const k = `${one.kind}\u0000${c.matchAttribute}\u0000${one.count}`;
        let s = setIndex.get(k);
        if (s === undefined) setIndex.set(k, (s = sets.push({ kind: one.kind, attribute: c.matchAttribute, count: one.count }) - 1));
        add(-1 - s, 1);
      }
    }
    if (own.size > 0) perPod.set(pod, own);
  }
  // Co-location holds where every device is on one node's slice.
  const nodeLocal = (objects.resourceSlices ?? []).every((s) => s.spec.nodeName !== undefined && s.spec.nodeName !== '');
  const shared = nodeLocal ? [...sharedClaims.values()].filter((c) => c.wants.size > 0) : [];
  if (perPod.size === 0 && shared.length === 0) return undefined;
  const names = [
    ...kinds.map((k, i) => `devices/${k.spec.deviceClassName}#${i}`),
    ...sets.map((s) => `device-sets/${kinds[s.kind]!.spec.deviceClassName}#${s.kind}/${s.attribute}×${s.count}`),
  ];
  const K = kinds.length;
  const slices = new SliceIndex(objects.resourceSlices ?? []);
  const taken = new Set<string>();
  for (const c of objects.resourceClaims ?? [])
    for (const r of c.status?.allocation?.devices?.results ?? [])
      if (r.adminAccess !== true) taken.add(deviceId(r.driver, r.pool, r.device));
  const supplies = new WeakMap<Node, { readonly free: Float64Array; readonly total: Float64Array }>();
  const vector = (wants: ReadonlyMap<number, number>): Float64Array => {
    const out = new Float64Array(names.length);
    for (const [column, n] of wants) out[column >= 0 ? column : K - 1 - column] = n;
    return out;
  };
  return {
    names,
    shared: shared.map((c) => ({ pods: c.pods, demand: vector(c.wants) })),
    demand(pod) {
      const wants = perPod.get(pod);
      return wants ? vector(wants) : undefined;
    },
    supply(node) {
      let s = supplies.get(node);
      if (!s) supplies.set(node, (s = nodeSupply(node, slices.poolsFor(node), kinds, sets, classes, taken, names.length)));
      return s;
    },
  };
}

/** A claim only this pod uses: made from a template (by the controller or by Podplan), or reserved for this pod alone. */
function ownClaim(claim: ResourceClaim, pod: Pod): boolean {
  if (claim.metadata.annotations?.[MADE_UP_ANNOTATION] === 'true') return true;
  const owner = claim.metadata.ownerReferences?.find((o) => o.controller === true);
  return owner?.kind === 'Pod' && owner.name === pod.metadata.name && (claim.metadata.namespace ?? 'default') === podNamespace(pod);
}

function nodeSupply(
  node: Node,
  pools: readonly Pool[] | string,
  kinds: readonly Kind[],
  sets: readonly SetKind[],
  classes: ReadonlyMap<string, { readonly spec: { readonly selectors?: readonly { readonly cel?: { readonly expression: string } }[] } }>,
  taken: ReadonlySet<string>,
  width: number,
): { readonly free: Float64Array; readonly total: Float64Array } {
  const free = new Float64Array(width);
  const total = new Float64Array(width);
  if (typeof pools === 'string') return { free, total };
  const K = kinds.length;
  /** Per set kind: free devices per attribute value. */
  const perValue = sets.map(() => new Map<string, number>());
  const perValueTotal = sets.map(() => new Map<string, number>());
  for (const pool of pools) {
    if (pool.incomplete || pool.invalid) continue;
    for (const slice of pool.slices) {
      const driver = slice.spec.driver;
      for (const device of slice.spec.devices ?? []) {
        if (slice.spec.perDeviceNodeSelection && !nodeMatches(node, device.nodeName, device.allNodes, device.nodeSelector)) continue;
        const isFree = !taken.has(deviceId(pool.driver, pool.pool, device.name));
        kinds.forEach((kind, k) => {
          const selectors = [...(classes.get(kind.spec.deviceClassName)?.spec.selectors ?? []), ...(kind.spec.selectors ?? [])];
          for (const s of selectors) {
            const compiled = compileSelector(s.cel?.expression ?? '');
            if (!compiled.ok) return;
            const r = compiled.matches(device, driver);
            if (!r.ok || !r.value) return;
          }
          if (taintPreventsAllocation(device, kind.spec.tolerations) || !fitsCapacity(kind.spec.capacity?.requests, device)) return;
          total[k] = (total[k] ?? 0) + 1;
          if (isFree) free[k] = (free[k] ?? 0) + 1;
          sets.forEach((set, s) => {
            if (set.kind !== k) return;
            const a = lookupAttribute(device, driver, set.attribute);
            if (!a) return;
            const v = `${a.t}\u0000${String(a.v)}`;
            perValueTotal[s]!.set(v, (perValueTotal[s]!.get(v) ?? 0) + 1);
            if (isFree) perValue[s]!.set(v, (perValue[s]!.get(v) ?? 0) + 1);
          });
        });
      }
    }
  }
  sets.forEach((set, s) => {
    for (const n of perValue[s]!.values()) free[K + s] = (free[K + s] ?? 0) + Math.floor(n / set.count);
    for (const n of perValueTotal[s]!.values()) total[K + s] = (total[K + s] ?? 0) + Math.floor(n / set.count);
  });
  return { free, total };
}
