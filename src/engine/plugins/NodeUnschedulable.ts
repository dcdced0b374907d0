// NodeUnschedulable (Filter): a cordoned node (spec.unschedulable) takes no new pods, unless the pod
// tolerates the taint node.kubernetes.io/unschedulable:NoSchedule that cordoning implies.
import { TAINT_NODE_UNSCHEDULABLE, tolerationsTolerateTaint } from '../api/taints';
import type { Node, Pod, Taint } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.NodeUnschedulable;

export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';

const UNSCHEDULABLE_TAINT: Taint = Object.freeze({ key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' });
const REJECTED: Status = Object.freeze(unresolvable(ERR_REASON_UNSCHEDULABLE));

export class NodeUnschedulable implements FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a node added or its taints (or cordon) changed; a toleration added to the pod. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeTaint), hint: isSchedulableAfterNodeChange },
      { event: clusterEvent('TargetPod', ActionType.UpdatePodToleration), hint: isSchedulableAfterTargetPodTolerationChange },
    ];
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    if (!node.node.spec?.unschedulable) return SUCCESS;
    return tolerationsTolerateTaint(pod.pod.spec.tolerations, UNSCHEDULABLE_TAINT) ? SUCCESS : REJECTED;
  }

  /** The verdict depends on the node and whether the pod tolerates the cordon. */
  filterKey(_state: CycleState, pod: PodInfo): string {
    return tolerationsTolerateTaint(pod.pod.spec.tolerations, UNSCHEDULABLE_TAINT) ? 'tolerates' : '';
  }
}

/** upstream isSchedulableAfterTargetPodTolerationChange: the pod now tolerates the cordon's taint. */
export function isSchedulableAfterTargetPodTolerationChange(_pod: Pod, _oldObj: unknown, newObj: unknown): QueueingHint {
  return tolerationsTolerateTaint((newObj as Pod).spec.tolerations, UNSCHEDULABLE_TAINT) ? 'Queue' : 'QueueSkip';
}

/** upstream isSchedulableAfterNodeChange: a node uncordoned, or added schedulable. */
export function isSchedulableAfterNodeChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [original, modified] = [oldObj as Node | undefined, newObj as Node];
  if ((original && original.spec?.unschedulable && !modified.spec?.unschedulable) || (!original && !modified.spec?.unschedulable))
    return 'Queue';
  return 'QueueSkip';
}

export const factory = factoryOf(noArgs(NAME), () => new NodeUnschedulable());
