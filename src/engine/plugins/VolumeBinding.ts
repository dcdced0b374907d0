// VolumeBinding (PreFilter, Filter) as upstream's volumebinding plugin, for the claims a snapshot
// holds: a claim that does not exist, is being deleted, or is unbound in Immediate mode stops the
// pod at PreFilter; a bound claim's PersistentVolume must allow the node (its node affinity); an
// unbound WaitForFirstConsumer claim needs, on the node, an available volume that fits it or a
// StorageClass that can provision one there, with room for it when the class's CSI driver asks for
// storage capacity checks (CSIStorageCapacity). Upstream scores only with StorageCapacityScoring
// (alpha, off by default in 1.35), so this plugin does not score.
import { NodeSelectorMatcher } from '../api/node-affinity';
import { selectorMatches } from '../api/labels';
import { parseQuantity, quantityValue } from '../api/quantity';
import { parseResourceList } from '../api/resources';
import type { CSIStorageCapacity, Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../api/types';
import { claimClass, claimKey, podClaimNames, storageIndex, type StorageIndex } from '../api/volumes';
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, PreFilterPlugin } from '../framework/interfaces';
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

export class VolumeBinding implements PreFilterPlugin, FilterPlugin {
  readonly name = NAME;
  private readonly state = new CycleValue<PodVolumes>(`PreFilter${NAME}`);

  constructor(private readonly handle: FrameworkHandle) {}

  preFilter(state: CycleState, pod: PodInfo): { status: Status } {
    const names = podClaimNames(pod.pod);
    if (names.length === 0) return { status: SKIP };
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
    return { status: SUCCESS };
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    const volumes = this.state.read(state);
    if (!volumes) return SUCCESS;
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
    const unbound = volumes.delayed.length > 0 ? this.canBindOrProvision(volumes, node.node) : undefined;
    if (unbound) reasons.push(unbound);
    return reasons.length > 0 ? unresolvable(...reasons) : SUCCESS;
  }

  /**
   * Each delayed claim gets an available volume allowed on the node (one each), or else is
   * provisioned there (upstream checkVolumeProvisions): the class must provision, allow the node
   * (allowedTopologies) and, for a CSI driver that asks for it, have the capacity. The reason when not.
   */
  private canBindOrProvision(volumes: PodVolumes, node: Node): string | undefined {
    const taken = new Set<string>();
    const toProvision: Array<PodVolumes['delayed'][number]> = [];
    for (const delayed of volumes.delayed) {
      const match = [...volumes.index.volumes.values()].find((v) => !taken.has(v.metadata.name) && volumeFits(v, delayed.claim) && volumeAllowsNode(v, node));
      if (match) taken.add(match.metadata.name);
      else toProvision.push(delayed);
    }
    for (const { claim, storageClass } of toProvision) {
      if (!storageClass.provisioner || storageClass.provisioner === NO_PROVISIONER || !topologyAllows(storageClass, node)) return ERR_REASON_BIND_CONFLICT;
      if (!hasEnoughCapacity(volumes.index, claim, storageClass, node)) return ERR_REASON_NOT_ENOUGH_SPACE;
    }
    return undefined;
  }
}

/**
 * Upstream hasEnoughCapacity: only for a CSI driver whose CSIDriver says storageCapacity: true, some
 * CSIStorageCapacity of the claim's class whose nodeTopology selects the node must hold a volume of
 * the claim's size (maximumVolumeSize when given, else capacity). A claim without a size needs none.
 */
function hasEnoughCapacity(index: StorageIndex, claim: PersistentVolumeClaim, storageClass: StorageClass, node: Node): boolean {
  const requested = claim.spec?.resources?.requests?.['storage'];
  if (requested === undefined) return true;
  if (index.csiDrivers.get(storageClass.provisioner)?.spec.storageCapacity !== true) return true;
  const size = bytesOf(requested);
  if (size === undefined) return false;
  return index.capacities.some((c) => c.storageClassName === storageClass.metadata.name && (bytesOf(volumeLimit(c)) ?? -1) >= size && c.nodeTopology !== undefined && selectorMatches(c.nodeTopology, node.metadata.labels));
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

/** An available volume (unclaimed, or claimed for this claim) of the claim's class, modes and at least its size. */
function volumeFits(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (ref && (ref.name !== claim.metadata.name || (ref.namespace ?? 'default') !== (claim.metadata.namespace ?? 'default'))) return false;
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
