// Pod sets: the pods of a namespace labelled planner.ciena.io/pod-set: <name> that are scheduled by
// the pod-set scheduler (spec.schedulerName podset-planner-scheduler, as Pallet deploys it). A pod
// with the label but another scheduler is not held back: its own scheduler places it.
import { DEFAULT_NAMESPACE, podKey, type Pod } from '../../api/types';
import { POD_SET_LABEL } from '../plan';

/** The scheduler name pods of a pod set carry (Pallet's deployment of its scheduler). */
export const POD_SET_SCHEDULER_NAME = 'podset-planner-scheduler';

export interface PodSetRef {
  readonly namespace: string;
  readonly name: string;
}

/** `namespace/name`, how pod sets are keyed and named in messages. */
export const podSetKey = (ref: PodSetRef): string => `${ref.namespace}/${ref.name}`;

/** The pod set a pod belongs to, if any: its label, and the pod-set scheduler as its scheduler. */
export function podSetOf(pod: Pod, schedulerName = POD_SET_SCHEDULER_NAME): PodSetRef | undefined {
  const name = pod.metadata.labels?.[POD_SET_LABEL];
  if (!name || pod.spec.schedulerName !== schedulerName) return undefined;
  return { namespace: pod.metadata.namespace ?? DEFAULT_NAMESPACE, name };
}

export interface PodSet extends PodSetRef {
  /** Every member, in a stable order (by name). */
  readonly pods: readonly Pod[];
  /** Members not bound to a node yet: what a plan places. */
  readonly pending: readonly Pod[];
  /** Members already bound (spec.nodeName), kept where they are. */
  readonly bound: readonly Pod[];
}

/** The members of pod set `ref` among `pods`, split into pending and bound. */
export function resolvePodSet(pods: readonly Pod[], ref: PodSetRef, schedulerName = POD_SET_SCHEDULER_NAME): PodSet {
  const members = pods.filter((pod) => {
    const set = podSetOf(pod, schedulerName);
    return set?.namespace === ref.namespace && set.name === ref.name;
  });
  members.sort((a, b) => (podKey(a) < podKey(b) ? -1 : podKey(a) > podKey(b) ? 1 : 0));
  return {
    ...ref,
    pods: members,
    pending: members.filter((p) => !p.spec.nodeName),
    bound: members.filter((p) => p.spec.nodeName),
  };
}

/** Every pod set the pods name, in order of first appearance. */
export function podSetsIn(pods: readonly Pod[], schedulerName = POD_SET_SCHEDULER_NAME): PodSetRef[] {
  const seen = new Map<string, PodSetRef>();
  for (const pod of pods) {
    const set = podSetOf(pod, schedulerName);
    if (set && !seen.has(podSetKey(set))) seen.set(podSetKey(set), set);
  }
  return [...seen.values()];
}
