// NodeDeclaredFeatures (PreFilter, Filter), GA and always on in 1.37: a pod that needs a node
// feature runs only on nodes that declare it (status.declaredFeatures, written by the kubelet). What
// a pod needs is inferred from its spec as component-helpers' nodedeclaredfeatures registry does
// for scheduling; with 1.37's default feature gates only one feature is inferred:
// RestartAllContainersOnContainerExits, for a container (or init container) with a restart rule
// whose action is RestartAllContainers. (UserNamespacesHostNetworkSupport and
// VolumeBindMountOptions are alpha and off: the API server drops the fields that would need them.)
// A pod that needs nothing skips the plugin.
import type { Container, Pod } from '../api/types';
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

export class NodeDeclaredFeatures implements PreFilterPlugin, FilterPlugin {
  readonly name = NAME;
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

export const factory = factoryOf(noArgs(NAME), () => new NodeDeclaredFeatures());
