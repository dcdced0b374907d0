// Why DynamicResources could not allocate a pod's claims on a node, as data: per device request
// that could not be met, what stood in its way. Podplan's addition beside upstream's own message
// ("cannot allocate all claims"), which stays as it is; the words are made in one place
// (engine/explain/devices.ts) for the CLI and the editor alike.

/** A CEL selector that was false for the devices it was tried on (the first false one of each device, the most common). */
export interface FalseSelector {
  /** Whose selector: the DeviceClass's or the claim's request's. */
  readonly owner: 'class' | 'request';
  readonly index: number;
  readonly expression: string;
}

/** A claim holding devices the request could have had, and the pods it is reserved for. */
export interface DeviceHolder {
  readonly claim: string;
  readonly pods: readonly string[];
}

export type DeviceCause =
  /** The node reaches no devices at all (no ResourceSlice publishes any for it). */
  | { readonly code: 'noDevices' }
  /** Of the node's devices none is of the class: a class selector is false for them. */
  | { readonly code: 'noClassMatch'; readonly devices: number; readonly selector?: FalseSelector }
  /** Devices of the class exist, but a selector of the request is false for each. */
  | { readonly code: 'selectorFalse'; readonly devices: number; readonly selector: FalseSelector }
  /** Devices match, but each is tainted without a toleration or lacks the capacity the request asks for. */
  | { readonly code: 'unsuitable'; readonly devices: number; readonly tainted: number; readonly capacity: number }
  /** Fewer devices match than wanted, or enough match but too few are free: the holders of the rest where known. */
  | {
      readonly code: 'notEnough';
      readonly matching: number;
      readonly free: number;
      readonly holders: readonly DeviceHolder[];
      /** Devices taken by pods placed earlier in the same plan (their claims not allocated yet). */
      readonly planned: number;
    }
  /**
   * Enough free devices, but no choice satisfies the claim's constraint: for matchAttribute, the
   * free devices per value of the attribute; for distinctAttribute, how many distinct values there are.
   */
  | {
      readonly code: 'constraintUnmet';
      readonly constraint: 'matchAttribute' | 'distinctAttribute';
      readonly index: number;
      readonly attribute: string;
      readonly groups: readonly { readonly value: string; readonly devices: number }[];
      /** The requests the constraint covers. */
      readonly requests: readonly string[];
    }
  /** Every request can be met on its own, not all of them at once (they compete for the same devices). */
  | { readonly code: 'together' }
  /**
   * The claim is allocated already and its devices' node selector leaves this node out
   * ("resourceclaim not available on the node"): the nodes it names (by name; empty when it selects by
   * labels) and the pods it is reserved for.
   */
  | { readonly code: 'allocatedElsewhere'; readonly nodes: readonly string[]; readonly pods: readonly string[] };

/** One device request of one claim that could not be met on a node, and why. */
export type DeviceFailure = {
  /** namespace/name of the claim (a made-up claim's name for a template entry). */
  readonly claim: string;
  /** The request's name (`request/subrequest` for a firstAvailable entry; `*` for the claim as a whole). */
  readonly request: string;
  readonly deviceClass: string;
  /** How many devices it asks for; `All` for allocationMode All. */
  readonly wanted: number | 'All';
} & DeviceCause;
