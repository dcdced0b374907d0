// What the Priority admission plugin does to a pod on its way into the API server, for pods read from
// files (a pod read from a cluster already carries spec.priority): the value of the PriorityClass it
// names, else of the globalDefault class, else 0; and the class's preemption policy when the pod
// states none. Preemption and the queue read only spec.priority and spec.preemptionPolicy.
import { podKey, type Pod, type PreemptionPolicy, type PriorityClass } from './types';

/** The classes every cluster has (scheduling.k8s.io's system classes). */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = [
  { metadata: { name: 'system-node-critical' }, value: 2000001000 },
  { metadata: { name: 'system-cluster-critical' }, value: 2000000000 },
];

export const DEFAULT_PREEMPTION_POLICY: PreemptionPolicy = 'PreemptLowerPriority';

/** spec.priority as admission resolved it; a pod without one has priority 0. */
export function podPriority(pod: Pod): number {
  return pod.spec.priority ?? 0;
}

export interface ResolvedPods {
  readonly pods: readonly Pod[];
  /** Pods admission would refuse (a class that does not exist), with its message. */
  readonly refused: readonly { readonly pod: string; readonly error: string }[];
}

/**
 * The pods as admission leaves them. A pod that already has spec.priority is taken as it is; pods
 * needing no change are the same objects. The globalDefault class with the lowest value wins when
 * several claim it (the API server allows only one; a workspace may hold more).
 */
export function resolvePriorities(pods: readonly Pod[], classes: readonly PriorityClass[] = []): ResolvedPods {
  const byName = new Map<string, PriorityClass>();
  for (const c of [...SYSTEM_PRIORITY_CLASSES, ...classes]) byName.set(c.metadata.name, c);
  let globalDefault: PriorityClass | undefined;
  for (const c of classes) if (c.globalDefault && (!globalDefault || c.value < globalDefault.value)) globalDefault = c;
  const out: Pod[] = [];
  const refused: Array<{ pod: string; error: string }> = [];
  for (const pod of pods) {
    if (pod.spec.priority !== undefined) {
      out.push(pod);
      continue;
    }
    const name = pod.spec.priorityClassName;
    const found = name ? byName.get(name) : globalDefault;
    if (name && !found) {
      refused.push({ pod: podKey(pod), error: `pods "${pod.metadata.name}" is forbidden: no PriorityClass with name ${name} was found` });
      continue;
    }
    if (!found) {
      out.push(pod);
      continue;
    }
    const preemptionPolicy = pod.spec.preemptionPolicy ?? found.preemptionPolicy ?? DEFAULT_PREEMPTION_POLICY;
    out.push({ ...pod, spec: { ...pod.spec, priorityClassName: found.metadata.name, priority: found.value, preemptionPolicy } });
  }
  return { pods: out, refused };
}
