// Carrying a placement out as the scheduler will: pod by pod in queue order, each placement
// checked by every filter plugin on the cluster as planned so far. Every planner's targets go
// through it, so the engine, not the planner, has the last word on what fits.
import type { PodInfo } from '../../framework/node-info';
import { planningState, queueOrder, type Placement, type PlannerResult, type PlanRequest, type Unplaced } from '../planner';
import { Search, UNPLACED } from './search';

/**
 * The placement carried out in queue order on a fresh copy: each pod to its target when it still
 * fits there at its turn, else to the best node then; pods left out are retried while a pass
 * places one (as the scheduler retries them); the rest get the diagnosis of a scheduling cycle.
 */
export function replay(request: PlanRequest, targets: ReadonlyMap<PodInfo, string>): PlannerResult {
  const search = new Search(queueOrder(request.framework, request.pods), request);
  const placed: Placement[] = [];
  const place = (pod: number, node: number) => {
    search.place(pod, node);
    placed.push({ pod: search.pods[pod] as PodInfo, node: search.node(node).name });
  };
  let waiting: number[] = [];
  search.pods.forEach((pod, i) => {
    const target = targets.get(pod);
    const node = target === undefined ? undefined : search.whatIf.indexOf(target);
    if (node !== undefined && search.feasibility.fits(pod, node)) place(i, node);
    else waiting.push(i);
  });
  for (let progress = true; progress && waiting.length > 0;) {
    progress = false;
    const still: number[] = [];
    for (const pod of waiting) {
      const node = search.choose(pod);
      if (node === UNPLACED) still.push(pod);
      else {
        place(pod, node);
        progress = true;
      }
    }
    waiting = still;
  }
  const unplaced: Unplaced[] = [];
  for (const i of waiting) {
    const pod = search.pods[i] as PodInfo;
    const cycle = request.framework.scheduleOne(planningState(pod, request.eligible), pod, search.whatIf.snapshot);
    // The cycle asks the same filters as `choose`, so it finds no node either; if it ever did, the pod goes there.
    if (cycle.ok) place(i, search.whatIf.indexOf(cycle.suggestedHost) as number);
    else unplaced.push({ pod, diagnosis: cycle.diagnosis, message: cycle.diagnosis.message ?? '' });
  }
  return { placed, unplaced };
}
