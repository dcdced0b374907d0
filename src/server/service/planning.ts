// Plans for the workspace's pod sets, made by the engine's pod-set planner (engine/planner) with the
// profile of the planner's schedulerName, and the view models the client renders (protocol/webview.ts).
import { seededRandom } from '../../engine/api/random';
import { err, type Result } from '../../engine/api/result';
import { CPU, MEMORY, PODS } from '../../engine/api/resources';
import { podKey, type Pod } from '../../engine/api/types';
import { explain } from '../../engine/explain/explain';
import { podInfo, type NodeInfoLister, type PodInfo } from '../../engine/framework/node-info';
import { planPodSet as buildPodSetPlan } from '../../engine/planner/build';
import type { Plan, UnplacedPod } from '../../engine/planner/plan';
import { podSetFramework, type PodSetFramework } from '../../engine/planner/plugin';
import { resolvePodSet, type PodSet } from '../../engine/planner/podset';
import type { Located } from '../../manifests';
import type { NodeUseView, PlanView, PodExplanationView, ReasonCountView, UnplacedView } from '../../protocol/webview';
import { amounts, unitOf } from './amounts';
import { podSetLabelOf, schedulerOf, type Analysis } from './analysis';
import { defaultProfile } from './profiles';

export interface PlanRequest {
  readonly namespace: string;
  readonly podSet: string;
  readonly trigger?: string;
}

/** Where a plan starts from, when not the whole pending set on the workspace's cluster. */
export interface PlanStart {
  /** The pods to place (pending members of the set); the set's other members only lend their labels. */
  readonly pods?: readonly Located<Pod>[];
  /** The cluster to place them on. */
  readonly snapshot?: NodeInfoLister;
}

/**
 * The planning framework of the planner's profile as written (its sampling too), the defaults when
 * it has errors; built for each plan and seeded, so the same workspace gives the same plan.
 */
function planning(analysis: Analysis): Result<PodSetFramework> {
  const name = analysis.plannerSchedulerName;
  const resolved = analysis.engine.profile(name);
  const built = podSetFramework(resolved.valid ? resolved.profile : defaultProfile(name).profile, { random: seededRandom(1) });
  return built.ok ? built : err(built.error.map((e) => e.message).join('; '));
}

/**
 * The plan of a pod set as the engine's planner makes it: the planner and gang size of the trigger's
 * labels (the requested trigger's, else none), else the pods', else the profile's PodSetPlanner args.
 */
export function planPodSet(analysis: Analysis, request: PlanRequest, start: PlanStart = {}): Result<Plan> {
  const framework = planning(analysis);
  if (!framework.ok) return framework;
  const ref = { namespace: request.namespace, name: request.podSet };
  // A pod whose requests do not parse was reported by the reader; the planner leaves it out.
  const usable = analysis.engine.pods.filter((p) => podInfo(p).ok);
  const members = resolvePodSet(usable, ref, analysis.plannerSchedulerName);
  const pending = start.pods?.map((p) => p.value).filter((p) => podInfo(p).ok);
  const podSet: PodSet = pending ? { ...members, pending, bound: [] } : members;
  const trigger = request.trigger === undefined ? undefined : { name: request.trigger, labels: analysis.trigger(request.namespace, request.trigger)?.value.labels };
  return buildPodSetPlan(framework.value, { podSet, snapshot: start.snapshot ?? analysis.engine.snapshot, now: analysis.options.clock?.now() ?? 0 }, { trigger });
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
  const set = podSetLabelOf(p);
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
