// A Plan (src/engine/planner/plan.ts) as a Pallet SchedulePlan manifest, and back: the one place a
// SchedulePlan object is built (the store exports through it too). The name follows Pallet's rule
// (src/engine/planner/podset/name.ts).
import { stringify } from 'yaml';
import { Code } from '../engine/framework/status';
import type { Diagnosis } from '../engine/framework/diagnosis';
import { schedulePlanName } from '../engine/planner/podset/name';
import { PLANNER_API_VERSION, POD_SET_LABEL, type Plan } from '../engine/planner/plan';
import type { SchedulePlanManifest, SchedulePlanStatus, UnplacedEntry } from './planner';

export interface WritePlanOptions {
  /**
   * Also write each pod's Diagnosis (unplaced and placed) into the status, so reading the manifest
   * back gives the whole plan. Off by default: diagnoses list every node and make long files.
   */
  readonly diagnoses?: boolean;
  /**
   * Write Podplan's status (default true). Off, the object holds only what Pallet's SchedulePlan CRD
   * declares (its status has no fields: an API server prunes any), for kubectl apply on a Pallet cluster.
   */
  readonly status?: boolean;
}

/**
 * What a SchedulePlan is written from: a Plan whose unplaced pods may lack their diagnosis, so a
 * stored plan is written without opening its compressed diagnoses when they are not wanted.
 */
export type WritablePlan = Omit<Plan, 'unplaced'> & { readonly unplaced: readonly UnplacedEntry[] };

/** The SchedulePlan for a plan: spec.plan as Pallet has it, and our status. */
export function schedulePlanManifest(plan: WritablePlan, options: WritePlanOptions = {}): SchedulePlanManifest {
  const decisions = options.diagnoses ? plan.assignments.flatMap((a) => (a.diagnosis ? [{ pod: a.pod, diagnosis: a.diagnosis }] : [])) : [];
  const status: SchedulePlanStatus = {
    planner: plan.planner,
    profile: plan.profile,
    ...(plan.trigger !== undefined ? { trigger: plan.trigger } : {}),
    ...(Number.isFinite(plan.createdAt) ? { createdAt: new Date(plan.createdAt).toISOString() } : {}),
    snapshotHash: plan.snapshotHash,
    placed: plan.assignments.length,
    unplaced: plan.unplaced.map((u) => ({
      pod: u.pod,
      message: u.message,
      ...(options.diagnoses && u.diagnosis ? { diagnosis: u.diagnosis } : {}),
    })),
    ...(decisions.length > 0 ? { decisions } : {}),
    ...(plan.victims && plan.victims.length > 0 ? { victims: plan.victims.map((v) => ({ pod: v.pod, node: v.node, by: v.by })) } : {}),
  };
  return {
    name: schedulePlanName(plan.namespace, plan.podSet),
    namespace: plan.namespace,
    labels: { [POD_SET_LABEL]: plan.podSet },
    podSet: plan.podSet,
    plan: plan.assignments.map((a) => ({ pod: a.pod, node: a.node })),
    status,
  };
}

/** The SchedulePlan object for a plan, as written to a file or sent to the API server. */
export function schedulePlanObject(plan: WritablePlan, options: WritePlanOptions = {}) {
  const m = schedulePlanManifest(plan, options);
  return {
    apiVersion: PLANNER_API_VERSION,
    kind: 'SchedulePlan',
    metadata: { name: m.name, namespace: m.namespace, labels: m.labels },
    spec: { plan: m.plan },
    ...(options.status === false ? {} : { status: m.status }),
  };
}

/** SchedulePlan YAML text (one document) for a plan. */
export function writeSchedulePlan(plan: WritablePlan, options: WritePlanOptions = {}): string {
  // lineWidth 0: failure messages stay on one line each.
  return stringify(schedulePlanObject(plan, options), { lineWidth: 0 });
}

/** What is known of an unplaced pod whose diagnosis was not written: its message. */
function messageOnlyDiagnosis(pod: string, profile: string, message: string): Diagnosis {
  return {
    pod,
    profile,
    nodesTotal: 0,
    nodesEvaluated: 0,
    feasibleNodes: 0,
    status: { code: Code.Unschedulable, reasons: [message] },
    rejections: [],
    filters: [],
    scores: [],
    stages: [],
    message,
  };
}

/**
 * The Plan a SchedulePlan describes. Fields its status does not carry (a plan written by Pallet has
 * none) are empty strings and createdAt 0; an unplaced pod written without its diagnosis gets one
 * holding only its message.
 */
export function planFromManifest(m: SchedulePlanManifest): Plan {
  const status = m.status ?? {};
  const profile = status.profile ?? '';
  const decisions = new Map((status.decisions ?? []).map((d) => [d.pod, d.diagnosis]));
  const createdAt = status.createdAt !== undefined ? Date.parse(status.createdAt) : NaN;
  return {
    podSet: m.podSet,
    namespace: m.namespace,
    ...(status.trigger !== undefined ? { trigger: status.trigger } : {}),
    planner: status.planner ?? '',
    profile,
    assignments: m.plan.map((e) => {
      const diagnosis = decisions.get(e.pod);
      return { pod: e.pod, node: e.node, ...(diagnosis ? { diagnosis } : {}) };
    }),
    unplaced: (status.unplaced ?? []).map((u) => ({
      pod: u.pod,
      message: u.message,
      diagnosis: u.diagnosis ?? messageOnlyDiagnosis(`${m.namespace}/${u.pod}`, profile, u.message),
    })),
    ...(status.victims && status.victims.length > 0 ? { victims: status.victims } : {}),
    createdAt: Number.isFinite(createdAt) ? createdAt : 0,
    snapshotHash: status.snapshotHash ?? '',
  };
}
