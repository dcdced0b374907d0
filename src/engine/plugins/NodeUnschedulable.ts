// NodeUnschedulable (Filter): a cordoned node (spec.unschedulable) takes no new pods, unless the pod
// tolerates the taint node.kubernetes.io/unschedulable:NoSchedule that cordoning implies.
import { TAINT_NODE_UNSCHEDULABLE, tolerationsTolerateTaint } from '../api/taints';
import type { Taint } from '../api/types';
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

export class NodeUnschedulable implements FilterPlugin {
  readonly name = NAME;

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    if (!node.node.spec?.unschedulable) return SUCCESS;
    return tolerationsTolerateTaint(pod.pod.spec.tolerations, UNSCHEDULABLE_TAINT) ? SUCCESS : REJECTED;
  }

  /** The verdict depends on the node and whether the pod tolerates the cordon. */
  filterKey(_state: CycleState, pod: PodInfo): string {
    return tolerationsTolerateTaint(pod.pod.spec.tolerations, UNSCHEDULABLE_TAINT) ? 'tolerates' : '';
  }
}

export const factory = factoryOf(noArgs(NAME), () => new NodeUnschedulable());
