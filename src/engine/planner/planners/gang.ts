// All or nothing: a pod set that is a gang runs only with at least its minimum of members placed.
// When a planner places fewer, the plan places none, and each pod says why: the gang's count, and
// for a pod that did not fit on its own, its own reason too. The verdict is recorded as a Permit
// rejection by PodSetPlanner, where upstream's coscheduling plugin holds a gang back.
import type { Diagnosis } from '../../framework/diagnosis';
import { Code, type Status } from '../../framework/status';
import { PLUGIN_NAME, type PlannerResult, type Unplaced } from '../planner';

export function gangMessage(podSet: string, minMember: number, placed: number, total: number): string {
  return `pod set ${podSet} is a gang of at least ${minMember} pods: only ${placed} of ${total} could be placed, so none is`;
}

/**
 * The result when, with the `bound` members already running, at least `minMember` members are
 * placed; else a result placing none.
 */
export function applyGang(
  result: PlannerResult,
  podSet: string,
  minMember: number,
  frame: { profile: string; nodesTotal: number },
  bound = 0,
): PlannerResult {
  const placed = bound + result.placed.length;
  if (placed >= minMember) return result;
  const message = gangMessage(podSet, minMember, placed, placed + result.unplaced.length);
  const status: Status = { code: Code.Unschedulable, reasons: [message], plugin: PLUGIN_NAME, stage: 'Permit' };
  const heldBack = result.placed.map(({ pod, diagnosis }): Unplaced => {
    const base: Diagnosis = diagnosis ?? {
      pod: pod.key,
      profile: frame.profile,
      nodesTotal: frame.nodesTotal,
      nodesEvaluated: 0,
      feasibleNodes: 0,
      status,
      rejections: [],
      filters: [],
      scores: [],
      stages: [],
    };
    const { chosenNode: _, ...rest } = base;
    return {
      pod,
      message,
      diagnosis: { ...rest, status, stages: [...rest.stages, { stage: 'Permit', plugin: PLUGIN_NAME, status }], message },
    };
  });
  const leftOut = result.unplaced.map((u): Unplaced => {
    const own = `${message}; this pod: ${u.message}`;
    return { ...u, message: own, diagnosis: { ...u.diagnosis, message: own } };
  });
  return { placed: [], unplaced: [...heldBack, ...leftOut] };
}
