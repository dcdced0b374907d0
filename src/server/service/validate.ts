// Diagnostics of one file. Only our kinds (ScheduleTrigger, SchedulePlan, KubeSchedulerConfiguration)
// and the objects they reference (pods of a pod set a trigger or plan names) get diagnostics, and a
// DRA device selector (DeviceClass, ResourceClaim, ResourceClaimTemplate) whose CEL does not compile or
// is over kube-apiserver's cost limit, and admission's verdicts wherever they are (manifests
// ADMISSION_VERDICTS, what the CLI prints too), so a
// generic YAML or Kubernetes extension and this one never report the same problem twice. Every
// diagnostic has a stable code (codes.ts), the narrowest range that shows the problem, and a
// message that says how to fix it.
import { DiagnosticSeverity, type Diagnostic, type Range } from 'vscode-languageserver';
import type { DeviceFailure } from '../../engine/api/device-failures';
import { deviceFailureText } from '../../engine/explain/devices';
import { statusMessage, type Status } from '../../engine/framework/status';
import { POD_SET_LABEL } from '../../engine/planner/plan';
import type { Pod } from '../../engine/api/types';
import {
  ADMISSION_VERDICTS,
  concatPath,
  errorMessage,
  joinPath,
  unreadablePods,
  type Located,
  type ManifestError,
  type SchedulePlanManifest,
  type ScheduleTriggerManifest,
} from '../../manifests';
import type { SourceFile } from '../workspace';
import { keyOf, podSetLabelOf, schedulerOf, type Analysis } from './analysis';
import { CODES, SOURCE, type Code } from './codes';
import { dependencyCycles, resolveDependency } from './dependencies';
import { carriesPodSetLabel, declaredKind, documentAt, OUR_KINDS, PLAN, PROFILE_CONFIG, rawObjects, TRIGGER } from './documents';
import { anchorRange, fileNameOf, lspRange, rangeIn } from './locate';
import { subdomainError } from '../../engine/api/field';
import { checkNames } from './names';
import type { EntryProblem } from './plan-check';
import { checkSchema, SCHEMAS, type SchemaIssue } from './schema';
import { plural, shortList } from './words';

type Severity = 'error' | 'warning' | 'info';

/** Kinds with CEL device selectors, and where a selector's expression is. */
const DRA_KINDS: readonly string[] = ['DeviceClass', 'ResourceClaim', 'ResourceClaimTemplate'];
const CEL_EXPRESSION = /selectors\[\d+\]\.cel\.expression$/;

const SEVERITY: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

function diagnostic(range: Range, code: Code, severity: Severity, message: string): Diagnostic {
  return { range, code, severity: SEVERITY[severity], source: SOURCE, message };
}

/** Every diagnostic of the file `uri` in the workspace's current state. */
export function validate(uri: string, analysis: Analysis): Diagnostic[] {
  const file = analysis.file(uri);
  if (!file) return [];
  const out: Diagnostic[] = [];
  const checked = new Set<string>();
  for (const document of file.model.documents) {
    for (const object of rawObjects(document)) {
      const schema = object.kind !== undefined ? SCHEMAS[object.kind] : undefined;
      if (!schema) continue;
      const issues = [...checkSchema(object.value, schema), ...checkNames(object.value), ...dependsOnNames(object.value)];
      for (const issue of issues) {
        out.push(schemaDiagnostic(document.source, object.base, issue));
        checked.add(`${document.index}:${concatPath(object.base, issue.path)}`);
      }
    }
  }
  readerErrors(file, analysis, checked, out);
  for (const t of file.model.triggers) triggerChecks(t, analysis, out);
  for (const p of file.model.plans) planChecks(p, analysis, out);
  schedulerNameChecks(file, analysis, out);
  unplaceableChecks(file, analysis, out);
  profileChecks(file, analysis, out);
  return out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

function schemaDiagnostic(source: Located<unknown>['source'], base: string, issue: SchemaIssue): Diagnostic {
  return diagnostic(anchorRange(source, concatPath(base, issue.path), issue.anchor), issue.code, issue.severity, issue.message);
}

/** dependsOn names are object names: a DNS-1123 subdomain. */
function dependsOnNames(value: Record<string, unknown>): SchemaIssue[] {
  const spec = value['spec'];
  const list = typeof spec === 'object' && spec !== null ? (spec as Record<string, unknown>)['dependsOn'] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((ref: unknown, i): SchemaIssue[] => {
    const name = typeof ref === 'object' && ref !== null ? (ref as Record<string, unknown>)['name'] : undefined;
    const problem = typeof name === 'string' ? subdomainError(name) : undefined;
    return problem
      ? [
          {
            code: CODES.nameInvalid,
            severity: 'error',
            anchor: 'value',
            path: `spec.dependsOn[${i}].name`,
            message: `${JSON.stringify(name)} is not a valid object name: ${problem}`,
          },
        ]
      : [];
  });
}

/**
 * What the manifest reader found, for the documents we report on. For our two planner kinds the
 * schema says it first (same problems, the schema's words), except deep in the status, which the
 * schema leaves open, and duplicate names, which no schema sees; a path the schema already
 * reported on (`checked`) is not reported twice.
 */
function readerErrors(file: SourceFile, analysis: Analysis, checked: ReadonlySet<string>, out: Diagnostic[]): void {
  // A pod that does not read refuses the plans it is part of (unreadablePods): its errors are shown whatever pod it is.
  const unreadable = new Set(unreadablePods(analysis.model, 'every-pod').flatMap((u) => u.errors));
  for (const error of analysis.model.errors) {
    if (error.range.file !== file.uri) continue;
    const document = documentAt(file, error.range.start.offset);
    if (!document || checked.has(`${document.index}:${error.path ?? ''}`)) continue;
    if (!unreadable.has(error) && !reportsReaderError(file, document, error)) continue;
    const related = error.related;
    out.push({
      ...diagnostic(lspRange(error.range), error.code, error.severity, readerMessage(error)),
      ...(related
        ? { relatedInformation: [{ location: { uri: related.range.file, range: lspRange(related.range) }, message: related.note }] }
        : {}),
    });
  }
}

function reportsReaderError(file: SourceFile, document: Parameters<typeof declaredKind>[1], error: ManifestError): boolean {
  const kind = declaredKind(file, document);
  if (error.code === 'yaml-syntax') return kind !== undefined && OUR_KINDS.includes(kind);
  // A misspelt kind drops its object from every preview: whoever wrote it wants to know.
  if (error.code === 'unknown-kind') return true;
  // Admission's verdicts (an object refused, a replica not created, a quota entry not applied) change what
  // is placed wherever they are written, and no other extension knows: on every document, as the CLI prints them.
  if (ADMISSION_VERDICTS.has(error.code)) return true;
  if (kind === PROFILE_CONFIG) return true;
  // A device selector whose CEL does not compile or costs too much: no generic extension checks it, and the API server refuses it.
  if (kind !== undefined && DRA_KINDS.includes(kind) && CEL_EXPRESSION.test(error.path ?? '')) return true;
  if (kind === TRIGGER || kind === PLAN) {
    const path = error.path ?? '';
    return error.code === 'duplicate-name' || /(^|\.|\])status(\.|\[|$)/.test(path);
  }
  return rawObjects(document).some((o) => carriesPodSetLabel(o.value));
}

function readerMessage(error: ManifestError): string {
  // The reader parses with yaml's prettyErrors off (manifests/parse.ts): its messages carry no position.
  if (error.code === 'yaml-syntax') return `${error.message}: fix the YAML syntax so the document can be read`;
  const message = errorMessage(error, fileNameOf);
  return error.path ? `${error.path}: ${message}` : message;
}

function triggerChecks(t: Located<ScheduleTriggerManifest>, analysis: Analysis, out: Diagnostic[]): void {
  const { namespace, podSet } = t.value;
  const label = joinPath('metadata.labels', POD_SET_LABEL);
  const pods = analysis.podSet(namespace, podSet);
  if (pods.length === 0) {
    out.push(
      diagnostic(
        rangeIn(t, label),
        CODES.podSetEmpty,
        'warning',
        `no pod in namespace ${namespace} has the label ${POD_SET_LABEL}: ${podSet}, so this trigger holds nothing: label the pods (or their workload's pod template) with it, or fix the name`,
      ),
    );
  }
  if (
    t.value.state === 'Schedule' &&
    analysis.plansOf(namespace, podSet).length === 0 &&
    analysis.plannedPodsOf(namespace, podSet).length > 0
  ) {
    out.push(
      diagnostic(
        rangeIn(t, 'spec.state'),
        CODES.triggerNoPlan,
        'info',
        `the trigger is Schedule but the workspace has no SchedulePlan for pod set ${podSet}: use "Create a SchedulePlan for this trigger" to write the plan the planner would make`,
      ),
    );
  }
  const cycle = dependencyCycles(analysis).get(keyOf(namespace, t.value.name));
  t.value.dependsOn.forEach((ref, i) => {
    const at = `spec.dependsOn[${i}]`;
    const kind = ref.kind ?? 'ScheduleTrigger';
    const target = resolveDependency(ref, t.value, analysis);
    const where = ref.namespace ?? namespace;
    if (!target.exists) {
      out.push(
        diagnostic(
          rangeIn(t, `${at}.name`),
          CODES.dependsOnUnresolved,
          'error',
          `no ${kind} ${JSON.stringify(ref.name)} in namespace ${where}: name an existing ${kind}${ref.kind ? '' : ' (or set kind: PodSet or SchedulePlan)'}, or remove the entry`,
        ),
      );
    } else if (cycle && target.triggers.some((x) => cycle.includes(keyOf(x.value.namespace, x.value.name)))) {
      const ring = cycle.map((id) => id.split('/')[1] ?? id).join(' → ');
      out.push(
        diagnostic(
          rangeIn(t, `${at}.name`),
          CODES.dependsOnCycle,
          'error',
          `dependency cycle ${ring}: none of these triggers can ever be planned; remove one of the dependsOn entries`,
        ),
      );
    }
  });
}

function why(status: Status): string {
  const by = status.plugin ? ` (${status.plugin}${status.stage && status.stage !== 'Filter' ? ` at ${status.stage}` : ''})` : '';
  return `${statusMessage(status)}${by}`;
}

/** The device requests DynamicResources could not meet on the node, in the words podplan explain prints them. */
function devicesNotMet(devices: readonly DeviceFailure[] | undefined): string {
  return devices && devices.length > 0 ? ` — ${devices.map(deviceFailureText).join('; ')}` : '';
}

function entryMessage(problem: EntryProblem, plan: SchedulePlanManifest, index: number, analysis: Analysis): string {
  const entry = plan.plan[index] ?? { pod: '', node: '' };
  switch (problem.code) {
    case 'plan/unknown-pod': {
      const pods = analysis.plannedPodsOf(plan.namespace, plan.podSet).map((p) => p.value.metadata.name);
      const hint = problem.suggestion
        ? `did you mean "${problem.suggestion}"?`
        : pods.length
          ? `name a pod of the set (${shortList(pods)})`
          : `pod set ${plan.podSet} has no pods to plan`;
      return `no pod "${entry.pod}" in namespace ${plan.namespace}: ${hint}`;
    }
    case 'plan/duplicate-pod':
      return `pod "${entry.pod}" is already planned by entry ${problem.first + 1}: a pod goes to one node; remove one of the two entries`;
    case 'plan/pod-outside-set':
      return `pod "${entry.pod}" is not in pod set ${plan.podSet} (${problem.podSet === undefined ? `it has no ${POD_SET_LABEL} label` : `its ${POD_SET_LABEL} label is "${problem.podSet}"`}): label the pod with ${POD_SET_LABEL}: ${plan.podSet}, or remove the entry`;
    case 'plan/unknown-node':
      return `no node "${entry.node}" in ${analysis.where}: ${problem.suggestion ? `did you mean "${problem.suggestion}"?` : `name a node of ${analysis.where} (completion ranks them by fit for this pod)`}`;
    case 'plan/node-infeasible': {
      const context = problem.alone ? '' : ` once the pods planned there before it are placed (${shortList(problem.before)})`;
      return `pod ${entry.pod} cannot run on node ${entry.node}: ${why(problem.status)}${context}${besideText(problem.beside)}${devicesNotMet(problem.devices)}; choose a node where it fits (the quick fix picks the best one)`;
    }
    case 'plan/node-overcommitted':
      return `node ${entry.node} is over-committed by this plan: ${why(problem.status)} once the ${plural(problem.before.length, 'pod')} planned there before this one ${problem.before.length === 1 ? 'is' : 'are'} placed (${shortList(problem.before)})${besideText(problem.beside)}${devicesNotMet(problem.devices)}; move this pod to another node (the quick fix picks the best one)`;
  }
}

/** The pods the written plans the set depends on put on the node, in words (none: nothing). */
function besideText(beside: readonly string[] | undefined): string {
  return beside && beside.length > 0
    ? `, beside the ${plural(beside.length, 'pod')} the plans its set depends on put there (${shortList(beside)})`
    : '';
}

const ENTRY_FIELD: Readonly<Record<EntryProblem['code'], 'pod' | 'node' | ''>> = {
  'plan/unknown-pod': 'pod',
  'plan/duplicate-pod': 'pod',
  'plan/pod-outside-set': 'pod',
  'plan/unknown-node': 'node',
  'plan/node-infeasible': 'node',
  'plan/node-overcommitted': 'node',
};

function planChecks(p: Located<SchedulePlanManifest>, analysis: Analysis, out: Diagnostic[]): void {
  const check = analysis.planCheck(p.value);
  check.entries.forEach((problems, i) => {
    for (const problem of problems) {
      const field = ENTRY_FIELD[problem.code];
      const severity = problem.code === 'plan/pod-outside-set' ? 'warning' : 'error';
      out.push(
        diagnostic(
          rangeIn(p, `spec.plan[${i}]${field ? `.${field}` : ''}`),
          problem.code,
          severity,
          entryMessage(problem, p.value, i, analysis),
        ),
      );
    }
  });
  const scheduled = analysis.triggersOf(p.value.namespace, p.value.podSet).some((t) => t.value.state === 'Schedule');
  if (scheduled && check.missing.length > 0) {
    const n = check.missing.length;
    out.push(
      diagnostic(
        rangeIn(p, 'spec.plan', 'key'),
        CODES.planMissingPods,
        'warning',
        `${plural(n, 'pod')} of the scheduled pod set ${p.value.podSet} ${n === 1 ? 'is' : 'are'} not in the plan: ${shortList(check.missing)}; add ${n === 1 ? 'it' : 'them'} (completion offers the missing pods) or rebuild the plan from the trigger`,
      ),
    );
  }
}

/**
 * Pending pods of a set that a trigger or plan names, in this file: one for the pods of one workload
 * template (they share their manifest, so one diagnostic says it for them all).
 */
function checkedPods(file: SourceFile, analysis: Analysis): Array<{ pod: Located<Pod>; set: string; where: string }> {
  const out: Array<{ pod: Located<Pod>; set: string; where: string }> = [];
  const seen = new Set<string>();
  for (const pod of file.model.pods) {
    const set = podSetLabelOf(pod.value);
    const namespace = pod.value.metadata.namespace ?? 'default';
    // Bound here, or bound already where the cluster comes from (a live cluster runs a pod the files also write).
    if (set === undefined || pod.value.spec.nodeName || analysis.pod(namespace, pod.value.metadata.name)?.value.spec.nodeName) continue;
    if (analysis.triggersOf(namespace, set).length === 0 && analysis.plansOf(namespace, set).length === 0) continue;
    const where = `${file.uri}#${pod.document}:${pod.base}`;
    if (seen.has(where)) continue;
    seen.add(where);
    out.push({ pod, set, where });
  }
  return out;
}

/** Checked pods whose schedulerName keeps them from the planner. */
function schedulerNameChecks(file: SourceFile, analysis: Analysis, out: Diagnostic[]): void {
  for (const { pod, set } of checkedPods(file, analysis)) {
    if (schedulerOf(pod.value) === analysis.plannerSchedulerName) continue;
    const written = pod.value.spec.schedulerName !== undefined;
    const message = `${describePod(pod)} is in pod set ${set} but its schedulerName is ${schedulerOf(pod.value)}${written ? '' : ' (the default)'}, so the planner never sees it: set spec.schedulerName: ${analysis.plannerSchedulerName}`;
    out.push(
      diagnostic(
        rangeIn(pod, written ? 'spec.schedulerName' : joinPath('metadata.labels', POD_SET_LABEL)),
        CODES.podSetSchedulerName,
        'warning',
        message,
      ),
    );
  }
}

/** Checked pods no node of the cluster (the workspace's, or the live one) can run as it is: the planner can never place them. Upstream's words say why. */
function unplaceableChecks(file: SourceFile, analysis: Analysis, out: Diagnostic[]): void {
  for (const { pod, where } of checkedPods(file, analysis)) {
    const failure = analysis.engine.unplaceable(where, pod.value);
    if (!failure) continue;
    const template = pod.base.endsWith('spec.template');
    const upstream = (failure.diagnosis.message ?? why(failure.status)).replace(/\.$/, '');
    const message = `${describePod(pod)} cannot be placed on any node of ${analysis.where}: ${upstream}; the planner will leave ${template ? 'them' : 'it'} unplaced until a node fits (lower the requests or add a node)`;
    out.push(
      diagnostic(
        rangeIn(pod, template ? joinPath('metadata.labels', POD_SET_LABEL) : 'metadata.name'),
        CODES.podUnplaceable,
        'warning',
        message,
      ),
    );
  }
}

function describePod(pod: Located<Pod>): string {
  const owner = pod.value.metadata.ownerReferences?.[0];
  return owner && pod.base.endsWith('spec.template') ? `the pods of ${owner.kind} ${owner.name}` : `pod ${pod.value.metadata.name}`;
}

function profileChecks(file: SourceFile, analysis: Analysis, out: Diagnostic[]): void {
  if (file.model.profiles.length === 0) return;
  const configs = new Map(file.model.profiles.map((c) => [c.value, c]));
  for (const resolved of analysis.engine.profiles) {
    const config = resolved.source && configs.get(resolved.source.config.value);
    if (!config) continue;
    for (const issue of resolved.issues) out.push(diagnostic(rangeIn(config, issue.path), issue.code, issue.severity, issue.message));
  }
}
