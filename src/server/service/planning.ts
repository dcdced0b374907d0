// Plans for the workspace's pod sets, and the view models the client renders (protocol/webview.ts).
// Until the pod-set planner (engine/planner) is in, a plan is made as its greedy planner makes one:
// the framework pipeline pod by pod in queue order, each placed pod assumed on its node before the
// next is scheduled.
import { seededRandom } from '../../engine/api/random';
import { CPU, MEMORY, PODS } from '../../engine/api/resources';
import { podKey, type Pod } from '../../engine/api/types';
import { CycleState } from '../../engine/framework/cycle-state';
import { explain } from '../../engine/explain/explain';
import { podInfo, type PodInfo } from '../../engine/framework/node-info';
import type { Plan, PlanAssignment, UnplacedPod } from '../../engine/planner/plan';
import { fnv32a, type Located } from '../../manifests';
import type { NodeUseView, PlanView, PodExplanationView, ReasonCountView, UnplacedView } from '../../protocol/webview';
import { amounts, unitOf } from './amounts';
import { podSetOf, schedulerOf, type Analysis } from './analysis';
import { buildFramework } from './profiles';
import type { WhatIf } from './what-if';

export const GREEDY = 'greedy';

export interface PlanRequest {
  readonly namespace: string;
  readonly podSet: string;
  readonly trigger?: string;
}

/** A hash of the nodes and pods a plan was made from, to tell later whether it is stale. */
export function snapshotHash(analysis: Analysis): string {
  const cluster = analysis.model.cluster;
  return fnv32a(JSON.stringify([cluster.nodes, cluster.pods])).toString(16).padStart(8, '0');
}

/**
 * The plan of a pod set: its pods the planner places (pending, with the planner's schedulerName),
 * scheduled in queue order with the profile of their schedulerName, on `start` (the workspace's
 * cluster when not given) changed as pods are placed.
 */
export function planPodSet(analysis: Analysis, request: PlanRequest, pods = analysis.plannedPodsOf(request.namespace, request.podSet), start?: WhatIf): Plan {
  const engine = analysis.engine;
  const snapshot = start ?? engine.whatIf();
  const schedulerName = analysis.plannerSchedulerName;
  const resolved = engine.profile(schedulerName);
  // The profile as written (its sampling too), seeded so the same workspace gives the same plan.
  const framework = (resolved.valid ? buildFramework(resolved.profile, seededRandom(1), false) : undefined) ?? engine.framework(schedulerName);
  const queued = pods.flatMap((p, i) => {
    const info = podInfo(p.value);
    return info.ok ? [{ info: info.value, timestamp: i, attempts: 0 }] : [];
  });
  queued.sort((a, b) => (framework.queueSortLess(a, b) ? -1 : framework.queueSortLess(b, a) ? 1 : a.timestamp - b.timestamp));
  const assignments: PlanAssignment[] = [];
  const unplaced: UnplacedPod[] = [];
  for (const { info } of queued) {
    const result = framework.scheduleOne(new CycleState(), info, snapshot);
    const name = info.pod.metadata.name;
    if (result.ok) {
      snapshot.addPod(result.suggestedHost, info);
      assignments.push({ pod: name, node: result.suggestedHost, diagnosis: result.diagnosis });
    } else {
      unplaced.push({ pod: name, message: result.diagnosis.message ?? '', diagnosis: result.diagnosis });
    }
  }
  return {
    podSet: request.podSet,
    namespace: request.namespace,
    ...(request.trigger !== undefined ? { trigger: request.trigger } : {}),
    planner: GREEDY,
    profile: framework.profileName,
    assignments,
    unplaced,
    createdAt: analysis.options.clock?.now() ?? 0,
    snapshotHash: snapshotHash(analysis),
  };
}

function unplacedView(u: UnplacedPod): UnplacedView {
  const reasons: ReasonCountView[] = explain(u.diagnosis).reasons.map((r) => ({ reason: r.reason, nodes: r.nodes.length }));
  const status = u.diagnosis.status;
  return {
    pod: u.pod,
    ...(status.stage ? { stage: status.stage } : {}),
    ...(status.plugin ? { plugin: status.plugin } : {}),
    reason: reasons[0]?.reason ?? status.reasons[0] ?? u.message,
    message: u.message,
    reasons,
  };
}

/** What each node the plan uses offers, holds already and gets from the plan. */
function nodeUse(plan: Plan, analysis: Analysis): NodeUseView[] {
  const byNode = new Map<string, string[]>();
  for (const a of plan.assignments) byNode.set(a.node, [...(byNode.get(a.node) ?? []), a.pod]);
  const base = analysis.engine.snapshot;
  return [...byNode].map(([node, pods]): NodeUseView => {
    const info = base.get(node);
    const planned = pods.flatMap((name) => {
      const pod = analysis.pod(plan.namespace, name);
      const pi = pod ? podInfo(pod.value) : undefined;
      return pi?.ok ? [pi.value] : [];
    });
    const resources = new Set([CPU, MEMORY, PODS]);
    for (const p of planned) for (const name of p.requests.names()) resources.add(name);
    return {
      node,
      pods,
      resources: [...resources].map((resource) => ({
        resource,
        unit: unitOf(resource),
        allocatable: info?.allocatable.get(resource) ?? 0,
        requested: resource === PODS ? (info?.pods.length ?? 0) : (info?.requested.get(resource) ?? 0),
        planned: resource === PODS ? planned.length : planned.reduce((sum, p: PodInfo) => sum + p.requests.get(resource), 0),
      })),
    };
  });
}

export function planView(plan: Plan, analysis: Analysis, historyId?: number): PlanView {
  return {
    podSet: plan.podSet,
    namespace: plan.namespace,
    ...(plan.trigger !== undefined ? { trigger: plan.trigger } : {}),
    planner: plan.planner,
    profile: plan.profile,
    createdAt: plan.createdAt,
    snapshotHash: plan.snapshotHash,
    assignments: plan.assignments.map((a) => {
      const score = a.diagnosis?.scores.find((s) => s.node === a.node)?.total;
      return { pod: a.pod, node: a.node, ...(score !== undefined ? { score } : {}) };
    }),
    nodes: nodeUse(plan, analysis),
    unplaced: plan.unplaced.map(unplacedView),
    ...(historyId !== undefined ? { historyId } : {}),
  };
}

/** One cycle for a pod on the workspace's cluster (with the plans of the workspace not applied), explained. */
export function explainPod(pod: Located<Pod>, analysis: Analysis): PodExplanationView {
  const p = pod.value;
  const ranking = analysis.rank(p);
  const d = ranking?.result.diagnosis;
  const planned = analysis.plannedEntry(p.metadata.namespace ?? 'default', p.metadata.name);
  const info = podInfo(p);
  const explained = d && explain(d, 10);
  const set = podSetOf(p);
  return {
    pod: p.metadata.name,
    namespace: p.metadata.namespace ?? 'default',
    ...(set !== undefined ? { podSet: set } : {}),
    schedulerName: schedulerOf(p),
    profile: d?.profile ?? schedulerOf(p),
    requests: info.ok ? amounts(info.value.requests) : [],
    ...(planned ? { plannedNode: planned.node } : {}),
    ...(p.spec.nodeName ? { boundNode: p.spec.nodeName } : {}),
    ...(d?.chosenNode ? { chosenNode: d.chosenNode } : {}),
    ...(d?.message ? { message: d.message } : info.ok ? {} : { message: `${podKey(p)}: ${info.error}` }),
    nodes: { total: d?.nodesTotal ?? 0, evaluated: d?.nodesEvaluated ?? 0, feasible: d?.feasibleNodes ?? 0 },
    filters: d?.filters.map((f) => ({ ...f })) ?? [],
    rejections: (explained?.reasons ?? []).map((r) => ({ stage: r.stage, plugin: r.plugin, reason: r.reason, nodes: r.nodes })),
    scores: (explained?.topScores ?? []).map((s) => ({ node: s.node, total: s.total, plugins: s.plugins.map((x) => ({ ...x })) })),
  };
}
