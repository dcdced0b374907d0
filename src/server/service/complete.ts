// Completion: what may be written where the cursor is. apiVersion and kind; the fields of our kinds
// (from the schemas) and of scheduler configurations; state and other enum values; the planner's
// label keys; pod-set names seen in the workspace; inside a SchedulePlan the pods of its set and the
// nodes ranked by how well they fit the entry's pod; plugin names and args in profiles; DeviceClass
// names for a ResourceClaim's or ResourceClaimTemplate's deviceClassName.
import { CompletionItemKind, InsertTextFormat, MarkupKind, type CompletionItem, type Position, type Range } from 'vscode-languageserver';
import { Resource } from '../../engine/api/resources';
import type { Pod } from '../../engine/api/types';
import { podInfo } from '../../engine/framework/node-info';
import { POD_SET_LABEL, PLANNER_API_VERSION, QUIET_TIME_LABEL } from '../../engine/planner/plan';
import { SCHEDULER_CONFIG_API_VERSION, type PathSegment, type PlanEntry, type SchedulePlanManifest } from '../../manifests';
import { formatAmount } from '../../protocol/amounts';
import { amounts } from './amounts';
import { DEFAULT_SCHEDULER_NAME } from '../../engine/framework/profile';
import { podSetLabelOf, type Analysis } from './analysis';
import {
  declaredKind,
  documentAt,
  documentText,
  isPlainObject,
  OUR_KINDS,
  PLAN,
  PROFILE_CONFIG,
  rawObjects,
  stringAt,
  TRIGGER,
  valueAt,
  writtenField,
} from './documents';
import { PLUGIN_ARGS, PROFILE_CONFIG_SCHEMA } from './profile-schema';
import { REGISTRY } from './profiles';
import { schemaAt, SCHEMAS, type JsonSchema } from './schema';
import { plural } from './words';
import { yamlContext, type YamlContext } from './yaml-context';

const POD_KINDS = ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'Job', 'DaemonSet'];
/** Kinds whose device requests name a DeviceClass. */
const CLAIM_KINDS = ['ResourceClaim', 'ResourceClaimTemplate'];

const SKELETONS: ReadonlyArray<{ kind: string; text: string; doc: string }> = [
  {
    kind: TRIGGER,
    doc: 'Holds a pod set while Planning; Schedule plans it all at once.',
    text: `apiVersion: ${PLANNER_API_VERSION}\nkind: ScheduleTrigger\nmetadata:\n  name: \${1:name}\n  namespace: \${2:default}\n  labels:\n    ${POD_SET_LABEL}: \${3:pod-set}\n    ${QUIET_TIME_LABEL}: \${4:2m0s}\nspec:\n  state: \${5|Planning,Schedule|}\n`,
  },
  {
    kind: PLAN,
    doc: 'Where each pod of a pod set goes.',
    text: `apiVersion: ${PLANNER_API_VERSION}\nkind: SchedulePlan\nmetadata:\n  name: \${1:name}\n  namespace: \${2:default}\n  labels:\n    ${POD_SET_LABEL}: \${3:pod-set}\nspec:\n  plan:\n    - pod: \${4}\n      node: \${5}\n`,
  },
  {
    kind: PROFILE_CONFIG,
    doc: 'Scheduler profiles: plugins and their args per schedulerName.',
    text: `apiVersion: ${SCHEDULER_CONFIG_API_VERSION}\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: \${1:default-scheduler}\n`,
  },
];

interface Facts {
  readonly kind?: string;
  /** The document's plain value when it parses. */
  readonly value?: unknown;
  readonly text: string;
  /** The document's SchedulePlan, when it reads as one. */
  readonly plan?: SchedulePlanManifest;
}

const isPrefix = (a: readonly PathSegment[], b: readonly PathSegment[]): boolean => a.length <= b.length && a.every((s, i) => s === b[i]);
const endsWith = (path: readonly PathSegment[], tail: readonly PathSegment[]): boolean =>
  tail.every((s, i) => path[path.length - tail.length + i] === s);

/** Completion items at `position` of the file `uri`. */
export function complete(uri: string, position: Position, analysis: Analysis): CompletionItem[] {
  const file = analysis.file(uri);
  if (!file) return [];
  const offset = file.document.offsetAt(position);
  const context = yamlContext(file.document.getText(), offset);
  const document = documentAt(file, offset);
  const text = document ? documentText(file, document) : '';
  const own = document ? rawObjects(document)[0] : undefined;
  const plan = document && file.model.plans.find((p) => p.document === document.index && p.base === '')?.value;
  const kind = document ? declaredKind(file, document) : undefined;
  const facts: Facts = { ...(kind ? { kind } : {}), ...(own ? { value: own.value } : {}), text, ...(plan ? { plan } : {}) };
  const range: Range = { start: file.document.positionAt(context.start), end: file.document.positionAt(context.end) };
  const afterColon = context.position === 'value' && file.document.getText()[context.start - 1] === ':';
  const items = context.position === 'value' ? values(context, facts, analysis) : keys(context, facts);
  return items.map((item, i) => {
    const newText = (afterColon ? ' ' : '') + (item.insertText ?? item.label);
    const { insertText: _, ...rest } = item;
    return { sortText: String(i).padStart(5, '0'), ...rest, textEdit: { range, newText } };
  });
}

function schemaOf(kind: string | undefined): JsonSchema | undefined {
  if (kind === undefined) return undefined;
  return kind === PROFILE_CONFIG ? PROFILE_CONFIG_SCHEMA : SCHEMAS[kind];
}

/** The schema at a path of a scheduler configuration, into the args of the plugin the entry names. */
function profileSchemaAt(path: readonly PathSegment[], facts: Facts): JsonSchema | undefined {
  const args = path.indexOf('args');
  if (args > 0 && path[args - 2] === 'pluginConfig') {
    const plugin = stringAt(facts.value, [...path.slice(0, args), 'name']);
    const schema = plugin !== undefined ? PLUGIN_ARGS[plugin] : undefined;
    return schema && schemaAt(schema, path.slice(args + 1));
  }
  return schemaAt(PROFILE_CONFIG_SCHEMA, path);
}

function fieldSchema(path: readonly PathSegment[], facts: Facts): JsonSchema | undefined {
  if (facts.kind === PROFILE_CONFIG) return profileSchemaAt(path, facts);
  const schema = schemaOf(facts.kind);
  return schema && schemaAt(schema, path);
}

// ---------------------------------------------------------------------------------------------
// Keys

function keyItem(key: string, schema: JsonSchema, column: number): CompletionItem {
  const indent = ' '.repeat(column + 2);
  const insertText = schema.type === 'object' ? `${key}:\n${indent}` : schema.type === 'array' ? `${key}:\n${indent}- ` : `${key}: `;
  return {
    label: key,
    kind: CompletionItemKind.Field,
    ...(schema.type ? { detail: schema.type } : {}),
    ...(schema.description ? { documentation: { kind: MarkupKind.Markdown, value: schema.description } } : {}),
    insertText,
  };
}

function keys(context: YamlContext, facts: Facts): CompletionItem[] {
  const path = context.path;
  const out: CompletionItem[] = [];
  const written = new Set(context.siblings);
  if (path.length === 0 && !facts.kind) {
    for (const s of SKELETONS) {
      out.push({
        label: s.kind,
        kind: CompletionItemKind.Snippet,
        detail: `a new ${s.kind}`,
        documentation: s.doc,
        insertText: s.text,
        insertTextFormat: InsertTextFormat.Snippet,
      });
    }
  }
  if (endsWith(path, ['metadata', 'labels']) && (OUR_KINDS.includes(facts.kind ?? '') || POD_KINDS.includes(facts.kind ?? ''))) {
    const labels = [[POD_SET_LABEL, 'pod-set', 'The pod set: pods with the same value in one namespace are planned together.']];
    if (facts.kind === TRIGGER)
      labels.push([QUIET_TIME_LABEL, '2m0s', 'How long the set must see no new pod before the trigger turns to Schedule (a Go duration).']);
    for (const [key = '', value = '', doc = ''] of labels) {
      if (!written.has(key))
        out.push({
          label: key,
          kind: CompletionItemKind.Property,
          detail: 'Podplan planner label',
          documentation: doc,
          insertText: `${key}: ${value}`,
        });
    }
  }
  const schema = fieldSchema(path, facts);
  for (const [key, field] of Object.entries(schema?.properties ?? {})) {
    if (!written.has(key) && !out.some((i) => i.label === key)) out.push(keyItem(key, field, context.column));
  }
  if (path.length === 0 && !facts.kind) {
    for (const key of ['apiVersion', 'kind']) if (!written.has(key)) out.push(keyItem(key, { type: 'string' }, 0));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Values

const valueItem = (
  label: string,
  detail?: string,
  documentation?: string,
  kind: CompletionItemKind = CompletionItemKind.Value,
): CompletionItem => ({
  label,
  kind,
  ...(detail ? { detail } : {}),
  ...(documentation ? { documentation } : {}),
});

function values(context: YamlContext, facts: Facts, analysis: Analysis): CompletionItem[] {
  const path = context.path;
  const key = path[path.length - 1];
  if (path.length === 1 && key === 'apiVersion') {
    const versions =
      facts.kind === PROFILE_CONFIG
        ? [SCHEDULER_CONFIG_API_VERSION]
        : facts.kind && SCHEMAS[facts.kind]
          ? [PLANNER_API_VERSION]
          : [PLANNER_API_VERSION, SCHEDULER_CONFIG_API_VERSION];
    return versions.map((v) => valueItem(v, 'apiVersion', undefined, CompletionItemKind.Module));
  }
  if (path.length === 1 && key === 'kind')
    return OUR_KINDS.map((k) => valueItem(k, 'kind', SKELETONS.find((s) => s.kind === k)?.doc, CompletionItemKind.Class));
  if (endsWith(path, ['metadata', 'labels', POD_SET_LABEL])) return podSetNames(analysis);
  if (endsWith(path, ['metadata', 'labels', QUIET_TIME_LABEL])) {
    return [
      ['30s', '30 seconds'],
      ['2m0s', '2 minutes'],
      ['5m0s', '5 minutes'],
      ['15m0s', '15 minutes'],
      ['1h0m0s', '1 hour'],
    ].map(([v = '', words]) => valueItem(v, words));
  }
  if (key === 'deviceClassName' && CLAIM_KINDS.includes(facts.kind ?? '')) return deviceClassNames(analysis);
  if (key === 'schedulerName' && (facts.kind === PROFILE_CONFIG || POD_KINDS.includes(facts.kind ?? ''))) return schedulerNames(analysis);
  if (facts.kind === PLAN && path.length === 4 && isPrefix(['spec', 'plan'], path)) {
    const index = path[2];
    if (typeof index === 'number' && key === 'pod') return planPods(facts, analysis);
    if (typeof index === 'number' && key === 'node') return planNodes(facts, context, index, analysis);
  }
  if (facts.kind === TRIGGER && path.length === 4 && isPrefix(['spec', 'dependsOn'], path) && key === 'name')
    return dependencyNames(facts, context, analysis);
  if (facts.kind === PROFILE_CONFIG && key === 'name') {
    const inList = path[path.length - 3];
    if (inList === 'enabled' || inList === 'disabled' || inList === 'pluginConfig')
      return pluginNames(inList === 'disabled', inList === 'pluginConfig');
  }
  const schema = fieldSchema(path, facts);
  return (schema?.enum ?? []).map((v) =>
    valueItem(v, key === undefined ? undefined : String(key), schema?.description, CompletionItemKind.EnumMember),
  );
}

/** The workspace's (or the cluster's) DeviceClasses, for a claim's or template's request; their selectors as documentation. */
function deviceClassNames(analysis: Analysis): CompletionItem[] {
  return [...(analysis.model.cluster.deviceClasses ?? [])]
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
    .map((c) => {
      const selectors = (c.spec.selectors ?? []).map((s) => s.cel?.expression ?? '').filter((e) => e !== '');
      const extended = c.spec.extendedResourceName;
      return valueItem(
        c.metadata.name,
        `DeviceClass${extended ? ` (serves ${extended})` : ''}`,
        selectors.length > 0 ? `Devices where ${selectors.join(' and ')}` : 'Every device',
        CompletionItemKind.Class,
      );
    });
}

function podSetNames(analysis: Analysis): CompletionItem[] {
  const byName = new Map<string, string[]>();
  for (const key of analysis.podSetKeys()) {
    const [namespace = '', name = ''] = key.split('/');
    byName.set(name, [...(byName.get(name) ?? []), namespace]);
  }
  return [...byName].map(([name, namespaces]) => {
    const pods = namespaces.reduce((n, ns) => n + analysis.podSet(ns, name).length, 0);
    return valueItem(name, `pod set in ${namespaces.join(', ')} · ${plural(pods, 'pod')}`, undefined, CompletionItemKind.Reference);
  });
}

function schedulerNames(analysis: Analysis): CompletionItem[] {
  const names = new Set([analysis.plannerSchedulerName, DEFAULT_SCHEDULER_NAME]);
  for (const p of analysis.engine.profiles) names.add(p.schedulerName);
  return [...names].map((name) =>
    valueItem(
      name,
      name === analysis.plannerSchedulerName ? 'the pod-set planner' : 'scheduler profile',
      name === analysis.plannerSchedulerName ? 'Pods of a pod set need this schedulerName for the planner to see them.' : undefined,
    ),
  );
}

function planIdentity(facts: Facts): { namespace: string; podSet?: string } {
  const namespace = stringAt(facts.value, ['metadata', 'namespace']) ?? writtenField(facts.text, 'namespace') ?? 'default';
  const podSet = stringAt(facts.value, ['metadata', 'labels', POD_SET_LABEL]) ?? writtenField(facts.text, POD_SET_LABEL);
  return { namespace, ...(podSet !== undefined ? { podSet } : {}) };
}

function requestsText(pod: Pod): string {
  const a = amounts(podRequests(pod));
  return a.length ? a.map((x) => `${x.resource} ${formatAmount(x.amount, x.unit)}`).join(', ') : 'no requests';
}

function podRequests(pod: Pod): Resource {
  const info = podInfo(pod);
  return info.ok ? info.value.requests : new Resource();
}

/** The pods of the plan's set, those not yet in the plan first. */
function planPods(facts: Facts, analysis: Analysis): CompletionItem[] {
  const { namespace, podSet } = planIdentity(facts);
  const entries = valueAt(facts.value, ['spec', 'plan']);
  const planned = new Set(
    Array.isArray(entries) ? entries.flatMap((e) => (isPlainObject(e) && typeof e['pod'] === 'string' ? [e['pod']] : [])) : [],
  );
  const pods =
    podSet !== undefined
      ? analysis.podSet(namespace, podSet)
      : analysis.model.pods.filter((p) => (p.value.metadata.namespace ?? 'default') === namespace);
  const sorted = [...pods].sort(
    (a, b) =>
      Number(planned.has(a.value.metadata.name)) - Number(planned.has(b.value.metadata.name)) ||
      a.value.metadata.name.localeCompare(b.value.metadata.name),
  );
  return sorted.map((p) => {
    const name = p.value.metadata.name;
    const state = p.value.spec.nodeName ? `bound to ${p.value.spec.nodeName}` : planned.has(name) ? 'already in this plan' : 'to place';
    return valueItem(
      name,
      `${state} · ${requestsText(p.value)}`,
      podSetLabelOf(p.value) === undefined ? undefined : `pod set ${podSetLabelOf(p.value)} in ${namespace}`,
      CompletionItemKind.Reference,
    );
  });
}

/** Plans as written so far, by their document's value (the same object while the text is), so their checks are reused. */
const written = new WeakMap<object, SchedulePlanManifest>();

/** The plan as written so far: its complete entries, for ranking nodes on the cluster it leaves. */
function planSoFar(facts: Facts, namespace: string, podSet: string): SchedulePlanManifest {
  if (facts.plan) return facts.plan;
  const key = isPlainObject(facts.value) ? facts.value : undefined;
  const known = key && written.get(key);
  if (known) return known;
  const entries = valueAt(facts.value, ['spec', 'plan']);
  const plan: PlanEntry[] = Array.isArray(entries)
    ? entries.flatMap((e) =>
        isPlainObject(e) && typeof e['pod'] === 'string' && typeof e['node'] === 'string' ? [{ pod: e['pod'], node: e['node'] }] : [],
      )
    : [];
  const manifest = { name: '', namespace, labels: {}, podSet, plan };
  if (key) written.set(key, manifest);
  return manifest;
}

function planNodes(facts: Facts, context: YamlContext, index: number, analysis: Analysis): CompletionItem[] {
  const { namespace, podSet } = planIdentity(facts);
  const podName = context.fields['pod'] ?? stringAt(facts.value, ['spec', 'plan', index, 'pod']);
  const pod = podName !== undefined ? analysis.pod(namespace, podName) : undefined;
  if (!pod) {
    return analysis.model.nodes.map((n) =>
      valueItem(n.value.metadata.name, 'node', 'Name the entry’s pod first to rank nodes by fit.', CompletionItemKind.Reference),
    );
  }
  const ranking = analysis.rank(pod.value, podSet !== undefined ? planSoFar(facts, namespace, podSet) : undefined);
  return (ranking?.nodes ?? []).map((fit, i) => {
    const detail = fit.feasible
      ? `fits${fit.score !== undefined ? ` · score ${Math.round(fit.score)}` : ''}${i === 0 ? ' · best' : ''}`
      : `✗ ${fit.reason ?? 'rejected'}`;
    const documentation = fit.feasible
      ? `${podName} can run on ${fit.node}.`
      : `${podName} cannot run on ${fit.node}: ${fit.reason ?? ''} (${fit.plugin ?? ''}).`;
    return {
      ...valueItem(fit.node, detail, documentation, CompletionItemKind.Reference),
      ...(i === 0 && fit.feasible ? { preselect: true } : {}),
    };
  });
}

function dependencyNames(facts: Facts, context: YamlContext, analysis: Analysis): CompletionItem[] {
  const own = stringAt(facts.value, ['metadata', 'name']);
  const namespace =
    context.fields['namespace'] ?? stringAt(facts.value, ['metadata', 'namespace']) ?? writtenField(facts.text, 'namespace') ?? 'default';
  switch (context.fields['kind'] ?? 'ScheduleTrigger') {
    case 'SchedulePlan':
      return analysis.model.plans
        .filter((p) => p.value.namespace === namespace)
        .map((p) => valueItem(p.value.name, `SchedulePlan of ${p.value.podSet}`));
    case 'PodSet':
      return podSetNames(analysis);
    default:
      return analysis.model.triggers
        .filter((t) => t.value.namespace === namespace && t.value.name !== own)
        .map((t) =>
          valueItem(t.value.name, `ScheduleTrigger of ${t.value.podSet} · ${t.value.state}`, undefined, CompletionItemKind.Reference),
        );
  }
}

function pluginNames(disabled: boolean, config: boolean): CompletionItem[] {
  const names = config ? REGISTRY.names().filter((n) => PLUGIN_ARGS[n]) : REGISTRY.names();
  const items = names.map((n) => valueItem(n, config ? 'plugin with args' : 'in-tree plugin', undefined, CompletionItemKind.Module));
  return disabled ? [valueItem('*', 'every default plugin of this point'), ...items] : items;
}
