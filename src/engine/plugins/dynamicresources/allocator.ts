// The structured-parameters allocator as upstream 1.37 runs it with its default features
// (k8s.io/dynamic-resource-allocation/structured/internal/incubating: allocator_incubating.go and
// pools_incubating.go): the pools a node reaches (slices by nodeName, nodeSelector, allNodes or
// per-device selection; the newest generation; an incomplete pool unusable; pools sorted by driver
// then name, slices by name, pools with binding conditions last), then a first-fit exhaustive
// search, claim by claim and request by request, each device tried in pool/slice/device order:
// in use (allocated before, or in this search), class and request CEL selectors, device taints
// against the request's tolerations (DeviceTaintRules' taints added first: withDeviceTaintRules),
// partitionable devices' shared counters, matchAttribute / distinctAttribute constraints;
// firstAvailable tries its subrequests in order; allocationMode All takes every matching device of
// the node's pools; admin access takes devices in use; a device that allows multiple allocations is
// shared while its capacities last (consumable capacity: capacity.ts).
import { NodeSelectorMatcher, NODE_NAME_FIELD } from '../../api/node-affinity';
import type {
  AllocationResult,
  Device,
  DeviceClass,
  DeviceConstraint,
  DeviceRequest,
  DeviceRequestAllocationResult,
  DeviceRequestSpec,
  DeviceTaintRule,
  DeviceToleration,
  ResourceClaim,
  ResourceSlice,
} from '../../api/dra';
import type { Node, NodeSelector, NodeSelectorRequirement } from '../../api/types';
import { consumedBy, fitsCapacity, nano, quantityText, type Consumed } from './capacity';
import { compileSelector } from './cel';
import { deadlinePassed, type AllocationDeadline } from './deadline';

/** The allocation result limit per claim (resourceapi.AllocationResultsMaxSize). */
export const ALLOCATION_RESULTS_MAX_SIZE = 32;

export function deviceId(driver: string, pool: string, device: string): string {
  return `${driver}/${pool}/${device}`;
}

export interface Pool {
  readonly driver: string;
  readonly pool: string;
  /** `driver/pool`, as device ids start. */
  readonly key: string;
  /** A small number per pool key, the same on every node (SliceIndex.poolId): for tables indexed by pool. */
  readonly id: number;
  readonly incomplete: boolean;
  readonly invalid: boolean;
  /** The slices with devices for the node, by name (slices of shared counters left out). */
  readonly slices: readonly ResourceSlice[];
  /**
   * Partitionable devices (DRAPartitionableDevices): the pool's counter sets (name → counter →
   * amount in nano units), and its device slices that do not reach the node (their allocated
   * devices consume counters too). Empty without counter sets.
   */
  readonly counterSets: CounterSets;
  readonly others: readonly ResourceSlice[];
}

/** Counter set name → counter name → amount in nano units (exact for every quantity the API accepts). */
export type CounterSets = ReadonlyMap<string, ReadonlyMap<string, bigint>>;

const NO_COUNTERS: CounterSets = new Map();
const NO_SLICES: readonly ResourceSlice[] = [];

function hasSharedCounters(slice: ResourceSlice): boolean {
  return (slice.spec.sharedCounters ?? []).length > 0;
}

/** Upstream buildPool's checks of counters: duplicate set names, consumption of a set or counter that does not exist. */
function counterSetsOf(counterSlices: readonly ResourceSlice[], deviceSlices: readonly ResourceSlice[][]): CounterSets | undefined {
  const sets = new Map<string, Map<string, bigint>>();
  for (const slice of counterSlices) {
    for (const set of slice.spec.sharedCounters ?? []) {
      if (sets.has(set.name)) return undefined;
      sets.set(set.name, new Map(Object.entries(set.counters).map(([name, c]) => [name, nano(c.value)])));
    }
  }
  for (const list of deviceSlices)
    for (const slice of list)
      for (const device of slice.spec.devices ?? [])
        for (const consumption of device.consumesCounters ?? []) {
          const set = sets.get(consumption.counterSet);
          if (!set) return undefined;
          for (const name of Object.keys(consumption.counters)) if (!set.has(name)) return undefined;
        }
  return sets;
}

/**
 * The slices as the scheduler's slice tracker hands them to the allocator with DRADeviceTaintRules
 * (on by default in 1.37): each rule's taint appended to the taints of every device its selector
 * matches (driver, pool and device name, each when set; no selector, no device). A slice no rule
 * touches is the same object.
 */
export function withDeviceTaintRules(slices: readonly ResourceSlice[], rules: readonly DeviceTaintRule[]): readonly ResourceSlice[] {
  const active = rules.filter((r) => r.spec.deviceSelector !== undefined);
  if (active.length === 0) return slices;
  return slices.map((slice) => {
    const s = slice.spec;
    const applying = active.filter((r) => {
      const sel = r.spec.deviceSelector!;
      return (sel.driver === undefined || sel.driver === s.driver) && (sel.pool === undefined || sel.pool === s.pool.name);
    });
    if (applying.length === 0 || (s.devices ?? []).length === 0) return slice;
    let changed = false;
    const devices = (s.devices ?? []).map((device) => {
      const added = applying.filter((r) => r.spec.deviceSelector!.device === undefined || r.spec.deviceSelector!.device === device.name);
      if (added.length === 0) return device;
      changed = true;
      return { ...device, taints: [...(device.taints ?? []), ...added.map((r) => r.spec.taint)] };
    });
    return changed ? { ...slice, spec: { ...s, devices } } : slice;
  });
}

/** Where the slices are, per node name and shared (the slices without spec.nodeName). */
export class SliceIndex {
  readonly onNode = new Map<string, ResourceSlice[]>();
  readonly shared: ResourceSlice[] = [];
  private readonly pools = new WeakMap<Node, readonly Pool[] | string>();
  private readonly ids = new Map<string, number>();

  constructor(readonly all: readonly ResourceSlice[]) {
    for (const s of all) {
      const n = s.spec.nodeName;
      if (n) {
        let list = this.onNode.get(n);
        if (!list) this.onNode.set(n, (list = []));
        list.push(s);
      } else this.shared.push(s);
    }
  }

  /** The number of a pool key (`driver/pool`), given in order of first use. */
  poolId(key: string): number {
    let id = this.ids.get(key);
    if (id === undefined) this.ids.set(key, (id = this.ids.size));
    return id;
  }

  /** The pools on the node (upstream GatherPools), or an error message. */
  poolsFor(node: Node): readonly Pool[] | string {
    let pools = this.pools.get(node);
    if (pools === undefined) this.pools.set(node, (pools = gatherPools(this, node)));
    return pools;
  }
}

const matchers = new WeakMap<NodeSelector, NodeSelectorMatcher>();

export function nodeSelectorMatches(selector: NodeSelector, node: Node): boolean {
  let m = matchers.get(selector);
  if (!m) matchers.set(selector, (m = NodeSelectorMatcher.compile(selector, 'nodeSelector').matcher));
  return m.matches(node);
}

export function nodeMatches(
  node: Node,
  nodeName: string | undefined,
  allNodes: boolean | undefined,
  selector: NodeSelector | undefined,
): boolean {
  if (nodeName) return node.metadata.name === nodeName;
  if (allNodes) return true;
  if (selector) return nodeSelectorMatches(selector, node);
  return false;
}

function gatherPools(index: SliceIndex, node: Node): readonly Pool[] | string {
  const byPool = new Map<string, ResourceSlice[]>();
  const slices = [...(index.onNode.get(node.metadata.name) ?? []), ...index.shared];
  for (const slice of slices) {
    const s = slice.spec;
    let relevant: boolean;
    if (s.nodeName || s.allNodes || s.nodeSelector) relevant = nodeMatches(node, s.nodeName, s.allNodes, s.nodeSelector);
    else if (s.perDeviceNodeSelection) relevant = (s.devices ?? []).some((d) => nodeMatches(node, d.nodeName, d.allNodes, d.nodeSelector));
    else continue;
    if (!relevant) continue;
    const key = `${s.driver}\u0000${s.pool.name}`;
    const list = byPool.get(key);
    if (!list || s.pool.generation > list[0]!.spec.pool.generation) byPool.set(key, [slice]);
    else if (s.pool.generation === list[0]!.spec.pool.generation) list.push(slice);
  }
  const result: Pool[] = [];
  const withBindingConditions: Pool[] = [];
  for (const list of byPool.values()) {
    const first = list[0]!.spec;
    let complete = list.length === first.pool.resourceSliceCount;
    /** All slices of the pool's generation, when those relevant for the node were not all of them. */
    let all: ResourceSlice[] | undefined;
    if (!complete) {
      // Slices of the pool that did not look relevant for the node.
      let obsolete = false;
      all = [];
      for (const s of index.all) {
        if (s.spec.driver !== first.driver || s.spec.pool.name !== first.pool.name) continue;
        if (s.spec.pool.generation === first.pool.generation) all.push(s);
        else if (s.spec.pool.generation > first.pool.generation) obsolete = true;
      }
      if (obsolete) continue;
      complete = all.length === first.pool.resourceSliceCount;
      if (!complete) {
        const key = `${first.driver}/${first.pool.name}`;
        result.push({
          driver: first.driver,
          pool: first.pool.name,
          key,
          id: index.poolId(key),
          incomplete: true,
          invalid: false,
          slices: [],
          counterSets: NO_COUNTERS,
          others: NO_SLICES,
        });
        continue;
      }
    }
    const byName = (a: ResourceSlice, b: ResourceSlice) =>
      a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
    const sorted = [...list].sort(byName);
    // Partitionable devices: slices of shared counters apart from those with devices; the pool's
    // other slices (not for this node) when it took them all to be complete.
    const relevant = new Set(sorted);
    const counterSlices: ResourceSlice[] = [];
    const deviceSlices: ResourceSlice[] = [];
    for (const s of sorted) (hasSharedCounters(s) ? counterSlices : deviceSlices).push(s);
    const others: ResourceSlice[] = [];
    for (const s of (all ?? []).sort(byName)) {
      if (relevant.has(s)) continue;
      (hasSharedCounters(s) ? counterSlices : others).push(s);
    }
    const names = new Set<string>();
    let invalid = false;
    for (const s of deviceSlices) {
      for (const d of s.spec.devices ?? []) {
        if (names.has(d.name)) invalid = true;
        names.add(d.name);
      }
    }
    const counterSets = invalid ? undefined : counterSetsOf(counterSlices, [deviceSlices, others]);
    if (!counterSets) invalid = true;
    const key = `${first.driver}/${first.pool.name}`;
    const pool: Pool = {
      driver: first.driver,
      pool: first.pool.name,
      key,
      id: index.poolId(key),
      incomplete: false,
      invalid,
      slices: invalid ? [] : deviceSlices,
      counterSets: counterSets ?? NO_COUNTERS,
      others: invalid ? NO_SLICES : others,
    };
    if (!invalid && deviceSlices.some((s) => (s.spec.devices ?? []).some((d) => d.bindingConditions !== undefined)))
      withBindingConditions.push(pool);
    else result.push(pool);
  }
  const byId = (a: Pool, b: Pool) => (a.driver < b.driver ? -1 : a.driver > b.driver ? 1 : a.pool < b.pool ? -1 : a.pool > b.pool ? 1 : 0);
  return [...result.sort(byId), ...withBindingConditions.sort(byId)];
}

/** What the allocator needs besides the claims: classes, slices, the devices already allocated. */
export interface AllocatorInput {
  readonly classes: ReadonlyMap<string, DeviceClass>;
  readonly slices: SliceIndex;
  /** Devices allocated to a claim exclusively (not as a share, not with admin access). */
  readonly allocated: { has(id: string): boolean };
  /**
   * Consumable capacity: devices allocated as shares (results with a shareID), and what their shares
   * consume together (upstream AllocatedSharedDeviceIDs and AggregatedCapacity). None when absent.
   */
  readonly shares?: { has(id: string): boolean; consumed(id: string): Consumed | undefined };
}

/** A claim could not be allocated anywhere for a reason that is the claim's or class's (upstream's error). */
export type AllocateOutcome =
  | { readonly kind: 'allocated'; readonly results: readonly AllocationResult[] }
  | { readonly kind: 'none'; readonly invalidPools: boolean }
  | { readonly kind: 'error'; readonly message: string }
  /** The deadline passed at a step of the search (upstream `filter operation aborted: context deadline exceeded`). */
  | { readonly kind: 'timeout' };

interface Candidate {
  readonly id: string;
  readonly device: Device;
  readonly slice: ResourceSlice;
  readonly pool: Pool;
}

interface RequestData {
  readonly spec: DeviceRequestSpec;
  readonly adminAccess: boolean;
  /** The request's name, or `<parent>/<sub>`. */
  readonly name: string;
  readonly parent: string | undefined;
  readonly sub: string | undefined;
  readonly cls: DeviceClass;
  readonly numDevices: number;
  readonly allDevices: readonly Candidate[] | undefined;
}

interface Picked {
  readonly request: RequestData;
  readonly candidate: Candidate;
  /** A share of a device that allows multiple allocations: what it consumes. */
  readonly consumed?: ReadonlyMap<string, bigint>;
}

class StopError {
  constructor(readonly message: string) {}
}

/** The search stopped because its deadline passed. */
class TimedOut {}

const TOO_MANY = Symbol('allocation max size exceeded');

interface Constraint {
  add(request: string, sub: string | undefined, device: Device, driver: string): boolean;
  remove(request: string, sub: string | undefined): void;
}

export type AttrValue = { readonly t: 's' | 'i' | 'b' | 'v'; readonly v: string | number | boolean };

export function lookupAttribute(device: Device, driver: string, name: string): AttrValue | undefined {
  let a = device.attributes?.[name];
  if (!a) {
    const slash = name.indexOf('/');
    if (slash < 0 || name.slice(0, slash) !== driver) return undefined;
    a = device.attributes?.[name.slice(slash + 1)];
  }
  if (!a) return undefined;
  if (a.string !== undefined) return { t: 's', v: a.string };
  if (a.int !== undefined) return { t: 'i', v: a.int };
  if (a.bool !== undefined) return { t: 'b', v: a.bool };
  if (a.version !== undefined) return { t: 'v', v: a.version };
  return undefined;
}

function appliesTo(requests: ReadonlySet<string>, request: string, sub: string | undefined): boolean {
  if (requests.size === 0) return true;
  return requests.has(request) || (sub !== undefined && requests.has(`${request}/${sub}`));
}

function makeConstraint(c: DeviceConstraint): Constraint | undefined {
  const requests = new Set(c.requests ?? []);
  if (c.matchAttribute !== undefined) {
    const attr = c.matchAttribute;
    let value: AttrValue | undefined;
    let count = 0;
    return {
      add(request, sub, device, driver) {
        if (!appliesTo(requests, request, sub)) return true;
        const a = lookupAttribute(device, driver, attr);
        if (!a) return false;
        if (count === 0) {
          value = a;
          count = 1;
          return true;
        }
        if (!value || value.t !== a.t || value.v !== a.v) return false;
        count++;
        return true;
      },
      remove(request, sub) {
        if (!appliesTo(requests, request, sub)) return;
        count--;
      },
    };
  }
  if (c.distinctAttribute !== undefined) {
    const attr = c.distinctAttribute;
    const seen: AttrValue[] = [];
    return {
      add(request, sub, device, driver) {
        if (!appliesTo(requests, request, sub)) return true;
        const a = lookupAttribute(device, driver, attr);
        if (!a) return false;
        if (seen.some((s) => s.t === a.t && s.v === a.v)) return false;
        seen.push(a);
        return true;
      },
      remove(request, sub) {
        if (!appliesTo(requests, request, sub)) return;
        seen.pop();
      },
    };
  }
  return undefined;
}

function toleratesTaint(t: DeviceToleration, taint: { key: string; value?: string; effect: string }): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  const op = t.operator ?? 'Equal';
  if (op === 'Equal') return (t.value ?? '') === (taint.value ?? '');
  return op === 'Exists';
}

export function taintPreventsAllocation(device: Device, tolerations: readonly DeviceToleration[] | undefined): boolean {
  for (const taint of device.taints ?? []) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!(tolerations ?? []).some((t) => toleratesTaint(t, taint))) return true;
  }
  return false;
}

function claimName(claim: ResourceClaim): string {
  return `${claim.metadata.namespace ?? 'default'}/${claim.metadata.name}`;
}

/** Marks a request of allocationMode All: its devices are the node's, found per node. */
const ALL: readonly Candidate[] = Object.freeze([]);

interface PreparedClaim {
  /** Per request: its (sub)requests, or the error validating them ends the allocation with. */
  readonly requests: ReadonlyArray<readonly RequestData[] | string>;
  readonly constraintError: string | undefined;
}

const preparedCache = new WeakMap<readonly ResourceClaim[], readonly PreparedClaim[]>();

/** What does not depend on the node (classes, counts, checks), once per list of claims. */
function prepare(input: AllocatorInput, claims: readonly ResourceClaim[]): readonly PreparedClaim[] {
  const hit = preparedCache.get(claims);
  if (hit) return hit;
  const out = claims.map((claim): PreparedClaim => {
    const requests = (claim.spec.devices?.requests ?? []).map((request): readonly RequestData[] | string => {
      try {
        if ((request.firstAvailable ?? []).length > 0) {
          return (request.firstAvailable ?? []).map((sub) =>
            prepareRequest(input, claim, sub, false, `${request.name}/${sub.name}`, request.name, sub.name),
          );
        }
        const exactly = request.exactly;
        if (!exactly) return `claim ${claimName(claim)}, request ${request.name}: missing device class name (unsupported request type?)`;
        return [prepareRequest(input, claim, exactly, exactly.adminAccess === true, request.name, undefined, undefined)];
      } catch (e) {
        if (e instanceof StopError) return e.message;
        throw e;
      }
    });
    const bad = (claim.spec.devices?.constraints ?? []).findIndex((c) => makeConstraint(c) === undefined);
    return {
      requests,
      constraintError:
        bad < 0 ? undefined : `claim ${claimName(claim)}, constraint #${bad}: empty constraint (unsupported constraint type?)`,
    };
  });
  preparedCache.set(claims, out);
  return out;
}

function prepareRequest(
  input: AllocatorInput,
  claim: ResourceClaim,
  spec: DeviceRequestSpec,
  adminAccess: boolean,
  name: string,
  parent: string | undefined,
  sub: string | undefined,
): RequestData {
  const shortName = sub ?? name;
  for (const [i, s] of (spec.selectors ?? []).entries()) {
    if (!s.cel)
      throw new StopError(
        `claim ${claimName(claim)}, request ${shortName}, selector #${i}: CEL expression empty (unsupported selector type?)`,
      );
  }
  if (!spec.deviceClassName)
    throw new StopError(`claim ${claimName(claim)}, request ${shortName}: missing device class name (unsupported request type?)`);
  const cls = input.classes.get(spec.deviceClassName);
  if (!cls)
    throw new StopError(
      `claim ${claimName(claim)}, request ${shortName}: could not retrieve device class ${spec.deviceClassName}: deviceclass.resource.k8s.io "${spec.deviceClassName}" not found`,
    );
  const all = (spec.allocationMode ?? 'ExactCount') === 'All';
  return { spec, adminAccess, name, parent, sub, cls, numDevices: all ? 0 : (spec.count ?? 1), allDevices: all ? ALL : undefined };
}

/** One Allocate call for one node (upstream Allocator.Allocate). */
/**
 * Allocates the claims on the node. With a deadline (DRASchedulerFilterTimeout), the search asks the
 * clock at every step, where upstream's allocateOne asks its context, and stops once it has passed.
 */
export function allocate(
  input: AllocatorInput,
  node: Node,
  claims: readonly ResourceClaim[],
  deadline?: AllocationDeadline,
): AllocateOutcome {
  const pools = input.slices.poolsFor(node);
  if (typeof pools === 'string') return { kind: 'error', message: `gather pool information: ${pools}` };
  try {
    return new Search(input, node, claims, pools, deadline).run();
  } catch (e) {
    if (e instanceof StopError) return { kind: 'error', message: e.message };
    if (e instanceof TimedOut) return { kind: 'timeout' };
    throw e;
  }
}

class Search {
  /** Per claim, per request: the request (or its subrequests in order). */
  private readonly requests: RequestData[][][] = [];
  private readonly constraints: Constraint[][] = [];
  private readonly allocating = new Map<string, Set<number>>();
  private readonly results: Picked[][] = [];
  private readonly matchCache = new Map<string, boolean>();
  private readonly selected: number[][] = [];
  /** Per pool (by id): its counters left after the devices allocated before (upstream availableCounters), made when first needed. */
  private readonly available = new Map<number, CounterSets>();
  /** Per device allowing multiple allocations: what this search's shares of it consume (upstream allocatingCapacity). */
  private readonly allocatingCapacity = new Map<string, Map<string, bigint>>();
  /** Per pool: the counters the devices of this search consume (upstream consumedCounters). */
  private readonly consumed = new Map<number, Map<string, Map<string, bigint>>>();

  constructor(
    private readonly input: AllocatorInput,
    private readonly node: Node,
    private readonly claims: readonly ResourceClaim[],
    private readonly pools: readonly Pool[],
    private readonly deadline: AllocationDeadline | undefined,
  ) {}

  run(): AllocateOutcome {
    const prepared = prepare(this.input, this.claims);
    for (const [ci, claim] of this.claims.entries()) {
      const perRequest: RequestData[][] = [];
      let minDevices = 0;
      const requests = prepared[ci]!;
      for (const [ri, request] of (claim.spec.devices?.requests ?? []).entries()) {
        const options = requests.requests[ri]!;
        if (typeof options === 'string') throw new StopError(options);
        const data = options.map((o, si) => (o.allDevices === ALL ? this.allDevices(ci, claim, o, `${ci}/${ri}/${si}`) : o));
        let min = Number.MAX_SAFE_INTEGER;
        for (const d of data) min = Math.min(min, d.numDevices);
        if (min > ALLOCATION_RESULTS_MAX_SIZE - minDevices) {
          throw new StopError(
            `claim ${claimName(claim)}, request ${request.name}: adding ${min} devices exceeds the claim limit of ${ALLOCATION_RESULTS_MAX_SIZE}, with ${minDevices} already accounted for`,
          );
        }
        minDevices += min;
        perRequest.push(data);
      }
      this.requests.push(perRequest);
      this.results.push([]);
      this.selected.push(perRequest.map(() => 0));
      if (requests.constraintError) throw new StopError(requests.constraintError);
      this.constraints.push((claim.spec.devices?.constraints ?? []).map((c) => makeConstraint(c)!));
    }
    const done = this.allocateOne(0, 0, -1, 0, 0, 0, 0);
    if (done !== true) {
      if (this.pools.some((p) => p.invalid)) return { kind: 'none', invalidPools: true };
      return { kind: 'none', invalidPools: false };
    }
    return { kind: 'allocated', results: this.claims.map((_, ci) => this.result(ci)) };
  }

  /** The devices of the node's pools an All request takes (upstream validateDeviceRequest, All mode). */
  private allDevices(ci: number, claim: ResourceClaim, base: RequestData, key: string): RequestData {
    const shortName = base.sub ?? base.name;
    const all: Candidate[] = [];
    for (const pool of this.pools) {
      if (pool.incomplete)
        throw new StopError(
          `claim ${claimName(claim)}, request ${shortName}: asks for all devices, but resource pool ${pool.driver}/${pool.pool} is currently being updated`,
        );
      if (pool.invalid)
        throw new StopError(
          `claim ${claimName(claim)}, request ${shortName}: asks for all devices, but resource pool ${pool.driver}/${pool.pool} is currently invalid`,
        );
      for (const slice of pool.slices) {
        for (const device of slice.spec.devices ?? []) {
          const candidate = { id: deviceId(pool.driver, pool.pool, device.name), device, slice, pool };
          // Static capacity only: what shares consume is checked when the device is taken.
          if (this.selectable(ci, key, base, candidate) && fitsCapacity(base.spec.capacity?.requests, device)) all.push(candidate);
        }
      }
    }
    return { ...base, numDevices: all.length, allDevices: all };
  }

  /** Class and request selectors, and per-device node selection (cached per device and request). */
  private selectable(ci: number, key: string, request: RequestData, c: Candidate): boolean {
    const cacheKey = `${key}\u0000${c.id}`;
    const hit = this.matchCache.get(cacheKey);
    if (hit !== undefined) return hit;
    const driver = c.slice.spec.driver;
    const ok =
      this.selectorsMatch(ci, request.cls, request.cls.spec.selectors ?? [], c, driver) &&
      this.selectorsMatch(ci, undefined, request.spec.selectors ?? [], c, driver) &&
      (!c.slice.spec.perDeviceNodeSelection || nodeMatches(this.node, c.device.nodeName, c.device.allNodes, c.device.nodeSelector));
    this.matchCache.set(cacheKey, ok);
    return ok;
  }

  private selectorsMatch(
    ci: number,
    cls: DeviceClass | undefined,
    selectors: readonly { cel?: { expression: string } }[],
    c: Candidate,
    driver: string,
  ): boolean {
    const owner = cls ? `class ${cls.metadata.name}` : `claim ${claimName(this.claims[ci]!)}`;
    for (const [i, s] of selectors.entries()) {
      const compiled = compileSelector(s.cel?.expression ?? '');
      if (!compiled.ok) throw new StopError(`${owner}: selector #${i}: CEL compile error: ${compiled.error}`);
      const r = compiled.matches(c.device, driver);
      if (!r.ok) throw new StopError(`${owner}: selector #${i} on device ${c.id}: CEL runtime error: ${enhanceRuntimeError(r.error)}`);
      if (!r.value) return false;
    }
    return true;
  }

  /** Upstream CmpRequestOverCapacity for the device as this search has it. */
  private fits(request: RequestData, c: Candidate): boolean {
    return fitsCapacity(request.spec.capacity?.requests, c.device, this.input.shares?.consumed(c.id), this.allocatingCapacity.get(c.id));
  }

  private inUse(id: string): boolean {
    return this.input.allocated.has(id) || (this.allocating.get(id)?.size ?? 0) > 0;
  }

  /**
   * Upstream allocateOne: true when everything from here on is allocated; TOO_MANY when the
   * claim's result limit is reached. `sub` is -1 until a firstAvailable entry is being tried.
   */
  private allocateOne(
    ci: number,
    ri: number,
    sub: number,
    di: number,
    startPool: number,
    startSlice: number,
    startDevice: number,
  ): boolean | typeof TOO_MANY {
    if (deadlinePassed(this.deadline)) throw new TimedOut();
    if (ci >= this.claims.length) return true;
    const perRequest = this.requests[ci]!;
    if (ri >= perRequest.length) {
      const r = this.allocateOne(ci + 1, 0, -1, 0, 0, 0, 0);
      return r === TOO_MANY ? false : r;
    }
    const options = perRequest[ri]!;
    const isSub = options[0]!.parent !== undefined;
    if (isSub && sub < 0) {
      let allExceeded = true;
      for (let si = 0; si < options.length; si++) {
        const r = this.allocateOne(ci, ri, si, 0, 0, 0, 0);
        if (r === TOO_MANY) continue;
        allExceeded = false;
        if (r) {
          this.selected[ci]![ri] = si;
          return true;
        }
      }
      return allExceeded ? TOO_MANY : false;
    }
    const request = options[Math.max(sub, 0)]!;
    const key = `${ci}/${ri}/${Math.max(sub, 0)}`;
    const all = request.allDevices;
    if (all && all.length === 0) return false;
    if (di >= request.numDevices) return this.allocateOne(ci, ri + 1, -1, 0, 0, 0, 0);
    if (request.numDevices - di > ALLOCATION_RESULTS_MAX_SIZE - this.results[ci]!.length) return TOO_MANY;
    if (all) {
      const undo = this.allocateDevice(ci, request, all[di]!, true);
      if (!undo) return false;
      const r = this.allocateOne(ci, ri, sub, di + 1, 0, 0, 0);
      if (r !== true) undo();
      return r;
    }
    for (let pi = startPool; pi < this.pools.length; pi++) {
      const pool = this.pools[pi]!;
      if (pool.incomplete || pool.invalid) continue;
      const sliceStart = pi === startPool ? startSlice : 0;
      for (let si = sliceStart; si < pool.slices.length; si++) {
        const slice = pool.slices[si]!;
        const devices = slice.spec.devices ?? [];
        const deviceStart = pi === startPool && si === startSlice ? startDevice : 0;
        for (let dj = deviceStart; dj < devices.length; dj++) {
          const device = devices[dj]!;
          const id = deviceId(pool.driver, pool.pool, device.name);
          if (request.adminAccess ? this.allocating.get(id)?.has(ci) === true : this.inUse(id)) continue;
          const candidate = { id, device, slice, pool };
          if (!this.selectable(ci, key, request, candidate)) continue;
          if (!this.fits(request, candidate)) continue;
          const undo = this.allocateDevice(ci, request, candidate, false);
          if (!undo) continue;
          const r = this.allocateOne(ci, ri, sub, di + 1, pi, si, dj + 1);
          if (r === true) return true;
          undo();
          if (r === TOO_MANY) return TOO_MANY;
        }
      }
    }
    return false;
  }

  /** Upstream allocateDevice: the undo when the device is taken, undefined when it cannot be. */
  private allocateDevice(ci: number, request: RequestData, c: Candidate, must: boolean): (() => void) | undefined {
    // Consumable capacity: a device that allows multiple allocations is shared, never marked in use.
    const multiple = c.device.allowMultipleAllocations === true;
    if (!multiple && request.adminAccess && this.allocating.get(c.id)?.has(ci) === true) return undefined;
    if (!request.adminAccess && this.inUse(c.id)) return undefined;
    // A further share of a device whose counters a share already took does not take them again.
    const sharedBefore = multiple && (this.input.shares?.has(c.id) === true || this.allocatingCapacity.has(c.id));
    const consumes = sharedBefore ? [] : (c.device.consumesCounters ?? []);
    if (consumes.length > 0 && !this.takeCounters(c)) return undefined;
    const giveBack = () => {
      if (consumes.length > 0) this.counters(c, -1n);
    };
    if (taintPreventsAllocation(c.device, request.spec.tolerations)) {
      giveBack();
      return undefined;
    }
    const base = request.parent ?? request.name;
    const constraints = this.constraints[ci]!;
    const driver = c.slice.spec.driver;
    let added = 0;
    for (const constraint of constraints) {
      if (!constraint.add(base, request.sub, c.device, driver)) {
        for (let i = added - 1; i >= 0; i--) constraints[i]!.remove(base, request.sub);
        giveBack();
        if (must)
          throw new StopError(
            `claim ${claimName(this.claims[ci]!)}, request ${request.sub ?? request.name}: cannot add device ${c.id} because a claim constraint would not be satisfied`,
          );
        return undefined;
      }
      added++;
    }
    const unmark = () => {
      if (!multiple) this.allocating.get(c.id)?.delete(ci);
      for (let i = added - 1; i >= 0; i--) constraints[i]!.remove(base, request.sub);
      giveBack();
    };
    if (!multiple) {
      let set = this.allocating.get(c.id);
      if (!set) this.allocating.set(c.id, (set = new Set()));
      set.add(ci);
    }
    if (!this.fits(request, c)) {
      unmark();
      return undefined;
    }
    let consumed: Map<string, bigint> | undefined;
    let share: Map<string, bigint> | undefined;
    if (multiple) {
      consumed = consumedBy(request.spec.capacity?.requests, c.device);
      share = this.allocatingCapacity.get(c.id);
      const total = new Map(share ?? []);
      for (const [name, amount] of consumed) total.set(name, (total.get(name) ?? 0n) + amount);
      this.allocatingCapacity.set(c.id, total);
    }
    const results = this.results[ci]!;
    const before = results.length;
    results.push({ request, candidate: c, ...(consumed && consumed.size > 0 ? { consumed } : {}) });
    return () => {
      results.length = before;
      if (multiple) {
        if (share) this.allocatingCapacity.set(c.id, share);
        else this.allocatingCapacity.delete(c.id);
      }
      unmark();
    };
  }

  /** The pool's counters left after the devices allocated before this search (upstream checkAvailableCounters' first part). */
  private availableIn(pool: Pool): CounterSets {
    let available = this.available.get(pool.id);
    if (available) return available;
    const left = new Map([...pool.counterSets].map(([name, set]) => [name, new Map(set)]));
    for (const slices of [pool.slices, pool.others])
      for (const slice of slices)
        for (const device of slice.spec.devices ?? []) {
          if ((device.consumesCounters ?? []).length === 0) continue;
          const id = deviceId(pool.driver, pool.pool, device.name);
          if (!this.input.allocated.has(id) && this.input.shares?.has(id) !== true) continue;
          for (const consumption of device.consumesCounters ?? []) {
            const set = left.get(consumption.counterSet);
            if (!set) continue;
            for (const [name, c] of Object.entries(consumption.counters)) {
              const have = set.get(name);
              // May go below zero: then nothing is left of it.
              if (have !== undefined) set.set(name, have - nano(c.value));
            }
          }
        }
    available = left;
    this.available.set(pool.id, available);
    return available;
  }

  /** Adds (sign 1n) or takes back (-1n) what the device consumes from its pool's counters. */
  private counters(c: Candidate, sign: bigint): void {
    let consumed = this.consumed.get(c.pool.id);
    if (!consumed) this.consumed.set(c.pool.id, (consumed = new Map()));
    for (const consumption of c.device.consumesCounters ?? []) {
      let set = consumed.get(consumption.counterSet);
      if (!set) consumed.set(consumption.counterSet, (set = new Map()));
      for (const [name, amount] of Object.entries(consumption.counters)) set.set(name, (set.get(name) ?? 0n) + sign * nano(amount.value));
    }
  }

  /**
   * Upstream checkAvailableCounters: the device's consumption added, every counter of the pool must
   * still cover what this search consumes (a counter the devices allocated before overdrew fails
   * every device of the pool that consumes counters); otherwise the consumption is taken back.
   */
  private takeCounters(c: Candidate): boolean {
    const available = this.availableIn(c.pool);
    this.counters(c, 1n);
    const consumed = this.consumed.get(c.pool.id)!;
    for (const [setName, set] of available) {
      const used = consumed.get(setName);
      for (const [name, have] of set) {
        if (have < (used?.get(name) ?? 0n)) {
          this.counters(c, -1n);
          return false;
        }
      }
    }
    return true;
  }

  private result(ci: number): AllocationResult {
    const claim = this.claims[ci]!;
    const results: DeviceRequestAllocationResult[] = this.results[ci]!.map(({ request, candidate, consumed }, i) => ({
      request: request.name,
      driver: candidate.slice.spec.driver,
      pool: candidate.slice.spec.pool.name,
      device: candidate.device.name,
      ...(request.adminAccess ? { adminAccess: true } : {}),
      // A share: upstream gives it a random UID; Podplan makes one up from the claim, the device and the place.
      ...(candidate.device.allowMultipleAllocations === true
        ? { shareID: shareId(`${claimName(claim)}/${request.name}/${candidate.id}/${i}`) }
        : {}),
      ...(consumed ? { consumedCapacity: Object.fromEntries([...consumed].map(([name, amount]) => [name, quantityText(amount)])) } : {}),
      ...(request.spec.tolerations ? { tolerations: request.spec.tolerations } : {}),
      // DRADeviceBindingConditions: the device's conditions travel with the allocation.
      ...(candidate.device.bindingConditions?.length ? { bindingConditions: candidate.device.bindingConditions } : {}),
      ...(candidate.device.bindingFailureConditions?.length ? { bindingFailureConditions: candidate.device.bindingFailureConditions } : {}),
    }));
    const nodeSelector = this.nodeSelector(ci);
    return { devices: { results }, ...(nodeSelector ? { nodeSelector } : {}) };
  }

  /** Upstream createNodeSelector. */
  private nodeSelector(ci: number): NodeSelector | undefined {
    const fields: NodeSelectorRequirement[] = [];
    const expressions: NodeSelectorRequirement[] = [];
    for (const { candidate } of this.results[ci]!) {
      const s = candidate.slice.spec;
      const nodeName = s.perDeviceNodeSelection ? candidate.device.nodeName : s.nodeName;
      const selector = s.perDeviceNodeSelection ? candidate.device.nodeSelector : s.nodeSelector;
      if (nodeName || candidate.device.bindsToNode) {
        return { nodeSelectorTerms: [{ matchFields: [{ key: NODE_NAME_FIELD, operator: 'In', values: [this.node.metadata.name] }] }] };
      }
      const term = selector?.nodeSelectorTerms[0];
      if (selector && selector.nodeSelectorTerms.length === 1 && term) {
        addNew(term.matchFields ?? [], fields);
        addNew(term.matchExpressions ?? [], expressions);
      }
    }
    if (fields.length === 0 && expressions.length === 0) return undefined;
    return {
      nodeSelectorTerms: [
        { ...(fields.length > 0 ? { matchFields: fields } : {}), ...(expressions.length > 0 ? { matchExpressions: expressions } : {}) },
      ],
    };
  }
}

/** A UID-shaped id made up from `seed` (FNV-1a, four rounds). */
function shareId(seed: string): string {
  let hex = '';
  for (let round = 0; round < 4; round++) {
    let h = 2166136261 ^ round;
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 16777619) >>> 0;
    hex += h.toString(16).padStart(8, '0');
  }
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function addNew(from: readonly NodeSelectorRequirement[], to: NodeSelectorRequirement[]): void {
  for (const r of from) {
    if (!to.some((x) => x.key === r.key && x.operator === r.operator && JSON.stringify(x.values ?? []) === JSON.stringify(r.values ?? [])))
      to.push(r);
  }
}

export type { DeviceRequest };

/**
 * k8s.io/dynamic-resource-allocation/cel EnhanceRuntimeError, as the allocator wraps a selector's
 * runtime error: a missing key (`no such key: model`) gets a hint.
 */
export function enhanceRuntimeError(error: string): string {
  return error.includes('no such key:')
    ? `${error}. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields`
    : error;
}
