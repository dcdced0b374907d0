// The storage objects of a snapshot, indexed once per list so the volume plugins look a pod's
// claims up by name: PersistentVolumeClaims by namespace/name, PersistentVolumes and StorageClasses
// and CSINodes and CSIDrivers by name, CSIStorageCapacities as listed.
import type {
  ClusterObjects,
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from './types';
import { podNamespace } from './types';

export interface StorageIndex {
  readonly claims: ReadonlyMap<string, PersistentVolumeClaim>;
  readonly volumes: ReadonlyMap<string, PersistentVolume>;
  readonly classes: ReadonlyMap<string, StorageClass>;
  readonly csiNodes: ReadonlyMap<string, CSINode>;
  readonly csiDrivers: ReadonlyMap<string, CSIDriver>;
  readonly capacities: readonly CSIStorageCapacity[];
}

const indexes = new WeakMap<ClusterObjects, StorageIndex>();

/** The index of the snapshot's storage objects, built once per snapshot's objects. */
export function storageIndex(objects: ClusterObjects): StorageIndex {
  let index = indexes.get(objects);
  if (!index) {
    index = {
      claims: new Map((objects.persistentVolumeClaims ?? []).map((c) => [`${c.metadata.namespace ?? 'default'}/${c.metadata.name}`, c])),
      volumes: new Map((objects.persistentVolumes ?? []).map((v) => [v.metadata.name, v])),
      classes: new Map((objects.storageClasses ?? []).map((c) => [c.metadata.name, c])),
      csiNodes: new Map((objects.csiNodes ?? []).map((c) => [c.metadata.name, c])),
      csiDrivers: new Map((objects.csiDrivers ?? []).map((d) => [d.metadata.name, d])),
      capacities: objects.csiStorageCapacities ?? [],
    };
    indexes.set(objects, index);
  }
  return index;
}

/** The claims a pod's volumes name: its PVCs and its generic ephemeral volumes' (<pod>-<volume>). */
export function podClaimNames(pod: Pod): string[] {
  const names: string[] = [];
  for (const v of pod.spec.volumes ?? []) {
    if (v.persistentVolumeClaim) names.push(v.persistentVolumeClaim.claimName);
    else if (v.ephemeral) names.push(`${pod.metadata.name}-${v.name}`);
  }
  return names;
}

export function claimKey(pod: Pod, claimName: string): string {
  return `${podNamespace(pod)}/${claimName}`;
}

/** A claim's StorageClass name ("" when it names none). */
export function claimClass(claim: PersistentVolumeClaim): string {
  return claim.spec?.storageClassName ?? '';
}
