// NodeVolumeLimits (PreFilter, Filter) as upstream's CSI volume limits: the CSI volumes a pod adds
// to a node (distinct volume handles not attached there yet), per driver, with those the node's pods
// already use, may not exceed the driver's attach limit in the node's CSINode
// (spec.drivers[].allocatable.count). A driver without a limit is not limited.
import type { CSINode, PersistentVolumeClaim, Pod } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import { claimClass, claimKey, podClaimNames, storageIndex, type StorageIndex } from '../api/volumes';
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, PreFilterPlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, unschedulable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.NodeVolumeLimits;
export const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = 'node(s) exceed max volume count';

/** In-tree provisioners CSI migration translates (counted by upstream only where migration is on: not here). */
const MIGRATABLE_IN_TREE = new Set([
  'kubernetes.io/aws-ebs',
  'kubernetes.io/gce-pd',
  'kubernetes.io/azure-disk',
  'kubernetes.io/azure-file',
  'kubernetes.io/cinder',
  'kubernetes.io/vsphere-volume',
  'kubernetes.io/portworx-volume',
]);

/**
 * driver → volume handles of the pod's CSI volumes: a bound claim's volume handle; an unbound claim
 * counts as a volume of its StorageClass's provisioner, named after the claim (upstream
 * getCSIDriverInfoFromSC), so a volume still to be provisioned takes its place in the limit.
 */
function csiVolumes(pod: Pod, index: StorageIndex, into = new Map<string, Set<string>>()): Map<string, Set<string>> {
  for (const name of podClaimNames(pod)) {
    const key = claimKey(pod, name);
    const claim = index.claims.get(key);
    if (!claim) continue;
    let driver: string | undefined;
    let handle: string | undefined;
    if (claim.spec?.volumeName) {
      const csi = index.volumes.get(claim.spec.volumeName)?.spec?.csi;
      driver = csi?.driver;
      handle = csi?.volumeHandle;
    } else {
      const provisioner = index.classes.get(claimClass(claim))?.provisioner;
      if (provisioner && !MIGRATABLE_IN_TREE.has(provisioner)) {
        driver = provisioner;
        handle = `claim:${key}`;
      }
    }
    if (!driver || !handle) continue;
    let handles = into.get(driver);
    if (!handles) into.set(driver, (handles = new Set()));
    handles.add(handle);
  }
  return into;
}

export class NodeVolumeLimits implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /**
   * upstream EventsToRegister (CSILimits): a CSINode added (no hint) or updated; a bound pod deleted;
   * a claim added; a VolumeAttachment deleted (a kind Podplan does not watch: no such event comes).
   */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('storage.k8s.io/CSINode', ActionType.Add) },
      { event: clusterEvent('storage.k8s.io/CSINode', ActionType.Update), hint: isSchedulableAfterCSINodeUpdated },
      { event: clusterEvent('AssignedPod', ActionType.Delete), hint: isSchedulableAfterAssignedPodDeleted },
      { event: clusterEvent('PersistentVolumeClaim', ActionType.Add), hint: isSchedulableAfterPVCAdded },
      { event: clusterEvent('storage.k8s.io/VolumeAttachment', ActionType.Delete), hint: isSchedulableAfterVolumeAttachmentDeleted },
    ];
  }

  constructor(private readonly handle: FrameworkHandle) {}

  preFilter(_state: CycleState, pod: PodInfo): { status: Status } {
    return { status: podClaimNames(pod.pod).length === 0 ? SKIP : SUCCESS };
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const index = storageIndex(this.handle.objects?.() ?? {});
    const wanted = csiVolumes(pod.pod, index);
    if (wanted.size === 0) return SUCCESS;
    const csiNode = index.csiNodes.get(node.name);
    if (!csiNode) return SUCCESS;
    const attached = new Map<string, Set<string>>();
    for (const p of node.pods) csiVolumes(p.pod, index, attached);
    for (const [driver, handles] of wanted) {
      const limit = csiNode.spec.drivers?.find((d) => d.name === driver)?.allocatable?.count;
      if (limit === undefined) continue;
      const onNode = attached.get(driver) ?? new Set<string>();
      let added = 0;
      for (const h of handles) if (!onNode.has(h)) added++;
      if (onNode.size + added > limit) return unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED);
    }
    return SUCCESS;
  }
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new NodeVolumeLimits(handle));

/** upstream isSchedulableAfterAssignedPodDeleted: a bound (or nominated) pod with a claim or an ephemeral volume (in-tree volumes Podplan does not read). */
export function isSchedulableAfterAssignedPodDeleted(_pod: Pod, oldObj: unknown): QueueingHint {
  const deleted = oldObj as Pod;
  const volumes = deleted.spec.volumes ?? [];
  if (volumes.length === 0) return 'QueueSkip';
  if (!deleted.spec.nodeName && !deleted.status?.nominatedNodeName) return 'QueueSkip';
  return volumes.some((v) => v.persistentVolumeClaim || v.ephemeral) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterPVCAdded: a claim of its namespace that one of its volumes names (an ephemeral one as <pod>-<volume>). */
export function isSchedulableAfterPVCAdded(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const claim = newObj as PersistentVolumeClaim;
  if ((claim.metadata.namespace ?? 'default') !== (pod.metadata.namespace ?? 'default')) return 'QueueSkip';
  return podClaimNames(pod).includes(claim.metadata.name) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterVolumeAttachmentDeleted: any pod with a claim (inline migratable volumes are not read by Podplan). */
export function isSchedulableAfterVolumeAttachmentDeleted(pod: Pod): QueueingHint {
  return (pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterCSINodeUpdated: a driver's attachable volume limit grew. */
export function isSchedulableAfterCSINodeUpdated(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [before, after] = [oldObj as CSINode, newObj as CSINode];
  const limits = new Map((before.spec.drivers ?? []).map((d) => [d.name, d.allocatable?.count ?? 0]));
  return (after.spec.drivers ?? []).some((d) => (d.allocatable?.count ?? 0) > (limits.get(d.name) ?? 0)) ? 'Queue' : 'QueueSkip';
}
