// TaintToleration: Filter keeps a pod off nodes with a NoSchedule or NoExecute taint it does not
// tolerate; Score counts the PreferNoSchedule taints it does not tolerate, and NormalizeScore reverses
// the counts so the node with the fewest scores 100.
import { findUntoleratedTaint, isDoNotScheduleTaint, tolerationsTolerateTaint } from '../api/taints';
import type { Node, Pod, Toleration } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { CycleState } from '../framework/cycle-state';
import { MAX_NODE_SCORE, type FilterPlugin, type NodeScore, type PreScorePlugin, type ScorePlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { defaultNormalizeScore } from './normalize';
import { keyPerPod } from '../framework/caches';
import { Names } from './names';

export const NAME = Names.TaintToleration;

/**
 * The Filter reason since 1.35: one histogram entry for every untolerated taint. The taint's key and
 * value are no longer printed (they may be sensitive); before 1.35 it read `untolerated taint {k: v}`.
 */
export const ERR_REASON_UNTOLERATED = 'node(s) had untolerated taint(s)';

/** One frozen rejection shared by every cycle. */
const REJECTION: Status = Object.freeze(unresolvable(ERR_REASON_UNTOLERATED));

export class TaintToleration implements FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a node added or its taints changed; a toleration added to the pod. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeTaint), hint: isSchedulableAfterNodeChange },
      { event: clusterEvent('TargetPod', ActionType.UpdatePodToleration), hint: isSchedulableAfterTargetPodTolerationChange },
    ];
  }
  /** Filter and Score read the pod's tolerations only. */
  private readonly tolerationsKey = keyPerPod((pod) => pod.spec.tolerations ?? []);
  /** The pod's tolerations that can tolerate a PreferNoSchedule taint (that effect, or every effect). */
  private readonly preScoreState = new CycleValue<readonly Toleration[]>(`PreScore${NAME}`);

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const taint = findUntoleratedTaint(node.node.spec?.taints, pod.pod.spec.tolerations, isDoNotScheduleTaint);
    return taint ? REJECTION : SUCCESS;
  }

  filterKey(_state: CycleState, pod: PodInfo): string {
    return this.tolerationsKey(pod.pod);
  }

  scoreKey(_state: CycleState, pod: PodInfo): string {
    return this.tolerationsKey(pod.pod);
  }

  preScore(state: CycleState, pod: PodInfo): Status {
    this.preScoreState.write(state, preferNoScheduleTolerations(pod));
    return SUCCESS;
  }

  score(state: CycleState, pod: PodInfo, node: NodeInfo): number {
    const taints = node.node.spec?.taints;
    if (!taints) return 0;
    const tolerations = this.preScoreState.read(state) ?? preferNoScheduleTolerations(pod);
    let intolerable = 0;
    for (const taint of taints) {
      if (taint.effect === 'PreferNoSchedule' && !tolerationsTolerateTaint(tolerations, taint)) intolerable++;
    }
    return intolerable;
  }

  normalizeScore(_state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return SUCCESS;
  }
}

function preferNoScheduleTolerations(pod: PodInfo): readonly Toleration[] {
  return (pod.pod.spec.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
}

/** upstream isSchedulableAfterNodeChange: the node had a NoSchedule/NoExecute taint the pod does not tolerate (or is new) and has none now. */
export function isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [original, modified] = [oldObj as Node | undefined, newObj as Node];
  const tolerations = pod.spec.tolerations;
  const wasUntolerated = original ? findUntoleratedTaint(original.spec?.taints, tolerations, isDoNotScheduleTaint) !== undefined : true;
  const isUntolerated = findUntoleratedTaint(modified.spec?.taints, tolerations, isDoNotScheduleTaint) !== undefined;
  return wasUntolerated && !isUntolerated ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterTargetPodTolerationChange: any toleration added may help. */
export function isSchedulableAfterTargetPodTolerationChange(): QueueingHint {
  return 'Queue';
}

export const factory = factoryOf(noArgs(NAME), () => new TaintToleration());
