// Nominated pods in Filter, as upstream's RunFilterPluginsWithNominatedPods and addGENominatedPods
// (pkg/scheduler/framework/runtime/framework.go): a pod nominated to a node (a preemptor waiting
// for its victims to go, or a pending pod whose status.nominatedNodeName says so) holds its room
// there against pods of lower or equal priority. Filter runs on the node with the nominated pods of
// priority ≥ the pod's added (through the PreFilter AddPod extensions, on copies), and, when any
// were added and that passed, once more without them: a pod must fit both ways (upstream keeps the
// second pass for the pod affinity case, where a nominated pod might be what satisfies the pod).
import { podPriority } from '../../api/priority';
import { StateKey, type CycleState } from '../cycle-state';
import type { PodEvaluator } from '../interfaces';
import type { NodeInfo, PodInfo } from '../node-info';
import { Code, errorStatus, isSuccess, statusMessage, type Status } from '../status';

/** Pods nominated to nodes (upstream's nominator, kept by the scheduling queue). */
export class NominatedPods {
  private readonly byNode = new Map<string, PodInfo[]>();
  /** pod id → node */
  private readonly nodeOf = new Map<string, string>();

  get size(): number {
    return this.nodeOf.size;
  }

  /** Nominates the pod to `node`, in place of an earlier nomination. */
  nominate(pod: PodInfo, node: string): void {
    this.remove(pod.id);
    this.nodeOf.set(pod.id, node);
    const pods = this.byNode.get(node);
    if (pods) pods.push(pod);
    else this.byNode.set(node, [pod]);
  }

  remove(id: string): void {
    const node = this.nodeOf.get(id);
    if (node === undefined) return;
    this.nodeOf.delete(id);
    const left = (this.byNode.get(node) ?? []).filter((p) => p.id !== id);
    if (left.length > 0) this.byNode.set(node, left);
    else this.byNode.delete(node);
  }

  nodeOfPod(id: string): string | undefined {
    return this.nodeOf.get(id);
  }

  forNode(node: string): readonly PodInfo[] | undefined {
    return this.byNode.get(node);
  }
}

/** The nominated pods a cycle counts (the scheduler writes them into the cycle's state when there are any). */
export const NOMINATED_PODS = new StateKey<NominatedPods>('NominatedPods');

/** The cycle's nominated pods; undefined when there are none, so the usual cycle pays one lookup. */
export function nominatedPodsOf(state: CycleState): NominatedPods | undefined {
  const nominated = state.read(NOMINATED_PODS);
  return nominated && nominated.size > 0 ? nominated : undefined;
}

/**
 * Upstream addGENominatedPods: copies of the node and state with the pods nominated to the node
 * whose priority is at least the pod's (not the pod itself) added, or nothing when there are none.
 * An AddPod extension that fails is an Error.
 */
function addNominatedPods(
  evaluator: PodEvaluator,
  state: CycleState,
  pod: PodInfo,
  node: NodeInfo,
  nominated: NominatedPods,
): { state: CycleState; node: NodeInfo } | Status | undefined {
  const priority = podPriority(pod.pod);
  const adding = (nominated.forNode(node.name) ?? []).filter((p) => p.id !== pod.id && podPriority(p.pod) >= priority);
  if (adding.length === 0) return undefined;
  const nodeOut = node.clone();
  const stateOut = state.clone();
  for (const p of adding) {
    nodeOut.addPod(p);
    const status = evaluator.preFilterAddPod(stateOut, pod, p, nodeOut);
    if (!isSuccess(status))
      return {
        ...errorStatus(`running AddPod on PreFilter plugin ${JSON.stringify(status.plugin ?? '')}: ${statusMessage(status)}`),
        ...(status.plugin !== undefined ? { plugin: status.plugin } : {}),
        stage: 'PreFilter',
      };
  }
  return { state: stateOut, node: nodeOut };
}

/** Upstream RunFilterPluginsWithNominatedPods: the Filter plugins on the node with its nominated pods, then without them. */
export function filterWithNominatedPods(
  evaluator: PodEvaluator,
  state: CycleState,
  pod: PodInfo,
  node: NodeInfo,
  nominated: NominatedPods,
): Status {
  const added = addNominatedPods(evaluator, state, pod, node, nominated);
  if (added === undefined) return evaluator.filterNode(state, pod, node);
  if ('code' in added) return added;
  const withThem = evaluator.filterNode(added.state, pod, added.node);
  if (withThem.code !== Code.Success) return withThem;
  return evaluator.filterNode(state, pod, node);
}

/** The Filter plugins on one node as a cycle runs them: with the node's nominated pods when the state carries any. */
export function filterCountingNominated(evaluator: PodEvaluator, state: CycleState, pod: PodInfo, node: NodeInfo): Status {
  const nominated = nominatedPodsOf(state);
  return nominated ? filterWithNominatedPods(evaluator, state, pod, node, nominated) : evaluator.filterNode(state, pod, node);
}
