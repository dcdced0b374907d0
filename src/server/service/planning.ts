// Plans for the workspace's pod sets, made by the engine's pod-set planner (engine/planner) with the
// profile of the planner's schedulerName, and the view models the client renders (protocol/webview.ts).
import { seededRandom } from '../../engine/api/random';
import { err, ok, type Result } from '../../engine/api/result';
import { CPU, MEMORY, PODS } from '../../engine/api/resources';
import { podKey, type Pod } from '../../engine/api/types';
import { explain } from '../../engine/explain/explain';
import { deviceFailureText } from '../../engine/explain/devices';
import { placedBeforeWords } from '../../engine/explain/placed-before-words';
import { deviceVerdicts, podReport, type NodeDevices } from '../../engine/explain/report';
import { deviceId } from '../../engine/plugins/dynamicresources/allocator';
import { deviceUse } from '../../engine/plugins/dynamicresources/plan-devices';
import { podInfo, type NodeInfoLister, type PodInfo } from '../../engine/framework/node-info';
import { planPodSet as buildPodSetPlan } from '../../engine/planner/build';
import { PlanCluster, planClusterOf } from '../../engine/planner/plan-cluster';
import { describeBound, type PlanBound } from '../../engine/planner/solver/bound';
import type { PlacedPod, Plan, UnplacedPod } from '../../engine/planner/plan';
import type { SolverSettings } from '../../engine/planner/planner';
import { podSetFramework, type PodSetFramework } from '../../engine/planner/scheduler/plugin';
import { planOnePodSet, podSetsPlannedFor } from '../../engine/planner/plan-all';
import { resolvePodSet, type PodSet, type PodSetRef } from '../../engine/planner/podset/podset';
import { planFromManifest, unreadablePods, unreadableRefusal, type Located } from '../../manifests';
import { triggerSpec } from '../../manifests/planner';
import type { Diagnosis } from '../../engine/framework/diagnosis';
import type { Framework } from '../../engine/framework/runtime';
import type { Profile } from '../../engine/framework/profile';
import type {
  MatrixView,
  NodeUseView,
  PlanBoundView,
  PlanRefView,
  PlanView,
  PodExplanationView,
  PreemptionView,
  ReasonCountView,
  UnplacedGroupView,
  UnplacedView,
} from '../../protocol/webview';
import type { History } from '../history';
import { formatAmount, unitOf } from '../../protocol/amounts';
import { amounts } from './amounts';
import { explainedVerdicts } from '../../engine/explain/verdicts';
import { podFunnel, podMatrix, podSetFunnel, type CompleteVerdicts } from './pipeline';
import { podSetLabelOf, schedulerOf, type Analysis } from './analysis';
import { fileNameOf } from './locate';
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
  /** The MILP solver for the exact planner and the bound beside the plan (previews pass it; quick fixes plan without). */
  readonly solver?: SolverSettings;
}

/** The pod-set profile a plan is made with: the planner's profile as written (its sampling too), the defaults when it has errors. */
export function planningProfile(analysis: Analysis): Profile {
  const name = analysis.plannerSchedulerName;
  const resolved = analysis.engine.profile(name);
  return resolved.valid ? resolved.profile : defaultProfile(name).profile;
}

/** The planning framework of `profile`, built for each plan and seeded, so the same workspace gives the same plan. */
function frameworkOf(profile: Profile, solver: SolverSettings | undefined): Result<PodSetFramework> {
  const built = podSetFramework(profile, { random: seededRandom(1), ...(solver ? { solver } : {}) });
  return built.ok ? built : err(built.error.map((e) => e.message).join('; '));
}

/** The planning framework of the planner's profile (planningProfile). */
function planning(analysis: Analysis, solver: SolverSettings | undefined): Result<PodSetFramework> {
  return frameworkOf(planningProfile(analysis), solver);
}

/** The analysis's solver as a plan start (previews, Explain in a preview, Apply Plan): nothing when none is loaded. */
export function solverOf(analysis: Analysis): { solver?: SolverSettings } {
  const solver = analysis.options.solver?.();
  return solver ? { solver } : {};
}

/**
 * The planning framework for a plan of `set`, unless a pod of the files that does not read refuses
 * it (manifests unreadablePods, the one rule, which podplan applies to the same files).
 */
function planningFor(analysis: Analysis, solver: SolverSettings | undefined, set: PodSetRef): Result<PodSetFramework> {
  const sets = podSetsPlannedFor(
    set,
    analysis.model.triggers.map((t) => triggerSpec(t.value)),
  );
  const refusal = unreadableRefusal(unreadablePods(analysis.model, sets), fileNameOf);
  return refusal ? err(refusal) : planning(analysis, solver);
}

/**
 * The plan of a pod set as the engine's planner makes it: the planner and gang size of the trigger's
 * labels (the requested trigger's, else none), else the pods', else the profile's PodSetPlanner args.
 */
export function planPodSet(analysis: Analysis, request: PlanRequest, start: PlanStart = {}): Result<Plan> {
  const ref = { namespace: request.namespace, name: request.podSet };
  const framework = planningFor(analysis, start.solver, ref);
  if (!framework.ok) return framework;
  // A pending member whose requests do not parse refuses the plan (engine/planner/build planPodSet), as in podplan plan.
  const members = resolvePodSet(analysis.engine.pods, ref, analysis.plannerSchedulerName);
  const pending = start.pods?.map((p) => p.value);
  const podSet: PodSet = pending ? { ...members, pending, bound: [] } : members;
  const trigger =
    request.trigger === undefined
      ? undefined
      : { name: request.trigger, labels: analysis.trigger(request.namespace, request.trigger)?.value.labels };
  return buildPodSetPlan(
    framework.value,
    { podSet, snapshot: start.snapshot ?? analysis.engine.snapshot, now: analysis.options.clock?.now() ?? 0 },
    { trigger },
  );
}

/**
 * A preview of a pod set as `podplan plan --pod-set` makes it (engine/planner/plan-all
 * planOnePodSet, the one entry point): through its trigger after what that depends on, each
 * dependency planned and assumed first, else directly; a set that cannot be planned is an error
 * saying why.
 */
export async function previewPodSet(analysis: Analysis, ref: PodSetRef, start: Pick<PlanStart, 'solver'> = {}): Promise<Result<Plan>> {
  const framework = planningFor(analysis, start.solver, ref);
  if (!framework.ok) return framework;
  const model = analysis.model;
  const made = await planOnePodSet(
    {
      cluster: model.cluster,
      triggers: model.triggers.map((t) => triggerSpec(t.value)),
      plans: model.plans.map((p) => planFromManifest(p.value)),
      planning: framework.value,
      now: analysis.options.clock?.now() ?? 0,
    },
    ref,
  );
  if (!made.ok) return made;
  const { plan, trigger, failed, message } = made.value;
  if (plan && !failed) return ok(plan);
  return err(trigger ? `ScheduleTrigger ${trigger.namespace}/${trigger.name}: ${message ?? 'not planned'}` : (message ?? 'not planned'));
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

/** Unplaced pods by stage, plugin and most frequent reason: one group per distinct failure, most pods first. */
export function unplacedGroups(unplaced: readonly UnplacedView[]): UnplacedGroupView[] {
  const groups = new Map<string, { stage?: string; plugin?: string; reason: string; message: string; pods: string[] }>();
  for (const u of unplaced) {
    const key = `${u.stage ?? ''}\u0000${u.plugin ?? ''}\u0000${u.reason}`;
    const group = groups.get(key);
    if (group) group.pods.push(u.pod);
    else
      groups.set(key, {
        ...(u.stage !== undefined ? { stage: u.stage } : {}),
        ...(u.plugin !== undefined ? { plugin: u.plugin } : {}),
        reason: u.reason,
        message: u.message,
        pods: [u.pod],
      });
  }
  return [...groups.values()].sort((a, b) => b.pods.length - a.pods.length || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
}

const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** Who a pod belongs to, as the node map groups pods: its controller, else its app label, else "". */
export function ownerOf(pod: Pod | undefined): string {
  if (!pod) return '';
  const refs = pod.metadata.ownerReferences ?? [];
  const owner = refs.find((r) => r.controller) ?? refs[0];
  if (owner) return `${owner.kind}/${owner.name}`;
  const labels = pod.metadata.labels ?? {};
  return labels['app.kubernetes.io/name'] ?? labels['app'] ?? '';
}

/** The pods of `placements` the workspace has and no node holds, by node (what a plan put there). */
function podsByNode(placements: readonly PlacedPod[], analysis: Analysis): Map<string, PodInfo[]> {
  const byNode = new Map<string, PodInfo[]>();
  for (const a of placements) {
    const pod = analysis.pod(a.namespace, a.pod);
    if (!pod || pod.value.spec.nodeName) continue;
    const pi = podInfo(pod.value);
    if (!pi.ok) continue;
    const list = byNode.get(a.node);
    if (list) list.push(pi.value);
    else byNode.set(a.node, [pi.value]);
  }
  return byNode;
}

/**
 * Every node of the cluster: what it offers, holds already, holds from the plans made before this
 * one (Plan.placedBefore: the cluster it was made on) and gets from the plan, its pods by owner.
 */
function nodeUse(plan: Plan, analysis: Analysis): NodeUseView[] {
  const byNode = podsByNode(
    plan.assignments.map((a) => ({ namespace: plan.namespace, pod: a.pod, node: a.node })),
    analysis,
  );
  const beforeOn = podsByNode(plan.placedBefore ?? [], analysis);
  const devicesOn = deviceUse(
    analysis.model.cluster,
    new Set(plan.assignments.flatMap((a) => (a.devices ?? []).filter((d) => !d.existing).map((d) => deviceId(d.driver, d.pool, d.device)))),
  );
  return analysis.engine.snapshot.list().map((info): NodeUseView => {
    const planned = byNode.get(info.name) ?? [];
    const before = beforeOn.get(info.name) ?? [];
    const devices = devicesOn?.(info.node) ?? [];
    const owners = new Map<string, string[]>();
    for (const p of planned) {
      const owner = ownerOf(p.pod);
      const list = owners.get(owner);
      if (list) list.push(p.pod.metadata.name);
      else owners.set(owner, [p.pod.metadata.name]);
    }
    const resources = new Set([CPU, MEMORY, PODS]);
    for (const p of [...before, ...planned]) for (const name of p.requests.names()) resources.add(name);
    const labels = info.node.metadata.labels ?? {};
    const zone = labels[ZONE_LABEL];
    return {
      node: info.name,
      ...(zone !== undefined ? { zone } : {}),
      labels,
      ...(info.node.spec?.unschedulable ? { unschedulable: true } : {}),
      bound: info.pods.length,
      ...(before.length > 0 ? { before: before.map((p) => p.key) } : {}),
      pods: planned.map((p) => p.pod.metadata.name),
      owners: [...owners]
        .map(([owner, pods]) => ({ owner, pods }))
        .sort((a, b) => b.pods.length - a.pods.length || (a.owner < b.owner ? -1 : 1)),
      resources: [...resources].map((resource) => ({
        resource,
        unit: unitOf(resource),
        allocatable: info.allocatable.get(resource),
        requested: resource === PODS ? info.pods.length : info.requested.get(resource),
        ...(before.length > 0
          ? { before: resource === PODS ? before.length : before.reduce((sum, p) => sum + p.requests.get(resource), 0) }
          : {}),
        planned: resource === PODS ? planned.length : planned.reduce((sum, p) => sum + p.requests.get(resource), 0),
      })),
      ...(devices.length > 0 ? { devices } : {}),
    };
  });
}

export function planView(plan: Plan, analysis: Analysis, historyId?: number): PlanView {
  const unplaced = plan.unplaced.map(unplacedView);
  const cycles = [
    ...plan.assignments.flatMap((a) => (a.diagnosis ? [{ pod: a.pod, diagnosis: a.diagnosis }] : [])),
    ...plan.unplaced.map((u) => ({ pod: u.pod, diagnosis: u.diagnosis })),
  ];
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
      return {
        pod: a.pod,
        node: a.node,
        ...(score !== undefined ? { score } : {}),
        owner: ownerOf(analysis.pod(plan.namespace, a.pod)?.value),
      };
    }),
    nodes: nodeUse(plan, analysis),
    unplaced,
    unplacedGroups: unplacedGroups(unplaced),
    funnel: podSetFunnel(plan.podSet, cycles),
    ...(historyId !== undefined ? { historyId } : {}),
    ...(plan.victims && plan.victims.length > 0 ? { victims: plan.victims.map((v) => ({ ...v })) } : {}),
    ...(plan.bound ? { bound: boundView(plan.bound, plan) } : {}),
  };
}

/** A plan's bound as the view shows it. */
export function boundView(bound: PlanBound, plan: Plan): PlanBoundView {
  const nodes = new Set(plan.assignments.map((a) => a.node)).size;
  return { solver: bound.solver, optimal: bound.optimal, gap: bound.gap, text: describeBound(bound, plan.assignments.length, nodes) };
}

/** Whose cycle an explanation reads: one run now (on the workspace, or as a SchedulePlan leaves it), or the planner's own. */
type CycleSource = PodExplanationView['cycle'];

/** The cycle's verdict on `node`, in words. */
function verdictOn(node: string | undefined, d: Diagnosis | undefined, matrix: MatrixView, planned: boolean, source: CycleSource): string {
  if (!d) return 'The pod’s requests do not parse: no cycle ran.';
  const preempting = d.preemption;
  if (node === undefined && preempting?.node !== undefined) {
    const victims =
      preempting.candidates
        .find((c) => c.node === preempting.node)
        ?.victims.map((v) => v.pod)
        .join(', ') ?? '';
    return preempting.reportOnly
      ? `No node fits. Preemption would make room on ${preempting.node} by evicting ${victims}; the plan does not preempt (PodSetPlanner args allowPreemption).`
      : `No node fits as the cluster stands. Preemption makes room on ${preempting.node} by evicting ${victims}.`;
  }
  if (node === undefined)
    return matrix.closest
      ? `No node fits. Closest: ${matrix.closest.node}, which ${matrix.closest.why}.`
      : `No node fits: ${d.message ?? ''}`;
  const row = matrix.rows.find((r) => r.node === node);
  const what = planned ? 'the planned node' : 'the chosen node';
  if (!row) return `${node}, ${what}, is not in the cluster.`;
  const feasible = matrix.rows.filter((r) => r.verdict === 'chosen' || r.verdict === 'feasible').length;
  switch (row.verdict) {
    case 'chosen': {
      const where = source === 'planner' ? 'is where the planner’s cycle put the pod' : 'is where a cycle puts the pod now';
      return `${node}, ${what}, ${where}: the best of ${feasible} feasible nodes${row.total !== undefined ? `, score ${row.total}` : ''}.`;
    }
    case 'feasible': {
      const best = matrix.rows[0];
      const lead = best && best.total !== undefined && row.total !== undefined ? `; ${best.node} scores ${best.total}` : '';
      return `${node}, ${what}, fits: ranked ${row.rank ?? '?'} of ${feasible} feasible nodes${row.total !== undefined ? ` with score ${row.total}` : ''}${lead}.`;
    }
    case 'rejected':
      return `${node}, ${what}, rejects the pod at ${row.stage ?? 'Filter'}: ${row.plugin ?? ''}: ${(row.reasons ?? []).join(', ')}.`;
    case 'unevaluated':
      return `${node}, ${what}, was not evaluated: the cycle found enough feasible nodes before it.`;
  }
}

interface Cycle {
  readonly diagnosis?: Diagnosis;
  /** Every node of the cluster the cycle ran on. */
  readonly nodes: readonly string[];
  /** For a pod the cycle did not place: every filter's verdict on every node, which picks the closest node. */
  readonly complete?: CompleteVerdicts;
  /** Per node DynamicResources rejected: the device requests it could not meet there (from the complete verdicts, or those nodes' own). */
  readonly devices?: readonly NodeDevices[];
  readonly source: CycleSource;
  /** The node a plan gives the pod, and that plan's name. */
  readonly planned?: { readonly node: string; readonly plan: string };
  /** PodExplanationView.judgedOn */
  readonly judgedOn?: string;
}

function explanationView(p: Pod, cycle: Cycle): PodExplanationView {
  const d = cycle.diagnosis;
  const info = podInfo(p);
  const explained = d && explain(d, 10);
  const set = podSetLabelOf(p);
  const matrix = d ? podMatrix(d, cycle.nodes, cycle.complete, cycle.devices) : { filterPlugins: [], scorePlugins: [], rows: [] };
  const planned = cycle.planned;
  const preemption = d && preemptionView(d);
  return {
    pod: p.metadata.name,
    namespace: p.metadata.namespace ?? 'default',
    ...(set !== undefined ? { podSet: set } : {}),
    schedulerName: schedulerOf(p),
    profile: d?.profile ?? schedulerOf(p),
    requests: info.ok ? amounts(info.value.requests) : [],
    ...(planned ? { plannedNode: planned.node, plan: planned.plan } : {}),
    verdict: verdictOn(planned?.node ?? d?.chosenNode, d, matrix, planned !== undefined, cycle.source),
    cycle: cycle.source,
    ...(p.spec.nodeName ? { boundNode: p.spec.nodeName } : {}),
    ...(d?.chosenNode ? { chosenNode: d.chosenNode } : {}),
    ...(d?.message ? { message: d.message } : info.ok ? {} : { message: `${podKey(p)}: ${info.error}` }),
    nodes: { total: d?.nodesTotal ?? 0, evaluated: d?.nodesEvaluated ?? 0, feasible: d?.feasibleNodes ?? 0 },
    filters: d?.filters.map((f) => ({ ...f })) ?? [],
    rejections: (explained?.reasons ?? []).map((r) => ({ stage: r.stage, plugin: r.plugin, reason: r.reason, nodes: r.nodes })),
    scores: (explained?.topScores ?? []).map((s) => ({ node: s.node, total: s.total, plugins: s.plugins.map((x) => ({ ...x })) })),
    funnel: d ? podFunnel(p.metadata.name, d) : { subject: p.metadata.name, unit: 'nodes', pods: 1, steps: [] },
    matrix,
    ...(cycle.devices && cycle.devices.length > 0
      ? { devices: cycle.devices.map((n) => ({ node: n.node, lines: n.devices.map(deviceFailureText) })) }
      : {}),
    ...(preemption ? { preemption } : {}),
    ...(cycle.judgedOn !== undefined ? { judgedOn: cycle.judgedOn } : {}),
  };
}

/** Preemption's part of a cycle as the engine's explain report lays it out, every node listed. */
function preemptionView(d: Diagnosis): PreemptionView | undefined {
  const p = podReport(d, { limit: Infinity }).preemption;
  if (!p) return undefined;
  return {
    ...(p.node !== undefined ? { node: p.node } : {}),
    victims: p.victims,
    reportOnly: p.reportOnly,
    candidates: p.candidates.map((c) => ({
      node: c.node,
      victims: c.victims.map((v) => ({ ...v })),
      pdbViolations: c.pdbViolations,
      ...(c.lostOn !== undefined ? { lostOn: c.lostOn } : {}),
    })),
    failures: p.failures.map((f) => ({ reason: f.reason, nodes: f.nodes })),
  };
}

/**
 * One cycle for a pod, explained. A pod a SchedulePlan of the workspace places is explained on the
 * cluster as that plan leaves it (its other pods in place), about its planned node; any other pod on
 * the workspace's cluster, about the node a cycle chooses now.
 */
export function explainPod(pod: Located<Pod>, analysis: Analysis): PodExplanationView {
  const p = pod.value;
  const planned = analysis.plannedEntry(p.metadata.namespace ?? 'default', p.metadata.name);
  const ranking = analysis.rank(p, planned?.plan.value);
  return explanationView(p, {
    ...(ranking ? { diagnosis: ranking.result.diagnosis } : {}),
    nodes: (ranking?.snapshot ?? analysis.engine.snapshot).list().map((n) => n.name),
    ...whatItLacks(p, analysis, ranking?.result.diagnosis, ranking?.cluster ?? ranking?.snapshot),
    source: 'now',
    ...(planned ? { planned: { node: planned.node, plan: planned.plan.value.name } } : {}),
  });
}

/**
 * What an explanation of `d` shows beside it (explainedVerdicts): for a pod placed nowhere, every
 * node's complete Filter verdict with what it lacks there (the closest node comes from them); for a
 * placed one, the device requests not met on the nodes DynamicResources rejected. Judged on `on`: a
 * plan's cluster (as the planners judge it: the devices its other pods take are taken), else the
 * cluster the cycle ran on.
 */
function whatItLacks(
  p: Pod,
  analysis: Analysis,
  d: Diagnosis | undefined,
  on: PlanCluster | NodeInfoLister | undefined,
  judge: Framework = analysis.engine.framework(schedulerOf(p)),
): Pick<Cycle, 'complete' | 'devices'> {
  const info = podInfo(p);
  if (!info.ok || !d || !on) return {};
  const framework = judge;
  const verdicts = on instanceof PlanCluster ? on.verdicts(framework, info.value, d) : explainedVerdicts(framework, info.value, on, d);
  if (d.chosenNode === undefined) {
    return {
      complete: { verdicts, describe: (s) => `${formatAmount(s.missing, unitOf(s.resource))} ${s.resource}` } satisfies CompleteVerdicts,
      devices: deviceVerdicts(verdicts),
    };
  }
  return verdicts.length > 0 ? { devices: deviceVerdicts(verdicts) } : {};
}

/**
 * A pod explained by the planner's own cycle for it in a plan: a stored plan's kept diagnosis, or
 * the pod set's plan as a preview makes it now (the planner is seeded: the preview the user looks at).
 * Undefined when that plan has no cycle for the pod (it is not in the set, or the planner kept none).
 */
export async function explainInPlan(
  pod: Located<Pod>,
  analysis: Analysis,
  ref: PlanRefView,
  history: History,
): Promise<PodExplanationView | undefined> {
  const p = pod.value;
  const namespace = p.metadata.namespace ?? 'default';
  let cycle: { diagnosis: Diagnosis; node?: string; plan: string } | undefined;
  let lacks: Pick<Cycle, 'complete' | 'devices'> = {};
  let judgedOn: string | undefined;
  let nodes = analysis.engine.snapshot.list().map((n) => n.name);
  if (ref.historyId !== undefined) {
    const id = ref.historyId;
    const kept = history.diagnosis(id, p.metadata.name);
    if (kept.ok && kept.value)
      cycle = {
        diagnosis: kept.value,
        ...(kept.value.chosenNode !== undefined ? { node: kept.value.chosenNode } : {}),
        plan: `plan #${id}`,
      };
    if (!cycle) return undefined;
    // What the pod lacks per node: on the cluster the stored plan was made on, as it left it (its
    // other pods placed, their devices taken), with the profile it was made with, as podplan explain
    // --plan judges; never on today's workspace or profile, which may not be what that plan saw.
    const stored = history.planned(id);
    const basis = stored.ok ? stored.value.basis : undefined;
    const framework = basis?.profile ? frameworkOf(basis.profile, undefined) : undefined;
    if (stored.ok && basis?.profile && framework?.ok) {
      const storedCluster = basis.cluster;
      const storedPod = storedCluster.pods.find(
        (x) => (x.metadata.namespace ?? 'default') === namespace && x.metadata.name === p.metadata.name,
      );
      const before = basis.placedBefore;
      const planned = planClusterOf(
        storedCluster,
        { namespace: stored.value.namespace, assignments: stored.value.assignments, ...(before ? { placedBefore: before } : {}) },
        p.metadata.name,
      );
      if (planned.ok) {
        const d = cycle.node !== undefined ? { ...cycle.diagnosis, chosenNode: cycle.node } : cycle.diagnosis;
        lacks = whatItLacks(storedPod ?? p, analysis, d, planned.value, framework.value.framework);
        nodes = storedCluster.nodes.map((n) => n.metadata.name);
        const { seen, unknown } = placedBeforeWords(before, stored.value.trigger);
        judgedOn = `Judged on the cluster plan #${id} was made on${seen}, as it left it (its other pods on their nodes), with the profile it was made with.${unknown}`;
      }
    } else
      judgedOn = !stored.ok
        ? `The cluster plan #${id} was made on could not be read (${stored.error}): no node’s verdict is judged.`
        : !basis && stored.value.live
          ? `Plan #${id} was made by a live scheduler on the cluster as it was at that moment, which the history does not keep with a live scheduler’s plans: the planner’s cycle is shown, but no node’s verdict is judged, since today’s workspace may not be the cluster that plan saw.`
          : !basis
            ? `Plan #${id} was recorded before the plan history kept the cluster a plan is made on: the planner’s cycle is shown, but no node’s verdict is judged, since today’s workspace may not be the cluster that plan saw.`
            : !basis.profile
              ? `Plan #${id} was recorded before the plan history kept the profile a plan is made with: the planner’s cycle is shown, but no node’s verdict is judged, since today’s profile may not be the one that plan was made with.`
              : `The profile plan #${id} was made with does not build (${framework && !framework.ok ? framework.error : ''}): no node’s verdict is judged.`;
  } else {
    const made = await previewPodSet(analysis, { namespace, name: ref.podSet }, solverOf(analysis));
    if (made.ok) {
      const name = `the preview of ${ref.podSet}`;
      const a = made.value.assignments.find((x) => x.pod === p.metadata.name);
      const u = made.value.unplaced.find((x) => x.pod === p.metadata.name);
      const placed = made.value.assignments.map((x) => ({ pod: x.pod, node: x.node }));
      if (a?.diagnosis) cycle = { diagnosis: a.diagnosis, node: a.node, plan: name };
      else if (u) cycle = { diagnosis: u.diagnosis, plan: name };
      // What the pod lacks per node: on the cluster as the preview's plan leaves it (the other pods
      // placed, their devices taken), as podplan explain judges.
      if (cycle) {
        const d = cycle.node !== undefined ? { ...cycle.diagnosis, chosenNode: cycle.node } : cycle.diagnosis;
        // With the pods of the sets planned before it (its trigger's dependencies) on their nodes: the
        // cluster it was made on, as podplan explain rebuilds it (planClusterOf).
        const before = made.value.placedBefore;
        const on = planClusterOf(
          analysis.model.cluster,
          { namespace, assignments: placed, ...(before ? { placedBefore: before } : {}) },
          p.metadata.name,
          analysis.engine.planCluster(),
        );
        if (on.ok) lacks = whatItLacks(p, analysis, d, on.value);
      }
    }
  }
  if (!cycle) return undefined;
  return explanationView(p, {
    diagnosis: cycle.diagnosis,
    nodes,
    ...lacks,
    source: 'planner',
    ...(cycle.node !== undefined ? { planned: { node: cycle.node, plan: cycle.plan } } : {}),
    ...(judgedOn !== undefined ? { judgedOn } : {}),
  });
}
