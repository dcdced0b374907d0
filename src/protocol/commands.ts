// Commands the server puts in code lenses and the client implements (by sending the requests of
// requests.ts). Other editors bind the same ids to their own handlers.
import type { ObjectRef } from './requests';

export const Commands = {
  /** Show the pods of a trigger's pod set. Argument: TriggerCommandArgs. */
  showPodSet: 'podplan.showPodSet',
  /** Open the plan preview for a trigger (podplan/previewPlan). Argument: TriggerCommandArgs. */
  previewPlan: 'podplan.previewPlan',
  /** Set a trigger to Schedule and write its plan (podplan/scheduleNow). Argument: TriggerCommandArgs. */
  scheduleNow: 'podplan.scheduleNow',
} as const;

export interface TriggerCommandArgs {
  /** The document the trigger is written in. */
  readonly uri: string;
  readonly trigger: ObjectRef;
  readonly podSet: string;
}
