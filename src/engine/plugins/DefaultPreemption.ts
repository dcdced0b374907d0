// DefaultPreemption (PostFilter): when no node fits, the node where evicting the fewest and least
// important lower-priority pods makes room (framework/preemption does the work); its message is
// upstream's, prefixed "preemption: ". In a cycle that only reports (a plan whose profile does not
// let plans preempt) the node and victims are said and nothing is nominated; when preemption could
// not help, such a cycle says nothing.
import { fieldInvalid, type ArgsError } from '../api/field';
import { type Result } from '../api/result';
import type { CycleState } from '../framework/cycle-state';
import type { Pod } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type QueueingHint } from '../framework/events';
import type { PostFilterPlugin, PostFilterResult, PreEnqueuePlugin } from '../framework/interfaces';
import type { PodInfo } from '../framework/node-info';
import { DEFAULT_PREEMPTION_ARGS, Evaluator, type PreemptionArgs } from '../framework/preemption/evaluator';
import { PREEMPTION_MODE } from '../framework/preemption/record';
import { Code, SKIP, SUCCESS, unresolvable, type Status } from '../framework/status';
import { ArgsReader, factoryOf } from './args';
import { Names } from './names';

export const NAME = Names.DefaultPreemption;

/** Upstream's PreEnqueue words for a pod whose preemption is still being carried out. */
export const WAITING_FOR_PREEMPTION = 'waiting for the preemption for this pod to be finished';

export class DefaultPreemption implements PostFilterPlugin, PreEnqueuePlugin {
  readonly name = NAME;

  constructor(
    private readonly evaluator: Evaluator,
    private readonly preemptionRunning?: (pod: Pod) => boolean,
  ) {}

  /**
   * upstream EventsToRegister with async preemption (on in 1.37): a bound pod's deletion, whose hint
   * says QueueSkip (the preemptor is let in when its preemption is carried out: ForceActivate).
   */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [{ event: clusterEvent('AssignedPod', ActionType.Delete), hint: isPodSchedulableAfterAssignedPodDeletion }];
  }

  /**
   * Upstream 1.37's PreEnqueue (async preemption): a pod whose victims are still being evicted for it
   * is held until that is done, so it does not preempt again meanwhile.
   */
  preEnqueue(pod: Pod): Status {
    return this.preemptionRunning?.(pod) ? unresolvable(WAITING_FOR_PREEMPTION) : SUCCESS;
  }

  postFilter(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): { status: Status; result?: PostFilterResult } {
    const outcome = this.evaluator.preempt(state, pod, statuses);
    const record = outcome.record;
    const reportOnly = state.read(PREEMPTION_MODE) === 'report';
    if (outcome.status.code === Code.Success && outcome.node && record) {
      if (reportOnly) {
        const victims = (outcome.victims ?? []).map((v) => v.key).join(', ');
        const message = `preemption: evicting ${victims} from node ${outcome.node} would make room; plans do not preempt unless the profile allows it (PodSetPlanner args: allowPreemption: true).`;
        return { status: { code: Code.Unschedulable, reasons: [message] }, result: { preemption: { ...record, reportOnly: true } } };
      }
      // Upstream 1.37's success message, which the FitError message then ends with.
      const found = `preemption: found a potential placement for pod on node ${outcome.node}, preempting ${outcome.victims?.length ?? 0} victims`;
      return {
        status: { code: Code.Success, reasons: [found] },
        result: { nominatedNode: outcome.node, victims: outcome.victims ?? [], preemption: record },
      };
    }
    // A plan that may not preempt says only what preemption could do, not why it could not.
    if (reportOnly && outcome.status.code !== Code.Error) return { status: SKIP };
    const reasons = outcome.status.reasons.map((r) => `preemption: ${r}`);
    return { status: { ...outcome.status, reasons }, ...(record ? { result: { preemption: record } } : {}) };
  }
}

/** upstream isPodSchedulableAfterAssignedPodDeletion: never (the hold ends when the preemption is done). */
export function isPodSchedulableAfterAssignedPodDeletion(): QueueingHint {
  return 'QueueSkip';
}

/** DefaultPreemptionArgs, checked as upstream ValidateDefaultPreemptionArgs does. */
export function preemptionArgs(args: unknown): Result<PreemptionArgs, ArgsError> {
  const reader = new ArgsReader(NAME);
  const a = reader.object(args, [], ['minCandidateNodesPercentage', 'minCandidateNodesAbsolute']) ?? {};
  const percentage =
    reader.int(a['minCandidateNodesPercentage'], ['minCandidateNodesPercentage']) ?? DEFAULT_PREEMPTION_ARGS.minCandidateNodesPercentage;
  const absolute =
    reader.int(a['minCandidateNodesAbsolute'], ['minCandidateNodesAbsolute']) ?? DEFAULT_PREEMPTION_ARGS.minCandidateNodesAbsolute;
  if (percentage < 0 || percentage > 100)
    reader.errors.push(fieldInvalid(['minCandidateNodesPercentage'], percentage, 'not in valid range [0, 100]'));
  if (absolute < 0) reader.errors.push(fieldInvalid(['minCandidateNodesAbsolute'], absolute, 'not in valid range [0, inf)'));
  if (percentage === 0 && absolute === 0) {
    reader.errors.push(
      fieldInvalid(['minCandidateNodesPercentage'], percentage, 'cannot be zero at the same time as minCandidateNodesAbsolute'),
      fieldInvalid(['minCandidateNodesAbsolute'], absolute, 'cannot be zero at the same time as minCandidateNodesPercentage'),
    );
  }
  return reader.result({ minCandidateNodesPercentage: percentage, minCandidateNodesAbsolute: absolute });
}

export const factory = factoryOf(
  preemptionArgs,
  (args, handle) => new DefaultPreemption(new Evaluator(handle, args), handle.preemptionRunning),
);
