// VolumeRestrictions (PreFilter, Filter) for PersistentVolumeClaims, as upstream's
// volumerestrictions: a claim with access mode ReadWriteOncePod may be used by one pod only, so while
// another pod of the cluster uses it, every node rejects the pod (Unschedulable: preempting that pod
// would help); when no pod uses its claims, it skips (so pods nominated with them are not counted). A
// claim that does not exist stops the pod at PreFilter. (The in-tree disk kinds it
// also checks, GCE PD, EBS, RBD, iSCSI, are not read by Podplan.)
import { claimKey, podClaimNames, storageIndex } from '../api/volumes';
import type { CycleState } from '../framework/cycle-state';
import type { PersistentVolumeClaim, Pod } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { FilterPlugin, FrameworkHandle, PreFilterPlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { errorStatus, SKIP, SUCCESS, unresolvable, unschedulable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';
import { StateKey, type Cloneable } from '../framework/cycle-state';

export const NAME = Names.VolumeRestrictions;
export const ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT =
  'node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod';

/** The pod's ReadWriteOncePod claims (namespace/name) and how many other pods use them. */
class PreFilterState implements Cloneable<PreFilterState> {
  constructor(
    readonly claims: ReadonlySet<string>,
    public conflicts: number,
  ) {}
  clone(): PreFilterState {
    return new PreFilterState(this.claims, this.conflicts);
  }
  /** How many of `pod`'s claims are among ours. */
  uses(pod: PodInfo): number {
    let n = 0;
    for (const name of podClaimNames(pod.pod)) if (this.claims.has(claimKey(pod.pod, name))) n++;
    return n;
  }
}

const STATE = new StateKey<PreFilterState>(`PreFilter${NAME}`);

export class VolumeRestrictions implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a bound pod deleted; a node added (no hint); a claim added. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('AssignedPod', ActionType.Delete), hint: isSchedulableAfterAssignedPodDeleted },
      { event: clusterEvent('Node', ActionType.Add) },
      { event: clusterEvent('PersistentVolumeClaim', ActionType.Add), hint: isSchedulableAfterPersistentVolumeClaimAdded },
    ];
  }

  constructor(private readonly handle: FrameworkHandle) {}

  preFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    const names = podClaimNames(pod.pod);
    if (names.length === 0) return { status: SKIP };
    const index = storageIndex(this.handle.objects?.() ?? {});
    const claims = new Set<string>();
    for (const name of names) {
      const key = claimKey(pod.pod, name);
      const claim = index.claims.get(key);
      if (!claim) return { status: unresolvable(`persistentvolumeclaim "${name}" not found`) };
      if (claim.spec?.accessModes?.includes('ReadWriteOncePod')) claims.add(key);
    }
    if (claims.size === 0) return { status: SKIP };
    const s = new PreFilterState(claims, 0);
    for (const node of nodes) for (const other of node.pods) if (other.id !== pod.id) s.conflicts += s.uses(other);
    // As upstream: with no pod using the claims now, the plugin skips, so Filter (and the nominated
    // pods its AddPod would count) never runs.
    if (s.conflicts === 0) return { status: SKIP };
    state.write(STATE, s);
    return { status: SUCCESS };
  }

  addPod(state: CycleState, _pod: PodInfo, podToAdd: PodInfo): Status {
    return this.update(state, podToAdd, 1);
  }

  removePod(state: CycleState, _pod: PodInfo, podToRemove: PodInfo): Status {
    return this.update(state, podToRemove, -1);
  }

  private update(state: CycleState, other: PodInfo, sign: 1 | -1): Status {
    const s = state.read(STATE);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    s.conflicts += sign * s.uses(other);
    return SUCCESS;
  }

  filter(state: CycleState): Status {
    const s = state.read(STATE);
    return s && s.conflicts > 0 ? unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT) : SUCCESS;
  }
}

/** The names of the claims the pod's persistentVolumeClaim volumes name (upstream's hints read those only). */
function claimNamesOf(pod: Pod): string[] {
  return (pod.spec.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : []));
}

/** upstream isSchedulableAfterPersistentVolumeClaimAdded: a claim of the pod's namespace that one of its volumes names. */
export function isSchedulableAfterPersistentVolumeClaimAdded(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const claim = newObj as PersistentVolumeClaim;
  if ((claim.metadata.namespace ?? 'default') !== (pod.metadata.namespace ?? 'default')) return 'QueueSkip';
  return claimNamesOf(pod).includes(claim.metadata.name) ? 'Queue' : 'QueueSkip';
}

/**
 * upstream isSchedulableAfterAssignedPodDeleted: a pod of its namespace that used one of its claims
 * (the in-tree disk kinds it also compares are not read by Podplan).
 */
export function isSchedulableAfterAssignedPodDeleted(pod: Pod, oldObj: unknown): QueueingHint {
  const deleted = oldObj as Pod;
  if ((deleted.metadata.namespace ?? 'default') !== (pod.metadata.namespace ?? 'default')) return 'QueueSkip';
  const claims = new Set(claimNamesOf(pod));
  return claimNamesOf(deleted).some((name) => claims.has(name)) ? 'Queue' : 'QueueSkip';
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new VolumeRestrictions(handle));
