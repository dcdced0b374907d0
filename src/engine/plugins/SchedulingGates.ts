// SchedulingGates (PreEnqueue) as upstream's schedulinggates plugin: a pod with scheduling gates
// does not enter the scheduling queue's active part until they are all removed; what it says names
// the gates as Go prints a list ("waiting for scheduling gates: [example.com/a example.com/b]").
// The queue holds gated pods (engine/queue); this plugin is the reason they are reported with.
import type { Pod } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type QueueingHint } from '../framework/events';
import { SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { Names } from './names';

export const NAME = Names.SchedulingGates;

/** upstream isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated: every gate gone, the pod may go. */
export function isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated(): QueueingHint {
  return 'Queue';
}

/** upstream EventsToRegister: the pod's last scheduling gate removed (the queue holds gated pods for every profile). */
export const EVENTS: readonly ClusterEventWithHint[] = [
  {
    event: clusterEvent('TargetPod', ActionType.UpdatePodSchedulingGatesEliminated),
    hint: isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated,
  },
];

export class SchedulingGates {
  readonly name = NAME;

  eventsToRegister(): readonly ClusterEventWithHint[] {
    return EVENTS;
  }

  preEnqueue(pod: Pod): Status {
    const gates = pod.spec.schedulingGates ?? [];
    return gates.length === 0 ? SUCCESS : unresolvable(`waiting for scheduling gates: [${gates.map((g) => g.name).join(' ')}]`);
  }
}

export const factory = factoryOf(noArgs(NAME), () => new SchedulingGates());
