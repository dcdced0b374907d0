// A DaemonSet runs one pod on each node its pod may run on, decided as upstream's daemon controller
// does (NodeShouldRunDaemonPod): the template's nodeName, its required node affinity (nodeSelector
// and required terms) and the node's NoSchedule/NoExecute taints, after the tolerations the
// controller adds to every daemon pod. Each pod is then pinned to its node by required node
// affinity on metadata.name, as upstream does, and scheduled like any pod.
//
// The eligibility check is `runsDaemonPod` here, a small matcher of our own; `daemonSetPods` takes
// any predicate instead, so a caller can pass one built on the engine's NodeAffinity and
// TaintToleration plugins.
import type { Node, NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec, Taint, Toleration } from '../engine/api/types';
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

function integerOf(text: string | undefined): number | undefined {
  return text !== undefined && /^-?\d+$/.test(text) ? Number(text) : undefined;
}

function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      // Both sides must be integers; anything else does not match.
      const have = integerOf(value);
      const bound = values.length === 1 ? integerOf(values[0]) : undefined;
      if (have === undefined || bound === undefined) return false;
      return req.operator === 'Gt' ? have > bound : have < bound;
    }
    default:
      return false;
  }
}

/** A term matches when it has at least one requirement and all hold; matchFields knows metadata.name only. */
function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  return (
    expressions.every((r) => requirementMatches(r, labels[r.key])) &&
    fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata.name))
  );
}

/** nodeSelector and required node affinity (terms ORed), as upstream's GetRequiredNodeAffinity. */
export function requiredNodeAffinityMatches(spec: PodSpec, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return !required || required.nodeSelectorTerms.some((t) => termMatches(t, node));
}

export function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** Our eligibility check: nodeName, required node affinity, and NoSchedule/NoExecute taints tolerated. */
export const runsDaemonPod: NodeEligibility = (pod, node) => {
  if (pod.spec.nodeName && pod.spec.nodeName !== node.metadata.name) return false;
  if (!requiredNodeAffinityMatches(pod.spec, node)) return false;
  const tolerations = pod.spec.tolerations ?? [];
  return (node.spec?.taints ?? []).every((t) => t.effect === 'PreferNoSchedule' || tolerations.some((tol) => tolerates(tol, t)));
};

function withDaemonTolerations(spec: PodSpec): PodSpec {
  const have = spec.tolerations ?? [];
  const missing = DAEMON_POD_TOLERATIONS.filter((d) => !have.some((t) => t.key === d.key && t.operator === d.operator && t.effect === d.effect && !t.value));
  return missing.length === 0 ? spec : { ...spec, tolerations: [...have, ...missing] };
}

/** Replaces the required node affinity by one term selecting the node by name (ReplaceDaemonSetPodNodeNameNodeAffinity). */
function pinnedTo(spec: PodSpec, nodeName: string): PodSpec {
  const affinity = spec.affinity ?? {};
  const term: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  return {
    ...spec,
    affinity: { ...affinity, nodeAffinity: { ...affinity.nodeAffinity, requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [term] } } },
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
