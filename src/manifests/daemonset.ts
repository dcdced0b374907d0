// A DaemonSet runs one pod on each node its pod may run on, decided as upstream's daemon controller
// does (NodeShouldRunDaemonPod): the template's nodeName, its required node affinity (nodeSelector
// and required terms) and the node's NoSchedule/NoExecute taints, after the tolerations the
// controller adds to every daemon pod. Each pod is then pinned to its node by required node
// affinity on metadata.name, as upstream does, and scheduled like any pod.
//
// The eligibility check is `runsDaemonPod`, built on the engine's node-affinity and taint matchers;
// `daemonSetPods` takes any predicate instead.
import { requiredNodeAffinity } from '../engine/api/node-affinity';
import { findUntoleratedTaint, isDoNotScheduleTaint } from '../engine/api/taints';
import type { Node, NodeSelectorTerm, Pod, PodSpec, Toleration } from '../engine/api/types';
import { podFromTemplate, type Workload } from './workloads';

export type NodeEligibility = (pod: Pod, node: Node) => boolean;

/** Tolerations upstream adds to daemon pods (AddOrUpdateDaemonPodTolerations; hostNetwork's is not modelled). */
export const DAEMON_POD_TOLERATIONS: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

/** The eligibility check: nodeName, required node affinity, and NoSchedule/NoExecute taints tolerated (the engine's matchers). */
export const runsDaemonPod: NodeEligibility = (pod, node) =>
  (!pod.spec.nodeName || pod.spec.nodeName === node.metadata.name) &&
  requiredNodeAffinity(pod).matches(node) &&
  !findUntoleratedTaint(node.spec?.taints, pod.spec.tolerations, isDoNotScheduleTaint);

function withDaemonTolerations(spec: PodSpec): PodSpec {
  const have = spec.tolerations ?? [];
  const missing = DAEMON_POD_TOLERATIONS.filter(
    (d) => !have.some((t) => t.key === d.key && t.operator === d.operator && t.effect === d.effect && !t.value),
  );
  return missing.length === 0 ? spec : { ...spec, tolerations: [...have, ...missing] };
}

/** Replaces the required node affinity by one term selecting the node by name (ReplaceDaemonSetPodNodeNameNodeAffinity). */
function pinnedTo(spec: PodSpec, nodeName: string): PodSpec {
  const affinity = spec.affinity ?? {};
  const term: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  return {
    ...spec,
    affinity: {
      ...affinity,
      nodeAffinity: { ...affinity.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } },
    },
  };
}

/** One pod per eligible node, named `<daemonset>-<node>` (upstream: `<daemonset>-<random>`). */
export function daemonSetPods(ds: Workload, nodes: readonly Node[], eligible: NodeEligibility = runsDaemonPod): Pod[] {
  const spec = withDaemonTolerations(ds.template.spec);
  const pods: Pod[] = [];
  for (const node of nodes) {
    const name = `${ds.metadata.name}-${node.metadata.name}`;
    const candidate = podFromTemplate(ds, name, {}, spec);
    if (!eligible(candidate, node)) continue;
    pods.push(spec.nodeName ? candidate : podFromTemplate(ds, name, {}, pinnedTo(spec, node.metadata.name)));
  }
  return pods;
}
