// The custom requests of protocol/requests.ts, answered from the workspace analysis.
import { err, ok, type Result } from '../../engine/api/result';
import type { Plan } from '../../engine/planner/plan';
import { CPU, MEMORY } from '../../engine/api/resources';
import { parseGoDuration } from '../../engine/planner/podset/duration';
import { splitPath, unreadablePods, unreadableRefusal, type Located, type ScheduleTriggerManifest } from '../../manifests';
import { valueAt } from './documents';
import { closest } from './words';
import type { Pod } from '../../engine/api/types';
import { textDigest } from '../../protocol/digest';
import type {
  ClusterSummary,
  ExplainPodParams,
  ObjectRef,
  PodListItem,
  PodSetSummary,
  PreviewPlanParams,
  ScheduleNowParams,
  ScheduleNowResult,
  ScheduleWrite,
  WorkspaceSummary,
} from '../../protocol/requests';
import type { PlanBoundView, PlanView, PodExplanationView } from '../../protocol/webview';
import type { History } from '../history';
import { fnv32a } from '../../manifests';
import { fileNameOf } from './locate';
import { podSetLabelOf, schedulerOf, type Analysis } from './analysis';
import { schedulePlanEdit } from './code-actions';
import { incompleteDependencies } from './dependencies';
import { replaceValue } from './edits';
import { boundView, explainInPlan, explainPod, planningProfile, planView, previewPodSet, solverOf } from './planning';
import type { PlanBound } from '../../engine/planner/solver/bound';

const DEFAULT_NS = 'default';

/** The pod set a preview plans: a trigger's, or one named. */
function previewRequest(params: PreviewPlanParams, analysis: Analysis): Result<{ namespace: string; podSet: string; trigger?: string }> {
  if (params.trigger) {
    const namespace = params.trigger.namespace ?? DEFAULT_NS;
    const trigger = analysis.trigger(namespace, params.trigger.name);
    if (!trigger) return err(`no ScheduleTrigger ${namespace}/${params.trigger.name} in ${analysis.where}`);
    return ok({ namespace, podSet: trigger.value.podSet, trigger: trigger.value.name });
  }
  if (params.podSet) return ok({ namespace: params.podSet.namespace ?? DEFAULT_NS, podSet: params.podSet.name });
  return err('previewPlan needs a trigger or a pod set');
}

/** A preview's bound, proven: as kept in the history, and as shown. */
export interface ProvenBoundView {
  readonly bound: PlanBound;
  readonly view: PlanBoundView;
}

/**
 * Takes the proof of a preview's bound, to run once the preview is answered (the solves take longer
 * than the plan on a large set), and the history entry the preview was kept as; the token the view
 * names it by (PlanView.boundPending).
 */
export type BoundLater = (prove: () => ProvenBoundView | undefined, historyId: number | undefined) => string;

/** A pod set's plan; with `later`, answered before its bound, which `later` is handed to prove. */
export async function previewPlan(
  params: PreviewPlanParams,
  analysis: Analysis,
  history: History,
  later?: BoundLater,
): Promise<Result<PlanView>> {
  const request = previewRequest(params, analysis);
  if (!request.ok) return request;
  if (analysis.podSet(request.value.namespace, request.value.podSet).length === 0)
    return err(`pod set ${request.value.namespace}/${request.value.podSet} has no pods in ${analysis.where}`);
  const { solver } = solverOf(analysis);
  const deferred = new Map<Plan, () => PlanBound | undefined>();
  const made = await previewPodSet(
    analysis,
    { namespace: request.value.namespace, name: request.value.podSet },
    solver ? { solver: later ? { ...solver, deferBound: (plan, prove) => deferred.set(plan, prove) } : solver } : {},
  );
  if (!made.ok) return made;
  const plan = made.value;
  const view = keptView(plan, analysis, history);
  const prove = deferred.get(plan);
  if (!prove || !later) return ok(view);
  const token = later(() => {
    const bound = prove();
    return bound && { bound, view: boundView(bound, plan) };
  }, view.historyId);
  return ok({ ...view, boundPending: token });
}

export interface PlanSize {
  readonly podSet: string;
  readonly pods: number;
  readonly nodes: number;
}

/** How much a preview or Schedule Now of `params` has to plan; undefined when it plans nothing. */
export function planSize(params: PreviewPlanParams | ScheduleNowParams, analysis: Analysis): PlanSize | undefined {
  const request = previewRequest(params, analysis);
  if (!request.ok) return undefined;
  const pods = analysis.plannedPodsOf(request.value.namespace, request.value.podSet).length;
  return pods > 0 ? { podSet: request.value.podSet, pods, nodes: analysis.model.nodes.length } : undefined;
}

/**
 * Pod × node pairs from which a plan is worth a progress notification (the planner filters and
 * scores each pair): below it the plan is done before a notification could be read.
 */
const LONG_PLAN_PAIRS = 100_000;

export const takesLong = (size: PlanSize): boolean => size.pods * size.nodes >= LONG_PLAN_PAIRS;

/** The plan's view, after keeping it in the history (as its id) when there is one. */
export function keptView(plan: Plan, analysis: Analysis, history: History): PlanView {
  // What the plan was made from: the whole cluster (every object a plugin reads) and the pod-set profile.
  const profile = planningProfile(analysis);
  const saved = history.savePreview(plan, fnv32a(JSON.stringify(profile)).toString(16).padStart(8, '0'), analysis.model.generated, {
    cluster: analysis.model.cluster,
    profile,
  });
  const view = planView(plan, analysis, saved.ok ? saved.value : undefined);
  // With no history every save says so (the summary tells that once); a history that fails to write is news.
  return saved.ok || history.unavailable !== undefined
    ? view
    : { ...view, historyError: `the plan is not kept in the plan history: ${saved.error}` };
}

/** The pod a reference names: by namespace and name, or by a name that is unique across namespaces; else why not, with a near miss. */
export function resolvePod(ref: ObjectRef, analysis: Analysis): Result<Located<Pod>> {
  if (ref.namespace !== undefined) {
    const pod = analysis.pod(ref.namespace, ref.name);
    if (pod) return ok(pod);
  } else {
    const named = analysis.model.pods.filter((p) => p.value.metadata.name === ref.name);
    const [only] = named;
    if (named.length === 1 && only) return ok(only);
    if (named.length > 1)
      return err(
        `${named.length} pods are named ${ref.name} in ${analysis.where}: ${named.map((p) => `${p.value.metadata.namespace ?? DEFAULT_NS}/${ref.name}`).join(', ')}; give the namespace`,
      );
  }
  const where = ref.namespace !== undefined ? `${ref.namespace}/${ref.name}` : ref.name;
  const inNamespace = analysis.model.pods.filter(
    (p) => ref.namespace === undefined || (p.value.metadata.namespace ?? DEFAULT_NS) === ref.namespace,
  );
  const near = closest(
    ref.name,
    inNamespace.map((p) => p.value.metadata.name),
  );
  const match = near === undefined ? undefined : inNamespace.find((p) => p.value.metadata.name === near);
  const suggestion = match ? `; did you mean ${match.value.metadata.namespace ?? DEFAULT_NS}/${near}?` : '';
  return err(`no pod ${where} in ${analysis.where}${suggestion}`);
}

export async function explainPodRequest(
  params: ExplainPodParams,
  analysis: Analysis,
  history: History,
): Promise<Result<PodExplanationView>> {
  const pod = resolvePod(params.pod, analysis);
  if (!pod.ok) return pod;
  // An object of the files that does not read refuses it, as it refuses podplan explain (manifests unreadablePods, the one rule).
  const refusal = unreadableRefusal(unreadablePods(analysis.model, 'every-pod'), fileNameOf);
  if (refusal) return err(refusal);
  return ok((params.inPlan && (await explainInPlan(pod.value, analysis, params.inPlan, history))) || explainPod(pod.value, analysis));
}

/** Every pod, those not yet placed first, then by namespace and name. */
export function listPods(analysis: Analysis): PodListItem[] {
  return analysis.model.pods
    .map((p): PodListItem => {
      const podSet = podSetLabelOf(p.value);
      return {
        namespace: p.value.metadata.namespace ?? DEFAULT_NS,
        name: p.value.metadata.name,
        ...(p.value.spec.nodeName ? { node: p.value.spec.nodeName } : {}),
        ...(podSet !== undefined ? { podSet } : {}),
        schedulerName: schedulerOf(p.value),
      };
    })
    .sort(
      (a, b) =>
        Number(a.node !== undefined) - Number(b.node !== undefined) ||
        a.namespace.localeCompare(b.namespace) ||
        a.name.localeCompare(b.name),
    );
}

export function scheduleNow(params: ScheduleNowParams, analysis: Analysis, history: History): Result<ScheduleNowResult> {
  const namespace = params.trigger.namespace ?? DEFAULT_NS;
  const trigger = analysis.trigger(namespace, params.trigger.name);
  if (!trigger) return err(`no ScheduleTrigger ${namespace}/${params.trigger.name} in ${analysis.where}`);
  const waiting = incompleteDependencies(trigger.value, analysis);
  if (waiting.length > 0)
    return err(`${trigger.value.name} cannot be scheduled yet: it depends on ${waiting.join('; ')}. Schedule what it depends on first.`);
  const file = analysis.file(trigger.file);
  const document = file?.model.documents[trigger.document];
  if (!file || !document) return err(`${trigger.file} is no longer in the workspace`);
  const state =
    trigger.value.state === 'Schedule'
      ? undefined
      : replaceValue(
          { file, index: document.index, source: document.source, value: document.value, base: trigger.base },
          'spec.state',
          'Schedule',
        );
  const planned = schedulePlanEdit(trigger, analysis, state ? [state] : [], solverOf(analysis));
  if (!planned.ok) return planned;
  const made = planned.value;
  if (!made.edit.ok) return err(`the plan of ${trigger.value.podSet} is not written: ${made.edit.error}`);
  const plan = made.plan;
  const planFile = made.existing?.file ?? trigger.file;
  const planName = `${plan.namespace}/${made.existing?.value.name ?? plan.podSet}`;
  const planFields = [
    `spec.plan: ${plan.assignments.length} pod${plan.assignments.length === 1 ? '' : 's'} to nodes`,
    `status: planner ${plan.planner}${plan.unplaced.length > 0 ? `, ${plan.unplaced.length} unplaced with reasons` : ''}`,
  ];
  const writes: ScheduleWrite[] = [
    ...(state
      ? [
          {
            uri: trigger.file,
            object: `ScheduleTrigger ${namespace}/${trigger.value.name}`,
            created: false,
            fields: [`spec.state: ${trigger.value.state} → Schedule`],
          },
        ]
      : []),
    { uri: planFile, object: `SchedulePlan ${planName}`, created: made.existing === undefined, fields: planFields },
  ];
  const files = made.edit.value.files.map((f) => ({ uri: f.uri, before: textDigest(f.before), after: textDigest(f.after) }));
  return ok({ edit: made.edit.value.edit, files, plan: keptView(plan, analysis, history), writes });
}

export function workspaceSummary(
  analysis: Analysis,
  folders: readonly string[],
  problems: { errors: number; warnings: number },
  history: History,
): WorkspaceSummary {
  const m = analysis.model;
  const podSets = analysis.podSetKeys().map((key) => {
    const [namespace = DEFAULT_NS, name = ''] = key.split('/');
    const trigger = analysis.triggersOf(namespace, name)[0];
    const plan = analysis.plansOf(namespace, name)[0];
    const pending = analysis.plannedPodsOf(namespace, name);
    const written = trigger ? writtenState(trigger, analysis) : undefined;
    // Scheduled: the plan places these pods; they wait to be bound, not to be placed.
    const inPlan = new Set(plan?.value.plan.map((e) => e.pod) ?? []);
    const planned = trigger?.value.state === 'Schedule' && plan ? pending.filter((p) => inPlan.has(p.value.metadata.name)).length : 0;
    return {
      namespace,
      name,
      pods: analysis.podSet(namespace, name).length,
      pending: pending.length - planned,
      ...(trigger ? { trigger: trigger.value.name, state: trigger.value.state, ...triggerDetails(trigger.value, analysis) } : {}),
      ...(written !== undefined && written !== trigger?.value.state ? { invalidState: written } : {}),
      ...(plan ? { plan: plan.value.name } : {}),
      ...(planned > 0 ? { planned } : {}),
    };
  });
  return {
    folders,
    files: m.files.length,
    nodes: m.nodes.length,
    pods: m.pods.length,
    workloads: m.workloads.length,
    triggers: m.triggers.length,
    plans: m.plans.length,
    // The profiles alone: the status bar shows this summary before the engine's snapshot of the cluster is built.
    profiles: [...new Set(analysis.profiles.map((p) => p.schedulerName))],
    podSets,
    problems,
    history: history.unavailable
      ? { available: false, reason: history.off?.reason ?? history.unavailable, ...(history.off?.noDriver ? { noDriver: true } : {}) }
      : { available: true, ...(history.driver ? { driver: history.driver } : {}) },
  };
}

/** The trigger's spec.state as written in its file (text for a value that is not a string). */
function writtenState(trigger: Located<ScheduleTriggerManifest>, analysis: Analysis): string | undefined {
  const document = analysis.file(trigger.file)?.model.documents[trigger.document];
  const object = valueAt(document?.value, splitPath(trigger.base) ?? []);
  const state = valueAt(object, ['spec', 'state']);
  return state === undefined || state === null ? undefined : typeof state === 'string' ? state : JSON.stringify(state);
}

/** A trigger's quiet time (and what is left of it), its dependencies and those not complete. */
function triggerDetails(trigger: ScheduleTriggerManifest, analysis: Analysis): Partial<PodSetSummary> {
  const details: { -readonly [K in keyof PodSetSummary]?: PodSetSummary[K] } = {};
  if (trigger.quietTime !== undefined) {
    details.quietTime = trigger.quietTime;
    const quiet = parseGoDuration(trigger.quietTime);
    const arrivals = analysis.podSet(trigger.namespace, trigger.podSet).flatMap((p) => {
      const at = Date.parse(p.value.metadata.creationTimestamp ?? '');
      return Number.isNaN(at) ? [] : [at];
    });
    const now = analysis.options.clock?.now();
    if (trigger.state === 'Planning' && quiet.ok && arrivals.length > 0 && now !== undefined)
      details.quietTimeLeftMs = Math.max(0, Math.max(...arrivals) + quiet.value - now);
  }
  if (trigger.dependsOn.length > 0) {
    details.dependsOn = trigger.dependsOn.map(
      (d) => `${d.kind ?? 'ScheduleTrigger'} ${d.namespace && d.namespace !== trigger.namespace ? `${d.namespace}/` : ''}${d.name}`,
    );
    const waiting = incompleteDependencies(trigger, analysis);
    if (waiting.length > 0) details.waitingOn = waiting;
  }
  return details;
}

export function clusterSummary(analysis: Analysis, folders: readonly string[]): ClusterSummary {
  const first = folders[0] ?? '';
  const nodes = analysis.engine.snapshot.list().map((info) => ({
    name: info.name,
    pods: info.pods.length,
    unschedulable: info.node.spec?.unschedulable === true,
    cpu: { allocatable: info.allocatable.get(CPU), requested: info.requested.get(CPU) },
    memory: { allocatable: info.allocatable.get(MEMORY), requested: info.requested.get(MEMORY) },
    labels: info.node.metadata.labels ?? {},
  }));
  const pending = analysis.model.pods
    .filter((p) => !p.value.spec.nodeName)
    .map((p) => {
      const podSet = podSetLabelOf(p.value);
      return {
        namespace: p.value.metadata.namespace ?? DEFAULT_NS,
        name: p.value.metadata.name,
        schedulerName: schedulerOf(p.value),
        ...(podSet !== undefined ? { podSet } : {}),
      };
    });
  return { source: { kind: 'workspace', name: decodeURIComponent(first.split('/').pop() ?? '') || 'workspace' }, nodes, pending };
}
