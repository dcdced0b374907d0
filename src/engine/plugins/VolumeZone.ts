// VolumeZone (PreFilter, Filter) as upstream's volumezone plugin: a bound volume labelled with a
// zone or region (GA or beta keys; a value may list several zones joined by "__") keeps the pod to
// nodes in one of them. A node with none of those labels has no zone constraint and passes.
import { podClaimNames, claimKey, storageIndex } from '../api/volumes';
import type { CycleState } from '../framework/cycle-state';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { FilterPlugin, FrameworkHandle, PreFilterPlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { Names } from './names';

export const NAME = Names.VolumeZone;
export const ERR_REASON_CONFLICT = 'node(s) had no available volume zone';

const GA_ZONE = 'topology.kubernetes.io/zone';
const GA_REGION = 'topology.kubernetes.io/region';
const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
const BETA_REGION = 'failure-domain.beta.kubernetes.io/region';
const TOPOLOGY_LABELS = [BETA_ZONE, BETA_REGION, GA_ZONE, GA_REGION];
const TO_GA: Readonly<Record<string, string>> = { [BETA_ZONE]: GA_ZONE, [BETA_REGION]: GA_REGION };

interface VolumeTopology {
  readonly key: string;
  readonly values: ReadonlySet<string>;
}

export class VolumeZone implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a StorageClass added; a node added or relabelled (no hint); a claim or a volume added or changed. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('storage.k8s.io/StorageClass', ActionType.Add), hint: isSchedulableAfterStorageClassAdded },
      { event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeLabel) },
      {
        event: clusterEvent('PersistentVolumeClaim', ActionType.Add | ActionType.Update),
        hint: isSchedulableAfterPersistentVolumeClaimChange,
      },
      { event: clusterEvent('PersistentVolume', ActionType.Add | ActionType.Update), hint: isSchedulableAfterPersistentVolumeChange },
    ];
  }
  private readonly state = new CycleValue<readonly VolumeTopology[]>(`PreFilter${NAME}`);

  constructor(private readonly handle: FrameworkHandle) {}

  preFilter(state: CycleState, pod: PodInfo): { status: Status } {
    const names = podClaimNames(pod.pod);
    if (names.length === 0) return { status: SKIP };
    const index = storageIndex(this.handle.objects?.() ?? {});
    const topologies: VolumeTopology[] = [];
    for (const name of names) {
      const claim = index.claims.get(claimKey(pod.pod, name));
      if (!claim) return { status: unresolvable(`persistentvolumeclaim "${name}" not found`) };
      const volume = claim.spec?.volumeName ? index.volumes.get(claim.spec.volumeName) : undefined;
      const labels = volume?.metadata.labels ?? {};
      for (const key of TOPOLOGY_LABELS) {
        const value = labels[key];
        if (value !== undefined) topologies.push({ key, values: new Set(value.split('__')) });
      }
    }
    if (topologies.length === 0) return { status: SKIP };
    this.state.write(state, topologies);
    return { status: SUCCESS };
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    const topologies = this.state.read(state);
    if (!topologies) return SUCCESS;
    const labels = node.node.metadata.labels ?? {};
    if (!TOPOLOGY_LABELS.some((key) => labels[key] !== undefined)) return SUCCESS;
    for (const { key, values } of topologies) {
      const value = labels[key] ?? labels[TO_GA[key] ?? key];
      if (value === undefined || !values.has(value)) return unresolvable(ERR_REASON_CONFLICT);
    }
    return SUCCESS;
  }
}

/** upstream isSchedulableAfterPersistentVolumeClaimChange (isPVCRequestedFromPod): a claim of its namespace one of its volumes names. */
export function isSchedulableAfterPersistentVolumeClaimChange(pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  const claim = newObj as PersistentVolumeClaim | undefined;
  if (!claim || (claim.metadata.namespace ?? 'default') !== (pod.metadata.namespace ?? 'default')) return 'QueueSkip';
  const names = (pod.spec.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : []));
  return names.includes(claim.metadata.name) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterStorageClassAdded: only a class that binds on first consumer. */
export function isSchedulableAfterStorageClassAdded(_pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  return (newObj as StorageClass).volumeBindingMode === 'WaitForFirstConsumer' ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterPersistentVolumeChange: a volume added, or its zone and region labels changed. */
export function isSchedulableAfterPersistentVolumeChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [original, modified] = [oldObj as PersistentVolume | undefined, newObj as PersistentVolume];
  if (!original) return 'Queue';
  const topologies = (pv: PersistentVolume) => TOPOLOGY_LABELS.map((key) => [key, pv.metadata.labels?.[key]?.split('__').sort() ?? null]);
  return JSON.stringify(topologies(original)) === JSON.stringify(topologies(modified)) ? 'QueueSkip' : 'Queue';
}

export const factory = factoryOf(noArgs(NAME), (_args, handle) => new VolumeZone(handle));
