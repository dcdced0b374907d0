// NodeDeclaredFeatures (PreFilter, Filter), GA and always on in 1.37: a pod that needs a node
// feature runs only on nodes that declare it (status.declaredFeatures, written by the kubelet). What
// a pod needs is inferred from its spec as component-helpers' nodedeclaredfeatures registry does
// for scheduling; with 1.37's default feature gates only one feature is inferred:
// RestartAllContainersOnContainerExits, for a container (or init container) with a restart rule
// whose action is RestartAllContainers. (UserNamespacesHostNetworkSupport and
// VolumeBindMountOptions are alpha and off: the API server drops the fields that would need them.)
// A pod that needs nothing skips the plugin.
import type { Container, Node, Pod } from '../api/types';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import type { CycleState } from '../framework/cycle-state';
import type { FilterPlugin, PreFilterPlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, unresolvable, type Status } from '../framework/status';
import { factoryOf, noArgs } from './args';
import { CycleValue } from './cycle-value';
import { Names } from './names';

export const NAME = Names.NodeDeclaredFeatures;

export const ERR_REASON_UNSATISFIED_REQUIREMENTS = "node(s) didn't match Pod's required features";

export const RESTART_ALL_CONTAINERS = 'RestartAllContainersOnContainerExits';

const REJECTED: Status = Object.freeze(unresolvable(ERR_REASON_UNSATISFIED_REQUIREMENTS));

/** The node features the pod needs, as upstream infers them for scheduling. */
export function requiredFeatures(pod: Pod): readonly string[] {
  const restartsAll = (c: Container) => (c.restartPolicyRules ?? []).some((rule) => rule.action === 'RestartAllContainers');
  return [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].some(restartsAll) ? [RESTART_ALL_CONTAINERS] : [];
}

export class NodeDeclaredFeatures implements PreFilterPlugin, FilterPlugin, EnqueueExtensions {
  readonly name = NAME;

  /** upstream EventsToRegister: a node added or its declared features changed; any update of the pod. */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeDeclaredFeature), hint: isSchedulableAfterNodeChange },
      { event: clusterEvent('TargetPod', ActionType.Update), hint: isSchedulableAfterTargetPodUpdate },
    ];
  }
  private readonly required = new CycleValue<readonly string[]>(`PreFilter${NAME}`);

  preFilter(state: CycleState, pod: PodInfo): { status: Status } {
    const features = requiredFeatures(pod.pod);
    if (features.length === 0) return { status: SKIP };
    this.required.write(state, features);
    return { status: SUCCESS };
  }

  filter(state: CycleState, _pod: PodInfo, node: NodeInfo): Status {
    const features = this.required.read(state) ?? [];
    const declared = node.node.status?.declaredFeatures ?? [];
    return features.every((f) => declared.includes(f)) ? SUCCESS : REJECTED;
  }

  /** The verdict depends on the node and the features asked for. */
  filterKey(state: CycleState): string {
    return (this.required.read(state) ?? []).join(',');
  }
}

/** upstream isSchedulableAfterTargetPodUpdate: the features the pod needs changed. */
export function isSchedulableAfterTargetPodUpdate(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  return requiredFeatures(oldObj as Pod).join() === requiredFeatures(newObj as Pod).join() ? 'QueueSkip' : 'Queue';
}

/** upstream isSchedulableAfterNodeChange: a node added, or its declared features changed. */
export function isSchedulableAfterNodeChange(_pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [original, modified] = [oldObj as Node | undefined, newObj as Node];
  if (original && (original.status?.declaredFeatures ?? []).join() === (modified.status?.declaredFeatures ?? []).join()) return 'QueueSkip';
  return 'Queue';
}

export const factory = factoryOf(noArgs(NAME), () => new NodeDeclaredFeatures());
