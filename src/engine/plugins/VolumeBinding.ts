// VolumeBinding (PreFilter, Filter, PreScore, Score) as upstream's volumebinding plugin, for the
// claims a snapshot holds: a claim that does not exist, is being deleted, or is unbound in Immediate
// mode stops the pod at PreFilter; a bound claim's PersistentVolume must allow the node (its node
// affinity); an unbound WaitForFirstConsumer claim needs, on the node, an available volume that fits
// it or a StorageClass that can provision one there, with room for it when the class's CSI driver
// asks for storage capacity checks (CSIStorageCapacity). Scoring is upstream's with
// StorageCapacityScoring (beta and on in 1.37): per storage class, the utilization of the volumes it
// would bind on the node (or, when none, of the capacity it would provision from), scored on the
// default shape 0% → 100, 100% → 0, averaged over the classes; a pod without such claims scores 0.
import { NodeSelectorMatcher } from '../api/node-affinity';
import { selectorMatches } from '../api/labels';
import { parseQuantity, quantityValue } from '../api/quantity';
import { parseResourceList } from '../api/resources';
import type {
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  Node,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import { claimClass, claimKey, podClaimNames, storageIndex, type StorageIndex } from '../api/volumes';
import type { CycleState } from '../framework/cycle-state';
import {
  MAX_NODE_SCORE,
  type FilterPlugin,
  type FrameworkHandle,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ReservePlugin,
  type ScorePlugin,
} from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { Names } from './names';

export const NAME = Names.VolumeBinding;

export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';
export const ERR_REASON_NOT_ENOUGH_SPACE = 'node(s) did not have enough free storage';
export const ERR_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

interface PodVolumes {
  /** Claims bound to a volume: the volume, or undefined when it does not exist. */
  readonly bound: ReadonlyArray<{ readonly claim: PersistentVolumeClaim; readonly volume: PersistentVolume | undefined }>;
  /** Unbound WaitForFirstConsumer claims, with their class. */
  readonly delayed: ReadonlyArray<{ readonly claim: PersistentVolumeClaim; readonly storageClass: StorageClass }>;
  readonly index: StorageIndex;
}

/** The annotation the scheduler puts on a claim it chose a node to provision for. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/** What a delayed claim would use on a node: a volume to bind (static) or a class to provision from. */
interface StorageUse {
  /** namespace/name of the claim */
  readonly claim: string;
  /** The volume a static binding binds. */
  readonly volume?: string;
  readonly storageClass: string;
  /** The claim's size, bytes. */
  readonly requested: number;
  /** The volume's capacity, or the CSIStorageCapacity's capacity (undefined when none was checked). */
  readonly capacity: number | undefined;
}

/** Per feasible node, the delayed claims' use of storage (upstream podVolumesByNode). */
interface NodeVolumes {
  readonly staticBindings: readonly StorageUse[];
  readonly dynamicProvisions: readonly StorageUse[];
}

const NO_VOLUMES: PodVolumes = Object.freeze({ bound: [], delayed: [], index: storageIndex({}) });

/** A delayed claim a placed pod reserved: the node chosen for it and, for a static binding, the volume. */
interface ReservedClaim {
  readonly node: string;
  readonly volume?: string;
}

export class VolumeBinding implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, ReservePlugin, EnqueueExtensions {
  readonly name = NAME;

  /**
   * upstream EventsToRegister: a StorageClass added or changed; a claim added or changed; a volume
   * added or changed, a node added or relabelled (no hints); a CSINode added or changed; a CSIDriver
   * changed; a CSIStorageCapacity added or changed.
   */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      {
        event: clusterEvent('storage.k8s.io/StorageClass', ActionType.Add | ActionType.Update),
        hint: isSchedulableAfterStorageClassChange,
      },
      {
        event: clusterEvent('PersistentVolumeClaim', ActionType.Add | ActionType.Update),
        hint: isSchedulableAfterPersistentVolumeClaimChange,
      },
      { event: clusterEvent('PersistentVolume', ActionType.Add | ActionType.Update) },
      { event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel) },
      { event: clusterEvent('storage.k8s.io/CSINode', ActionType.Add | ActionType.Update), hint: isSchedulableAfterCSINodeChange },
      { event: clusterEvent('storage.k8s.io/CSIDriver', ActionType.Update), hint: isSchedulableAfterCSIDriverChange },
      {
        event: clusterEvent('storage.k8s.io/CSIStorageCapacity', ActionType.Add | ActionType.Update),
        hint: isSchedulableAfterCSIStorageCapacityChange,
      },
    ];
  }
  private readonly state = new CycleValue<PodVolumes>(`PreFilter${NAME}`);
  private readonly byNode = new CycleValue<Map<string, NodeVolumes>>(`Filter${NAME}`);
  /**
   * Claims reserved by pods placed so far (upstream's assumed PVs and PVCs): a volume bound to its
   * claim, a claim annotated with the node to provision on. Later pods sharing the claim follow it.
   */
  private readonly reserved = new Map<string, ReservedClaim>();

  constructor(private readonly handle: FrameworkHandle) {}

  preFilter(state: CycleState, pod: PodInfo): { status: Status } {
    const names = podClaimNames(pod.pod);
    if (names.length === 0) {
      // As upstream: an empty state, so scoring still runs (and gives every node 0).
      this.state.write(state, NO_VOLUMES);
      this.byNode.write(state, new Map());
      return { status: SKIP };
    }
    const index = storageIndex(this.handle.objects?.() ?? {});
    const bound: Array<PodVolumes['bound'][number]> = [];
    const delayed: Array<PodVolumes['delayed'][number]> = [];
    let unboundImmediate = false;
    for (const name of names) {
      const claim = index.claims.get(claimKey(pod.pod, name));
      if (!claim) return { status: unresolvable(`persistentvolumeclaim "${name}" not found`) };
      if (claim.metadata.deletionTimestamp) return { status: unresolvable(`persistentvolumeclaim "${name}" is being deleted`) };
      const volumeName = claim.spec?.volumeName;
      if (volumeName) {
        bound.push({ claim, volume: index.volumes.get(volumeName) });
        continue;
      }
      const storageClass = index.classes.get(claimClass(claim));
      if (storageClass?.volumeBindingMode === 'WaitForFirstConsumer') delayed.push({ claim, storageClass });
      else unboundImmediate = true;
    }
    if (unboundImmediate) return { status: unresolvable(ERR_UNBOUND_IMMEDIATE) };
    this.state.write(state, { bound, delayed, index });
    this.byNode.write(state, new Map());
    return { status: SUCCESS };
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    const volumes = this.state.read(state);
    if (!volumes || volumes === NO_VOLUMES) return SUCCESS;
    const reasons: string[] = [];
    for (const { volume } of volumes.bound) {
      if (!volume) {
        reasons.push(ERR_REASON_PV_NOT_EXIST);
        break;
      }
      if (!volumeAllowsNode(volume, node.node)) {
        reasons.push(ERR_REASON_NODE_CONFLICT);
        break;
      }
    }
    const unbound =
      volumes.delayed.length > 0 ? this.canBindOrProvision(volumes, node.node) : { staticBindings: [], dynamicProvisions: [] };
    if (typeof unbound === 'string') return unresolvable(...reasons, unbound);
    if (reasons.length > 0) return unresolvable(...reasons);
    this.byNode.read(state)?.set(node.name, unbound);
    return SUCCESS;
  }

  preScore(): Status {
    return SUCCESS;
  }

  /** A pod without claims scores 0 on every node (as upstream, which still runs Score): one key for all of them. */
  scoreKey(state: CycleState): string | undefined {
    return this.state.read(state) === NO_VOLUMES ? 'no-claims' : undefined;
  }

  /** As upstream's AssumePodVolumes: the claims follow the node the pod was placed on. */
  reserve(state: CycleState, _pod: PodInfo, nodeName: string): Status {
    const volumes = this.byNode.read(state)?.get(nodeName);
    if (!volumes) return SUCCESS;
    for (const use of volumes.staticBindings)
      this.reserved.set(use.claim, { node: nodeName, ...(use.volume ? { volume: use.volume } : {}) });
    for (const use of volumes.dynamicProvisions) this.reserved.set(use.claim, { node: nodeName });
    return SUCCESS;
  }

  unreserve(state: CycleState, _pod: PodInfo, nodeName: string): void {
    const volumes = this.byNode.read(state)?.get(nodeName);
    if (!volumes) return;
    for (const use of [...volumes.staticBindings, ...volumes.dynamicProvisions]) {
      if (this.reserved.get(use.claim)?.node === nodeName) this.reserved.delete(use.claim);
    }
  }

  /** Upstream's Score with StorageCapacityScoring: static bindings when there are any, else the capacity provisioned from. */
  score(state: CycleState, _pod: PodInfo, node: NodeInfo): number {
    const volumes = this.byNode.read(state)?.get(node.name);
    if (!volumes) return 0;
    const classes = new Map<string, { requested: number; capacity: number }>();
    if (volumes.staticBindings.length > 0) {
      for (const use of volumes.staticBindings) {
        const c = classes.get(use.storageClass) ?? { requested: 0, capacity: 0 };
        c.requested += use.requested;
        c.capacity += use.capacity ?? 0;
        classes.set(use.storageClass, c);
      }
    } else {
      for (const use of volumes.dynamicProvisions) {
        if (use.capacity === undefined) continue;
        const c = classes.get(use.storageClass) ?? { requested: 0, capacity: 0 };
        // Not a sum: two claims of a class provision from the same capacity.
        c.capacity = use.capacity;
        c.requested += use.requested;
        classes.set(use.storageClass, c);
      }
    }
    if (classes.size === 0) return 0;
    let total = 0;
    for (const { requested, capacity } of classes.values())
      total += utilizationScore(capacity === 0 || requested > capacity ? 100 : Math.trunc((requested * 100) / capacity));
    return Math.round(total / classes.size);
  }

  /**
   * Each delayed claim (smallest first) gets the smallest available volume allowed on the node (one
   * each), or else is provisioned there (upstream checkVolumeProvisions): the class must provision,
   * allow the node (allowedTopologies) and, for a CSI driver that asks for it, have the capacity.
   * The reason when not; otherwise what the claims would use.
   */
  private canBindOrProvision(volumes: PodVolumes, node: Node): NodeVolumes | string {
    const taken = new Set<string>();
    const toProvision: Array<PodVolumes['delayed'][number]> = [];
    const staticBindings: StorageUse[] = [];
    const dynamicProvisions: StorageUse[] = [];
    const toMatch: Array<PodVolumes['delayed'][number]> = [];
    // Volumes other claims have reserved are theirs (their claimRef).
    const reservedVolumes = new Map<string, string>();
    for (const [claim, r] of this.reserved) if (r.volume) reservedVolumes.set(r.volume, claim);
    for (const delayed of volumes.delayed) {
      const key = claimId(delayed.claim);
      const selected =
        delayed.claim.metadata.annotations?.[ANN_SELECTED_NODE] ??
        (this.reserved.get(key)?.volume ? undefined : this.reserved.get(key)?.node);
      if (selected === undefined) toMatch.push(delayed);
      else if (selected !== node.metadata.name) return ERR_REASON_BIND_CONFLICT;
      else toProvision.push(delayed);
    }
    const bySize = toMatch.sort((a, b) => (claimBytes(a.claim) ?? 0) - (claimBytes(b.claim) ?? 0));
    for (const delayed of bySize) {
      const key = claimId(delayed.claim);
      let match: PersistentVolume | undefined;
      let matchSize = Infinity;
      const own = this.reserved.get(key)?.volume;
      for (const v of volumes.index.volumes.values()) {
        const holder = reservedVolumes.get(v.metadata.name);
        if (holder !== undefined && holder !== key) continue;
        if (taken.has(v.metadata.name) || !volumeFits(v, delayed.claim)) continue;
        // A volume bound to the claim is its only match, on the nodes it allows (pvutil.FindMatchingVolume).
        if (own !== undefined && v.metadata.name === own) {
          match = volumeAllowsNode(v, node) ? v : undefined;
          break;
        }
        if (!volumeAllowsNode(v, node)) continue;
        const size = bytesOf(v.spec?.capacity?.['storage']) ?? Infinity;
        if (size < matchSize || match === undefined) {
          match = v;
          matchSize = size;
        }
      }
      if (match) {
        taken.add(match.metadata.name);
        staticBindings.push({
          claim: key,
          volume: match.metadata.name,
          storageClass: claimClass(delayed.claim),
          requested: claimBytes(delayed.claim) ?? 0,
          capacity: bytesOf(match.spec?.capacity?.['storage']) ?? 0,
        });
      } else toProvision.push(delayed);
    }
    for (const { claim, storageClass } of toProvision) {
      if (!storageClass.provisioner || storageClass.provisioner === NO_PROVISIONER || !topologyAllows(storageClass, node))
        return ERR_REASON_BIND_CONFLICT;
      const capacity = enoughCapacity(volumes.index, claim, storageClass, node);
      if (capacity === false) return ERR_REASON_NOT_ENOUGH_SPACE;
      dynamicProvisions.push({
        claim: claimId(claim),
        storageClass: storageClass.metadata.name,
        requested: claimBytes(claim) ?? 0,
        capacity: capacity === true ? undefined : (bytesOf(capacity.capacity) ?? 0),
      });
    }
    return { staticBindings, dynamicProvisions };
  }
}

/** The default StorageCapacityScoring shape (utilization 0 → 10, 100 → 0, scaled to 0..100): 100 − utilization. */
function utilizationScore(utilization: number): number {
  return MAX_NODE_SCORE - utilization;
}

/** namespace/name of a claim, as claimKey names a pod's claim. */
function claimId(claim: PersistentVolumeClaim): string {
  return `${claim.metadata.namespace ?? 'default'}/${claim.metadata.name}`;
}

function claimBytes(claim: PersistentVolumeClaim): number | undefined {
  return bytesOf(claim.spec?.resources?.requests?.['storage']);
}

/**
 * Upstream hasEnoughCapacity (returning the capacity object that has room, or true when none is
 * checked): only for a CSI driver whose CSIDriver says storageCapacity: true, some
 * CSIStorageCapacity of the claim's class whose nodeTopology selects the node must hold a volume of
 * the claim's size (maximumVolumeSize when given, else capacity). A claim without a size needs none.
 */
function enoughCapacity(
  index: StorageIndex,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  node: Node,
): CSIStorageCapacity | boolean {
  const requested = claim.spec?.resources?.requests?.['storage'];
  if (requested === undefined) return true;
  if (index.csiDrivers.get(storageClass.provisioner)?.spec.storageCapacity !== true) return true;
  const size = bytesOf(requested);
  if (size === undefined) return false;
  return (
    index.capacities.find(
      (c) =>
        c.storageClassName === storageClass.metadata.name &&
        (bytesOf(volumeLimit(c)) ?? -1) >= size &&
        c.nodeTopology !== undefined &&
        selectorMatches(c.nodeTopology, node.metadata.labels),
    ) ?? false
  );
}

const MIGRATED_PLUGINS_ANNOTATION = 'storage.alpha.kubernetes.io/migrated-plugins';

/** upstream isSchedulableAfterCSINodeChange: a CSINode added, or its migrated-plugins annotation changed. */
export function isSchedulableAfterCSINodeChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  if (oldObj === undefined) return 'Queue';
  const [before, after] = [oldObj as CSINode, newObj as CSINode];
  return before.metadata.annotations?.[MIGRATED_PLUGINS_ANNOTATION] !== after.metadata.annotations?.[MIGRATED_PLUGINS_ANNOTATION]
    ? 'Queue'
    : 'QueueSkip';
}

/** upstream isSchedulableAfterPersistentVolumeClaimChange: a claim of its namespace that one of its volumes names (an ephemeral one as <pod>-<volume>). */
export function isSchedulableAfterPersistentVolumeClaimChange(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const claim = newObj as PersistentVolumeClaim;
  if ((claim.metadata.namespace ?? 'default') !== (pod.metadata.namespace ?? 'default')) return 'QueueSkip';
  return podClaimNames(pod).includes(claim.metadata.name) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterStorageClassChange: a class added, or its allowedTopologies changed. */
export function isSchedulableAfterStorageClassChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  if (oldObj === undefined) return 'Queue';
  const [before, after] = [oldObj as StorageClass, newObj as StorageClass];
  return JSON.stringify(before.allowedTopologies ?? null) !== JSON.stringify(after.allowedTopologies ?? null) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterCSIStorageCapacityChange: a capacity added, or its limit (maximumVolumeSize, else capacity) grown or newly set. */
export function isSchedulableAfterCSIStorageCapacityChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  if (oldObj === undefined) return 'Queue';
  const [before, after] = [bytesOf(volumeLimit(oldObj as CSIStorageCapacity)), bytesOf(volumeLimit(newObj as CSIStorageCapacity))];
  return after !== undefined && (before === undefined || after > before) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterCSIDriverChange: a driver of one of its inline CSI volumes stopped asking for capacity checks. */
export function isSchedulableAfterCSIDriverChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [before, after] = [oldObj as CSIDriver, newObj as CSIDriver];
  for (const v of pod.spec.volumes ?? []) {
    const csi = (v as { readonly csi?: { readonly driver?: string } }).csi;
    if (csi?.driver !== after.metadata.name) continue;
    if (before.spec.storageCapacity === true && after.spec.storageCapacity !== true) return 'Queue';
  }
  return 'QueueSkip';
}

function volumeLimit(capacity: CSIStorageCapacity): string | undefined {
  return capacity.maximumVolumeSize ?? capacity.capacity;
}

function bytesOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const q = parseQuantity(text);
  const v = q.ok ? quantityValue(q.value) : undefined;
  return v?.ok ? v.value : undefined;
}

const matchers = new WeakMap<PersistentVolume, NodeSelectorMatcher>();

/** A volume without node affinity is reachable from every node. */
export function volumeAllowsNode(volume: PersistentVolume, node: Node): boolean {
  const required = volume.spec?.nodeAffinity?.required;
  if (!required) return true;
  let matcher = matchers.get(volume);
  if (!matcher) matchers.set(volume, (matcher = NodeSelectorMatcher.compile(required, 'spec.nodeAffinity.required').matcher));
  return matcher.matches(node);
}

/** An available volume (unclaimed and Available, or claimed for this claim) of the claim's class, modes and at least its size. */
function volumeFits(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  const preBound =
    ref !== undefined && ref.name === claim.metadata.name && (ref.namespace ?? 'default') === (claim.metadata.namespace ?? 'default');
  if (ref && !preBound) return false;
  // Upstream matches only Available volumes (a volume pre-bound to the claim whatever its phase); a
  // volume written without status is taken as the PV controller would make it: Available.
  if (!preBound && volume.status?.phase !== undefined && volume.status.phase !== 'Available') return false;
  if ((volume.spec?.storageClassName ?? '') !== claimClass(claim)) return false;
  const modes = volume.spec?.accessModes ?? [];
  if (!(claim.spec?.accessModes ?? []).every((m) => modes.includes(m))) return false;
  const want = parseResourceList(claim.spec?.resources?.requests, 'spec.resources.requests');
  const have = parseResourceList(volume.spec?.capacity, 'spec.capacity');
  if (!want.ok || !have.ok) return false;
  return have.value.get('storage') >= want.value.get('storage');
}

/** allowedTopologies: the node must match one term (every key of it); none means anywhere. */
function topologyAllows(storageClass: StorageClass, node: Node): boolean {
  const terms = storageClass.allowedTopologies ?? [];
  if (terms.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  return terms.some((t) => (t.matchLabelExpressions ?? []).every((e) => e.values.includes(labels[e.key] ?? '\0')));
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new VolumeBinding(handle));
