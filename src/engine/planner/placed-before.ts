// The pods a pod set is planned beside that no node holds yet: what other sets' plans placed. One
// home for two questions every front end asks. Which SchedulePlans already written stand before a
// set (`writtenPlansBefore`): a plan of a set its trigger depends on (transitively) that is not being
// planned again, which says where that set's pods go (Pallet's PodSetPlanner follows its set's plan),
// so their room is spoken for. And how placements go on a working copy of the cluster
// (`assumePlacements`), which plan-all's fixpoint (the CLI's podplan plan and the editor's preview,
// through planOnePodSet), the live scheduler's coordinator (podplan run) and the editor's check of a
// written plan all use, so the pods put there are the ones the plan records as its placedBefore.
import { podKey, type Pod } from '../api/types';
import { podInfo } from '../framework/node-info';
import { dependencyId, parseNodeId, TRIGGER_KIND, type DependencyRef } from '../reconcile/triggers';
import type { PlacedPod, Plan } from './plan';
import { schedulePlanName } from './podset/name';
import { podSetKey, type PodSetRef } from './podset/podset';
import type { TriggerSpec } from './podset/trigger';
import type { WhatIf } from './search/what-if';

export const POD_SET_KIND = 'PodSet';
export const SCHEDULE_PLAN_KIND = 'SchedulePlan';

/** What a dependsOn entry stands for: the triggers it names (a PodSet or SchedulePlan entry: those of that set), and its pod set when known. */
export interface ResolvedDependency {
  readonly triggers: readonly TriggerSpec[];
  readonly podSet?: PodSetRef;
}

/** The triggers and pod set a dependsOn entry of a trigger in `namespace` names, among `triggers` and the written `plans` (by Pallet's name). */
export function resolveDependency(
  ref: DependencyRef,
  namespace: string,
  triggers: readonly TriggerSpec[],
  plans: readonly Plan[],
): ResolvedDependency {
  const id = parseNodeId(dependencyId(ref, namespace));
  if (!id.ok) return { triggers: [] };
  const { kind, namespace: ns, name } = id.value;
  const inNamespace = triggers.filter((t) => t.namespace === ns);
  if (kind === TRIGGER_KIND) {
    const named = inNamespace.filter((t) => t.name === name);
    return { triggers: named, ...(named[0] ? { podSet: { namespace: ns, name: named[0].podSet } } : {}) };
  }
  if (kind === POD_SET_KIND) return { triggers: inNamespace.filter((t) => t.podSet === name), podSet: { namespace: ns, name } };
  if (kind === SCHEDULE_PLAN_KIND) {
    const named = inNamespace.filter((t) => schedulePlanName(ns, t.podSet) === name);
    const plan = plans.find((p) => p.namespace === ns && schedulePlanName(ns, p.podSet) === name);
    const set = plan?.podSet ?? named[0]?.podSet;
    return { triggers: named, ...(set !== undefined ? { podSet: { namespace: ns, name: set } } : {}) };
  }
  return { triggers: [] };
}

/**
 * The written plans that stand before pod set `ref` is planned: following its trigger's dependsOn
 * (transitively, through the triggers each entry names), the written plan of every set it reaches
 * whose triggers are not planned now (`plannedNow`: plan-all re-plans the triggers of its run, and
 * assumes those fresh plans itself; the editor's check of a written plan plans none). Deepest first,
 * each once, never the set's own.
 */
export function writtenPlansBefore(
  ref: PodSetRef,
  triggers: readonly TriggerSpec[],
  plans: readonly Plan[],
  plannedNow: (trigger: TriggerSpec) => boolean = () => false,
): Plan[] {
  const own = podSetKey(ref);
  const visited = new Set<TriggerSpec>();
  const seen = new Set<string>([own]);
  const standing: Plan[] = [];
  const visit = (trigger: TriggerSpec) => {
    if (visited.has(trigger)) return;
    visited.add(trigger);
    for (const entry of trigger.dependsOn ?? []) {
      const dependency = resolveDependency(entry, trigger.namespace, triggers, plans);
      for (const t of dependency.triggers) visit(t);
      const set = dependency.podSet;
      if (!set || seen.has(podSetKey(set)) || dependency.triggers.some(plannedNow)) continue;
      seen.add(podSetKey(set));
      const plan = plans.find((p) => p.namespace === set.namespace && p.podSet === set.name);
      if (plan) standing.push(plan);
    }
  };
  for (const t of triggers) if (t.namespace === ref.namespace && t.podSet === ref.name) visit(t);
  return standing;
}

/** The placements of `plans`, in plan order. */
export function placementsOf(plans: readonly Plan[]): PlacedPod[] {
  return plans.flatMap((p) => p.assignments.map((a) => ({ namespace: p.namespace, pod: a.pod, node: a.node })));
}

/**
 * Puts each placement's pod on its node of `working`, skipping a pod `podOf` does not find, one
 * bound already (spec.nodeName: it is on its node), one that does not decode, a node the copy lacks
 * and a pod put already by an earlier placement (never twice): the placements made, in order,
 * which a plan made on the copy records as its placedBefore.
 */
export function assumePlacements(
  working: WhatIf,
  placements: readonly PlacedPod[],
  podOf: (placement: PlacedPod) => Pod | undefined,
): PlacedPod[] {
  const put: PlacedPod[] = [];
  const keys = new Set<string>();
  for (const p of placements) {
    const key = `${p.namespace}/${p.pod}`;
    const pod = keys.has(key) ? undefined : podOf(p);
    if (!pod || pod.spec.nodeName) continue;
    const node = working.indexOf(p.node);
    const info = podInfo(pod);
    if (node === undefined || !info.ok) continue;
    working.assume(info.value, node);
    keys.add(key);
    put.push({ namespace: p.namespace, pod: p.pod, node: p.node });
  }
  return put;
}

/** A lookup of `pods` by namespace and name, for assumePlacements. */
export function podsByKey(pods: readonly Pod[]): (placement: PlacedPod) => Pod | undefined {
  const byKey = new Map(pods.map((p) => [podKey(p), p]));
  return (p) => byKey.get(`${p.namespace}/${p.pod}`);
}
