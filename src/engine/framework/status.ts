// The outcome of a plugin at one extension point, as upstream's framework.Status: a code that
// separates a rejection (Unschedulable, UnschedulableAndUnresolvable) from an internal Error, the
// reasons a user reads, and which plugin at which stage said so.
import type { DeviceFailure } from '../api/device-failures';
import { WeakCache } from './caches';

export enum Code {
  Success = 'Success',
  /** The pod does not fit this node now; preemption or a cluster change could help. */
  Unschedulable = 'Unschedulable',
  /** The pod cannot fit this node whatever happens to other pods (a taint, a selector). */
  UnschedulableAndUnresolvable = 'UnschedulableAndUnresolvable',
  /** Something went wrong inside a plugin: not a verdict about the pod. */
  Error = 'Error',
  /** The plugin has nothing to say about this pod; its later stages are skipped. */
  Skip = 'Skip',
}

/** The stages of a scheduling cycle, in the order they run. */
export const STAGES = [
  'PreEnqueue',
  'Sort',
  'SampleNodes',
  'PreFilter',
  'Filter',
  'PostFilter',
  'PreScore',
  'Score',
  'NormalizeScore',
  'Reserve',
  'Unreserve',
  'Permit',
  'CheckConflicts',
  'PreBind',
  'Bind',
] as const;

export type Stage = (typeof STAGES)[number];

export interface Status {
  readonly code: Code;
  readonly reasons: readonly string[];
  /** The plugin that returned it (set by the runtime when the plugin did not). */
  readonly plugin?: string;
  readonly stage?: Stage;
}

/**
 * A Filter plugin's status, which in a node's complete verdict (CycleState.explainFilters) may say
 * what its rejection is made of as data: DynamicResources, which device requests could not be met
 * and why. A cycle's Diagnosis keeps the Status alone.
 */
export interface FilterStatus extends Status {
  readonly devices?: readonly DeviceFailure[];
}

export const SUCCESS: Status = Object.freeze({ code: Code.Success, reasons: Object.freeze([]) as readonly string[] });
export const SKIP: Status = Object.freeze({ code: Code.Skip, reasons: Object.freeze([]) as readonly string[] });

export function unschedulable(...reasons: string[]): Status {
  return { code: Code.Unschedulable, reasons };
}

export function unresolvable(...reasons: string[]): Status {
  return { code: Code.UnschedulableAndUnresolvable, reasons };
}

export function errorStatus(message: string): Status {
  return { code: Code.Error, reasons: [message] };
}

export function isSuccess(status: Status): boolean {
  return status.code === Code.Success;
}

/** A verdict against the pod on a node (as opposed to success, skip or an internal error). */
export function isRejection(status: Status): boolean {
  return status.code === Code.Unschedulable || status.code === Code.UnschedulableAndUnresolvable;
}

/** Attributed copies of shared (frozen) statuses, by plugin and stage: made once, not every cycle (budget: caches.ts). */
const attributions = new WeakCache<Status, Map<string, Status>>();
const newCopies = () => new Map<string, Status>();

/** The status with the plugin and stage that produced it recorded; for a frozen status, one frozen copy per plugin and stage. */
export function attributed(status: Status, plugin: string, stage: Stage): Status {
  if (status.plugin === plugin && status.stage === stage) return status;
  if (!Object.isFrozen(status)) return { ...status, plugin: status.plugin ?? plugin, stage: status.stage ?? stage };
  const copies = attributions.get(status, newCopies);
  const key = `${plugin}\0${stage}`;
  let copy = copies.get(key);
  if (!copy) copies.set(key, (copy = Object.freeze({ ...status, plugin: status.plugin ?? plugin, stage: status.stage ?? stage })));
  return copy;
}

export function statusMessage(status: Status): string {
  return status.reasons.join(', ');
}
