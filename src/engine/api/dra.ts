// The resource.k8s.io/v1 objects Dynamic Resource Allocation reads (ResourceClaim,
// ResourceClaimTemplate, DeviceClass, ResourceSlice), in their JSON shape, with the fields the
// scheduler's DynamicResources plugin and its structured-parameters allocator use. Quantities stay
// strings; the allocator parses them.
import type { NodeSelector, ObjectMeta } from './types';

/** The API version of the four kinds, in files and in a cluster. */
export const DRA_API_VERSION = 'resource.k8s.io/v1';

/** One typed attribute value: exactly one of the fields is set. */
export interface DeviceAttribute {
  readonly int?: number;
  readonly bool?: boolean;
  readonly string?: string;
  /** A semantic version (semver 2.0.0). */
  readonly version?: string;
}

export interface DeviceCapacity {
  readonly value: string;
  /** DRAConsumableCapacity: how a share of a device that allows multiple allocations may ask for this capacity. */
  readonly requestPolicy?: {
    readonly default?: string;
    readonly validValues?: readonly string[];
    readonly validRange?: { readonly min?: string; readonly max?: string; readonly step?: string };
  };
}

export type DeviceTaintEffect = 'NoSchedule' | 'NoExecute' | 'None';

export interface DeviceTaint {
  readonly key: string;
  readonly value?: string;
  readonly effect: DeviceTaintEffect;
  readonly timeAdded?: string;
}

export interface DeviceToleration {
  readonly key?: string;
  readonly operator?: 'Exists' | 'Equal';
  readonly value?: string;
  readonly effect?: DeviceTaintEffect;
  readonly tolerationSeconds?: number;
}

export interface Device {
  readonly name: string;
  readonly attributes?: Readonly<Record<string, DeviceAttribute>>;
  readonly capacity?: Readonly<Record<string, DeviceCapacity>>;
  readonly taints?: readonly DeviceTaint[];
  /** Per-device node selection (the slice's perDeviceNodeSelection). */
  readonly nodeName?: string;
  readonly nodeSelector?: NodeSelector;
  readonly allNodes?: boolean;
  /** Partitionable devices: counters consumed from the pool's counter sets. */
  readonly consumesCounters?: readonly {
    readonly counterSet: string;
    readonly counters: Readonly<Record<string, { readonly value: string }>>;
  }[];
  readonly allowMultipleAllocations?: boolean;
  readonly bindingConditions?: readonly string[];
  readonly bindingFailureConditions?: readonly string[];
  readonly bindsToNode?: boolean;
}

export interface ResourceSlice {
  readonly apiVersion?: string;
  readonly kind?: 'ResourceSlice';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly driver: string;
    readonly pool: { readonly name: string; readonly generation: number; readonly resourceSliceCount: number };
    /** Exactly one of nodeName, nodeSelector, allNodes, perDeviceNodeSelection says which nodes reach the devices. */
    readonly nodeName?: string;
    readonly nodeSelector?: NodeSelector;
    readonly allNodes?: boolean;
    readonly perDeviceNodeSelection?: boolean;
    readonly devices?: readonly Device[];
    readonly sharedCounters?: readonly { readonly name: string; readonly counters: Readonly<Record<string, { readonly value: string }>> }[];
  };
}

/**
 * DRADeviceTaintRules (GA, on by default in 1.37): one taint added to every device the selector
 * matches (driver, pool, device name; each unset field matches all), as if the driver had
 * published it in the ResourceSlice. Without a selector it matches no device.
 */
export interface DeviceTaintRule {
  readonly apiVersion?: string;
  readonly kind?: 'DeviceTaintRule';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly deviceSelector?: { readonly driver?: string; readonly pool?: string; readonly device?: string };
    readonly taint: DeviceTaint;
  };
  /** Eviction progress (conditions); the scheduler does not read it. */
  readonly status?: unknown;
}

export interface DeviceSelector {
  readonly cel?: { readonly expression: string };
}

export interface DeviceClass {
  readonly apiVersion?: string;
  readonly kind?: 'DeviceClass';
  readonly metadata: ObjectMeta;
  readonly spec: {
    readonly selectors?: readonly DeviceSelector[];
    readonly config?: readonly unknown[];
    /** DRAExtendedResource: the extended resource (e.g. nvidia.com/gpu) this class serves. */
    readonly extendedResourceName?: string;
  };
}

export type DeviceAllocationMode = 'ExactCount' | 'All';

/** What exactly and each firstAvailable entry have in common. */
export interface DeviceRequestSpec {
  readonly deviceClassName: string;
  readonly selectors?: readonly DeviceSelector[];
  readonly allocationMode?: DeviceAllocationMode;
  readonly count?: number;
  readonly tolerations?: readonly DeviceToleration[];
  readonly capacity?: { readonly requests?: Readonly<Record<string, string>> };
}

export interface ExactDeviceRequest extends DeviceRequestSpec {
  readonly adminAccess?: boolean;
}

export interface DeviceSubRequest extends DeviceRequestSpec {
  readonly name: string;
}

export interface DeviceRequest {
  readonly name: string;
  readonly exactly?: ExactDeviceRequest;
  readonly firstAvailable?: readonly DeviceSubRequest[];
}

export interface DeviceConstraint {
  readonly requests?: readonly string[];
  readonly matchAttribute?: string;
  readonly distinctAttribute?: string;
}

export interface ResourceClaimSpec {
  readonly devices?: {
    readonly requests?: readonly DeviceRequest[];
    readonly constraints?: readonly DeviceConstraint[];
    readonly config?: readonly unknown[];
  };
}

export interface DeviceRequestAllocationResult {
  /** The request's name, or `<request>/<subrequest>` for a firstAvailable entry. */
  readonly request: string;
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly adminAccess?: boolean;
  readonly tolerations?: readonly DeviceToleration[];
  /** DRADeviceBindingConditions: the device's conditions, copied at allocation; binding waits for them. */
  readonly bindingConditions?: readonly string[];
  readonly bindingFailureConditions?: readonly string[];
  /** Consumable capacity (not modelled by the allocator): read so an allocation written by a cluster decodes. */
  readonly shareID?: string;
  readonly consumedCapacity?: Readonly<Record<string, string>>;
}

export interface AllocationResult {
  readonly devices?: { readonly results?: readonly DeviceRequestAllocationResult[]; readonly config?: readonly unknown[] };
  /** Where the allocated devices are reachable; absent: everywhere. */
  readonly nodeSelector?: NodeSelector;
  /** When the scheduler allocated it (RFC 3339): a claim's binding conditions time out from it. */
  readonly allocationTimestamp?: string;
}

export interface DeviceCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
  readonly observedGeneration?: number;
}

/** DRAResourceClaimDeviceStatus: what the driver reports of an allocated device (its conditions). */
export interface AllocatedDeviceStatus {
  readonly driver: string;
  readonly pool: string;
  readonly device: string;
  readonly shareID?: string;
  readonly conditions?: readonly DeviceCondition[];
  readonly data?: unknown;
  readonly networkData?: unknown;
}

export interface ResourceClaimConsumerReference {
  readonly apiGroup?: string;
  readonly resource: string;
  readonly name: string;
  readonly uid: string;
}

export interface ResourceClaim {
  readonly apiVersion?: string;
  readonly kind?: 'ResourceClaim';
  readonly metadata: ObjectMeta;
  readonly spec: ResourceClaimSpec;
  readonly status?: {
    readonly allocation?: AllocationResult;
    readonly reservedFor?: readonly ResourceClaimConsumerReference[];
    readonly devices?: readonly AllocatedDeviceStatus[];
  };
}

export interface ResourceClaimTemplate {
  readonly apiVersion?: string;
  readonly kind?: 'ResourceClaimTemplate';
  readonly metadata: ObjectMeta;
  readonly spec: { readonly metadata?: Partial<ObjectMeta>; readonly spec: ResourceClaimSpec };
}

/** A pod's spec.resourceClaims entry: a claim by name or one made from a template. */
export interface PodResourceClaim {
  readonly name: string;
  readonly resourceClaimName?: string;
  readonly resourceClaimTemplateName?: string;
}

/** status.resourceClaimStatuses: the claim the controller created for a template entry. */
export interface PodResourceClaimStatus {
  readonly name: string;
  readonly resourceClaimName?: string;
}
