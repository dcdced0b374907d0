// The subset of Kubernetes objects the engine reads, in their JSON shape, so a manifest or an API
// response maps onto them directly. Quantities stay strings here; `resources.ts` parses them.
import type {
  DeviceClass,
  DeviceTaintRule,
  PodResourceClaim,
  PodResourceClaimStatus,
  ResourceClaim,
  ResourceClaimTemplate,
  ResourceSlice,
} from './dra';

export type Labels = Readonly<Record<string, string>>;

export interface OwnerReference {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name: string;
  readonly uid?: string;
  readonly controller?: boolean;
}

export interface ObjectMeta {
  readonly name: string;
  /** The name's prefix when the API server is to make the name (create only; `name` is then ''). */
  readonly generateName?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
  readonly labels?: Labels;
  readonly annotations?: Labels;
  readonly ownerReferences?: readonly OwnerReference[];
  readonly creationTimestamp?: string;
  /** Set when the object is being deleted: a terminating pod no longer counts for spreading. */
  readonly deletionTimestamp?: string;
}

export type ResourceList = Readonly<Record<string, string>>;

export interface ContainerPort {
  readonly containerPort: number;
  readonly hostPort?: number;
  readonly hostIP?: string;
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
  readonly name?: string;
}

export interface ResourceRequirements {
  readonly requests?: ResourceList;
  readonly limits?: ResourceList;
}

export interface Container {
  readonly name: string;
  readonly image?: string;
  readonly resources?: ResourceRequirements;
  readonly ports?: readonly ContainerPort[];
  /** An init container with restartPolicy Always is a sidecar: it keeps running beside the app. */
  readonly restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  /** Container restart rules (ContainerRestartRules, beta since 1.35); NodeDeclaredFeatures reads their actions. */
  readonly restartPolicyRules?: readonly { readonly action: string }[];
}

export type SelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
export type NodeSelectorOperator = SelectorOperator | 'Gt' | 'Lt';

export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  readonly values?: readonly string[];
}

export interface LabelSelector {
  readonly matchLabels?: Labels;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

export interface NodeSelectorRequirement {
  readonly key: string;
  readonly operator: NodeSelectorOperator;
  readonly values?: readonly string[];
}

export interface NodeSelectorTerm {
  readonly matchExpressions?: readonly NodeSelectorRequirement[];
  readonly matchFields?: readonly NodeSelectorRequirement[];
}

export interface NodeSelector {
  readonly nodeSelectorTerms: readonly NodeSelectorTerm[];
}

export interface PreferredSchedulingTerm {
  readonly weight: number;
  readonly preference: NodeSelectorTerm;
}

export interface NodeAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly PreferredSchedulingTerm[];
}

export interface PodAffinityTerm {
  readonly labelSelector?: LabelSelector;
  readonly namespaces?: readonly string[];
  readonly namespaceSelector?: LabelSelector;
  readonly topologyKey: string;
  readonly matchLabelKeys?: readonly string[];
  readonly mismatchLabelKeys?: readonly string[];
}

export interface WeightedPodAffinityTerm {
  readonly weight: number;
  readonly podAffinityTerm: PodAffinityTerm;
}

export interface PodAffinity {
  readonly requiredDuringSchedulingIgnoredDuringExecution?: readonly PodAffinityTerm[];
  readonly preferredDuringSchedulingIgnoredDuringExecution?: readonly WeightedPodAffinityTerm[];
}

export interface Affinity {
  readonly nodeAffinity?: NodeAffinity;
  readonly podAffinity?: PodAffinity;
  readonly podAntiAffinity?: PodAffinity;
}

export type TaintEffect = 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';

export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect;
}

export interface Toleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: TaintEffect;
  readonly tolerationSeconds?: number;
}

export interface TopologySpreadConstraint {
  readonly maxSkew: number;
  readonly topologyKey: string;
  readonly whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  readonly labelSelector?: LabelSelector;
  readonly minDomains?: number;
  readonly nodeAffinityPolicy?: 'Honor' | 'Ignore';
  readonly nodeTaintsPolicy?: 'Honor' | 'Ignore';
  readonly matchLabelKeys?: readonly string[];
}

/** A pod volume; only the kinds scheduling reads are typed (a PVC, an ephemeral claim template). */
export interface Volume {
  readonly name: string;
  readonly persistentVolumeClaim?: { readonly claimName: string; readonly readOnly?: boolean };
  /** A generic ephemeral volume: its PVC is named <pod>-<volume> and made by a controller. */
  readonly ephemeral?: { readonly volumeClaimTemplate?: unknown };
  /** An OCI image mounted as a volume (ImageVolume, on by default since 1.35): ImageLocality counts it. */
  readonly image?: { readonly reference?: string; readonly pullPolicy?: string };
}

export interface PodSpec {
  readonly nodeName?: string;
  readonly volumes?: readonly Volume[];
  readonly schedulerName?: string;
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  /** Pod-level requests and limits (beta, on by default since 1.34): they win over the containers' for cpu, memory and hugepages. */
  readonly resources?: ResourceRequirements;
  readonly overhead?: ResourceList;
  readonly nodeSelector?: Labels;
  readonly affinity?: Affinity;
  readonly tolerations?: readonly Toleration[];
  readonly topologySpreadConstraints?: readonly TopologySpreadConstraint[];
  readonly priority?: number;
  readonly priorityClassName?: string;
  /** Set: the pod is in ResourceQuota's Terminating scope. */
  readonly activeDeadlineSeconds?: number;
  /** Whether the pod may preempt lower-priority pods; admission copies it from the PriorityClass. */
  readonly preemptionPolicy?: PreemptionPolicy;
  readonly schedulingGates?: readonly { readonly name: string }[];
  /** Dynamic Resource Allocation: the claims the pod uses (by name or from a template). */
  readonly resourceClaims?: readonly PodResourceClaim[];
}

export type PreemptionPolicy = 'PreemptLowerPriority' | 'Never';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  /** Why, as a CamelCase word (e.g. DisruptionTarget's PreemptionByScheduler). */
  readonly reason?: string;
}

export interface Pod {
  readonly apiVersion?: string;
  readonly kind?: 'Pod';
  readonly metadata: ObjectMeta;
  readonly spec: PodSpec;
  readonly status?: {
    readonly phase?: PodPhase;
    readonly conditions?: readonly PodCondition[];
    /** When the kubelet started the pod (RFC 3339): preemption spares the pods running longest. */
    readonly startTime?: string;
    /** The node preemption nominated a pending pod to: its room there is held against pods of lower or equal priority. */
    readonly nominatedNodeName?: string;
    /** The claims the ResourceClaim controller created for the pod's template entries. */
    readonly resourceClaimStatuses?: readonly PodResourceClaimStatus[];
    /** The claim the scheduler created for the pod's extended resources backed by DRA (DynamicResources' PreBind writes it). */
    readonly extendedResourceClaimStatus?: PodExtendedResourceClaimStatus;
  };
}

/** A pod's status.extendedResourceClaimStatus: which request of the special claim serves each container's extended resource. */
export interface PodExtendedResourceClaimStatus {
  readonly requestMappings: ReadonlyArray<{ readonly containerName: string; readonly resourceName: string; readonly requestName: string }>;
  readonly resourceClaimName: string;
}

export interface ContainerImage {
  readonly names?: readonly string[];
  readonly sizeBytes?: number;
}

export interface NodeCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
}

export interface Node {
  readonly apiVersion?: string;
  readonly kind?: 'Node';
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly unschedulable?: boolean; readonly taints?: readonly Taint[] };
  readonly status?: {
    readonly capacity?: ResourceList;
    readonly allocatable?: ResourceList;
    readonly images?: readonly ContainerImage[];
    readonly conditions?: readonly NodeCondition[];
    /** The features the kubelet declares (NodeDeclaredFeatures). */
    readonly declaredFeatures?: readonly string[];
  };
}

/** scheduling.k8s.io/v1 PriorityClass: admission gives a pod its value (and preemption policy). */
export interface PriorityClass {
  readonly apiVersion?: string;
  readonly kind?: 'PriorityClass';
  readonly metadata: ObjectMeta;
  readonly value: number;
  /** The class of pods that name none (at most one class has it). */
  readonly globalDefault?: boolean;
  readonly preemptionPolicy?: PreemptionPolicy;
  readonly description?: string;
}

/** An int or a percentage ("50%"), as minAvailable and maxUnavailable are written. */
export type IntOrString = number | string;

/** policy/v1 PodDisruptionBudget: preemption avoids victims whose eviction would break it. */
export interface PodDisruptionBudget {
  readonly apiVersion?: string;
  readonly kind?: 'PodDisruptionBudget';
  readonly metadata: ObjectMeta;
  readonly spec?: { readonly selector?: LabelSelector; readonly minAvailable?: IntOrString; readonly maxUnavailable?: IntOrString };
  /** As the disruption controller writes it; computed from spec and the snapshot's pods when absent. */
  readonly status?: { readonly disruptionsAllowed?: number; readonly disruptedPods?: Readonly<Record<string, string>> };
}

/** v1 Namespace: its labels are what InterPodAffinity's namespaceSelector matches. */
export interface Namespace {
  readonly apiVersion?: string;
  readonly kind?: 'Namespace';
  readonly metadata: ObjectMeta;
}

export type AccessMode = 'ReadWriteOnce' | 'ReadOnlyMany' | 'ReadWriteMany' | 'ReadWriteOncePod';

/** v1 PersistentVolumeClaim. */
export interface PersistentVolumeClaim {
  readonly apiVersion?: string;
  readonly kind?: 'PersistentVolumeClaim';
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly accessModes?: readonly AccessMode[];
    readonly storageClassName?: string;
    /** Set once bound (or pre-bound) to a PersistentVolume. */
    readonly volumeName?: string;
    readonly resources?: { readonly requests?: ResourceList };
    readonly selector?: LabelSelector;
    /** The VolumeAttributesClass asked for (ResourceQuota's VolumeAttributesClass scope). */
    readonly volumeAttributesClassName?: string;
  };
  readonly status?: {
    readonly phase?: 'Pending' | 'Bound' | 'Lost';
    /** Storage allocated after an expansion (quota counts it when larger than the request). */
    readonly allocatedResources?: ResourceList;
    readonly currentVolumeAttributesClassName?: string;
    readonly modifyVolumeStatus?: { readonly targetVolumeAttributesClassName?: string };
  };
}

/** A topology term of a StorageClass (allowedTopologies): every key must have one of its values. */
export interface TopologySelectorTerm {
  readonly matchLabelExpressions?: readonly { readonly key: string; readonly values: readonly string[] }[];
}

/** v1 PersistentVolume. */
export interface PersistentVolume {
  readonly apiVersion?: string;
  readonly kind?: 'PersistentVolume';
  readonly metadata: ObjectMeta;
  readonly spec?: {
    readonly capacity?: ResourceList;
    readonly accessModes?: readonly AccessMode[];
    readonly storageClassName?: string;
    readonly claimRef?: { readonly name: string; readonly namespace?: string };
    readonly nodeAffinity?: { readonly required?: NodeSelector };
    readonly csi?: { readonly driver: string; readonly volumeHandle: string };
  };
  readonly status?: { readonly phase?: 'Pending' | 'Available' | 'Bound' | 'Released' | 'Failed' };
}

/** storage.k8s.io/v1 StorageClass. */
export interface StorageClass {
  readonly apiVersion?: string;
  readonly kind?: 'StorageClass';
  readonly metadata: ObjectMeta;
  readonly provisioner: string;
  readonly volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer';
  readonly allowedTopologies?: readonly TopologySelectorTerm[];
}

/** storage.k8s.io/v1 CSINode: how many volumes of each CSI driver the node can attach. */
export interface CSINode {
  readonly apiVersion?: string;
  readonly kind?: 'CSINode';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly drivers?: readonly { readonly name: string; readonly nodeID?: string; readonly allocatable?: { readonly count?: number } }[];
  };
}

/** storage.k8s.io/v1 CSIDriver: whether scheduling checks the driver's storage capacity. */
export interface CSIDriver {
  readonly apiVersion?: string;
  readonly kind?: 'CSIDriver';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly storageCapacity?: boolean };
}

/** storage.k8s.io/v1 CSIStorageCapacity: what a class can still provision for the nodes its topology selects. */
export interface CSIStorageCapacity {
  readonly apiVersion?: string;
  readonly kind?: 'CSIStorageCapacity';
  readonly metadata: ObjectMeta;
  readonly storageClassName: string;
  /** The nodes with access to it; none: no node has. */
  readonly nodeTopology?: LabelSelector;
  readonly capacity?: string;
  /** The largest volume that can be made (more precise than capacity when given). */
  readonly maximumVolumeSize?: string;
}

/** The cluster objects besides nodes and pods that plugins read (all optional: a snapshot may have none). */
export interface ClusterObjects {
  readonly namespaces?: readonly Namespace[];
  readonly persistentVolumeClaims?: readonly PersistentVolumeClaim[];
  readonly persistentVolumes?: readonly PersistentVolume[];
  readonly storageClasses?: readonly StorageClass[];
  readonly csiNodes?: readonly CSINode[];
  readonly csiDrivers?: readonly CSIDriver[];
  readonly csiStorageCapacities?: readonly CSIStorageCapacity[];
  readonly priorityClasses?: readonly PriorityClass[];
  readonly podDisruptionBudgets?: readonly PodDisruptionBudget[];
  /** resource.k8s.io/v1 (Dynamic Resource Allocation). */
  readonly resourceClaims?: readonly ResourceClaim[];
  readonly resourceClaimTemplates?: readonly ResourceClaimTemplate[];
  readonly deviceClasses?: readonly DeviceClass[];
  readonly resourceSlices?: readonly ResourceSlice[];
  readonly deviceTaintRules?: readonly DeviceTaintRule[];
  /**
   * The ResourceClaims (`namespace/name`) a pod's template entry would have that were never created:
   * ResourceQuota admission refused them (manifests/admission.ts admitTemplateClaims), so the pod's
   * entry finds no claim, as upstream's pod waits for one (claims.ts podResourceClaims).
   */
  readonly claimsNotCreated?: readonly string[];
}

/** What a scheduling cycle sees of the cluster: the engine cannot tell a workspace from a live cluster. */
export interface ClusterSnapshot extends ClusterObjects {
  readonly nodes: readonly Node[];
  readonly pods: readonly Pod[];
}

/** Every part of a ClusterSnapshot (the type fails to compile when a part is added and not named here). */
const CLUSTER_PARTS = {
  nodes: true,
  pods: true,
  namespaces: true,
  persistentVolumeClaims: true,
  persistentVolumes: true,
  storageClasses: true,
  csiNodes: true,
  csiDrivers: true,
  csiStorageCapacities: true,
  priorityClasses: true,
  podDisruptionBudgets: true,
  resourceClaims: true,
  resourceClaimTemplates: true,
  deviceClasses: true,
  resourceSlices: true,
  deviceTaintRules: true,
  claimsNotCreated: true,
} as const satisfies Record<keyof ClusterSnapshot, true>;

/**
 * Whether two snapshots hold the same objects (each part's items the same objects, in the same
 * order): what a cache of anything worked out from a cluster must compare, never the nodes and pods
 * alone, since every plugin reads the other parts too.
 */
export function sameCluster(a: ClusterSnapshot, b: ClusterSnapshot): boolean {
  if (a === b) return true;
  for (const part of Object.keys(CLUSTER_PARTS) as Array<keyof ClusterSnapshot>) {
    const x: readonly unknown[] = a[part] ?? [];
    const y: readonly unknown[] = b[part] ?? [];
    if (x.length !== y.length || x.some((item, i) => item !== y[i])) return false;
  }
  return true;
}

export const DEFAULT_NAMESPACE = 'default';

export function podNamespace(pod: Pod): string {
  return pod.metadata.namespace ?? DEFAULT_NAMESPACE;
}

/** `namespace/name`: how pods are named in plans, diagnoses and messages. */
export function podKey(pod: Pod): string {
  return `${podNamespace(pod)}/${pod.metadata.name}`;
}

/** A pod's identity in the cache: its uid when it has one, else its key. */
export function podId(pod: Pod): string {
  return pod.metadata.uid ?? podKey(pod);
}
