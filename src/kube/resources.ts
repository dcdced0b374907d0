// The kinds Podplan reads from a cluster: what the scheduling engine and the planner look at, and
// nothing else. Secrets (and ConfigMaps, ServiceAccounts) are not in the table and are never listed.
import { DRA_API_VERSION } from '../engine/api/dra';
import { PLANNER_API_VERSION } from '../engine/planner/plan';

export interface ResourceType {
  readonly kind: string;
  /** `v1` for the core group, `group/version` otherwise. */
  readonly apiVersion: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

export const PLANNER_GROUP = 'planner.ciena.io';

export const NODE: ResourceType = { kind: 'Node', apiVersion: 'v1', plural: 'nodes', namespaced: false };
export const POD: ResourceType = { kind: 'Pod', apiVersion: 'v1', plural: 'pods', namespaced: true };
export const SCHEDULE_TRIGGER: ResourceType = {
  kind: 'ScheduleTrigger',
  apiVersion: PLANNER_API_VERSION,
  plural: 'scheduletriggers',
  namespaced: true,
};
export const SCHEDULE_PLAN: ResourceType = {
  kind: 'SchedulePlan',
  apiVersion: PLANNER_API_VERSION,
  plural: 'scheduleplans',
  namespaced: true,
};

export const RESOURCE_CLAIM: ResourceType = {
  kind: 'ResourceClaim',
  apiVersion: DRA_API_VERSION,
  plural: 'resourceclaims',
  namespaced: true,
};

/** In the order a snapshot lists them (cluster-scoped kinds first). */
export const CLUSTER_RESOURCES: readonly ResourceType[] = [
  NODE,
  { kind: 'Namespace', apiVersion: 'v1', plural: 'namespaces', namespaced: false },
  { kind: 'PriorityClass', apiVersion: 'scheduling.k8s.io/v1', plural: 'priorityclasses', namespaced: false },
  { kind: 'StorageClass', apiVersion: 'storage.k8s.io/v1', plural: 'storageclasses', namespaced: false },
  { kind: 'CSINode', apiVersion: 'storage.k8s.io/v1', plural: 'csinodes', namespaced: false },
  { kind: 'CSIDriver', apiVersion: 'storage.k8s.io/v1', plural: 'csidrivers', namespaced: false },
  { kind: 'PersistentVolume', apiVersion: 'v1', plural: 'persistentvolumes', namespaced: false },
  { kind: 'DeviceClass', apiVersion: DRA_API_VERSION, plural: 'deviceclasses', namespaced: false },
  { kind: 'ResourceSlice', apiVersion: DRA_API_VERSION, plural: 'resourceslices', namespaced: false },
  { kind: 'DeviceTaintRule', apiVersion: DRA_API_VERSION, plural: 'devicetaintrules', namespaced: false },
  POD,
  { kind: 'PersistentVolumeClaim', apiVersion: 'v1', plural: 'persistentvolumeclaims', namespaced: true },
  { kind: 'PodDisruptionBudget', apiVersion: 'policy/v1', plural: 'poddisruptionbudgets', namespaced: true },
  { kind: 'CSIStorageCapacity', apiVersion: 'storage.k8s.io/v1', plural: 'csistoragecapacities', namespaced: true },
  RESOURCE_CLAIM,
  { kind: 'ResourceClaimTemplate', apiVersion: DRA_API_VERSION, plural: 'resourceclaimtemplates', namespaced: true },
  SCHEDULE_TRIGGER,
  SCHEDULE_PLAN,
];

/** The REST path of a resource's collection (in `namespace` when given and the kind is namespaced). */
export function collectionPath(resource: ResourceType, namespace?: string): string {
  const root = resource.apiVersion.includes('/') ? `/apis/${resource.apiVersion}` : `/api/${resource.apiVersion}`;
  const scope = resource.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${root}${scope}/${resource.plural}`;
}

/** The REST path of one object. */
export function objectPath(resource: ResourceType, name: string, namespace?: string): string {
  return `${collectionPath(resource, resource.namespaced ? (namespace ?? 'default') : undefined)}/${encodeURIComponent(name)}`;
}
