// Pallet's default planner, reproduced so a Pallet user compares like with like (written from its
// behaviour, github.com/ciena/pallet internal/pkg/planner and pkg/podpredicates):
// - pods in the order the API lists them (namespace, then name);
// - candidate nodes: those without a NoSchedule/NoExecute taint, whatever the pod tolerates (when
//   there are none: the nodes that also carry a PreferNoSchedule taint);
// - its three predicates, all required: PodFitsNode (NoSchedule taints tolerated, node selector and
//   required node affinity, the request within the node's allocatable, not what is left of it),
//   PodAntiAffinity (no pod on the node, already there or planned there, matches one of the pod's
//   anti-affinity terms, required or preferred: preferred terms count as required) and
//   PodIsADuplicate (no pod on the node with the same owners and images);
// - among the nodes that pass, one at random (its score predicates give every node the same score),
//   from the framework's seeded random source, so a seed gives the same plan.
import { requiredNodeAffinity } from '../../api/node-affinity';
import { compileSelector } from '../../api/labels';
import { findUntoleratedTaint } from '../../api/taints';
import { DEFAULT_NAMESPACE, type Node, type Pod, type PodAffinityTerm } from '../../api/types';
import type { Diagnosis, NodeRejection } from '../../framework/diagnosis';
import { fitErrorMessage } from '../../framework/fit-error';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { Code } from '../../framework/status';
import type { Placement, Planner, PlanRequest, Unplaced } from '../planner';
import { WhatIf } from '../search/what-if';

export const PALLET = 'pallet';

/** Pallet's predicate names, as its rejections are attributed. */
export const PALLET_PREDICATES = { fits: 'PodFitsNode', antiAffinity: 'PodAntiAffinity', duplicate: 'PodIsADuplicate' } as const;

function candidateNodes(nodes: readonly NodeInfo[]): NodeInfo[] {
  const effects = (n: NodeInfo) => new Set((n.node.spec?.taints ?? []).map((t) => t.effect));
  const free = nodes.filter((n) => {
    const e = effects(n);
    return !e.has('NoSchedule') && !e.has('NoExecute');
  });
  return free.length > 0 ? free : nodes.filter((n) => effects(n).has('PreferNoSchedule'));
}

/** Why PodFitsNode rejects the pod on the node, or undefined when it fits. */
function fitsNode(pod: PodInfo, node: NodeInfo): string | undefined {
  if (findUntoleratedTaint(node.node.spec?.taints, pod.pod.spec.tolerations, (t) => t.effect === 'NoSchedule'))
    return "node(s) had taints that the pod didn't tolerate";
  if (!requiredNodeAffinity(pod.pod).matches(node.node as Node)) return "node(s) didn't match Pod's node affinity/selector";
  const r = pod.requests;
  const a = node.allocatable;
  const short: string[] = [];
  if (a.milliCPU < r.milliCPU) short.push('cpu');
  if (a.memory < r.memory) short.push('memory');
  for (const [name, value] of r.scalar) if ((a.scalar.get(name) ?? 0) < value) short.push(name);
  return short.length > 0 ? short.map((s) => `Insufficient ${s}`).join(', ') : undefined;
}

function antiAffinityTerms(pod: Pod): PodAffinityTerm[] {
  const anti = pod.spec.affinity?.podAntiAffinity;
  return [
    ...(anti?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(anti?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => w.podAffinityTerm),
  ];
}

function violatesAntiAffinity(pod: Pod, others: readonly Pod[]): boolean {
  const own = pod.metadata.namespace ?? DEFAULT_NAMESPACE;
  for (const term of antiAffinityTerms(pod)) {
    // A term without namespaces means the pod's own (namespaceSelector is not read by Pallet's predicate).
    const namespaces = term.namespaces?.length ? term.namespaces : [own];
    const matches = compileSelector(term.labelSelector);
    for (const other of others) {
      if (
        other.metadata.name !== pod.metadata.name &&
        namespaces.includes(other.metadata.namespace ?? DEFAULT_NAMESPACE) &&
        matches(other.metadata.labels ?? {})
      )
        return true;
    }
  }
  return false;
}

/** namespace/ownerKind/ownerName/image for each owner and container, sorted: two pods with the same keys are duplicates. */
function duplicateKey(pod: Pod): string {
  const keys: string[] = [];
  for (const owner of pod.metadata.ownerReferences ?? [])
    for (const c of pod.spec.containers) keys.push([pod.metadata.namespace ?? '', owner.kind, owner.name, c.image ?? ''].join('/'));
  return keys.sort().join('\n');
}

export const pallet: Planner = {
  name: PALLET,
  plan({ pods, snapshot, framework, eligible }: PlanRequest) {
    const whatIf = new WhatIf(snapshot);
    const random = framework.handle.random;
    const candidates = candidateNodes(whatIf.nodes);
    const ordered = [...pods].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const placed: Placement[] = [];
    const unplaced: Unplaced[] = [];
    for (const pod of ordered) {
      const allowed = eligible?.get(pod.key);
      const key = duplicateKey(pod.pod);
      const rejections: NodeRejection[] = [];
      const passing: NodeInfo[] = [];
      for (const node of candidates) {
        if (allowed && !allowed.has(node.name)) continue;
        const reject = (plugin: string, reason: string) =>
          rejections.push({ node: node.name, plugin, stage: 'Filter', code: Code.Unschedulable, reasons: [reason] });
        const misfit = fitsNode(pod, node);
        if (misfit) reject(PALLET_PREDICATES.fits, misfit);
        else if (
          violatesAntiAffinity(
            pod.pod,
            node.pods.map((p) => p.pod),
          )
        )
          reject(PALLET_PREDICATES.antiAffinity, "node(s) didn't match pod anti-affinity rules");
        else if (node.pods.some((p) => duplicateKey(p.pod) === key))
          reject(PALLET_PREDICATES.duplicate, 'node(s) already run a duplicate of the pod (same owner and image)');
        else passing.push(node);
      }
      if (passing.length > 0) {
        const chosen = passing[random.int(passing.length)] as NodeInfo;
        whatIf.assume(pod, whatIf.indexOf(chosen.name) as number);
        placed.push({ pod, node: chosen.name });
        continue;
      }
      const diagnosis: Diagnosis = {
        pod: pod.key,
        profile: framework.profileName,
        nodesTotal: whatIf.nodes.length,
        nodesEvaluated: rejections.length,
        feasibleNodes: 0,
        status: { code: Code.Unschedulable, reasons: [], stage: 'Filter' },
        rejections,
        filters: [],
        scores: [],
        stages: [],
      };
      const message = fitErrorMessage(diagnosis);
      unplaced.push({ pod, diagnosis: { ...diagnosis, message }, message });
    }
    return { placed, unplaced };
  },
};
