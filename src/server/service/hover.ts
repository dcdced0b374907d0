// Hover: the docs of the field under the cursor (from the schemas), and for names the facts behind
// them: a node's allocatable, requested and planned use; a pod's requests, pod set and planned node;
// a pod set's pods and trigger; a quiet time in words.
import { MarkupKind, type Hover, type Position } from 'vscode-languageserver';
import { CPU, MEMORY, PODS, Resource } from '../../engine/api/resources';
import { podKey, type Node, type Pod } from '../../engine/api/types';
import { podInfo } from '../../engine/framework/node-info';
import { durationInWords, parseGoDurationNanos } from '../../engine/planner/podset/duration';
import { POD_SET_LABEL, QUIET_TIME_LABEL } from '../../engine/planner/plan';
import { joinPath, splitPath, type Located, type SchedulePlanManifest } from '../../manifests';
import { formatAmount, unitOf } from '../../protocol/amounts';
import { keyOf, podSetLabelOf, schedulerOf, type Analysis, type Place } from './analysis';
import { PLAN, PROFILE_CONFIG, TRIGGER } from './documents';
import { lspRange } from './locate';
import { PROFILE_CONFIG_SCHEMA } from './profile-schema';
import { looseDuration } from '../../engine/planner/podset/quiet-time';
import { schemaAt, SCHEMAS } from './schema';
import { shortList } from './words';

const markdown = (lines: readonly string[], range?: Hover['range']): Hover => ({
  contents: { kind: MarkupKind.Markdown, value: lines.join('\n') },
  ...(range ? { range } : {}),
});

/** Markdown cells cannot hold a raw "|". */
const cell = (text: string): string => text.replace(/\|/g, '\\|');

export function hover(uri: string, position: Position, analysis: Analysis): Hover | null {
  const file = analysis.file(uri);
  if (!file) return null;
  const offset = file.document.offsetAt(position);
  const place = analysis.placeAt(uri, offset);
  if (!place?.object) return null;
  const { located, bucket, relative } = place.object;
  const segments = splitPath(relative) ?? [];
  const range = place.document.source.range(place.path);
  const at = range ? lspRange(range) : undefined;
  const key = place.document.source.keyRange(place.path);
  const onKey = key !== undefined && offset >= key.start.offset && offset <= key.end.offset;
  const value = onKey ? undefined : valueOf(place);

  if (
    bucket === 'plans' &&
    segments[0] === 'spec' &&
    segments[1] === 'plan' &&
    typeof segments[2] === 'number' &&
    typeof value === 'string'
  ) {
    const plan = located as Located<SchedulePlanManifest>;
    if (segments[3] === 'node') return nodeHover(value, analysis, at);
    if (segments[3] === 'pod') {
      const pod = analysis.pod(plan.value.namespace, value);
      return pod ? podHover(pod, analysis, at) : null;
    }
  }
  if (bucket === 'nodes' && relative === 'metadata.name' && typeof value === 'string') return nodeHover(value, analysis, at);
  if (bucket === 'pods' && relative === 'metadata.name') return podHover(located as Located<Pod>, analysis, at);
  if (relative === joinPath('metadata.labels', QUIET_TIME_LABEL) && typeof value === 'string') return quietTimeHover(value, at);
  if (
    typeof value === 'string' &&
    (relative === joinPath('metadata.labels', POD_SET_LABEL) || relative === joinPath('spec.template.metadata.labels', POD_SET_LABEL))
  ) {
    return podSetHover(namespaceOf(located.value), value, analysis, at);
  }
  return fieldHover(
    bucket === 'triggers' ? TRIGGER : bucket === 'plans' ? PLAN : bucket === 'profiles' ? PROFILE_CONFIG : undefined,
    segments,
    place,
    at,
  );
}

/** The namespace of a workspace object: planner objects carry it, Kubernetes objects in metadata. */
export function namespaceOf(value: unknown): string {
  const v = value as { namespace?: string; metadata?: { namespace?: string } };
  return v.namespace ?? v.metadata?.namespace ?? 'default';
}

/** The plain value at the cursor's path. */
function valueOf(place: Place): unknown {
  let current: unknown = place.document.value;
  for (const segment of splitPath(place.path) ?? []) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

function fieldHover(kind: string | undefined, segments: readonly (string | number)[], place: Place, at: Hover['range']): Hover | null {
  const schema = kind === PROFILE_CONFIG ? PROFILE_CONFIG_SCHEMA : kind ? SCHEMAS[kind] : undefined;
  const field = schema && schemaAt(schema, segments);
  if (!field?.description) return null;
  const name = segments.length ? String(segments.filter((s) => typeof s === 'string').pop() ?? '') : kind;
  const values = field.enum ? [``, `Values: ${field.enum.map((v) => `\`${v}\``).join(', ')}`] : [];
  const keyRange = place.document.source.keyRange(place.path);
  return markdown(
    [`**${name}**${field.type ? ` _${field.type}_` : ''}`, '', field.description, ...values],
    keyRange ? lspRange(keyRange) : at,
  );
}

function resourceRow(label: string, resources: readonly string[], get: (resource: string) => number): string {
  return `| ${label} | ${resources.map((r) => formatAmount(get(r), unitOf(r))).join(' | ')} |`;
}

function plannedPods(node: string, analysis: Analysis): { pods: Pod[]; by: Set<string> } {
  const pods: Pod[] = [];
  const by = new Set<string>();
  for (const entry of analysis.plannedOn(node)) {
    const pod = analysis.pod(entry.plan.value.namespace, entry.pod);
    if (!pod || pod.value.spec.nodeName === node) continue;
    pods.push(pod.value);
    by.add(entry.plan.value.name);
  }
  return { pods, by };
}

function nodeHover(name: string, analysis: Analysis, at: Hover['range']): Hover | null {
  const node = analysis.node(name);
  const info = analysis.engine.snapshot.get(name);
  if (!node || !info) return markdown([`**Node ${name}**: not in ${analysis.where}`], at);
  const planned = plannedPods(name, analysis);
  const plannedUse = new Resource();
  for (const p of planned.pods) {
    const pi = podInfo(p);
    if (pi.ok) plannedUse.add(pi.value.requests);
  }
  const resources = [...new Set([CPU, MEMORY, PODS, ...info.allocatable.names(), ...plannedUse.names()])];
  const requested = (r: string) => (r === PODS ? info.pods.length : info.requested.get(r));
  const plannedAmount = (r: string) => (r === PODS ? planned.pods.length : plannedUse.get(r));
  const lines = [
    `**Node ${name}**${nodeNotes(node.value)}`,
    '',
    `| | ${resources.join(' | ')} |`,
    `|---|${resources.map(() => '---:').join('|')}|`,
    resourceRow('allocatable', resources, (r) => info.allocatable.get(r)),
    resourceRow('requested (bound pods)', resources, requested),
    resourceRow('planned (SchedulePlans)', resources, plannedAmount),
    resourceRow('free after plans', resources, (r) => info.allocatable.get(r) - requested(r) - plannedAmount(r)),
  ];
  if (planned.pods.length)
    lines.push(
      '',
      `Planned here by ${[...planned.by].join(', ')}: ${cell(
        shortList(
          planned.pods.map((p) => p.metadata.name),
          8,
        ),
      )}`,
    );
  return markdown(lines, at);
}

function nodeNotes(node: Node): string {
  const notes: string[] = [];
  if (node.spec?.unschedulable) notes.push('unschedulable');
  for (const t of node.spec?.taints ?? []) notes.push(`taint ${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`);
  return notes.length ? ` (${cell(notes.join(', '))})` : '';
}

function podHover(pod: Located<Pod>, analysis: Analysis, at: Hover['range']): Hover {
  const p = pod.value;
  const info = podInfo(p);
  const requests = info.ok
    ? Object.entries(info.value.requests.toRecord()).map(([r, v]) => `${r} ${formatAmount(v, unitOf(r))}`)
    : [`unreadable: ${info.error}`];
  const set = podSetLabelOf(p);
  const namespace = p.metadata.namespace ?? 'default';
  const owner = p.metadata.ownerReferences?.[0];
  const lines = [
    `**Pod ${podKey(p)}**${owner ? ` (from ${owner.kind} ${owner.name})` : ''}`,
    '',
    `- requests: ${requests.length ? requests.join(', ') : 'none'}`,
    `- scheduler: ${schedulerOf(p)}`,
  ];
  if (set !== undefined) {
    const trigger = analysis.triggersOf(namespace, set)[0];
    lines.push(`- pod set: ${set}${trigger ? ` (trigger ${trigger.value.name}: ${trigger.value.state})` : ''}`);
  }
  if (p.spec.nodeName) lines.push(`- bound to: ${p.spec.nodeName}`);
  const planned = analysis.plannedEntry(namespace, p.metadata.name);
  lines.push(`- planned node: ${planned ? `${planned.node} (SchedulePlan ${planned.plan.value.name})` : 'none'}`);
  return markdown(lines, at);
}

function podSetHover(namespace: string, set: string, analysis: Analysis, at: Hover['range']): Hover {
  const pods = analysis.podSet(namespace, set);
  const pending = analysis.plannedPodsOf(namespace, set);
  const trigger = analysis.triggersOf(namespace, set)[0];
  const plan = analysis.plansOf(namespace, set)[0];
  return markdown(
    [
      `**Pod set ${keyOf(namespace, set)}**`,
      '',
      `- pods: ${pods.length} (${pending.length} for the planner to place)${
        pods.length
          ? `: ${cell(
              shortList(
                pods.map((p) => p.value.metadata.name),
                8,
              ),
            )}`
          : ''
      }`,
      `- trigger: ${trigger ? `${trigger.value.name} (${trigger.value.state})` : 'none'}`,
      `- plan: ${plan ? `${plan.value.name} (${plan.value.plan.length} entries)` : 'none'}`,
    ],
    at,
  );
}

function quietTimeHover(text: string, at: Hover['range']): Hover {
  const parsed = parseGoDurationNanos(text);
  if (parsed.ok) {
    const words = durationInWords(parsed.value);
    return markdown(
      [`**Quiet time** \`${text}\`: ${words}`, '', `The trigger turns to Schedule once the pod set has seen no new pod for ${words}.`],
      at,
    );
  }
  const loose = looseDuration(text);
  const reading = loose !== undefined ? ` It reads as ${durationInWords(loose)}; the quick fix writes it in Go's syntax.` : '';
  return markdown([`**Quiet time** \`${text}\`: not a Go duration (${parsed.error}).${reading}`], at);
}
