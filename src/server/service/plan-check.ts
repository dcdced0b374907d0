// The checks of one SchedulePlan against the workspace: each entry's pod and node exist, no pod is
// planned twice or comes from another set, and the engine's filters accept the node. The plan is
// applied entry by entry on the cluster as the plan leaves it (engine/planner/plan-cluster.ts, as
// the planners judge: the devices of the claims of pods planned earlier are theirs), so a node that
// fits each pod alone but not all of them together is found at the entry that over-commits it (its
// cpu, memory or devices), and a constraint between planned pods (anti-affinity, host ports) at the
// entry that breaks it. The cluster it starts from is the one the plan is made on: the pods of the
// written plans its set's trigger depends on placed first (Analysis.placedBefore), as podplan plan and
// the preview plan the set beside them.
import { type Pod } from '../../engine/api/types';
import type { DeviceFailure } from '../../engine/api/device-failures';
import { podInfo, type PodInfo } from '../../engine/framework/node-info';
import type { Framework } from '../../engine/framework/runtime';
import { isRejection, isSuccess, type Status } from '../../engine/framework/status';
import { planClusterOf, type PlanCluster } from '../../engine/planner/plan-cluster';
import { Names } from '../../engine/plugins/names';
import type { Located, SchedulePlanManifest } from '../../manifests';
import { podSetLabelOf, schedulerOf, type Analysis } from './analysis';
import { closest } from './words';

export type EntryProblem =
  | { readonly code: 'plan/unknown-pod'; readonly suggestion?: string }
  | { readonly code: 'plan/duplicate-pod'; readonly first: number }
  | { readonly code: 'plan/pod-outside-set'; readonly pod: Located<Pod>; readonly podSet?: string }
  | { readonly code: 'plan/unknown-node'; readonly suggestion?: string }
  /**
   * `alone`: the node rejects the pod even without the plan's other pods. `devices`: for a
   * rejection by DynamicResources, which device requests could not be met there and why.
   */
  | {
      readonly code: 'plan/node-infeasible';
      readonly status: Status;
      readonly alone: boolean;
      readonly before: readonly string[];
      readonly devices?: readonly DeviceFailure[];
      /** The pods the written plans the set depends on put on the node first (namespace/name), when there are any. */
      readonly beside?: readonly string[];
    }
  | {
      readonly code: 'plan/node-overcommitted';
      readonly status: Status;
      readonly before: readonly string[];
      readonly devices?: readonly DeviceFailure[];
      readonly beside?: readonly string[];
    };

export interface PlanCheck {
  /** The problems of each entry of spec.plan, by index. */
  readonly entries: readonly (readonly EntryProblem[])[];
  /** Pods of the set the planner places that the plan leaves out. */
  readonly missing: readonly string[];
  /** The cluster with the plan applied. */
  readonly cluster: PlanCluster;
  /** Pod name → the node it was put on in `snapshot`. */
  readonly assumed: ReadonlyMap<string, string>;
}

export function checkPlan(plan: SchedulePlanManifest, analysis: Analysis): PlanCheck {
  const namespace = plan.namespace;
  const engine = analysis.engine;
  // The cluster the plan is made on: with the pods of the written plans its set depends on placed first.
  const placedBefore = analysis.placedBefore(namespace, plan.podSet);
  // Nothing before it (the common case): the engine's copy-on-write cluster, with no pass over the pods.
  const made = () => {
    if (placedBefore.length === 0) return engine.planCluster();
    const on = planClusterOf(analysis.model.cluster, { namespace, assignments: [], placedBefore }, undefined, engine.planCluster());
    return on.ok ? on.value : engine.planCluster();
  };
  // The pods put there before it: those the workspace has and no node holds (as planClusterOf puts them).
  const beside = (node: string) =>
    placedBefore
      .filter((p) => {
        const pod = analysis.pod(p.namespace, p.pod);
        return p.node === node && pod !== undefined && !pod.value.spec.nodeName;
      })
      .map((p) => `${p.namespace}/${p.pod}`);
  const cluster = made();
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
    const node = cluster.snapshot.get(entry.node);
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
    const status = cluster.checkNode(framework, info.value, entry.node);
    if (!isSuccess(status)) {
      const empty = isRejection(status) && before.length > 0 ? made() : undefined;
      const base = empty ? empty.checkNode(framework, info.value, entry.node) : status;
      const alone = !isSuccess(base);
      const shown = alone ? base : status;
      const devices = deviceFailures(shown, framework, info.value, empty && alone ? empty : cluster, entry.node);
      const others = beside(entry.node);
      const detail = { ...(devices.length > 0 ? { devices } : {}), ...(others.length > 0 ? { beside: others } : {}) };
      // Over-committed: the pods planned there before took the room, or the devices, this one needed.
      const taken = status.plugin === Names.NodeResourcesFit || (devices.length > 0 && devices.every((d) => d.code === 'notEnough'));
      if (!alone && taken) problems.push({ code: 'plan/node-overcommitted', status, before: [...before], ...detail });
      else problems.push({ code: 'plan/node-infeasible', status: shown, alone, before: [...before], ...detail });
    }
    if (pod.value.spec.nodeName) continue;
    cluster.place(entry.node, info.value);
    assumed.set(entry.pod, entry.node);
    plannedOn.set(entry.node, [...before, entry.pod]);
  }
  const missing = analysis
    .plannedPodsOf(namespace, plan.podSet)
    .map((p) => p.value.metadata.name)
    .filter((name) => !first.has(name));
  return { entries, missing, cluster, assumed };
}

/** For a node DynamicResources rejected at Filter: the device requests not met there, from its complete verdict. */
function deviceFailures(status: Status, framework: Framework, pod: PodInfo, cluster: PlanCluster, node: string): readonly DeviceFailure[] {
  if (status.plugin !== Names.DynamicResources || status.stage !== 'Filter') return [];
  return cluster.nodeVerdicts(framework, pod, [node]).flatMap((v) => v.failures.flatMap((f) => f.devices ?? []));
}
