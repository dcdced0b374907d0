// The custom requests of protocol/requests.ts, answered from the workspace analysis.
import { err, ok, type Result } from '../../engine/api/result';
import type { ExplainPodParams, PreviewPlanParams, ScheduleNowParams, ScheduleNowResult, WorkspaceSummary } from '../../protocol/requests';
import type { PlanView, PodExplanationView } from '../../protocol/webview';
import type { History } from '../history';
import { fnv32a } from '../../manifests';
import type { Analysis } from './analysis';
import { schedulePlanEdit } from './code-actions';
import { replaceValue } from './edits';
import { explainInPlan, explainPod, planPodSet, planView } from './planning';

const DEFAULT_NS = 'default';

export function previewPlan(params: PreviewPlanParams, analysis: Analysis, history: History): Result<PlanView> {
  let request: { namespace: string; podSet: string; trigger?: string };
  if (params.trigger) {
    const namespace = params.trigger.namespace ?? DEFAULT_NS;
    const trigger = analysis.trigger(namespace, params.trigger.name);
    if (!trigger) return err(`no ScheduleTrigger ${namespace}/${params.trigger.name} in the workspace`);
    request = { namespace, podSet: trigger.value.podSet, trigger: trigger.value.name };
  } else if (params.podSet) {
    request = { namespace: params.podSet.namespace ?? DEFAULT_NS, podSet: params.podSet.name };
  } else {
    return err('previewPlan needs a trigger or a pod set');
  }
  if (analysis.podSet(request.namespace, request.podSet).length === 0) return err(`pod set ${request.namespace}/${request.podSet} has no pods in the workspace`);
  const made = planPodSet(analysis, request);
  if (!made.ok) return made;
  const plan = made.value;
  const profile = analysis.engine.profile(analysis.plannerSchedulerName).profile;
  const saved = history.savePreview(plan, fnv32a(JSON.stringify(profile)).toString(16).padStart(8, '0'));
  return ok(planView(plan, analysis, saved.ok ? saved.value : undefined));
}

export function explainPodRequest(params: ExplainPodParams, analysis: Analysis, history: History): Result<PodExplanationView> {
  const namespace = params.pod.namespace ?? DEFAULT_NS;
  const pod = analysis.pod(namespace, params.pod.name);
  if (!pod) return err(`no pod ${namespace}/${params.pod.name} in the workspace`);
  return ok((params.inPlan && explainInPlan(pod, analysis, params.inPlan, history)) || explainPod(pod, analysis));
}

export function scheduleNow(params: ScheduleNowParams, analysis: Analysis): Result<ScheduleNowResult> {
  const namespace = params.trigger.namespace ?? DEFAULT_NS;
  const trigger = analysis.trigger(namespace, params.trigger.name);
  if (!trigger) return err(`no ScheduleTrigger ${namespace}/${params.trigger.name} in the workspace`);
  const file = analysis.file(trigger.file);
  const document = file?.model.documents[trigger.document];
  if (!file || !document) return err(`${trigger.file} is no longer in the workspace`);
  const state = trigger.value.state === 'Schedule' ? undefined : replaceValue({ file, source: document.source, value: document.value, base: trigger.base }, 'spec.state', 'Schedule');
  const made = schedulePlanEdit(trigger, analysis, state ? [state] : []);
  if (!made) return err(`cannot write the plan of ${trigger.value.podSet}`);
  return ok({ edit: made.edit, plan: planView(made.plan, analysis) });
}

export function workspaceSummary(analysis: Analysis, folders: readonly string[], problems: { errors: number; warnings: number }, history: History): WorkspaceSummary {
  const m = analysis.model;
  const podSets = analysis.podSetKeys().map((key) => {
    const [namespace = DEFAULT_NS, name = ''] = key.split('/');
    const trigger = analysis.triggersOf(namespace, name)[0];
    const plan = analysis.plansOf(namespace, name)[0];
    return {
      namespace,
      name,
      pods: analysis.podSet(namespace, name).length,
      pending: analysis.plannedPodsOf(namespace, name).length,
      ...(trigger ? { trigger: trigger.value.name, state: trigger.value.state } : {}),
      ...(plan ? { plan: plan.value.name } : {}),
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
    profiles: [...new Set(analysis.engine.profiles.map((p) => p.schedulerName))],
    podSets,
    problems,
    history: history.unavailable ? { available: false, reason: history.unavailable } : { available: true },
  };
}
