// VolumeBinding (PreFilter, Filter) as upstream's volumebinding plugin, for the claims a snapshot
// holds: a claim that does not exist, is being deleted, or is unbound in Immediate mode stops the
// pod at PreFilter; a bound claim's PersistentVolume must allow the node (its node affinity); an
// unbound WaitForFirstConsumer claim needs, on the node, an available volume that fits it or a
// StorageClass that can provision one there. Upstream scores only with StorageCapacityScoring (off
// by default), so this plugin does not score.
import { NodeSelectorMatcher } from '../api/node-affinity';
import { parseResourceList } from '../api/resources';
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../api/types';
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
    if (volumes.delayed.length > 0 && !this.canBindOrProvision(volumes, node.node)) reasons.push(ERR_REASON_BIND_CONFLICT);
    return reasons.length > 0 ? unresolvable(...reasons) : SUCCESS;
  }

  /** Each delayed claim gets an available volume allowed on the node (one each) or can be provisioned there. */
  private canBindOrProvision(volumes: PodVolumes, node: Node): boolean {
    const taken = new Set<string>();
    for (const { claim, storageClass } of volumes.delayed) {
      const match = [...volumes.index.volumes.values()].find((v) => !taken.has(v.metadata.name) && volumeFits(v, claim) && volumeAllowsNode(v, node));
      if (match) {
        taken.add(match.metadata.name);
        continue;
      }
      if (storageClass.provisioner === NO_PROVISIONER || !topologyAllows(storageClass, node)) return false;
    }
    return true;
  }
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
