// Code actions: a quick fix for the diagnostics that have one, computed again from the workspace
// (never trusted from the client's copy of the diagnostic), and on a trigger "Create (or rebuild)
// the SchedulePlan" filled from the planner.
import { CodeActionKind, type CodeAction, type Diagnostic, type Range, type WorkspaceEdit } from 'vscode-languageserver';
import { err, ok, type Result } from '../../engine/api/result';
import type { Pod } from '../../engine/api/types';
import { POD_SET_LABEL, type Plan } from '../../engine/planner/plan';
import {
  concatPath,
  schedulePlanName,
  splitPath,
  writeSchedulePlan,
  type Located,
  type ManifestDocument,
  type SchedulePlanManifest,
  type ScheduleTriggerManifest,
} from '../../manifests';
import type { SourceFile } from '../workspace';
import type { Analysis } from './analysis';
import { CODES, SOURCE } from './codes';
import { documentAt, rawObjects, stringAt, valueAt, type RawObject } from './documents';
import { appendItems, removeItem, removeKey, replaceValue, scalar, setEntry, type Target } from './edits';
import { guardedEdit, valueOf, type Change, type FileWrite } from './safe-edit';
import { anchorRange, contains } from './locate';
import { quietTimeRewrite } from '../../engine/planner/podset/quiet-time';
import { suggestedName } from './names';
import { planPodSet, type PlanStart } from './planning';
import { REGISTRY } from './profiles';
import { checkSchema, schemaAt, SCHEMAS } from './schema';
import { closest } from './words';

const target = (file: SourceFile, document: ManifestDocument, base: string): Target => ({
  file,
  index: document.index,
  source: document.source,
  value: document.value,
  base,
});
const targetOf = (located: Located<unknown>, analysis: Analysis): Target | undefined => {
  const file = analysis.file(located.file);
  const document = file?.model.documents[located.document];
  return file && document ? target(file, document, located.base) : undefined;
};

/** A fix's changes, checked by the guard (safe-edit.ts): the edit, or why it is refused; undefined when there is nothing to change. */
type Checked = Result<WorkspaceEdit> | undefined;

function edit(analysis: Analysis, ...changes: Array<Change | undefined>): Checked {
  const list = changes.filter((c): c is Change => c !== undefined);
  if (!list.length) return undefined;
  const guarded = guardedEdit(list, (uri) => analysis.file(uri)?.document.getText());
  return guarded.ok ? ok(guarded.value.edit) : guarded;
}

/** A quick fix; one the guard refused is shown disabled, with its reason. */
function action(title: string, changes: Checked, diagnostic?: Diagnostic, preferred = false): CodeAction[] {
  if (!changes) return [];
  const about = { title, kind: CodeActionKind.QuickFix, ...(diagnostic ? { diagnostics: [diagnostic] } : {}) };
  if (!changes.ok) return [{ ...about, disabled: { reason: `Podplan will not make this edit: ${changes.error}` } }];
  return [{ ...about, edit: changes.value, ...(preferred ? { isPreferred: true } : {}) }];
}

/** The document, the raw object and the path (relative to it) a diagnostic points at. */
interface At {
  readonly file: SourceFile;
  readonly document: ManifestDocument;
  readonly object: RawObject;
  readonly relative: string;
  readonly segments: readonly (string | number)[];
}

function at(file: SourceFile, range: Range): At | undefined {
  const offset = file.document.offsetAt(range.start);
  const document = documentAt(file, offset);
  if (!document) return undefined;
  const path = document.source.pathAt(offset) ?? '';
  const object = rawObjects(document).find(
    (o) => o.base === '' || path === o.base || path.startsWith(`${o.base}.`) || path.startsWith(`${o.base}[`),
  );
  if (!object) return undefined;
  const relative = object.base === '' ? path : path.slice(object.base.length).replace(/^\./, '');
  return { file, document, object, relative, segments: splitPath(relative) ?? [] };
}

/** Every code action for `range` of the file `uri`, given the diagnostics the client shows there. */
export function codeActions(uri: string, range: Range, diagnostics: readonly Diagnostic[], analysis: Analysis): CodeAction[] {
  const file = analysis.file(uri);
  if (!file) return [];
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== SOURCE) continue;
    const place = at(file, d.range);
    if (place) out.push(...fixes(d, place, analysis));
  }
  out.push(...planActions(file, range, diagnostics, analysis));
  return out;
}

function fixes(d: Diagnostic, place: At, analysis: Analysis): CodeAction[] {
  const t = target(place.file, place.document, place.object.base);
  const value = valueAt(place.object.value, place.segments);
  switch (d.code) {
    case CODES.schemaEnum: {
      const schema = place.object.kind ? SCHEMAS[place.object.kind] : undefined;
      const options = (schema && schemaAt(schema, place.segments)?.enum) ?? [];
      const fixed =
        typeof value === 'string'
          ? (options.find((o) => o.toLowerCase() === value.toLowerCase()) ?? (options.length === 1 ? options[0] : closest(value, options)))
          : undefined;
      return fixed ? action(`Change to ${fixed}`, edit(analysis, replaceValue(t, place.relative, fixed)), d, true) : [];
    }
    case CODES.quietTimeNotDuration:
    case CODES.quietTimeNotLabelValue: {
      const rewrite = typeof value === 'string' ? quietTimeRewrite(value) : undefined;
      return rewrite
        ? action(`Rewrite the quiet time as ${rewrite}`, edit(analysis, replaceValue(t, place.relative, rewrite)), d, true)
        : [];
    }
    case CODES.nameInvalid: {
      const fixed = typeof value === 'string' ? suggestedName(value) : undefined;
      return fixed ? action(`Rename to ${fixed}`, edit(analysis, replaceValue(t, place.relative, fixed)), d) : [];
    }
    case CODES.schemaRequired:
      return addRequired(d, place, t, analysis);
    case CODES.schemaUnknownField:
      return action(
        `Remove the unknown field ${String(place.segments[place.segments.length - 1])}`,
        edit(analysis, removeKey(t, place.relative)),
        d,
      );
    case CODES.profileUnknownPlugin: {
      const fixed = typeof value === 'string' ? closest(value, REGISTRY.names()) : undefined;
      return fixed && fixed !== value ? action(`Change to ${fixed}`, edit(analysis, replaceValue(t, place.relative, fixed)), d, true) : [];
    }
    case CODES.planUnknownPod:
    case CODES.planUnknownNode:
    case CODES.planNodeInfeasible:
    case CODES.planNodeOvercommitted:
    case CODES.planDuplicatePod:
    case CODES.planPodOutsideSet:
      return entryFixes(d, place, t, analysis);
    case CODES.planMissingPods:
      return addMissing(d, place, t, analysis);
    case CODES.podSetSchedulerName:
      return schedulerNameFix(d, place, analysis);
    default:
      return [];
  }
}

/** A required field that has one sensible value to start from: an enum's first, the pod set label guessed from the name. */
function addRequired(d: Diagnostic, place: At, t: Target, analysis: Analysis): CodeAction[] {
  const kind = place.object.kind;
  const schema = kind ? SCHEMAS[kind] : undefined;
  if (!schema) return [];
  const out: CodeAction[] = [];
  for (const issue of checkSchema(place.object.value, schema)) {
    if (issue.code !== CODES.schemaRequired || !issue.field) continue;
    const container = splitPath(issue.path) ?? [];
    if (anchorRange(place.document.source, concatPath(place.object.base, issue.path), issue.anchor).start.line !== d.range.start.line)
      continue;
    const labels = [...container, issue.field].join('.') === 'metadata.labels';
    if (issue.field === POD_SET_LABEL || labels) {
      const name = stringAt(place.object.value, ['metadata', 'name']);
      const namespace = stringAt(place.object.value, ['metadata', 'namespace']) ?? 'default';
      const guess = name === undefined ? 'pod-set' : kind === 'SchedulePlan' ? planSetName(name, namespace) : name;
      out.push(
        ...action(
          `Add the label ${POD_SET_LABEL}: ${guess}`,
          edit(analysis, setEntry(t, 'metadata.labels', POD_SET_LABEL, scalar(guess))),
          d,
          true,
        ),
      );
    } else {
      const first = schemaAt(schema, [...container, issue.field])?.enum?.[0];
      if (first !== undefined)
        out.push(...action(`Add ${issue.field}: ${first}`, edit(analysis, setEntry(t, issue.path, issue.field, first)), d, true));
    }
  }
  return out;
}

/** The pod set a plan named by Pallet's rule (`<podset>-<hash>`) is for; the name itself otherwise. */
function planSetName(name: string, namespace: string): string {
  const dash = name.lastIndexOf('-');
  const set = dash > 0 ? name.slice(0, dash) : name;
  return schedulePlanName(namespace, set) === name ? set : name;
}

function entryFixes(d: Diagnostic, place: At, t: Target, analysis: Analysis): CodeAction[] {
  const [spec, plan, index] = place.segments;
  if (spec !== 'spec' || plan !== 'plan' || typeof index !== 'number') return [];
  const located = analysis.model.plans.find(
    (p) => p.file === place.file.uri && p.document === place.document.index && p.base === place.object.base,
  );
  if (!located) return [];
  const entry = located.value.plan[index];
  if (!entry) return [];
  const problem = analysis.planCheck(located.value).entries[index]?.find((p) => p.code === d.code);
  const out: CodeAction[] = [];
  if (problem?.code === 'plan/unknown-pod' && problem.suggestion) {
    out.push(
      ...action(
        `Change to ${problem.suggestion}`,
        edit(analysis, replaceValue(t, `spec.plan[${index}].pod`, scalar(problem.suggestion))),
        d,
        true,
      ),
    );
  }
  if (problem?.code === 'plan/unknown-node' && problem.suggestion) {
    out.push(
      ...action(
        `Change to ${problem.suggestion}`,
        edit(analysis, replaceValue(t, `spec.plan[${index}].node`, scalar(problem.suggestion))),
        d,
        true,
      ),
    );
  }
  if (problem?.code === 'plan/unknown-node' || problem?.code === 'plan/node-infeasible' || problem?.code === 'plan/node-overcommitted') {
    const pod = analysis.pod(located.value.namespace, entry.pod);
    const best = pod && analysis.rank(pod.value, located.value)?.nodes[0];
    const suggested = problem.code === 'plan/unknown-node' ? problem.suggestion : undefined;
    if (best?.feasible && best.node !== entry.node && best.node !== suggested) {
      out.push(
        ...action(
          `Move ${entry.pod} to ${best.node}, the best node where it fits`,
          edit(analysis, replaceValue(t, `spec.plan[${index}].node`, scalar(best.node))),
          d,
          !out.length,
        ),
      );
    }
  }
  if (problem?.code === 'plan/pod-outside-set' && problem.podSet === undefined) {
    const pod = problem.pod;
    const podTarget = targetOf(pod, analysis);
    const labelEdit = podTarget && setEntry(podTarget, 'metadata.labels', POD_SET_LABEL, scalar(located.value.podSet));
    out.push(
      ...action(`Add the label ${POD_SET_LABEL}: ${located.value.podSet} to ${describeOwner(pod)}`, edit(analysis, labelEdit), d, true),
    );
  }
  if (problem?.code === 'plan/duplicate-pod' || problem?.code === 'plan/pod-outside-set') {
    out.push(
      ...action(
        `Remove the entry of ${entry.pod}`,
        edit(analysis, removeItem(t, `spec.plan[${index}]`)),
        d,
        problem.code === 'plan/duplicate-pod',
      ),
    );
  }
  return out;
}

function describeOwner(pod: Located<Pod>): string {
  const owner = pod.value.metadata.ownerReferences?.[0];
  return owner && pod.base.endsWith('spec.template') ? `the pod template of ${owner.kind} ${owner.name}` : `pod ${pod.value.metadata.name}`;
}

/** Places the pods a scheduled set's plan leaves out, each on the best node left, and appends them. */
function addMissing(d: Diagnostic, place: At, t: Target, analysis: Analysis): CodeAction[] {
  const located = analysis.model.plans.find(
    (p) => p.file === place.file.uri && p.document === place.document.index && p.base === place.object.base,
  );
  if (!located) return [];
  const plan = located.value;
  const check = analysis.planCheck(plan);
  const pods = check.missing.flatMap((name) => analysis.pod(plan.namespace, name) ?? []);
  const trigger = analysis.triggersOf(plan.namespace, plan.podSet)[0]?.value.name;
  const built = planPodSet(
    analysis,
    { namespace: plan.namespace, podSet: plan.podSet, trigger },
    { pods, snapshot: check.cluster.snapshot },
  );
  if (!built.ok)
    return [
      {
        title: 'Add the missing pods to the plan',
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        disabled: { reason: `the missing pods cannot be planned: ${built.error}` },
      },
    ];
  const made = built.value;
  if (made.assignments.length === 0) return [];
  const items = made.assignments.map((a) => ({ pod: a.pod, node: a.node }));
  const left = made.unplaced.length ? ` (${made.unplaced.length} fit nowhere)` : '';
  return action(
    `Add ${items.length} missing pod${items.length === 1 ? '' : 's'} to the plan, each on the best node left${left}`,
    edit(analysis, appendItems(t, 'spec.plan', items)),
    d,
    true,
  );
}

function schedulerNameFix(d: Diagnostic, place: At, analysis: Analysis): CodeAction[] {
  const pod = analysis.model.pods.find(
    (p) =>
      p.file === place.file.uri &&
      p.document === place.document.index &&
      (place.object.base === '' || p.base.startsWith(place.object.base)),
  );
  const podTarget = pod && targetOf(pod, analysis);
  if (!pod || !podTarget) return [];
  const name = analysis.plannerSchedulerName;
  return action(`Set schedulerName to ${name}`, edit(analysis, setEntry(podTarget, 'spec', 'schedulerName', scalar(name))), d, true);
}

/** On a trigger: write the SchedulePlan the planner makes for its set (a new document, or over the set's plan). */
function planActions(file: SourceFile, range: Range, diagnostics: readonly Diagnostic[], analysis: Analysis): CodeAction[] {
  const offset = file.document.offsetAt(range.start);
  const document = documentAt(file, offset);
  const trigger = document && file.model.triggers.find((t) => t.document === document.index);
  if (!trigger || analysis.plannedPodsOf(trigger.value.namespace, trigger.value.podSet).length === 0) return [];
  const made = schedulePlanEdit(trigger, analysis);
  const related = diagnostics.filter((d) => d.code === CODES.triggerNoPlan && contains(d.range, range.start.line, range.start.character));
  const existing = analysis.plansOf(trigger.value.namespace, trigger.value.podSet)[0];
  const title = existing ? `Rebuild the SchedulePlan ${existing.value.name} for this trigger` : 'Create a SchedulePlan for this trigger';
  const kind = related.length ? CodeActionKind.QuickFix : CodeActionKind.Refactor;
  // The reason the plan cannot be written is shown on the action, never dropped.
  if (!made.ok) return [{ title, kind, disabled: { reason: made.error } }];
  if (!made.value.edit.ok) return [{ title, kind, disabled: { reason: `Podplan will not make this edit: ${made.value.edit.error}` } }];
  return [{ title, kind, edit: made.value.edit.value.edit, ...(related.length ? { diagnostics: related, isPreferred: true } : {}) }];
}

export interface PlanEdit {
  /** The checked edit and the files it writes (before and after), or why the guard refused it. */
  readonly edit: Result<{ edit: WorkspaceEdit; files: FileWrite[] }>;
  readonly plan: Plan;
  /** The plan document it replaces, if the set had one. */
  readonly existing?: Located<SchedulePlanManifest>;
}

/**
 * The edit that writes the trigger's pod-set plan: over the content of the set's existing
 * SchedulePlan document (its `---`, leading comments and line end kept), else as a new document
 * after the trigger's. `extra` are other changes made with it (the trigger's state). Checked by the
 * guard, as every edit.
 */
export function schedulePlanEdit(
  trigger: Located<ScheduleTriggerManifest>,
  analysis: Analysis,
  extra: Change[] = [],
  start: PlanStart = {},
): Result<PlanEdit> {
  const { namespace, podSet, name } = trigger.value;
  const made = planPodSet(analysis, { namespace, podSet, trigger: name }, start);
  if (!made.ok) return err(`the plan of ${namespace}/${podSet} cannot be made: ${made.error}`);
  const plan = made.value;
  const text = writeSchedulePlan(plan).trimEnd();
  const value = valueOf(text);
  const textOf = (uri: string) => analysis.file(uri)?.document.getText();
  const existing = analysis.plansOf(namespace, podSet)[0];
  if (existing && existing.base === '') {
    const file = analysis.file(existing.file);
    const content = existing.source.range('');
    if (!file || !content) return err(`${existing.file} (the SchedulePlan of ${namespace}/${podSet}) is no longer in the workspace`);
    const replace: Change = {
      uri: existing.file,
      edit: {
        range: { start: file.document.positionAt(content.start.offset), end: file.document.positionAt(content.end.offset) },
        newText: text,
      },
      intent: { kind: 'replace-document', document: existing.document, value },
    };
    return ok({ edit: guardedEdit([...extra, replace], textOf), plan, existing });
  }
  const file = analysis.file(trigger.file);
  if (!file) return err(`${trigger.file} is no longer in the workspace`);
  const whole = file.document.getText();
  const next = file.model.documents[trigger.document + 1];
  let insert: string;
  let at: number;
  if (next) {
    // At the start of the next document: before its own `---`, or, when it has none (it follows a
    // `...`), with a `---` that now ends the plan.
    at = next.source.documentRange.start.offset;
    insert = whole.startsWith('---', at) ? `---\n${text}\n` : `---\n${text}\n---\n`;
  } else {
    at = whole.length;
    insert = `${at > 0 && whole[at - 1] !== '\n' ? '\n' : ''}---\n${text}\n`;
  }
  const position = file.document.positionAt(at);
  const add: Change = {
    uri: trigger.file,
    edit: { range: { start: position, end: position }, newText: insert },
    intent: { kind: 'insert-document', after: trigger.document, value },
  };
  return ok({ edit: guardedEdit([...extra, add], textOf), plan });
}
