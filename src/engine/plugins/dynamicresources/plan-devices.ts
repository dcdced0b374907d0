// The devices of a plan: what the scheduler, following the plan pod by pod, allocates to each placed
// pod's claims (the allocator on the devices the cluster and the earlier pods left, as the plugin
// does in a planner's what-if), and per node and DeviceClass how many devices there are, how many
// claims of the cluster hold and how many the plan takes, for the node map and the plan history.
import type { Device, DeviceClass, ResourceClaim } from '../../api/dra';
import { podNamespace, type ClusterObjects, type Node, type Pod } from '../../api/types';
import { allocate, deviceId, nodeMatches, SliceIndex, type AllocatorInput } from './allocator';
import { compileSelector } from './cel';
import { claimsNotCreated, podResourceClaims } from './claims';

/** One device a placed pod's claim gets. */
export interface PlannedDevice {
  /** namespace/name of the claim (a made-up name for a template's claim, as the controller would make it). */
  readonly claim: string;
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  /** The claim was allocated before the plan (a shared claim, or one the cluster allocated): the plan does not allocate it. */
  readonly existing?: boolean;
}

/** Per node and DeviceClass: devices of the class the node reaches, those claims of the cluster hold, those the plan's pods take. */
export interface NodeDeviceUse {
  readonly deviceClass: string;
  readonly total: number;
  readonly allocated: number;
  readonly planned: number;
}

function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

function takenBy(claim: ResourceClaim): string[] {
  return (claim.status?.allocation?.devices?.results ?? [])
    .filter((r) => r.adminAccess !== true)
    .map((r) => deviceId(r.driver, r.pool, r.device));
}

/** What each placement's pod gets, in plan order (pods without claims are left out). */
export function planDevices(
  objects: ClusterObjects,
  placements: ReadonlyArray<{ readonly pod: Pod; readonly node: Node }>,
): Map<Pod, PlannedDevice[]> {
  const out = new Map<Pod, PlannedDevice[]>();
  if (!placements.some((p) => (p.pod.spec.resourceClaims ?? []).length > 0)) return out;
  const claims = new Map((objects.resourceClaims ?? []).map((c) => [key(c.metadata.namespace, c.metadata.name), c]));
  const templates = new Map((objects.resourceClaimTemplates ?? []).map((t) => [key(t.metadata.namespace, t.metadata.name), t]));
  const notCreated = claimsNotCreated(objects);
  const taken = new Set<string>();
  for (const c of claims.values()) for (const id of takenBy(c)) taken.add(id);
  const input: AllocatorInput = {
    classes: new Map((objects.deviceClasses ?? []).map((c) => [c.metadata.name, c])),
    slices: new SliceIndex(objects.resourceSlices ?? []),
    allocated: taken,
  };
  /** Claims the plan allocated so far (a shared claim is allocated once, for its first pod). */
  const allocated = new Map<string, PlannedDevice[]>();
  for (const { pod, node } of placements) {
    if ((pod.spec.resourceClaims ?? []).length === 0) continue;
    const found = podResourceClaims(pod, {
      claim: (ns, n) => claims.get(key(ns, n)),
      template: (ns, n) => templates.get(key(ns, n)),
      notCreated: (ns, n) => notCreated.has(key(ns, n)),
    });
    if (!found.ok) continue;
    const devices: PlannedDevice[] = [];
    const pending: ResourceClaim[] = [];
    for (const claim of found.value) {
      const name = key(claim.metadata.namespace ?? podNamespace(pod), claim.metadata.name);
      const before = claim.status?.allocation?.devices?.results;
      if (before)
        devices.push(
          ...before.map((r) => ({ claim: name, request: r.request, driver: r.driver, pool: r.pool, device: r.device, existing: true })),
        );
      else if (allocated.has(name)) devices.push(...(allocated.get(name) ?? []));
      else pending.push(claim);
    }
    if (pending.length > 0) {
      const outcome = allocate(input, node, pending);
      if (outcome.kind === 'allocated') {
        outcome.results.forEach((result, i) => {
          const claim = pending[i]!;
          const name = key(claim.metadata.namespace ?? podNamespace(pod), claim.metadata.name);
          const got = (result.devices?.results ?? []).map((r) => ({
            claim: name,
            request: r.request,
            driver: r.driver,
            pool: r.pool,
            device: r.device,
          }));
          for (const r of result.devices?.results ?? []) if (r.adminAccess !== true) taken.add(deviceId(r.driver, r.pool, r.device));
          allocated.set(name, got);
          devices.push(...got);
        });
      }
    }
    if (devices.length > 0) out.set(pod, devices);
  }
  return out;
}

function inClass(cls: DeviceClass, device: Device, driver: string): boolean {
  for (const s of cls.spec.selectors ?? []) {
    const compiled = compileSelector(s.cel?.expression ?? '');
    if (!compiled.ok) return false;
    const r = compiled.matches(device, driver);
    if (!r.ok || !r.value) return false;
  }
  return true;
}

/**
 * Per node, per DeviceClass with a device there (class name order): total, held by the cluster's
 * claims, taken by the plan (`planned`: device ids). Undefined when the objects hold no DeviceClass.
 */
export function deviceUse(objects: ClusterObjects, planned: ReadonlySet<string>): ((node: Node) => NodeDeviceUse[]) | undefined {
  const classes = objects.deviceClasses ?? [];
  if (classes.length === 0) return undefined;
  const slices = new SliceIndex(objects.resourceSlices ?? []);
  const taken = new Set<string>();
  for (const c of objects.resourceClaims ?? []) for (const id of takenBy(c)) taken.add(id);
  return (node) => nodeDeviceUse(node, classes, slices, taken, planned);
}

function nodeDeviceUse(
  node: Node,
  classes: readonly DeviceClass[],
  slices: SliceIndex,
  taken: ReadonlySet<string>,
  planned: ReadonlySet<string>,
): NodeDeviceUse[] {
  const pools = slices.poolsFor(node);
  if (typeof pools === 'string') return [];
  const use = new Map<string, { total: number; allocated: number; planned: number }>();
  for (const pool of pools) {
    if (pool.incomplete || pool.invalid) continue;
    for (const slice of pool.slices) {
      for (const device of slice.spec.devices ?? []) {
        if (slice.spec.perDeviceNodeSelection && !nodeMatches(node, device.nodeName, device.allNodes, device.nodeSelector)) continue;
        const id = deviceId(pool.driver, pool.pool, device.name);
        for (const cls of classes) {
          if (!inClass(cls, device, slice.spec.driver)) continue;
          let u = use.get(cls.metadata.name);
          if (!u) use.set(cls.metadata.name, (u = { total: 0, allocated: 0, planned: 0 }));
          u.total++;
          if (taken.has(id)) u.allocated++;
          else if (planned.has(id)) u.planned++;
        }
      }
    }
  }
  return [...use].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([deviceClass, u]) => ({ deviceClass, ...u }));
}
