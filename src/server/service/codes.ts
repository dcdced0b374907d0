// Every diagnostic code the server reports. Codes are stable: clients filter on them and code
// actions key on them; the manifest reader's own codes (yaml-syntax, bad-quantity, …) pass through
// unchanged for the objects the server reports on.
import type { ManifestErrorCode } from '../../manifests';

export const CODES = {
  // The shape of ScheduleTrigger and SchedulePlan, from schemas/*.json.
  schemaRequired: 'schema/required',
  schemaType: 'schema/type',
  schemaEnum: 'schema/enum',
  schemaValue: 'schema/value',
  schemaUnknownField: 'schema/unknown-field',
  // Kubernetes names and labels of our objects.
  nameInvalid: 'name/invalid',
  labelKeyInvalid: 'label/key-invalid',
  labelValueInvalid: 'label/value-invalid',
  // The quiet-time label.
  quietTimeNotDuration: 'quiet-time/not-duration',
  quietTimeNotLabelValue: 'quiet-time/not-label-value',
  // Pod sets.
  podSetEmpty: 'pod-set/empty',
  podSetSchedulerName: 'pod-set/scheduler-name',
  podUnplaceable: 'pod-set/unplaceable',
  // Plans.
  planUnknownPod: 'plan/unknown-pod',
  planUnknownNode: 'plan/unknown-node',
  planDuplicatePod: 'plan/duplicate-pod',
  planPodOutsideSet: 'plan/pod-outside-set',
  planNodeInfeasible: 'plan/node-infeasible',
  planNodeOvercommitted: 'plan/node-overcommitted',
  planMissingPods: 'plan/missing-pods',
  triggerNoPlan: 'trigger/no-plan',
  // Dependencies between triggers.
  dependsOnUnresolved: 'depends-on/unresolved',
  dependsOnCycle: 'depends-on/cycle',
  // Scheduler profiles.
  profileUnknownPlugin: 'profile/unknown-plugin',
  profileDuplicatePlugin: 'profile/duplicate-plugin',
  profileBadWeight: 'profile/bad-weight',
  profileBadArgs: 'profile/bad-args',
  profileInvalid: 'profile/invalid',
  profileUnsupported: 'profile/unsupported',
} as const;

export type Code = (typeof CODES)[keyof typeof CODES] | ManifestErrorCode;

/** Where every diagnostic says it comes from. */
export const SOURCE = 'podplan';
