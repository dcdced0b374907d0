// NodeName (Filter): a pod that names its node (spec.nodeName) fits only that node.
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin } from '../framework/interfaces';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions } from '../framework/events';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.NodeName;

export const ERR_REASON = "node(s) didn't match the requested node name";

const MISMATCH: Status = Object.freeze(unresolvable(ERR_REASON));

export class NodeName implements FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a node added (no hint: every one queues). */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [{ event: clusterEvent('Node', ActionType.Add) }];
  }

  filter(_state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const wanted = pod.pod.spec.nodeName;
    return !wanted || wanted === node.name ? SUCCESS : MISMATCH;
  }

  filterKey(_state: CycleState, pod: PodInfo): string {
    return pod.pod.spec.nodeName ?? '';
  }
}

export const factory = factoryOf(noArgs(NAME), () => new NodeName());
