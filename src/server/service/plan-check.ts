// The checks of one SchedulePlan against the workspace: each entry's pod and node exist, no pod is
// planned twice or comes from another set, and the engine's filters accept the node. The plan is
// applied entry by entry on a copy of the cluster, so a node that fits each pod alone but not all
// of them together is found at the entry that over-commits it, and a constraint between planned
// pods (anti-affinity, host ports) at the entry that breaks it.
import { type Pod } from '../../engine/api/types';
import { CycleState } from '../../engine/framework/cycle-state';
import { podInfo } from '../../engine/framework/node-info';
import { isRejection, isSuccess, type Status } from '../../engine/framework/status';
import { Names } from '../../engine/plugins/names';
import type { Located, SchedulePlanManifest } from '../../manifests';
import { podSetLabelOf, schedulerOf, type Analysis } from './analysis';
import type { CopyOnWriteCluster } from '../../engine/framework/copy-on-write';
import { closest } from './words';

export type EntryProblem =
  | { readonly code: 'plan/unknown-pod'; readonly suggestion?: string }
  | { readonly code: 'plan/duplicate-pod'; readonly first: number }
  | { readonly code: 'plan/pod-outside-set'; readonly pod: Located<Pod>; readonly podSet?: string }
  | { readonly code: 'plan/unknown-node'; readonly suggestion?: string }
  /** `alone`: the node rejects the pod even without the plan's other pods. */
  | { readonly code: 'plan/node-infeasible'; readonly status: Status; readonly alone: boolean; readonly before: readonly string[] }
  | { readonly code: 'plan/node-overcommitted'; readonly status: Status; readonly before: readonly string[] };

export interface PlanCheck {
  /** The problems of each entry of spec.plan, by index. */
  readonly entries: readonly (readonly EntryProblem[])[];
  /** Pods of the set the planner places that the plan leaves out. */
  readonly missing: readonly string[];
  /** The cluster with the plan applied. */
  readonly snapshot: CopyOnWriteCluster;
  /** Pod name → the node it was put on in `snapshot`. */
  readonly assumed: ReadonlyMap<string, string>;
}

export function checkPlan(plan: SchedulePlanManifest, analysis: Analysis): PlanCheck {
  const namespace = plan.namespace;
  const engine = analysis.engine;
  const snapshot = engine.whatIf();
  const first = new Map<string, number>();
  const assumed = new Map<string, string>();
  const plannedOn = new Map<string, string[]>();
  const entries: EntryProblem[][] = [];
  // A misspelt pod is suggested among the pods the plan does not name yet: one it names is placed already.
  const named = new Set(plan.plan.map((entry) => entry.pod));
  const unplannedNames = () =>
    analysis.model.pods
      .filter((p) => (p.value.metadata.namespace ?? 'default') === namespace && !named.has(p.value.metadata.name))
      .map((p) => p.value.metadata.name);
  for (const [i, entry] of plan.plan.entries()) {
    const problems: EntryProblem[] = [];
    entries.push(problems);
    const pod = analysis.pod(namespace, entry.pod);
    const earlier = first.get(entry.pod);
    if (earlier !== undefined) {
      problems.push({ code: 'plan/duplicate-pod', first: earlier });
      continue;
    }
    first.set(entry.pod, i);
    if (!pod) {
      const suggestion = closest(entry.pod, unplannedNames());
      problems.push({ code: 'plan/unknown-pod', ...(suggestion ? { suggestion } : {}) });
    } else if (podSetLabelOf(pod.value) !== plan.podSet) {
      const podSet = podSetLabelOf(pod.value);
      problems.push({ code: 'plan/pod-outside-set', pod, ...(podSet !== undefined ? { podSet } : {}) });
    }
    const node = snapshot.get(entry.node);
    if (!node) {
      const suggestion = closest(
        entry.node,
        analysis.model.nodes.map((n) => n.value.metadata.name),
      );
      problems.push({ code: 'plan/unknown-node', ...(suggestion ? { suggestion } : {}) });
    }
    if (!pod || !node) continue;
    // A bound pod is on its node already: planning it there again changes nothing.
    if (pod.value.spec.nodeName === entry.node) continue;
    const info = podInfo(pod.value);
    if (!info.ok) continue;
    const framework = engine.framework(schedulerOf(pod.value));
    const before = plannedOn.get(entry.node) ?? [];
    const status = framework.checkNode(new CycleState(), info.value, snapshot, entry.node);
    if (!isSuccess(status)) {
      const base =
        isRejection(status) && before.length > 0 ? framework.checkNode(new CycleState(), info.value, engine.snapshot, entry.node) : status;
      const alone = !isSuccess(base);
      if (!alone && status.plugin === Names.NodeResourcesFit)
        problems.push({ code: 'plan/node-overcommitted', status, before: [...before] });
      else problems.push({ code: 'plan/node-infeasible', status: alone ? base : status, alone, before: [...before] });
    }
    if (pod.value.spec.nodeName) continue;
    snapshot.addPod(entry.node, info.value);
    assumed.set(entry.pod, entry.node);
    plannedOn.set(entry.node, [...before, entry.pod]);
  }
  const missing = analysis
    .plannedPodsOf(namespace, plan.podSet)
    .map((p) => p.value.metadata.name)
    .filter((name) => !first.has(name));
  return { entries, missing, snapshot, assumed };
}
