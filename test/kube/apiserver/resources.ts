// The resource types the test API server serves: the built-in table below plus the custom
// resources of the CRDs created at run time (see crd.ts).
import type { JsonSchema } from './schema';

export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
};

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  [key: string]: unknown;
}

/** Reads one field of an object for a field selector. */
export type FieldGetter = (obj: KubeObject) => string;

export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** `status` subresource: the main resource ignores status, `/status` changes only status */
  readonly statusSubresource: boolean;
  /** field selectors beyond metadata.name / metadata.namespace */
  readonly fields: Readonly<Record<string, FieldGetter>>;
  /** `scale` subresource (autoscaling/v1 Scale over spec.replicas) */
  readonly scaleSubresource: boolean;
  /** strategic merge patch is accepted (built-in kinds only) */
  readonly strategicMerge: boolean;
  /** structural schema of a custom resource: unknown fields are pruned or rejected */
  readonly schema?: JsonSchema;
}

/** The storage key of a resource, the same for every version of it. */
export function resourceKey(r: { group: string; plural: string }): string {
  return `${r.group}/${r.plural}`;
}

export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

function path(obj: KubeObject, keys: readonly string[]): string {
  let v: unknown = obj;
  for (const k of keys) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v === undefined || v === null ? '' : String(v);
}

function fieldsOf(names: readonly string[]): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const name of names) {
    const keys = name.split('.');
    out[name] = (obj) => path(obj, keys);
  }
  return out;
}

interface Builtin {
  group?: string;
  version?: string;
  kind: string;
  plural: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  scale?: boolean;
  fields?: string[];
}

// Field selectors as the upstream registries declare them (pkg/registry/*/strategy.go).
const BUILTINS: readonly Builtin[] = [
  { kind: 'Namespace', plural: 'namespaces', namespaced: false, shortNames: ['ns'], status: true, fields: ['status.phase'] },
  { kind: 'Node', plural: 'nodes', namespaced: false, shortNames: ['no'], status: true, fields: ['spec.unschedulable'] },
  {
    kind: 'Pod',
    plural: 'pods',
    shortNames: ['po'],
    categories: ['all'],
    status: true,
    fields: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
  },
  {
    kind: 'Event',
    plural: 'events',
    shortNames: ['ev'],
    fields: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
  },
  { kind: 'Service', plural: 'services', shortNames: ['svc'], categories: ['all'], status: true },
  { kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'] },
  { kind: 'Secret', plural: 'secrets', fields: ['type'] },
  { kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', shortNames: ['pvc'], status: true },
  { kind: 'PersistentVolume', plural: 'persistentvolumes', namespaced: false, shortNames: ['pv'], status: true },
  { kind: 'ServiceAccount', plural: 'serviceaccounts', shortNames: ['sa'] },
  { group: 'apps', kind: 'Deployment', plural: 'deployments', shortNames: ['deploy'], categories: ['all'], status: true, scale: true },
  { group: 'apps', kind: 'ReplicaSet', plural: 'replicasets', shortNames: ['rs'], categories: ['all'], status: true, scale: true },
  { group: 'apps', kind: 'StatefulSet', plural: 'statefulsets', shortNames: ['sts'], categories: ['all'], status: true, scale: true },
  { group: 'apps', kind: 'DaemonSet', plural: 'daemonsets', shortNames: ['ds'], categories: ['all'], status: true },
  { group: 'batch', kind: 'Job', plural: 'jobs', categories: ['all'], status: true },
  { group: 'events.k8s.io', kind: 'Event', plural: 'events', shortNames: ['ev'] },
  { group: 'scheduling.k8s.io', kind: 'PriorityClass', plural: 'priorityclasses', namespaced: false, shortNames: ['pc'] },
  { group: 'policy', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', shortNames: ['pdb'], status: true },
  { group: 'storage.k8s.io', kind: 'StorageClass', plural: 'storageclasses', namespaced: false, shortNames: ['sc'] },
  { group: 'storage.k8s.io', kind: 'CSINode', plural: 'csinodes', namespaced: false },
  { group: 'storage.k8s.io', kind: 'CSIDriver', plural: 'csidrivers', namespaced: false },
  { group: 'storage.k8s.io', kind: 'CSIStorageCapacity', plural: 'csistoragecapacities' },
  { group: 'coordination.k8s.io', kind: 'Lease', plural: 'leases' },
  { group: 'resource.k8s.io', kind: 'DeviceClass', plural: 'deviceclasses', namespaced: false },
  { group: 'resource.k8s.io', kind: 'ResourceSlice', plural: 'resourceslices', namespaced: false },
  { group: 'resource.k8s.io', kind: 'DeviceTaintRule', plural: 'devicetaintrules', namespaced: false },
  { group: 'resource.k8s.io', kind: 'ResourceClaim', plural: 'resourceclaims', status: true },
  { group: 'resource.k8s.io', kind: 'ResourceClaimTemplate', plural: 'resourceclaimtemplates' },
  {
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    status: true,
  },
];

export function builtinResources(): ResourceType[] {
  return BUILTINS.map((b) => ({
    group: b.group ?? '',
    version: b.version ?? 'v1',
    kind: b.kind,
    plural: b.plural,
    singular: b.kind.toLowerCase(),
    namespaced: b.namespaced ?? true,
    shortNames: b.shortNames ?? [],
    categories: b.categories ?? [],
    statusSubresource: b.status ?? false,
    scaleSubresource: b.scale ?? false,
    fields: fieldsOf(b.fields ?? []),
    strategicMerge: true,
  }));
}

/** Field getters every resource has. */
export const METADATA_FIELDS: Readonly<Record<string, FieldGetter>> = fieldsOf(['metadata.name', 'metadata.namespace']);
