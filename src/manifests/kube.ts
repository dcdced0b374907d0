// Decoders for the Kubernetes objects the engine reads (src/engine/api/types.ts), field for field,
// with the checks the API server would make on those fields. Resource quantities are parsed with the
// engine's own parser so a quantity the engine would reject is reported where it is written.
import { resourceAmount } from '../engine/api/resources';
import type {
  Affinity,
  Container,
  ContainerImage,
  ContainerPort,
  IntOrString,
  LabelSelector,
  AccessMode,
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  LabelSelectorRequirement,
  Namespace,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
  Volume,
  Node,
  NodeAffinity,
  NodeCondition,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  ObjectMeta,
  OwnerReference,
  Pod,
  PodAffinity,
  PodAffinityTerm,
  PodCondition,
  PodDisruptionBudget,
  PodSpec,
  PreemptionPolicy,
  PreferredSchedulingTerm,
  PriorityClass,
  ResourceList,
  Taint,
  TaintEffect,
  Toleration,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../engine/api/types';
import { parseQuantity } from '../engine/api/quantity';
import type { PodResourceClaim, PodResourceClaimStatus } from '../engine/api/dra';
import {
  arrayOf,
  boolean,
  DecodeContext,
  integer,
  isPlainObject,
  object,
  oneOf,
  refine,
  string,
  stringMap,
  wrongType,
  type Decoder,
} from './decode';
import { joinPath } from './source-map';

/** Requests, limits, allocatable: each quantity checked where it is written. YAML numbers are read as their text. */
export const resourceList: Decoder<ResourceList> = (v, path, ctx) => {
  if (!isPlainObject(v)) return wrongType(ctx, path, 'a mapping of resource quantities', v);
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(v)) {
    const at = joinPath(path, name);
    if (typeof raw !== 'string' && typeof raw !== 'number') {
      wrongType(ctx, at, 'a quantity such as 500m or 1Gi', raw);
      continue;
    }
    const text = String(raw);
    // The engine's own reading of the amount, so what it would refuse is reported here, where it is written.
    const parsed = resourceAmount(name, text);
    if (!parsed.ok) {
      ctx.report(at, 'bad-quantity', parsed.error);
      continue;
    }
    out[name] = text;
  }
  return out;
};

const ownerReference = object<OwnerReference>({ apiVersion: string, kind: string, name: string, uid: string, controller: boolean }, [
  'kind',
  'name',
]);

const metaFields = {
  name: string,
  namespace: string,
  uid: string,
  resourceVersion: string,
  generateName: string,
  labels: stringMap,
  annotations: stringMap,
  ownerReferences: arrayOf(ownerReference),
  creationTimestamp: string,
  deletionTimestamp: string,
};

/** metadata of a top-level object: a name is required. */
export const objectMeta = object<ObjectMeta>(metaFields, ['name']);

/** metadata of a pod template: the controller names the pods. */
export const templateMeta = object<Partial<ObjectMeta>>(metaFields);

const selectorOperator = oneOf(['In', 'NotIn', 'Exists', 'DoesNotExist'] as const);
const nodeSelectorOperator = oneOf(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const);
const stringList = arrayOf(string);

const labelSelectorRequirement = object<LabelSelectorRequirement>({ key: string, operator: selectorOperator, values: stringList }, [
  'key',
  'operator',
]);

export const labelSelector = object<LabelSelector>({ matchLabels: stringMap, matchExpressions: arrayOf(labelSelectorRequirement) });

const nodeSelectorRequirement = object<NodeSelectorRequirement>({ key: string, operator: nodeSelectorOperator, values: stringList }, [
  'key',
  'operator',
]);

const nodeSelectorTerm = object<NodeSelectorTerm>({
  matchExpressions: arrayOf(nodeSelectorRequirement),
  matchFields: arrayOf(nodeSelectorRequirement),
});

export const nodeSelector = object<NodeSelector>({ nodeSelectorTerms: arrayOf(nodeSelectorTerm) }, ['nodeSelectorTerms']);

/** Preference and affinity weights are 1..100 upstream. */
const weight = integer(1, 100);

const preferredSchedulingTerm = object<PreferredSchedulingTerm>({ weight, preference: nodeSelectorTerm }, ['weight', 'preference']);

const nodeAffinity = object<NodeAffinity>({
  requiredDuringSchedulingIgnoredDuringExecution: nodeSelector,
  preferredDuringSchedulingIgnoredDuringExecution: arrayOf(preferredSchedulingTerm),
});

const podAffinityTerm = object<PodAffinityTerm>(
  {
    labelSelector,
    namespaces: stringList,
    namespaceSelector: labelSelector,
    topologyKey: string,
    matchLabelKeys: stringList,
    mismatchLabelKeys: stringList,
  },
  ['topologyKey'],
);

const weightedPodAffinityTerm = object<WeightedPodAffinityTerm>({ weight, podAffinityTerm }, ['weight', 'podAffinityTerm']);

const podAffinity = object<PodAffinity>({
  requiredDuringSchedulingIgnoredDuringExecution: arrayOf(podAffinityTerm),
  preferredDuringSchedulingIgnoredDuringExecution: arrayOf(weightedPodAffinityTerm),
});

const affinity = object<Affinity>({ nodeAffinity, podAffinity, podAntiAffinity: podAffinity });

const taintEffect = oneOf<TaintEffect>(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

const taint = object<Taint>({ key: string, value: string, effect: taintEffect }, ['key', 'effect']);

const toleration = object<Toleration>({
  key: string,
  operator: oneOf(['Exists', 'Equal'] as const),
  value: string,
  effect: taintEffect,
  tolerationSeconds: integer(),
});

const topologySpreadConstraint = object<TopologySpreadConstraint>(
  {
    maxSkew: integer(1),
    topologyKey: string,
    whenUnsatisfiable: oneOf(['DoNotSchedule', 'ScheduleAnyway'] as const),
    labelSelector,
    minDomains: integer(1),
    nodeAffinityPolicy: oneOf(['Honor', 'Ignore'] as const),
    nodeTaintsPolicy: oneOf(['Honor', 'Ignore'] as const),
    matchLabelKeys: stringList,
  },
  ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
);

const port = integer(1, 65535);

const containerPort = object<ContainerPort>(
  { containerPort: port, hostPort: port, hostIP: string, protocol: oneOf(['TCP', 'UDP', 'SCTP'] as const), name: string },
  ['containerPort'],
);

const container = object<Container>(
  {
    name: string,
    image: string,
    resources: object({ requests: resourceList, limits: resourceList }),
    ports: arrayOf(containerPort),
    restartPolicy: oneOf(['Always', 'OnFailure', 'Never'] as const),
    restartPolicyRules: arrayOf(object<NonNullable<Container['restartPolicyRules']>[number]>({ action: string }, ['action'])),
  },
  ['name'],
);

const containers = refine(arrayOf(container), (list, path, ctx) => {
  if (list.length === 0) ctx.report(path, 'missing-field', 'a pod needs at least one container');
});

/** A pod's spec.resourceClaims entry: exactly one of resourceClaimName and resourceClaimTemplateName. */
const podResourceClaim = refine(
  object<PodResourceClaim>({ name: string, resourceClaimName: string, resourceClaimTemplateName: string }, ['name']),
  (c, path, ctx) => {
    if ((c.resourceClaimName === undefined) === (c.resourceClaimTemplateName === undefined))
      ctx.report(path, 'bad-value', 'exactly one of resourceClaimName and resourceClaimTemplateName must be set');
  },
);

const podResourceClaimStatus = object<PodResourceClaimStatus>({ name: string, resourceClaimName: string }, ['name']);

type ExtendedStatus = NonNullable<NonNullable<Pod['status']>['extendedResourceClaimStatus']>;

const extendedStatusFields = object<ExtendedStatus>(
  {
    requestMappings: arrayOf(
      object<ExtendedStatus['requestMappings'][number]>({ containerName: string, resourceName: string, requestName: string }, [
        'containerName',
        'resourceName',
        'requestName',
      ]),
    ),
    resourceClaimName: string,
  },
  ['resourceClaimName'],
);

/** status.extendedResourceClaimStatus (upstream PodExtendedResourceClaimStatus); requestMappings null or absent is none. */
const podExtendedResourceClaimStatus: Decoder<ExtendedStatus> = (v, path, ctx) => {
  const decoded = extendedStatusFields(v, path, ctx);
  return decoded === undefined ? undefined : { ...decoded, requestMappings: decoded.requestMappings ?? [] };
};

const preemptionPolicy = oneOf<PreemptionPolicy>(['PreemptLowerPriority', 'Never']);

const volume = object<Volume>(
  {
    name: string,
    persistentVolumeClaim: object<NonNullable<Volume['persistentVolumeClaim']>>({ claimName: string, readOnly: boolean }, ['claimName']),
    ephemeral: object<NonNullable<Volume['ephemeral']>>({ volumeClaimTemplate: (v) => v }),
    image: object<NonNullable<Volume['image']>>({ reference: string, pullPolicy: string }),
  },
  // Other volume kinds (configMap, emptyDir, …) do not matter for scheduling: their fields are passed over.
  ['name'],
);

export const podSpec = object<PodSpec>(
  {
    nodeName: string,
    volumes: arrayOf(volume),
    schedulerName: string,
    containers,
    initContainers: arrayOf(container),
    resources: object({ requests: resourceList, limits: resourceList }),
    overhead: resourceList,
    nodeSelector: stringMap,
    affinity,
    tolerations: arrayOf(toleration),
    topologySpreadConstraints: arrayOf(topologySpreadConstraint),
    priority: integer(-2147483648, 1000000000),
    priorityClassName: string,
    activeDeadlineSeconds: integer(1, 4294967295),
    preemptionPolicy,
    schedulingGates: arrayOf(object<{ name: string }>({ name: string }, ['name'])),
    resourceClaims: arrayOf(podResourceClaim),
  },
  ['containers'],
);

const conditionStatus = oneOf(['True', 'False', 'Unknown'] as const);

const podStatus = object<NonNullable<Pod['status']>>({
  phase: oneOf(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const),
  conditions: arrayOf(object<PodCondition>({ type: string, status: conditionStatus, reason: string }, ['type', 'status'])),
  startTime: string,
  nominatedNodeName: string,
  resourceClaimStatuses: arrayOf(podResourceClaimStatus),
  extendedResourceClaimStatus: podExtendedResourceClaimStatus,
});

/**
 * A pod's status alone, read as the pod decoder reads it: for a new version of a pod whose other
 * parts were decoded already (a watch's update after a binding). Undefined when it has errors (the
 * whole pod then goes through the decoder, to report them where they are).
 */
export function readPodStatus(value: unknown): { readonly status: Pod['status'] } | undefined {
  if (value === undefined || value === null) return { status: undefined };
  const ctx = new DecodeContext();
  const status = podStatus(value, 'status', ctx);
  return ctx.errors > 0 ? undefined : { status };
}

export const pod = object<Pod>(
  { apiVersion: string, kind: oneOf(['Pod'] as const), metadata: objectMeta, spec: podSpec, status: podStatus },
  ['metadata', 'spec'],
);

const containerImage = object<ContainerImage>({ names: stringList, sizeBytes: integer(0) });

export const node = object<Node>(
  {
    apiVersion: string,
    kind: oneOf(['Node'] as const),
    metadata: objectMeta,
    spec: object<NonNullable<Node['spec']>>({ unschedulable: boolean, taints: arrayOf(taint) }),
    status: object<NonNullable<Node['status']>>({
      capacity: resourceList,
      allocatable: resourceList,
      images: arrayOf(containerImage),
      conditions: arrayOf(object<NodeCondition>({ type: string, status: conditionStatus }, ['type', 'status'])),
      declaredFeatures: stringList,
    }),
  },
  ['metadata'],
);

/** User classes go up to one billion; above it only the system- classes (as a cluster lists them). */
export const priorityClass = refine(
  object<PriorityClass>(
    {
      apiVersion: string,
      kind: oneOf(['PriorityClass'] as const),
      metadata: objectMeta,
      value: integer(-2147483648, 2147483647),
      globalDefault: boolean,
      preemptionPolicy,
      description: string,
    },
    ['metadata', 'value'],
  ),
  (c, path, ctx) => {
    if (c.value > 1000000000 && !c.metadata.name.startsWith('system-'))
      ctx.report(joinPath(path, 'value'), 'bad-value', `${c.value}: must be no greater than 1000000000`);
  },
);

/** An int, or a percentage written as "N%". */
const intOrPercent: Decoder<IntOrString> = (v, path, ctx) => {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d+%$/.test(v)) return v;
  return wrongType(ctx, path, 'a non-negative integer or a percentage such as 50%', v);
};

export const podDisruptionBudget = refine(
  object<PodDisruptionBudget>(
    {
      apiVersion: string,
      kind: oneOf(['PodDisruptionBudget'] as const),
      metadata: objectMeta,
      spec: object<NonNullable<PodDisruptionBudget['spec']>>({
        selector: labelSelector,
        minAvailable: intOrPercent,
        maxUnavailable: intOrPercent,
      }),
      status: object<NonNullable<PodDisruptionBudget['status']>>({ disruptionsAllowed: integer(0), disruptedPods: stringMap }),
    },
    ['metadata'],
  ),
  (pdb, path, ctx) => {
    if (pdb.spec?.minAvailable !== undefined && pdb.spec.maxUnavailable !== undefined) {
      ctx.report(joinPath(path, 'spec'), 'bad-value', 'minAvailable and maxUnavailable cannot be both set');
    }
  },
);

export const namespace = object<Namespace>({ apiVersion: string, kind: oneOf(['Namespace'] as const), metadata: objectMeta }, ['metadata']);

const accessModes = arrayOf(oneOf<AccessMode>(['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOncePod']));

export const persistentVolumeClaim = object<PersistentVolumeClaim>(
  {
    apiVersion: string,
    kind: oneOf(['PersistentVolumeClaim'] as const),
    metadata: objectMeta,
    spec: object<NonNullable<PersistentVolumeClaim['spec']>>({
      accessModes,
      storageClassName: string,
      volumeName: string,
      resources: object({ requests: resourceList }),
      selector: labelSelector,
      volumeAttributesClassName: string,
    }),
    status: object<NonNullable<PersistentVolumeClaim['status']>>({
      phase: oneOf(['Pending', 'Bound', 'Lost'] as const),
      allocatedResources: resourceList,
      currentVolumeAttributesClassName: string,
      modifyVolumeStatus: object({ targetVolumeAttributesClassName: string }),
    }),
  },
  ['metadata'],
);

export const persistentVolume = object<PersistentVolume>(
  {
    apiVersion: string,
    kind: oneOf(['PersistentVolume'] as const),
    metadata: objectMeta,
    spec: object<NonNullable<PersistentVolume['spec']>>({
      capacity: resourceList,
      accessModes,
      storageClassName: string,
      claimRef: object<{ name: string; namespace?: string }>({ name: string, namespace: string }, ['name']),
      nodeAffinity: object<{ required?: NodeSelector }>({ required: nodeSelector }),
      csi: object<{ driver: string; volumeHandle: string }>({ driver: string, volumeHandle: string }, ['driver', 'volumeHandle']),
    }),
    status: object<NonNullable<PersistentVolume['status']>>({
      phase: oneOf(['Pending', 'Available', 'Bound', 'Released', 'Failed'] as const),
    }),
  },
  ['metadata'],
);

export const storageClass = object<StorageClass>(
  {
    apiVersion: string,
    kind: oneOf(['StorageClass'] as const),
    metadata: objectMeta,
    provisioner: string,
    volumeBindingMode: oneOf(['Immediate', 'WaitForFirstConsumer'] as const),
    allowedTopologies: arrayOf(
      object<{ matchLabelExpressions?: Array<{ key: string; values: string[] }> }>({
        matchLabelExpressions: arrayOf(object<{ key: string; values: string[] }>({ key: string, values: stringList }, ['key', 'values'])),
      }),
    ),
  },
  ['metadata', 'provisioner'],
);

export const csiNode = object<CSINode>(
  {
    apiVersion: string,
    kind: oneOf(['CSINode'] as const),
    metadata: objectMeta,
    spec: object<CSINode['spec']>({
      drivers: arrayOf(
        object<{ name: string; nodeID?: string; allocatable?: { count?: number } }>(
          { name: string, nodeID: string, allocatable: object<{ count?: number }>({ count: integer(0) }) },
          ['name'],
        ),
      ),
    }),
  },
  ['metadata', 'spec'],
);

/** One quantity (a CSIStorageCapacity's capacity), checked where it is written. */
const quantity: Decoder<string> = (v, path, ctx) => {
  if (typeof v !== 'string' && typeof v !== 'number') return wrongType(ctx, path, 'a quantity such as 500m or 1Gi', v);
  const parsed = parseQuantity(String(v));
  return parsed.ok ? String(v) : ctx.report(path, 'bad-quantity', parsed.error);
};

export const csiDriver = object<CSIDriver>(
  {
    apiVersion: string,
    kind: oneOf(['CSIDriver'] as const),
    metadata: objectMeta,
    spec: object<CSIDriver['spec']>({ storageCapacity: boolean }),
  },
  ['metadata', 'spec'],
);

export const csiStorageCapacity = object<CSIStorageCapacity>(
  {
    apiVersion: string,
    kind: oneOf(['CSIStorageCapacity'] as const),
    metadata: objectMeta,
    storageClassName: string,
    nodeTopology: labelSelector,
    capacity: quantity,
    maximumVolumeSize: quantity,
  },
  ['metadata', 'storageClassName'],
);
