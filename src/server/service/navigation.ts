// Go to definition (a plan entry to its pod's or node's manifest, a dependsOn entry to what it
// names, a pod-set label to the set's trigger) and find references of a pod-set name.
import type { Location, Position } from 'vscode-languageserver';
import type { Pod } from '../../engine/api/types';
import { POD_SET_LABEL } from '../../engine/planner/plan';
import { concatPath, joinPath, splitPath, type Located, type ScheduleTriggerManifest } from '../../manifests';
import { keyOf, podSetLabelOf, type Analysis, type Place } from './analysis';
import { resolveDependency } from './dependencies';
import { namespaceOf } from './hover';
import { lspRange } from './locate';

const TEMPLATE = 'spec.template';
const LABEL = joinPath('metadata.labels', POD_SET_LABEL);

function location(located: Located<unknown>, path: string): Location {
  return { uri: located.file, range: lspRange(located.source.locate(concatPath(located.base, path))) };
}

/** Where a pod is written: its own name, or the name of the workload whose template makes it. */
function podLocation(pod: Located<Pod>): Location {
  if (pod.base === TEMPLATE || pod.base.endsWith(`.${TEMPLATE}`)) {
    const workload = pod.base.slice(0, -TEMPLATE.length).replace(/\.$/, '');
    return { uri: pod.file, range: lspRange(pod.source.locate(concatPath(workload, 'metadata.name'))) };
  }
  return location(pod, 'metadata.name');
}

/** The string under the cursor, when the cursor is on a value. */
function valueUnder(place: Place): string | undefined {
  let current: unknown = place.document.value;
  for (const segment of splitPath(place.path) ?? []) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return typeof current === 'string' ? current : undefined;
}

export function definition(uri: string, position: Position, analysis: Analysis): Location[] {
  const file = analysis.file(uri);
  const place = file && analysis.placeAt(uri, file.document.offsetAt(position));
  if (!place?.object) return [];
  const { located, bucket, relative } = place.object;
  const segments = splitPath(relative) ?? [];
  const value = valueUnder(place);
  if (value === undefined) return [];
  if (bucket === 'plans' && segments[0] === 'spec' && segments[1] === 'plan' && typeof segments[2] === 'number') {
    const namespace = namespaceOf(located.value);
    if (segments[3] === 'pod') {
      const pod = analysis.pod(namespace, value);
      return pod ? [podLocation(pod)] : [];
    }
    if (segments[3] === 'node') {
      const node = analysis.node(value);
      return node ? [location(node, 'metadata.name')] : [];
    }
  }
  if (
    bucket === 'triggers' &&
    segments[0] === 'spec' &&
    segments[1] === 'dependsOn' &&
    typeof segments[2] === 'number' &&
    segments[3] === 'name'
  ) {
    const trigger = located as Located<ScheduleTriggerManifest>;
    const ref = trigger.value.dependsOn[segments[2]];
    if (!ref) return [];
    if (ref.kind === 'SchedulePlan') {
      const plan = analysis.plan(ref.namespace ?? trigger.value.namespace, ref.name);
      return plan ? [location(plan, 'metadata.name')] : [];
    }
    return resolveDependency(ref, trigger.value, analysis).triggers.map((t) => location(t, 'metadata.name'));
  }
  if (relative === LABEL || relative === joinPath(`${TEMPLATE}.metadata.labels`, POD_SET_LABEL)) {
    const namespace = namespaceOf(located.value);
    const targets = bucket === 'triggers' ? analysis.plansOf(namespace, value) : analysis.triggersOf(namespace, value);
    return targets.map((t) => location(t, 'metadata.name'));
  }
  return [];
}

/** The pod set named at the cursor: a pod-set label value, or a dependsOn entry of kind PodSet. */
function podSetAt(place: Place): { namespace: string; name: string } | undefined {
  if (!place.object) return undefined;
  const { located, bucket, relative } = place.object;
  const value = valueUnder(place);
  if (value === undefined) return undefined;
  const namespace = namespaceOf(located.value);
  if (relative === LABEL || relative === joinPath(`${TEMPLATE}.metadata.labels`, POD_SET_LABEL)) return { namespace, name: value };
  const segments = splitPath(relative) ?? [];
  if (bucket === 'triggers' && segments[1] === 'dependsOn' && typeof segments[2] === 'number' && segments[3] === 'name') {
    const ref = (located as Located<ScheduleTriggerManifest>).value.dependsOn[segments[2]];
    if (ref?.kind === 'PodSet') return { namespace: ref.namespace ?? namespace, name: value };
  }
  return undefined;
}

/** Every place a pod set is named: pod and template labels, triggers, plans, and PodSet dependencies. */
export function references(uri: string, position: Position, includeDeclaration: boolean, analysis: Analysis): Location[] {
  const file = analysis.file(uri);
  const place = file && analysis.placeAt(uri, file.document.offsetAt(position));
  const set = place && podSetAt(place);
  if (!set) return [];
  const out: Location[] = [];
  const seen = new Set<string>();
  const add = (l: Location) => {
    const key = `${l.uri}:${l.range.start.line}:${l.range.start.character}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(l);
  };
  if (includeDeclaration) for (const t of analysis.triggersOf(set.namespace, set.name)) add(location(t, LABEL));
  for (const p of analysis.plansOf(set.namespace, set.name)) add(location(p, LABEL));
  for (const pod of analysis.podSet(set.namespace, set.name)) if (podSetLabelOf(pod.value) === set.name) add(location(pod, LABEL));
  for (const t of analysis.model.triggers) {
    t.value.dependsOn.forEach((ref, i) => {
      if (ref.kind === 'PodSet' && keyOf(ref.namespace ?? t.value.namespace, ref.name) === keyOf(set.namespace, set.name))
        add(location(t, `spec.dependsOn[${i}].name`));
    });
  }
  return out;
}
