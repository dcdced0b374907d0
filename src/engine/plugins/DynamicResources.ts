// DynamicResources as upstream 1.37 runs it (pkg/scheduler/framework/plugins/dynamicresources,
// dynamicresources.go) with structured parameters:
// - PreEnqueue (a live scheduler's queue asks it) holds a pod whose claims cannot all be found, with
//   PreFilter's message: with the cluster's controllers beside it (FrameworkOptions.clusterControllers),
//   a template entry's claim is the one the pod's status.resourceClaimStatuses names, and the pod waits
//   until the resourceclaim controller has created and named it (upstream resourceclaim.Name).
// - PreFilter finds the pod's ResourceClaims (dynamicresources/claims.ts); a claim that is missing,
//   being deleted or not the pod's stops the pod (UnschedulableAndUnresolvable with upstream's
//   message); a claim in the middle of being allocated likewise; for each claim still to allocate
//   every request's DeviceClass must exist ("request r: device class c does not exist"). A pod
//   without claims is skipped.
// - Filter: an allocated claim's node selector must match the node, and its binding must not have
//   failed or timed out (bindingUnavailable) ("resourceclaim not available on the node"); the claims to allocate must all be allocatable from the devices the node reaches
//   (dynamicresources/allocator.ts; "cannot allocate all claims"); a problem with a claim or class
//   (a CEL error, …) is an Error that ends the cycle, as upstream.
// - PostFilter deallocates an allocated claim that kept the pod off every node when no other pod
//   holds it ("deallocation of ResourceClaim completed"), else says nothing. When a PreFilter
//   rejection stopped the cycle before this plugin's PreFilter ran, its PostFilter cannot read its
//   state and fails with the state's "not found", as upstream.
// - Score: with prioritized lists, per claim the sum over the firstAvailable entries chosen of
//   8 − their index, normalized to 0..100 (DefaultNormalizeScore); 0 without claims.
// - Reserve records the allocation and the pod in the claim's status in memory (upstream's assume
//   cache), so later pods see the devices taken and share the claim; Unreserve undoes it.
// - PreBind, with the framework's ClaimWriter (a live scheduler's), writes each claim not reserved
//   for the pod yet as upstream's bindClaim: the allocation Reserve chose and the reservation
//   {resource: "pods", name, uid}. From Reserve until PreBind has written (or Unreserve), the claim
//   stays assumed in flight whatever the informers show, so no other pod takes its devices; once
//   written, the claim as the API server answered stays assumed until the objects show that version
//   or a newer one. A failed write is an Error naming the claim, and the pod is not bound. Unreserve
//   after a write takes the pod's reservation back out (the allocation stays, as upstream). The
//   framework of a live scheduler waits for template claims, so PreBind writes no made-up claim.
//   The claim for extended resources served by
//   DRA is created first (upstream createExtendedResourceClaimInAPI), then written, then the pod's
//   status.extendedResourceClaimStatus patched; Unreserve deletes it. Without a ClaimWriter (previews,
//   planning) PreBind writes nothing.
// - PreBind then waits, on the injected clock, for the binding conditions of the pod's devices
//   (DRADeviceBindingConditions): every 5 s until all are True; a failure condition True, a claim
//   allocated longer ago than the binding timeout or waiting as long as the binding timeout is an
//   Error with upstream's words; it records upstream's BindingConditionsPending event first.
// - Args (DynamicResourcesArgs, checked as upstream ValidateDynamicResourcesArgs): bindingTimeout
//   (default 10 minutes, at least 1 s) is the wait's deadline and the allocation age past which Filter
//   and PreBind count a claim's binding as timed out; filterTimeout (zero or positive; default 10 s,
//   DRASchedulerFilterTimeout being on in 1.37; 0: none) bounds each node's allocation in Filter on
//   the injected clock (dynamicresources/deadline.ts): past it, an Error
//   `node <name>: timed out trying to allocate devices`, so the pod goes to the error back-off.
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { DeviceHolder } from '../api/device-failures';
import type {
  AllocationResult,
  DeviceClass,
  DeviceRequestAllocationResult,
  ResourceClaim,
  ResourceClaimConsumerReference,
  ResourceClaimTemplate,
  ResourceSlice,
} from '../api/dra';
import type { ClaimBinding, ClaimWriter } from '../framework/binder';
import { podNamespace, type ClusterObjects, type Node, type Pod } from '../api/types';
import type { CycleState } from '../framework/cycle-state';
import { PLANNED_PODS, StateKey } from '../framework/cycle-state';
import type {
  FilterPlugin,
  FrameworkHandle,
  NodeScore,
  PostFilterPlugin,
  PostFilterResult,
  PreBindPlugin,
  PreEnqueuePlugin,
  ReservePlugin,
  ScorePlugin,
} from '../framework/interfaces';
import { MAX_NODE_SCORE } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { PREEMPTION_MODE } from '../framework/preemption/record';
import { errorStatus, isSuccess, SKIP, SUCCESS, unresolvable, unschedulable, type FilterStatus, type Status } from '../framework/status';
import { KeyInterner } from '../framework/caches';
import { nano } from './dynamicresources/capacity';
import { fieldInvalid, type ArgsError } from '../api/field';
import type { Result } from '../api/result';
import { formatGoDurationNanos } from '../planner/podset/duration';
import { ArgsReader, factoryOf } from './args';
import { allocationDeadline, FILTER_TIMEOUT_MS, timedOutMessage, type AllocationDeadline } from './dynamicresources/deadline';
import {
  allocate,
  deviceId,
  nodeSelectorMatches,
  SliceIndex,
  withDeviceTaintRules,
  type AllocateOutcome,
  type AllocatorInput,
  type Pool,
} from './dynamicresources/allocator';
import { allocatedElsewhere, deviceFailures } from './dynamicresources/reasons';
import { claimsNotCreated, madeUpClaimName, MADE_UP_ANNOTATION, podOwnerReference, podResourceClaims } from './dynamicresources/claims';
import {
  EXTENDED_RESOURCE_CLAIM_ANNOTATION,
  extendedResourceClasses,
  extendedResourceRequestsAndMappings,
  isDraExtendedResourceName,
  type ContainerExtendedResourceRequest,
} from './dynamicresources/extended';
import { Names } from './names';
import { defaultNormalizeScore } from './normalize';

export const NAME = Names.DynamicResources;

/** The error upstream's CycleState.Read returns for a key never written. */
export const STATE_NOT_FOUND = 'not found';
export const ERR_CANNOT_ALLOCATE = 'cannot allocate all claims';
export const ERR_NOT_AVAILABLE = 'resourceclaim not available on the node';
export const DEALLOCATED = 'deallocation of ResourceClaim completed';
export const ERR_CANNOT_FIT_RESOURCE = 'cannot fit resource';

/** How many claim specs the allocation memo keeps per node. */
const MEMO_PER_NODE = 16;

/** resourceapi.FirstAvailableDeviceRequestMaxSize */
const FIRST_AVAILABLE_MAX = 8;

const NOTHING_TO_DEALLOCATE: Status = Object.freeze(unschedulable());
const NO_STATE: Status = Object.freeze(errorStatus(STATE_NOT_FOUND));
const CANNOT_ALLOCATE: Status = Object.freeze(unresolvable(ERR_CANNOT_ALLOCATE));
const INVALID_POOLS: Status = Object.freeze(unresolvable('invalid resource pools were encountered'));

interface DraState {
  readonly claims: readonly ResourceClaim[];
  /** Indexes into claims of those without an allocation. */
  readonly toAllocate: readonly number[];
  /** Those claims (one list per cycle: the allocator prepares it once). */
  readonly allocating: readonly ResourceClaim[];
  /** Their specs as text: what an allocation outcome depends on besides the node and the devices in use. */
  readonly specs: string;
  readonly input: AllocatorInput | undefined;
  /**
   * Per feasible node, the allocations of the claims to allocate (in toAllocate order), when the
   * allocation memo cannot give them again (specs ''; the extended resources' claim).
   */
  readonly byNode: Map<string, readonly AllocationResult[]>;
  /** The pod's extended resources served by DRA (DRAExtendedResource): names and whether it has claims of its own. */
  readonly extended: { readonly resources: readonly string[]; readonly userClaims: boolean } | undefined;
  /** Per node, the claim made for the extended resources there (its requests depend on the node). */
  readonly extendedByNode: Map<string, ResourceClaim>;
  /** Per node, which of that claim's requests serves each container's extended resource (the pod's status names them). */
  readonly extendedMappings: Map<string, readonly ContainerExtendedResourceRequest[]>;
  /** Claims whose allocation kept the pod off some node. */
  readonly unavailable: Set<number>;
  /** Indexes into claims of those allocated with a node selector (Filter checks them on every node). */
  readonly selectorBound: readonly number[];
  /** Indexes into claims of allocated claims whose binding failed or timed out (unavailable on every node). */
  readonly bindingFailed: readonly number[];
  /** Whether any claim has a firstAvailable request (else Score gives every node 0). */
  readonly prioritized: boolean;
}

const EMPTY: DraState = Object.freeze({
  claims: [],
  toAllocate: [],
  allocating: [],
  specs: '',
  input: undefined,
  byNode: new Map(),
  extended: undefined,
  extendedByNode: new Map(),
  extendedMappings: new Map(),
  unavailable: new Set<number>(),
  selectorBound: [],
  bindingFailed: [],
  prioritized: false,
});

function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? 'default'}/${name}`;
}

interface Indexes {
  readonly claims: Map<string, ResourceClaim>;
  readonly templates: Map<string, ResourceClaimTemplate>;
  /** Claims ResourceQuota admission refused (ClusterObjects.claimsNotCreated). */
  readonly notCreated: ReadonlySet<string>;
  readonly classes: Map<string, DeviceClass>;
  readonly slices: SliceIndex;
}

const NO_SLICES: readonly ResourceSlice[] = [];
const indexCache = new WeakMap<ClusterObjects, Indexes>();

function indexesOf(objects: ClusterObjects): Indexes {
  let idx = indexCache.get(objects);
  if (!idx) {
    idx = {
      claims: new Map((objects.resourceClaims ?? []).map((c) => [key(c.metadata.namespace, c.metadata.name), c])),
      templates: new Map((objects.resourceClaimTemplates ?? []).map((t) => [key(t.metadata.namespace, t.metadata.name), t])),
      notCreated: claimsNotCreated(objects),
      classes: new Map((objects.deviceClasses ?? []).map((c) => [c.metadata.name, c])),
      slices: new SliceIndex(withDeviceTaintRules(objects.resourceSlices ?? NO_SLICES, objects.deviceTaintRules ?? [])),
    };
    indexCache.set(objects, idx);
  }
  return idx;
}

/** The devices of an allocation that count as allocated (admin access does not take a device). */
function allocatedDevices(claim: ResourceClaim): DeviceRequestAllocationResult[] {
  return (claim.status?.allocation?.devices?.results ?? []).filter((r) => r.adminAccess !== true);
}

/** A device a planned pod took: exclusively, or as a share consuming `share`. */
interface PlannedDevice {
  readonly id: string;
  readonly share?: Readonly<Record<string, string>>;
}

/** Devices allocated as shares (consumable capacity): per device, how many shares and what they consume together. */
type Shares = Map<string, { readonly count: number; readonly consumed: ReadonlyMap<string, bigint> }>;

/** Adds (sign 1) or takes away (-1) a share of a device and what it consumes. */
function addShare(shares: Shares, id: string, consumedCapacity: Readonly<Record<string, string>> | undefined, sign: 1 | -1): void {
  const before = shares.get(id);
  const count = (before?.count ?? 0) + sign;
  if (count <= 0) {
    shares.delete(id);
    return;
  }
  const consumed = new Map(before?.consumed ?? []);
  for (const [name, value] of Object.entries(consumedCapacity ?? {}))
    consumed.set(name, (consumed.get(name) ?? 0n) + BigInt(sign) * nano(value));
  shares.set(id, { count, consumed });
}

/** The allocator's view of the shares: those of the cluster's claims, and a what-if's (planned) ones. */
function sharesOf(shares: Shares, planned: Shares | undefined): NonNullable<AllocatorInput['shares']> {
  if (!planned || planned.size === 0) return { has: (id) => shares.has(id), consumed: (id) => shares.get(id)?.consumed };
  return {
    has: (id) => shares.has(id) || planned.has(id),
    consumed: (id) => {
      const a = shares.get(id)?.consumed;
      const b = planned.get(id)?.consumed;
      if (!a || !b) return a ?? b;
      const sum = new Map(a);
      for (const [name, amount] of b) sum.set(name, (sum.get(name) ?? 0n) + amount);
      return sum;
    },
  };
}

/** A claim as Reserve (and PreBind) or PostFilter left it, over the snapshot's version it was based on. */
interface Assumed {
  readonly claim: ResourceClaim;
  /** The snapshot's object it replaces (undefined for a made-up claim). */
  readonly base: ResourceClaim | undefined;
  /** Written by PreBind: kept until the snapshot's object is this resourceVersion or newer. */
  readonly written?: string;
}

/** What Reserve changed in one claim for a pod, and what PreBind is to write. */
interface Reserved {
  /** The claim's key; the special claim's changes to the created claim's once PreBind has created it. */
  key: string;
  before: Assumed | undefined;
  /** The claim as the cycle found it (before Reserve); for the special claim, as PreBind created it. */
  listed: ResourceClaim;
  /** The special claim for the pod's extended resources: the requests' mappings to containers, and whether PreBind created it. */
  readonly extended?: { readonly mappings: readonly ContainerExtendedResourceRequest[]; created: boolean };
  /** The allocation Reserve chose for it (undefined when it was allocated already). */
  readonly allocation: AllocationResult | undefined;
  /** Whether the pod still has to be added to its reservedFor. */
  readonly bind: boolean;
  /** Counted in flight (a ClaimWriter is there) until PreBind has written it or Unreserve. */
  inFlight: boolean;
  /** The claim as PreBind's write left it. */
  written?: ResourceClaim;
}

/** Whether resourceVersion `a` is older than `b` (etcd revisions; a version that is not a number is never older). */
function olderVersion(a: string | undefined, b: string): boolean {
  const x = Number(a);
  const y = Number(b);
  return a !== undefined && Number.isSafeInteger(x) && Number.isSafeInteger(y) && x < y;
}

/** The claim upstream keeps in memory for a pod's extended resources until PreBind creates it. */
function extendedResourceClaim(pod: Pod): ResourceClaim {
  return {
    metadata: {
      name: '<extended-resources>',
      namespace: podNamespace(pod),
      annotations: { [EXTENDED_RESOURCE_CLAIM_ANNOTATION]: 'true' },
      ownerReferences: [podOwnerReference(pod)],
    },
    spec: {},
  };
}

/** The claim as PreBind creates it: `<pod>-extended-resources-` and five characters (made up, as for templates), the node's requests. */
function madeExtendedClaim(special: ResourceClaim, forNode: ResourceClaim | undefined, pod: Pod): ResourceClaim {
  return {
    ...special,
    metadata: {
      ...special.metadata,
      name: madeUpClaimName(pod, 'extended-resources'),
      annotations: { ...special.metadata.annotations, [MADE_UP_ANNOTATION]: 'true' },
    },
    spec: forNode?.spec ?? special.spec,
  };
}

/** upstream DynamicResourcesBindingTimeoutDefault (DynamicResourcesArgs bindingTimeout): how long binding conditions may take. */
export const BINDING_TIMEOUT_MS = 600_000;

/** DynamicResourcesArgs as Podplan applies them, defaulted, in milliseconds. */
export interface DynamicResourcesArgs {
  /** Each node's allocation in Filter stops after it (0: never; upstream SetDefaults_DynamicResourcesArgs: 10 s). */
  readonly filterTimeoutMs: number;
  readonly bindingTimeoutMs: number;
}

const NANOS_PER_MS = 1_000_000n;

/**
 * DynamicResourcesArgs as upstream reads them (metav1.Duration text) and checks them
 * (ValidateDynamicResourcesArgs, with DRASchedulerFilterTimeout, DRADeviceBindingConditions and
 * DRAResourceClaimDeviceStatus on, as in 1.37): filterTimeout zero or positive, bindingTimeout at
 * least 1 second; absent, upstream's defaults.
 */
export function dynamicResourcesArgs(args: unknown): Result<DynamicResourcesArgs, ArgsError> {
  const reader = new ArgsReader(NAME);
  const a = reader.object(args, [], ['filterTimeout', 'bindingTimeout']) ?? {};
  const filter = reader.duration(a['filterTimeout'], ['filterTimeout']);
  const binding = reader.duration(a['bindingTimeout'], ['bindingTimeout']);
  // The value as upstream's field error shows a metav1.Duration: its JSON, Go's duration text.
  if (filter !== undefined && filter < 0n)
    reader.errors.push(fieldInvalid(['filterTimeout'], formatGoDurationNanos(filter), 'must be zero or positive'));
  if (binding !== undefined && binding < 1_000n * NANOS_PER_MS)
    reader.errors.push(fieldInvalid(['bindingTimeout'], formatGoDurationNanos(binding), 'must be at least 1 second'));
  return reader.result({
    filterTimeoutMs: filter === undefined ? FILTER_TIMEOUT_MS : Number(filter) / 1e6,
    bindingTimeoutMs: binding === undefined ? BINDING_TIMEOUT_MS : Number(binding) / 1e6,
  });
}

/** How often PreBind looks at the claims while it waits for their binding conditions (upstream's poll interval). */
export const BINDING_POLL_MS = 5_000;

/** upstream ErrDeviceBindingTimeout as PreBind's wait ends at the binding timeout (a context's deadline). */
export const ERR_BINDING_DEADLINE = 'device binding timeout: context deadline exceeded';

/**
 * upstream isClaimReadyForBinding (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus,
 * both on by default in 1.37): ready when every binding condition of its devices is True in the
 * claim's status, failed (upstream's ErrDeviceBindingFailed message) when one of a device's binding
 * failure conditions is True, else waiting. Devices are looked at in order, up to the first not ready.
 */
function bindingReadiness(claim: ResourceClaim): { readonly ready: boolean; readonly failed?: string } {
  const allocation = claim.status?.allocation;
  if (!allocation) return { ready: false };
  for (const result of allocation.devices?.results ?? []) {
    if ((result.bindingConditions ?? []).length === 0) continue;
    const status = (claim.status?.devices ?? []).find(
      (d) => d.driver === result.driver && d.pool === result.pool && d.device === result.device,
    );
    if (!status) return { ready: false };
    const condition = (type: string) => (status.conditions ?? []).find((c) => c.type === type);
    for (const type of result.bindingFailureConditions ?? []) {
      const failed = condition(type);
      if (failed?.status === 'True')
        return {
          ready: false,
          failed: `device binding failed: claim=${claim.metadata.name}, reason=${failed.reason ?? ''}, message=${JSON.stringify(failed.message ?? '')}`,
        };
    }
    if (!result.bindingConditions!.every((type) => condition(type)?.status === 'True')) return { ready: false };
  }
  return { ready: true };
}

/** upstream isClaimTimeout: a device of the allocation has binding conditions, and it was allocated longer ago than the binding timeout. */
function bindingTimedOut(claim: ResourceClaim, now: number, timeoutMs: number): boolean {
  const allocation = claim.status?.allocation;
  if (!allocation?.allocationTimestamp) return false;
  if (!(allocation.devices?.results ?? []).some((r) => r.bindingConditions !== undefined)) return false;
  const allocated = Date.parse(allocation.allocationTimestamp);
  return !Number.isNaN(allocated) && allocated + timeoutMs < now;
}

/**
 * As Filter applies the two to an allocated claim: unavailable when its binding failed, or when it
 * is not ready and timed out (judged by the injected clock; without one, never).
 */
function bindingUnavailable(claim: ResourceClaim, now: number | undefined, timeoutMs: number): boolean {
  const readiness = bindingReadiness(claim);
  if (readiness.failed !== undefined) return true;
  return !readiness.ready && now !== undefined && bindingTimedOut(claim, now, timeoutMs);
}

/** upstream hasBindingConditions, for one claim: a device of its allocation has binding conditions. */
function hasBindingConditions(claim: ResourceClaim): boolean {
  return (claim.status?.allocation?.devices?.results ?? []).some((r) => (r.bindingConditions ?? []).length > 0);
}

export class DynamicResources
  implements PreEnqueuePlugin, FilterPlugin, PostFilterPlugin, ScorePlugin, ReservePlugin, PreBindPlugin, EnqueueExtensions
{
  readonly name = NAME;

  /**
   * upstream EventsToRegister: a node added, relabelled or its allocatable changed, a DeviceClass or
   * ResourceSlice added or changed (no hints: each queues); a ResourceClaim added, changed or
   * deleted, and the pod's generated claims (hints).
   */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel | ActionType.UpdateNodeAllocatable) },
      {
        event: clusterEvent('resource.k8s.io/ResourceClaim', ActionType.Add | ActionType.Update | ActionType.Delete),
        hint: (pod, o, n) => this.isSchedulableAfterClaimChange(pod, o, n),
      },
      {
        event: clusterEvent('TargetPod', ActionType.UpdatePodGeneratedResourceClaim),
        hint: (pod, o, n) => this.isSchedulableAfterTargetPodUpdate(pod, o, n),
      },
      { event: clusterEvent('resource.k8s.io/DeviceClass', ActionType.Add | ActionType.Update) },
      { event: clusterEvent('resource.k8s.io/ResourceSlice', ActionType.Add | ActionType.Update) },
    ];
  }

  /**
   * upstream isSchedulableAfterClaimChange: an allocated claim deleted or deallocated (room freed for
   * any pod); else a claim the pod uses (all its claims found) added, or its status changed.
   */
  isSchedulableAfterClaimChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as ResourceClaim | undefined, newObj as ResourceClaim | undefined];
    if (!modified) return original?.status?.allocation ? 'Queue' : 'QueueSkip';
    const found = this.resolve(this.indexes(), pod);
    if (!found.ok) return 'QueueSkip';
    if (original?.status?.allocation && !modified.status?.allocation) return 'Queue';
    const same = (c: ResourceClaim) =>
      c.metadata.uid !== undefined && modified.metadata.uid !== undefined
        ? c.metadata.uid === modified.metadata.uid
        : c.metadata.name === modified.metadata.name && (c.metadata.namespace ?? 'default') === (modified.metadata.namespace ?? 'default');
    if (!found.value.some(same)) return 'QueueSkip';
    if (!original) return 'Queue';
    return JSON.stringify(original.status ?? {}) === JSON.stringify(modified.status ?? {}) ? 'QueueSkip' : 'Queue';
  }

  /** upstream isSchedulableAfterTargetPodUpdate: the pod's claims can all be found now. */
  isSchedulableAfterTargetPodUpdate(_pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
    return this.resolve(this.indexes(), newObj as Pod).ok ? 'Queue' : 'QueueSkip';
  }
  private readonly stateKey = new StateKey<DraState>(`PreFilter${NAME}`);
  /** Claims this scheduler allocated, reserved or deallocated (upstream's assume cache). */
  private readonly assumed = new Map<string, Assumed>();
  /** How many claims hold each device, for the snapshot's claims named by `counted` and the assumed ones. */
  private use = new Map<string, number>();
  /** The devices allocated as shares (consumable capacity), for the same claims as `use`. */
  private shares: Shares = new Map();
  private counted: Indexes | undefined;
  /** Per pool (by Pool.id), a version bumped whenever one of its devices is taken or freed. */
  private poolVersions: number[] = [];
  /**
   * Allocation outcomes per node and claim specs (interned: compared by identity), valid while the
   * versions of the node's pools are the ones they were computed at (at most MEMO_PER_NODE specs per
   * node; reset with the objects).
   */
  private memo = new WeakMap<
    Node,
    Map<string, { readonly pools: readonly Pool[]; readonly versions: readonly number[]; readonly outcome: AllocateOutcome }>
  >();
  /**
   * Bumped whenever what the scheduler knows of claims changes (count): the plannedMemo and
   * claimsByPod entries of an older stamp are stale.
   */
  private useStamp = 0;
  /** Per NodeInfo of a planner's what-if, the devices its planned pods took (plannedDevices), dropped with it. */
  private plannedMemo = new WeakMap<
    NodeInfo,
    {
      readonly generation: number;
      readonly stamp: number;
      /** The pods whose claims it allocated; the pod that asked, when it was on the node (its claims left out). */
      readonly considered: ReadonlySet<string>;
      readonly excluded: string | undefined;
      /** The devices taken before this node in the pools it reaches. */
      readonly before: string;
      /** The claims it allocated, and those its pods had that nodes before it allocated. */
      readonly handled: readonly string[];
      readonly skipped: readonly string[];
      readonly taken: readonly PlannedDevice[];
      /** The allocation each claim it allocated gets. */
      readonly claims: ReadonlyArray<readonly [string, AllocationResult]>;
    }
  >();
  /** Per pod object, its claims as found at a stamp, dropped with the pod. */
  private claimsByPod = new WeakMap<Pod, { readonly stamp: number; readonly found: ReturnType<typeof podResourceClaims> }>();
  /** The claim specs of pods as memo keys, one string instance each (budget: framework/caches.ts). */
  private readonly specKeys = new KeyInterner();
  /** What Reserve changed per pod, for PreBind and Unreserve. */
  private readonly reservedBy = new Map<string, Reserved[]>();
  /** Claims between Reserve and PreBind's write, with how many pods hold them so (only with a ClaimWriter). */
  private readonly inFlight = new Map<string, number>();
  private holders: { readonly at: number; readonly of: Indexes; readonly byDevice: Map<string, ResourceClaim> } | undefined;

  constructor(
    private readonly handle: FrameworkHandle,
    private readonly args: DynamicResourcesArgs,
  ) {}

  private indexes(): Indexes {
    const idx = indexesOf(this.handle.objects?.() ?? {});
    if (idx !== this.counted) {
      // A new snapshot of the objects: an assumed claim whose object changed since is the cluster's
      // again, unless it is in flight, or written and the snapshot does not show that write yet.
      for (const [k, a] of this.assumed) {
        const now = idx.claims.get(k);
        if (a.base === now || this.inFlight.has(k)) continue;
        if (a.written !== undefined && now && olderVersion(now.metadata.resourceVersion, a.written)) continue;
        this.assumed.delete(k);
      }
      this.counted = idx;
      this.use = new Map();
      this.shares = new Map();
      this.poolVersions = [];
      this.memo = new WeakMap();
      for (const [k, c] of idx.claims) if (!this.assumed.has(k)) this.count(c, 1);
      for (const a of this.assumed.values()) this.count(a.claim, 1);
    }
    return idx;
  }

  private count(claim: ResourceClaim, delta: number): void {
    this.useStamp++;
    const slices = this.counted?.slices;
    for (const r of allocatedDevices(claim)) {
      const id = deviceId(r.driver, r.pool, r.device);
      if (slices) {
        const pool = slices.poolId(id.slice(0, id.lastIndexOf('/')));
        // Dense (no holes), so that reading a version stays an array access.
        const versions = this.poolVersions;
        while (versions.length <= pool) versions.push(0);
        versions[pool]!++;
      }
      if (r.shareID !== undefined) {
        addShare(this.shares, id, r.consumedCapacity, delta > 0 ? 1 : -1);
        continue;
      }
      const n = (this.use.get(id) ?? 0) + delta;
      if (n <= 0) this.use.delete(id);
      else this.use.set(id, n);
    }
  }

  private claim(idx: Indexes, namespace: string, name: string): ResourceClaim | undefined {
    const k = key(namespace, name);
    return this.assumed.get(k)?.claim ?? idx.claims.get(k);
  }

  /** Replaces what the scheduler knows of a claim, keeping the device counts in step. */
  private assume(idx: Indexes, claim: ResourceClaim): Assumed | undefined {
    const k = key(claim.metadata.namespace, claim.metadata.name);
    const before = this.assumed.get(k);
    const current = before?.claim ?? idx.claims.get(k);
    if (current) this.count(current, -1);
    this.count(claim, 1);
    // A write PreBind made stays the floor: the snapshot must show it before the cluster's claim counts again.
    this.assumed.set(k, { claim, base: before ? before.base : idx.claims.get(k), ...(before?.written ? { written: before.written } : {}) });
    return before;
  }

  private restore(idx: Indexes, k: string, before: Assumed | undefined): void {
    const current = this.assumed.get(k)?.claim ?? idx.claims.get(k);
    if (current) this.count(current, -1);
    if (before) this.assumed.set(k, before);
    else this.assumed.delete(k);
    const now = before?.claim ?? idx.claims.get(k);
    if (now) this.count(now, 1);
  }

  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[] = []): { status: Status } {
    state.write(this.stateKey, EMPTY);
    const extendedClasses = extendedResourceClasses(this.handle.objects?.().deviceClasses);
    const extended: string[] = [];
    if (extendedClasses.size > 0) {
      for (const [name, quantity] of pod.requests.scalar)
        if (quantity > 0 && isDraExtendedResourceName(name) && extendedClasses.has(name)) extended.push(name);
    }
    if ((pod.pod.spec.resourceClaims ?? []).length === 0 && extended.length === 0) return { status: SKIP };
    const idx = this.indexes();
    const found = this.resolve(idx, pod.pod);
    if (!found.ok) return { status: unresolvable(found.error) };
    // On a cluster a plan leaves (a planner's what-if, the editor's plan check), a claim a pod placed
    // earlier allocated (a shared claim) is allocated there, as the scheduler following the plan
    // would find it: this pod may only follow it.
    const whatIf =
      state.read(PLANNED_PODS) === true && (extended.length > 0 || found.value.some((c) => !c.status?.allocation))
        ? this.plannedDevices(idx, pod, nodes)
        : undefined;
    const podClaims =
      whatIf && whatIf.claims.size > 0
        ? found.value.map((c) => {
            const allocation = c.status?.allocation ? undefined : whatIf.claims.get(key(c.metadata.namespace, c.metadata.name));
            return allocation ? { ...c, status: { ...c.status, allocation } } : c;
          })
        : found.value;
    const userClaims = podClaims.length > 0;
    // The claim for the extended resources: made for the pod, its requests per node (in Filter).
    const claims = extended.length > 0 ? [...podClaims, extendedResourceClaim(pod.pod)] : podClaims;
    if (claims.length === 0) return { status: SKIP };
    const toAllocate: number[] = [];
    for (const [i, claim] of claims.entries()) {
      if (claim.status?.allocation) continue;
      toAllocate.push(i);
      if (extended.length > 0 && i === claims.length - 1) continue;
      for (const request of claim.spec.devices?.requests ?? []) {
        if (request.exactly) {
          const bad = this.checkClass(idx, request.exactly.deviceClassName, request.name);
          if (bad) return { status: bad };
        } else if ((request.firstAvailable ?? []).length > 0) {
          for (const sub of request.firstAvailable ?? []) {
            const bad = this.checkClass(idx, sub.deviceClassName, `${request.name}/${sub.name}`);
            if (bad) return { status: bad };
          }
        } else {
          return {
            status: unresolvable(
              `resource claim ${key(claim.metadata.namespace, claim.metadata.name)}, request ${request.name}: unknown request type`,
            ),
          };
        }
      }
    }
    // The devices in use as of this cycle (Reserve, which changes them, comes after Filter); in a
    // planner's what-if, also those the pods it placed so far take (its placements are not reserved).
    const use = this.use;
    const planned = toAllocate.length > 0 ? whatIf?.taken : undefined;
    const input: AllocatorInput | undefined =
      toAllocate.length > 0
        ? {
            classes: idx.classes,
            slices: idx.slices,
            allocated: { has: planned && planned.size > 0 ? (id) => use.has(id) || planned.has(id) : (id) => use.has(id) },
            shares: sharesOf(this.shares, whatIf?.shares),
          }
        : undefined;
    const allocating = toAllocate.map((i) => claims[i]!);
    // The memo holds outcomes for the devices in use only: not for a what-if's.
    const specs =
      input && !(planned && planned.size > 0) && !(whatIf && whatIf.shares.size > 0)
        ? this.specKeys.intern(JSON.stringify(allocating.map((c) => c.spec)))
        : '';
    const selectorBound: number[] = [];
    const bindingFailed: number[] = [];
    const now = this.handle.now?.();
    for (const [i, claim] of claims.entries()) {
      if (claim.status?.allocation?.nodeSelector) selectorBound.push(i);
      if (claim.status?.allocation && bindingUnavailable(claim, now, this.args.bindingTimeoutMs)) bindingFailed.push(i);
    }
    state.write(this.stateKey, {
      claims,
      toAllocate,
      allocating,
      specs,
      input,
      byNode: new Map(),
      extended: extended.length > 0 ? { resources: extended, userClaims } : undefined,
      extendedByNode: new Map(),
      extendedMappings: new Map(),
      unavailable: new Set<number>(),
      selectorBound,
      bindingFailed,
      prioritized: claims.some((c) => (c.spec.devices?.requests ?? []).some((r) => (r.firstAvailable ?? []).length > 0)),
    });
    return { status: SUCCESS };
  }

  /**
   * The devices the pods a planner placed in this what-if (pods on nodes whose claims are not
   * allocated) take, allocated node by node in order as the scheduler would when it follows the plan, and the
   * allocation each of their claims gets (a claim they share with this pod is allocated there).
   * A node's share is kept (plannedMemo) and reused while its NodeInfo is unchanged, the devices in
   * use are as they were, the devices nodes before it took from the pools it reaches are the same
   * and so are the claims they handled: a planner asks this for every pod it tries, one placement
   * apart, so each call allocates on the nodes that changed only.
   */
  private plannedDevices(
    idx: Indexes,
    pod: PodInfo,
    nodes: readonly NodeInfo[],
  ): {
    readonly taken: Set<string>;
    readonly shares: Shares;
    readonly claims: Map<string, AllocationResult>;
  } {
    const taken = new Set<string>();
    const shares: Shares = new Map();
    const claims = new Map<string, AllocationResult>();
    /** Per pool key, the devices taken so far, in order. */
    const byPool = new Map<string, string[]>();
    const done = new Set<string>();
    const input: AllocatorInput = {
      classes: idx.classes,
      slices: idx.slices,
      allocated: { has: (id) => this.use.has(id) || taken.has(id) },
      shares: sharesOf(this.shares, shares),
    };
    const take = ({ id, share }: PlannedDevice) => {
      if (share) addShare(shares, id, share, 1);
      else taken.add(id);
      const pool = id.slice(0, id.lastIndexOf('/'));
      const entry = share ? `${id}#${JSON.stringify(share)}` : id;
      const list = byPool.get(pool);
      if (list) list.push(entry);
      else byPool.set(pool, [entry]);
    };
    for (const nodeInfo of nodes) {
      // A node none of whose other pods has claims takes no devices (most nodes of a large cluster).
      if (!nodeInfo.pods.some((other) => other.id !== pod.id && (other.pod.spec.resourceClaims ?? []).length > 0)) continue;
      const pools = idx.slices.poolsFor(nodeInfo.node);
      const before = typeof pools === 'string' ? '' : pools.map((p) => (byPool.get(p.key) ?? []).join(',')).join(';');
      const kept = this.plannedMemo.get(nodeInfo);
      if (
        kept &&
        kept.generation === nodeInfo.generation &&
        kept.stamp === this.useStamp &&
        (kept.excluded === undefined || kept.excluded === pod.id) &&
        !kept.considered.has(pod.id) &&
        kept.before === before &&
        kept.handled.every((k) => !done.has(k)) &&
        kept.skipped.every((k) => done.has(k))
      ) {
        for (const k of kept.handled) done.add(k);
        for (const d of kept.taken) take(d);
        for (const [k, r] of kept.claims) claims.set(k, r);
        continue;
      }
      const handled: string[] = [];
      const skipped: string[] = [];
      const mine: PlannedDevice[] = [];
      const allocated: Array<[string, AllocationResult]> = [];
      const considered = new Set<string>();
      let excluded: string | undefined;
      for (const other of nodeInfo.pods) {
        if ((other.pod.spec.resourceClaims ?? []).length === 0) continue;
        if (other.id === pod.id) {
          excluded = pod.id;
          continue;
        }
        considered.add(other.id);
        const found = this.claimsOf(idx, other.pod);
        if (!found.ok) continue;
        const pending: ResourceClaim[] = [];
        for (const c of found.value) {
          if (c.status?.allocation) continue;
          const k = key(c.metadata.namespace, c.metadata.name);
          if (done.has(k)) skipped.push(k);
          else pending.push(c);
        }
        if (pending.length === 0) continue;
        for (const c of pending) {
          const k = key(c.metadata.namespace, c.metadata.name);
          done.add(k);
          handled.push(k);
        }
        const outcome = allocate(input, nodeInfo.node, pending);
        if (outcome.kind !== 'allocated') continue;
        outcome.results.forEach((r, i) => {
          const c = pending[i]!;
          const k = key(c.metadata.namespace, c.metadata.name);
          claims.set(k, r);
          allocated.push([k, r]);
          for (const d of r.devices?.results ?? [])
            if (d.adminAccess !== true) {
              const planned: PlannedDevice = {
                id: deviceId(d.driver, d.pool, d.device),
                ...(d.shareID !== undefined ? { share: d.consumedCapacity ?? {} } : {}),
              };
              take(planned);
              mine.push(planned);
            }
        });
      }
      this.plannedMemo.set(nodeInfo, {
        generation: nodeInfo.generation,
        stamp: this.useStamp,
        considered,
        excluded,
        before,
        handled,
        skipped,
        taken: mine,
        claims: allocated,
      });
    }
    return { taken, shares, claims };
  }

  /** A pod's claims as PreFilter finds them, kept per pod object while the claims known are the same. */
  private claimsOf(idx: Indexes, pod: Pod): ReturnType<typeof podResourceClaims> {
    const kept = this.claimsByPod.get(pod);
    if (kept && kept.stamp === this.useStamp) return kept.found;
    const found = this.resolve(idx, pod);
    this.claimsByPod.set(pod, { stamp: this.useStamp, found });
    return found;
  }

  /**
   * The pod's claims: with a cluster's controllers beside the scheduler, a template entry's claim is
   * the one the pod's status names (none yet: upstream's "ResourceClaim not created yet"), else the
   * one the controller would create is made up.
   */
  private resolve(idx: Indexes, pod: Pod): ReturnType<typeof podResourceClaims> {
    return podResourceClaims(
      pod,
      {
        claim: (ns, n) => this.claim(idx, ns, n),
        template: (ns, n) => idx.templates.get(key(ns, n)),
        notCreated: (ns, n) => idx.notCreated.has(key(ns, n)),
      },
      this.handle.clusterControllers === true ? 'wait' : 'made-up',
    );
  }

  /**
   * upstream PreEnqueue: a pod whose claims cannot all be found (one not created yet, missing, being
   * deleted, not the pod's) waits outside the active queue with PreFilter's message, until the
   * pod's update or a claim's event lets them be found.
   */
  preEnqueue(pod: Pod): Status {
    if ((pod.spec.resourceClaims ?? []).length === 0) return SUCCESS;
    const found = this.resolve(this.indexes(), pod);
    return found.ok ? SUCCESS : unresolvable(found.error);
  }

  private checkClass(idx: Indexes, className: string, request: string): Status | undefined {
    if (!className) return errorStatus(`request ${request}: unsupported request type`);
    if (!idx.classes.has(className)) return unresolvable(`request ${request}: device class ${className} does not exist`);
    return undefined;
  }

  filter(state: CycleState, pod: PodInfo, nodeInfo: NodeInfo): FilterStatus {
    const s = state.read(this.stateKey);
    if (!s || s.claims.length === 0) return SUCCESS;
    const node = nodeInfo.node;
    let allocating = s.allocating;
    if (s.extended) {
      // upstream filterExtendedResources: on a node without the resource in its allocatable, DRA serves it.
      const served: string[] = [];
      for (const name of s.extended.resources) if ((nodeInfo.allocatable.scalar.get(name) ?? 0) === 0) served.push(name);
      for (const [name, quantity] of pod.requests.scalar) {
        if (
          quantity > 0 &&
          isDraExtendedResourceName(name) &&
          !s.extended.resources.includes(name) &&
          !nodeInfo.allocatable.scalar.has(name)
        )
          return unresolvable(ERR_CANNOT_FIT_RESOURCE);
      }
      if (!s.extended.userClaims && served.length === 0) return SUCCESS;
      const classes = extendedResourceClasses(this.handle.objects?.().deviceClasses);
      const special = s.claims[s.claims.length - 1]!;
      const made = extendedResourceRequestsAndMappings(pod.pod, served, classes);
      const forNode: ResourceClaim = { ...special, spec: { devices: { requests: made.requests } } };
      s.extendedByNode.set(node.metadata.name, forNode);
      s.extendedMappings.set(node.metadata.name, made.mappings);
      allocating = [...s.allocating.slice(0, -1), forNode];
    }
    const unavailable: number[] = [];
    for (const i of s.selectorBound) {
      if (!nodeSelectorMatches(s.claims[i]!.status!.allocation!.nodeSelector!, node)) unavailable.push(i);
    }
    // Binding failed or timed out: on every node (a claim already unavailable by its selector counts once).
    for (const i of s.bindingFailed) if (!unavailable.includes(i)) unavailable.push(i);
    if (s.input) {
      // upstream's context.WithTimeout(filterTimeout) around this node's allocation.
      const deadline = allocationDeadline(this.handle.clock, this.args.filterTimeoutMs);
      const outcome = s.extended ? allocate(s.input, node, allocating, deadline) : this.allocateOn(s, s.input, node, deadline);
      if (outcome.kind === 'timeout') return errorStatus(timedOutMessage(node.metadata.name));
      if (outcome.kind === 'error') return errorStatus(outcome.message);
      if (outcome.kind === 'none') {
        const status = outcome.invalidPools ? INVALID_POOLS : CANNOT_ALLOCATE;
        // Upstream's message stays as it is; a complete verdict adds what it is made of, as data.
        if (!state.explainFilters || outcome.invalidPools) return status;
        return { ...status, devices: deviceFailures(s.input, node, allocating, (id) => this.holderOf(id)) };
      }
      // From the memo, Score and Reserve read the outcome again: no per-node copy (many nodes, many pods).
      if (s.extended || s.specs === '') s.byNode.set(node.metadata.name, outcome.results);
    }
    if (unavailable.length > 0) {
      for (const i of unavailable) s.unavailable.add(i);
      const status = unresolvable(ERR_NOT_AVAILABLE);
      return state.explainFilters ? { ...status, devices: unavailable.map((i) => allocatedElsewhere(s.claims[i]!)) } : status;
    }
    return SUCCESS;
  }

  /**
   * The claim (assumed or the snapshot's) that holds a device, with the pods it is reserved for;
   * explain only: the index of holders is built on first use and kept while no claim changes.
   */
  private holderOf(id: string): DeviceHolder | undefined {
    const idx = this.indexes();
    if (!this.holders || this.holders.at !== this.useStamp || this.holders.of !== idx) {
      const byDevice = new Map<string, ResourceClaim>();
      for (const [k, c] of idx.claims)
        if (!this.assumed.has(k)) for (const d of allocatedDevices(c)) byDevice.set(deviceId(d.driver, d.pool, d.device), c);
      for (const a of this.assumed.values())
        for (const d of allocatedDevices(a.claim)) byDevice.set(deviceId(d.driver, d.pool, d.device), a.claim);
      this.holders = { at: this.useStamp, of: idx, byDevice };
    }
    const claim = this.holders.byDevice.get(id);
    if (!claim) return undefined;
    return {
      claim: key(claim.metadata.namespace, claim.metadata.name),
      pods: (claim.status?.reservedFor ?? []).filter((r) => r.resource === 'pods').map((r) => r.name),
    };
  }

  /** What Filter allocated on the node for the claims to allocate, undefined when it did not pass. */
  private allocationsOn(s: DraState, nodeName: string, node: Node | undefined): readonly AllocationResult[] | undefined {
    const kept = s.byNode.get(nodeName);
    if (kept || !s.input || s.extended || s.specs === '' || !node) return kept;
    const outcome = this.allocateOn(s, s.input, node);
    return outcome.kind === 'allocated' ? outcome.results : undefined;
  }

  /** The allocator's outcome on the node, from the memo while the node's pools are as they were. */
  private allocateOn(s: DraState, input: AllocatorInput, node: Node, deadline?: AllocationDeadline): AllocateOutcome {
    const pools = input.slices.poolsFor(node);
    if (typeof pools === 'string') return allocate(input, node, s.allocating, deadline);
    if (s.specs === '') return allocate(input, node, s.allocating, deadline);
    let byNode = this.memo.get(node);
    const hit = byNode?.get(s.specs);
    const versions = this.poolVersions;
    if (hit && hit.pools === pools) {
      let same = true;
      for (let i = 0; same && i < pools.length; i++) same = hit.versions[i] === (versions[pools[i]!.id] ?? 0);
      if (same) return hit.outcome;
    }
    const at = pools.map((p) => versions[p.id] ?? 0);
    const outcome = allocate(input, node, s.allocating, deadline);
    // An error names the claim: not kept (the next pod's claims have other names); a timeout is the clock's.
    if (outcome.kind === 'error' || outcome.kind === 'timeout') return outcome;
    if (!byNode) this.memo.set(node, (byNode = new Map()));
    if (byNode.size >= MEMO_PER_NODE) byNode.clear();
    byNode.set(s.specs, { pools, versions: at, outcome });
    return outcome;
  }

  postFilter(state: CycleState, pod: PodInfo): { status: Status; result?: PostFilterResult } {
    // A plan that does not preempt; or a what-if, whose claims are not this plugin's to deallocate.
    if (state.read(PREEMPTION_MODE) === 'report' || state.read(PLANNED_PODS) === true) return { status: SKIP };
    const s = state.read(this.stateKey);
    if (!s) return { status: NO_STATE };
    if (s.claims.length === 0) return { status: NOTHING_TO_DEALLOCATE };
    // Upstream picks at random among the unavailable claims; Podplan takes the first.
    for (const i of [...s.unavailable].sort((a, b) => a - b)) {
      const claim = s.claims[i]!;
      const reservedFor = claim.status?.reservedFor ?? [];
      if (reservedFor.length === 0 || (reservedFor.length === 1 && reservedFor[0]!.uid === pod.id)) {
        const idx = this.indexes();
        this.assume(idx, { ...claim, status: {} });
        return { status: unschedulable(DEALLOCATED) };
      }
    }
    return { status: NOTHING_TO_DEALLOCATE };
  }

  /** A pod without claims scores 0 on every node: one key for all of them. */
  scoreKey(state: CycleState): string | undefined {
    const s = state.read(this.stateKey);
    return !s || s.claims.length === 0 ? 'no-claims' : undefined;
  }

  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number {
    const s = state.read(this.stateKey);
    if (!s || !s.prioritized) return 0;
    const allocations = this.allocationsOn(s, nodeInfo.node.metadata.name, nodeInfo.node);
    if (!allocations) return 0;
    let score = 0;
    let next = 0;
    for (const claim of s.claims) {
      const allocation = claim.status?.allocation ?? allocations[next++];
      const chosen = new Set((allocation?.devices?.results ?? []).map((r) => r.request).filter((r) => r.includes('/')));
      for (const request of claim.spec.devices?.requests ?? []) {
        if (request.exactly) continue;
        (request.firstAvailable ?? []).forEach((sub, i) => {
          if (chosen.has(`${request.name}/${sub.name}`)) score += FIRST_AVAILABLE_MAX - i;
        });
      }
    }
    return score;
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return SUCCESS;
  }

  reserve(state: CycleState, pod: PodInfo, nodeName: string): Status {
    const s = state.read(this.stateKey);
    if (!s || s.claims.length === 0) return SUCCESS;
    const allocations = s.input ? this.allocationsOn(s, nodeName, this.handle.snapshot().get(nodeName)?.node) : [];
    if (!allocations) {
      // A node whose device plugin serves the extended resources, with no claim of the pod's own to allocate: nothing to reserve.
      if (s.extended && s.toAllocate.length === 1 && s.toAllocate[0] === s.claims.length - 1) return SUCCESS;
      return errorStatus('claim allocation not found for node');
    }
    const idx = this.indexes();
    const changes: Reserved[] = [];
    const inFlight = this.handle.claimWriter !== undefined;
    let next = 0;
    for (const [i, listed] of s.claims.entries()) {
      // The claim made for extended resources gets its name (as the API server's generateName would) and its node's requests.
      const claim = s.extended && i === s.claims.length - 1 ? madeExtendedClaim(listed, s.extendedByNode.get(nodeName), pod.pod) : listed;
      const fresh = claim.status?.allocation ? undefined : allocations[next++];
      const allocation = claim.status?.allocation ?? fresh;
      const reservedFor = claim.status?.reservedFor ?? [];
      const reserved = reservedFor.some((r) => r.uid === pod.id);
      const updated: ResourceClaim = {
        ...claim,
        status: {
          ...claim.status,
          ...(allocation ? { allocation } : {}),
          reservedFor: reserved ? reservedFor : [...reservedFor, consumerOf(pod)],
        },
      };
      const k = key(claim.metadata.namespace, claim.metadata.name);
      const special = s.extended && i === s.claims.length - 1;
      changes.push({
        key: k,
        before: this.assume(idx, updated),
        listed: claim,
        allocation: fresh,
        bind: !reserved,
        inFlight,
        ...(special ? { extended: { mappings: s.extendedMappings.get(nodeName) ?? [], created: false } } : {}),
      });
      if (inFlight) this.inFlight.set(k, (this.inFlight.get(k) ?? 0) + 1);
    }
    this.reservedBy.set(pod.id, changes);
    return SUCCESS;
  }

  unreserve(_state: CycleState, pod: PodInfo, _nodeName: string): void {
    const changes = this.reservedBy.get(pod.id);
    if (!changes) return;
    this.reservedBy.delete(pod.id);
    for (const change of changes) this.land(change);
    const idx = this.indexes();
    for (const change of [...changes].reverse()) {
      // The claim PreBind created for the extended resources is the pod's alone: deleted (upstream unreserveExtendedResourceClaim).
      if (change.extended?.created) {
        this.restore(idx, change.key, change.before);
        this.handle.claimWriter?.deleteClaim(change.listed.metadata.namespace ?? 'default', change.listed.metadata.name);
        continue;
      }
      if (!change.written) {
        this.restore(idx, change.key, change.before);
        continue;
      }
      // Written by PreBind: the allocation stays; the pod's reservation is taken back out, here and in the cluster.
      const written = change.written;
      const reservedFor = (written.status?.reservedFor ?? []).filter((r) => r.uid !== pod.id);
      this.assume(idx, { ...written, status: { ...written.status, reservedFor } });
      this.handle.claimWriter?.unreserveClaim(this.bindingOf(change, pod));
    }
  }

  async preBind(state: CycleState, pod: PodInfo, nodeName: string): Promise<Status> {
    const changes = this.reservedBy.get(pod.id);
    if (!changes || changes.length === 0) return SKIP;
    const writer = this.handle.claimWriter;
    if (!writer) return SUCCESS;
    for (const change of changes) {
      if (!change.bind) continue;
      if (change.extended) {
        // The node's device plugins serve every extended resource: no claim (upstream bindClaim's early return).
        if (!change.allocation && (change.listed.spec.devices?.requests ?? []).length === 0) {
          this.land(change);
          this.restore(this.indexes(), change.key, change.before);
          continue;
        }
        const created = await this.createExtendedClaim(writer, change, pod);
        if (!isSuccess(created)) return created;
      }
      const claim = change.listed;
      const name = key(claim.metadata.namespace, claim.metadata.name);
      const written = await writer.bindClaim(this.bindingOf(change, pod));
      if (!written.ok) return errorStatus(`ResourceClaim ${name}: ${written.error}`);
      change.written = written.value;
      // upstream's AssumeClaimAfterAPICall: the claim as the API server holds it, until the objects show it.
      const idx = this.indexes();
      this.assume(idx, written.value);
      const a = this.assumed.get(change.key);
      if (a && written.value.metadata.resourceVersion !== undefined)
        this.assumed.set(change.key, { ...a, base: idx.claims.get(change.key), written: written.value.metadata.resourceVersion });
      if (change.extended) {
        // upstream patchPodExtendedResourceClaimStatus: the pod's status names the claim and maps its containers to its requests.
        if (change.extended.mappings.length === 0)
          return errorStatus(`nil or empty request mappings, no update of pod ${pod.key} ExtendedResourceClaimStatus`);
        const patched = await writer.patchPodExtendedResourceClaimStatus(pod.pod, {
          requestMappings: change.extended.mappings,
          resourceClaimName: claim.metadata.name,
        });
        if (!patched.ok) return errorStatus(`update pod ${pod.key} ExtendedResourceClaimStatus: ${patched.error}`);
      }
    }
    for (const change of changes) this.land(change);
    // The pod's claims: those PreFilter found (the extended resources' one as PreBind created it).
    const keys = new Set(changes.map((c) => c.key));
    for (const claim of state.read(this.stateKey)?.claims ?? [])
      if (!claim.metadata.annotations?.[EXTENDED_RESOURCE_CLAIM_ANNOTATION]) keys.add(key(claim.metadata.namespace, claim.metadata.name));
    return this.awaitBindingConditions([...keys], pod, nodeName);
  }

  /**
   * upstream PreBind's wait for binding conditions (DRADeviceBindingConditions with
   * DRAResourceClaimDeviceStatus, on by default in 1.37), on the injected clock: when a claim of the
   * pod has devices with binding conditions, the claims as the scheduler knows them (the cluster's,
   * through the objects, once they show PreBind's write) are looked at now and every 5 s until every
   * condition is True (Success). A failure condition True, a claim allocated longer ago than the
   * binding timeout, or the 10 minutes' wait running out is an Error with upstream's words: the pod
   * is not bound, Unreserve runs, and the next attempt's Filter finds the claim unavailable. Before
   * it waits, upstream's BindingConditionsPending event is recorded.
   */
  private async awaitBindingConditions(keys: readonly string[], pod: PodInfo, nodeName: string): Promise<Status> {
    const clock = this.handle.clock;
    const claims = () => {
      const idx = this.indexes();
      return keys.map((k) => this.assumed.get(k)?.claim ?? idx.claims.get(k)).filter((c): c is ResourceClaim => c !== undefined);
    };
    if (!clock || !claims().some(hasBindingConditions)) return SUCCESS;
    this.handle.recordEvent?.(pod.pod, {
      type: 'Normal',
      reason: 'BindingConditionsPending',
      action: 'Scheduling',
      note: `waiting for binding conditions for device on node ${nodeName}`,
    });
    const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimer(ms, resolve));
    const deadline = clock.now() + this.args.bindingTimeoutMs;
    for (;;) {
      const now = clock.now();
      let ready = true;
      for (const claim of claims()) {
        const readiness = bindingReadiness(claim);
        if (readiness.failed !== undefined) return errorStatus(readiness.failed);
        if (readiness.ready) continue;
        if (bindingTimedOut(claim, now, this.args.bindingTimeoutMs))
          return errorStatus(`device binding timeout: claim=${claim.metadata.name}`);
        ready = false;
        break;
      }
      if (ready) return SUCCESS;
      // The deadline comes before the look that would fall on it.
      if (now + BINDING_POLL_MS >= deadline) {
        await sleep(deadline - now);
        return errorStatus(ERR_BINDING_DEADLINE);
      }
      await sleep(BINDING_POLL_MS);
    }
  }

  /**
   * upstream createExtendedResourceClaimInAPI: the special claim created with `<pod>-extended-resources-`
   * as generateName, the pod as its controller and the node's requests; from then on the change is
   * the created claim's (assumed under its name, in flight until written), the made-up one forgotten.
   */
  private async createExtendedClaim(writer: ClaimWriter, change: Reserved, pod: PodInfo): Promise<Status> {
    const made = change.listed;
    const { [MADE_UP_ANNOTATION]: _madeUp, ...annotations } = made.metadata.annotations ?? {};
    const created = await writer.createClaim({
      metadata: {
        name: '',
        generateName: `${pod.pod.metadata.name}-extended-resources-`,
        namespace: podNamespace(pod.pod),
        annotations,
        ownerReferences: made.metadata.ownerReferences ?? [podOwnerReference(pod.pod)],
      },
      spec: made.spec,
    });
    if (!created.ok) return errorStatus(`create claim for extended resources ${pod.key}: ${created.error}`);
    const idx = this.indexes();
    this.land(change);
    this.restore(idx, change.key, change.before);
    const claim = created.value;
    const k = key(claim.metadata.namespace, claim.metadata.name);
    change.key = k;
    change.listed = claim;
    change.extended!.created = true;
    change.before = this.assume(idx, {
      ...claim,
      status: { ...(change.allocation ? { allocation: change.allocation } : {}), reservedFor: [consumerOf(pod)] },
    });
    change.inFlight = true;
    this.inFlight.set(k, (this.inFlight.get(k) ?? 0) + 1);
    return SUCCESS;
  }

  /** The claim is no longer in flight for this pod (written, or unreserved). */
  private land(change: Reserved): void {
    if (!change.inFlight) return;
    change.inFlight = false;
    const n = (this.inFlight.get(change.key) ?? 0) - 1;
    if (n > 0) this.inFlight.set(change.key, n);
    else this.inFlight.delete(change.key);
  }

  private bindingOf(change: Reserved, pod: PodInfo): ClaimBinding {
    const { metadata } = change.listed;
    return {
      namespace: metadata.namespace ?? 'default',
      name: metadata.name,
      ...(metadata.uid !== undefined ? { uid: metadata.uid } : {}),
      ...(change.allocation ? { allocation: change.allocation } : {}),
      consumer: consumerOf(pod),
    };
  }
}

/** The reservedFor entry of a pod (upstream's getBinding: the core group, left out). */
function consumerOf(pod: PodInfo): ResourceClaimConsumerReference {
  return { resource: 'pods', name: pod.pod.metadata.name, uid: pod.id };
}

export const factory = factoryOf(dynamicResourcesArgs, (args, handle) => new DynamicResources(handle, args));
