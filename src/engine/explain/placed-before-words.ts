// How explain of a stored plan's pod says what the cluster it judges on holds of the pods the sets
// planned before it placed, and what the history did not keep: one home for `podplan explain --plan`
// and the editor's explain of a stored plan.
import type { PlacedPod } from '../planner/plan';

export interface PlacedBeforeWords {
  /** After "the cluster the plan was made on": the pods placed before it, if any (empty otherwise). */
  readonly seen: string;
  /** A sentence when the history kept no record of them (schema before 10) and the plan has a trigger (empty otherwise). */
  readonly unknown: string;
}

/** `before`: the plan's placedBefore as the history kept it (undefined: recorded before it kept them); `trigger`: the plan's. */
export function placedBeforeWords(before: readonly PlacedPod[] | undefined, trigger: string | undefined): PlacedBeforeWords {
  const seen = before?.length
    ? ` (with the ${before.length === 1 ? 'pod' : `${before.length} pods`} the sets planned before it placed on their nodes)`
    : '';
  const unknown =
    before === undefined && trigger !== undefined
      ? ` The plan was recorded before the history kept the pods the sets planned before it placed (history schema version 10): if ScheduleTrigger ${trigger} depends on other sets, their pods are missing here.`
      : '';
  return { seen, unknown };
}
