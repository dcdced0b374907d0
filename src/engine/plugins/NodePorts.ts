// NodePorts: PreFilter collects the host ports the pod asks for (Skip when none); Filter rejects a
// node where one of them is already taken (0.0.0.0 clashes with every address).
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin, PreFilterPlugin, PreFilterResult } from '../framework/interfaces';
import type { Pod } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import { HostPorts, podHostPorts, type HostPort, type NodeInfo, type PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, unschedulable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { keyPerPod } from '../framework/caches';
import { Names } from './names';

export const NAME = Names.NodePorts;

export const ERR_REASON = "node(s) didn't have free ports for the requested pod ports";

const CONFLICT: Status = Object.freeze(unschedulable(ERR_REASON));

export class NodePorts implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a bound pod deleted (ports are immutable, so pod updates are not); a node added (no hint). */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('AssignedPod', ActionType.Delete), hint: isSchedulableAfterAssignedPodDeleted },
      { event: clusterEvent('Node', ActionType.Add) },
    ];
  }
  private readonly portsKey = keyPerPod((pod) => podHostPorts(pod).map((p) => [p.hostIP, p.protocol, p.hostPort]));
  private readonly preFilterState = new CycleValue<readonly HostPort[]>(`PreFilter${NAME}`);

  preFilter(state: CycleState, pod: PodInfo): { status: Status; result?: PreFilterResult } {
    const ports = pod.hostPorts;
    if (ports.length === 0) return { status: SKIP };
    this.preFilterState.write(state, ports);
    return { status: SUCCESS };
  }

  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const wanted = this.preFilterState.read(state) ?? pod.hostPorts;
    for (const p of wanted) if (node.usedPorts.conflicts(p.hostIP, p.protocol, p.hostPort)) return CONFLICT;
    return SUCCESS;
  }

  filterKey(_state: CycleState, pod: PodInfo): string {
    return this.portsKey(pod.pod);
  }
}

/** upstream isSchedulableAfterAssignedPodDeleted: the deleted pod was bound (or nominated) and held a host port the pod wants. */
export function isSchedulableAfterAssignedPodDeleted(pod: Pod, oldObj: unknown): QueueingHint {
  const deleted = oldObj as Pod;
  if (!deleted.spec.nodeName && !deleted.status?.nominatedNodeName) return 'QueueSkip';
  const freed = podHostPorts(deleted);
  if (freed.length === 0) return 'QueueSkip';
  const inUse = new HostPorts();
  for (const p of freed) inUse.add(p.hostIP, p.protocol, p.hostPort, 1);
  return podHostPorts(pod).some((p) => inUse.conflicts(p.hostIP, p.protocol, p.hostPort)) ? 'Queue' : 'QueueSkip';
}

export const factory = factoryOf(noArgs(NAME), () => new NodePorts());
