// Where a pod is finally bound: the kube layer's binder posts a Binding; previews and tests use the
// in-memory one. The DefaultBinder plugin calls whichever the framework was built with.
import type { AllocationResult, ResourceClaim, ResourceClaimConsumerReference } from '../api/dra';
import type { Result } from '../api/result';
import type { Pod, PodExtendedResourceClaimStatus } from '../api/types';
import { podKey } from '../api/types';
import { errorStatus, SUCCESS, type Status } from './status';

export interface Binder {
  /** Binds the pod to the node; a conflict or failure is a Status, not an exception. */
  bind(pod: Pod, nodeName: string): Promise<Status>;
}

/** Records bindings in memory; a pod bound twice is an error, as the API server would say. */
export class InMemoryBinder implements Binder {
  readonly bindings = new Map<string, string>();

  async bind(pod: Pod, nodeName: string): Promise<Status> {
    const key = podKey(pod);
    const existing = this.bindings.get(key);
    if (existing !== undefined) return errorStatus(`pod ${key} is already bound to ${existing}`);
    this.bindings.set(key, nodeName);
    return SUCCESS;
  }
}

/** What DynamicResources' PreBind asks to be stored in one claim's status (upstream's bindClaim). */
export interface ClaimBinding {
  readonly namespace: string;
  readonly name: string;
  /** The claim's uid as the cycle saw it: a claim deleted and made again under its name is another claim. */
  readonly uid?: string;
  /** The allocation Reserve chose, stored with the reservation; absent when the claim was allocated before. */
  readonly allocation?: AllocationResult;
  /** The entry added to status.reservedFor: `{resource: "pods", name, uid}`. */
  readonly consumer: ResourceClaimConsumerReference;
}

/**
 * Where a live scheduler writes claims (the kube layer's, over the API server). Without one (previews,
 * planning) PreBind writes nothing and Reserve's assumption stands for the write.
 */
export interface ClaimWriter {
  /** Stores the allocation (when given) and the reservation; the claim as the API server then holds it, or why not. */
  bindClaim(binding: ClaimBinding): Promise<Result<ResourceClaim, string>>;
  /** Takes the pod's reservation back out of a claim whose pod was not bound (the allocation stays); never fails the caller. */
  unreserveClaim(binding: ClaimBinding): void;
  /**
   * Creates the claim for a pod's extended resources (upstream createExtendedResourceClaimInAPI): `claim`
   * carries metadata.generateName, no name; the answer is the claim as the API server made it (named, with its uid).
   */
  createClaim(claim: ResourceClaim): Promise<Result<ResourceClaim, string>>;
  /** Patches the pod's status.extendedResourceClaimStatus (upstream patchPodExtendedResourceClaimStatus). */
  patchPodExtendedResourceClaimStatus(pod: Pod, status: PodExtendedResourceClaimStatus): Promise<Result<void, string>>;
  /** Deletes a claim PreBind created for a pod that was not bound (upstream deleteClaim, its finalizer first); never fails the caller. */
  deleteClaim(namespace: string, name: string): void;
}

export type { PodExtendedResourceClaimStatus };
