// A Plan (src/engine/planner/plan.ts) as a Pallet SchedulePlan manifest, and back.
//
// Pallet names the plan of a pod set `<podset>-<hash>` where hash is FNV-1a 32 of namespace then
// podset, printed in decimal and passed through apimachinery's rand.SafeEncodeString (each digit
// mapped into "bcdfghjklmnpqrstvwxz2456789"), as in internal/pkg/client/utils.go getName.
import { stringify } from 'yaml';
import { Code } from '../engine/framework/status';
import type { Diagnosis } from '../engine/framework/diagnosis';
import { PLANNER_API_VERSION, POD_SET_LABEL, type Plan } from '../engine/planner/plan';
import type { SchedulePlanManifest, SchedulePlanStatus } from './planner';

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text` (Go's hash/fnv New32a). */
export function fnv32a(text: string): number {
  let hash = FNV32_OFFSET;
  for (const byte of new TextEncoder().encode(text)) {
    hash = Math.imul(hash ^ byte, FNV32_PRIME) >>> 0;
  }
  return hash;
}

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** apimachinery's rand.SafeEncodeString: each character mapped into a vowel-free alphabet. */
export function safeEncodeString(text: string): string {
  let out = '';
  for (const ch of text) out += SAFE_ALPHANUMS[(ch.codePointAt(0) ?? 0) % SAFE_ALPHANUMS.length];
  return out;
}

/** The SchedulePlan name Pallet gives a pod set's plan. */
export function planName(namespace: string, podSet: string): string {
  return `${podSet}-${safeEncodeString(String(fnv32a(namespace + podSet)))}`;
}

export interface WritePlanOptions {
  /**
   * Also write each pod's Diagnosis (unplaced and placed) into the status, so reading the manifest
   * back gives the whole plan. Off by default: diagnoses list every node and make long files.
   */
  readonly diagnoses?: boolean;
}

/** The SchedulePlan for a plan: spec.plan as Pallet has it, and our status. */
export function schedulePlanManifest(plan: Plan, options: WritePlanOptions = {}): SchedulePlanManifest {
  const decisions = options.diagnoses ? plan.assignments.flatMap((a) => (a.diagnosis ? [{ pod: a.pod, diagnosis: a.diagnosis }] : [])) : [];
  const status: SchedulePlanStatus = {
    planner: plan.planner,
    profile: plan.profile,
    ...(plan.trigger !== undefined ? { trigger: plan.trigger } : {}),
    ...(Number.isFinite(plan.createdAt) ? { createdAt: new Date(plan.createdAt).toISOString() } : {}),
    snapshotHash: plan.snapshotHash,
    placed: plan.assignments.length,
    unplaced: plan.unplaced.map((u) => ({ pod: u.pod, message: u.message, ...(options.diagnoses ? { diagnosis: u.diagnosis } : {}) })),
    ...(decisions.length > 0 ? { decisions } : {}),
  };
  return {
    name: planName(plan.namespace, plan.podSet),
    namespace: plan.namespace,
    labels: { [POD_SET_LABEL]: plan.podSet },
    podSet: plan.podSet,
    plan: plan.assignments.map((a) => ({ pod: a.pod, node: a.node })),
    status,
  };
}

/** SchedulePlan YAML text (one document) for a plan. */
export function writeSchedulePlan(plan: Plan, options: WritePlanOptions = {}): string {
  const m = schedulePlanManifest(plan, options);
  const object = {
    apiVersion: PLANNER_API_VERSION,
    kind: 'SchedulePlan',
    metadata: { name: m.name, namespace: m.namespace, labels: m.labels },
    spec: { plan: m.plan },
    status: m.status,
  };
  // lineWidth 0: failure messages stay on one line each.
  return stringify(object, { lineWidth: 0 });
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
    createdAt: Number.isFinite(createdAt) ? createdAt : 0,
    snapshotHash: status.snapshotHash ?? '',
  };
}
