// The baseline planner: the framework's own pipeline, pod by pod in queue order, each placement
// assumed on the copy before the next pod, as the scheduler would place the set one pod at a time.
import { WhatIf } from '../search/what-if';
import { planningState, queueOrder, type Placement, type Planner, type Unplaced } from '../planner';

export const GREEDY = 'greedy';

export const greedy: Planner = {
  name: GREEDY,
  plan({ pods, snapshot, framework, eligible }) {
    const whatIf = new WhatIf(snapshot);
    const placed: Placement[] = [];
    const unplaced: Unplaced[] = [];
    for (const pod of queueOrder(framework, pods)) {
      const result = framework.scheduleOne(planningState(pod, eligible), pod, whatIf.snapshot);
      if (result.ok) {
        whatIf.assume(pod, whatIf.indexOf(result.suggestedHost) as number);
        placed.push({ pod, node: result.suggestedHost, diagnosis: result.diagnosis });
      } else {
        unplaced.push({ pod, diagnosis: result.diagnosis, message: result.diagnosis.message ?? '' });
      }
    }
    return { placed, unplaced };
  },
};
