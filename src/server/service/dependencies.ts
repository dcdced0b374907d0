// spec.dependsOn of ScheduleTriggers: what each entry names, and the cycles among triggers. A
// PodSet or SchedulePlan entry stands for the triggers of that pod set.
import { cyclesThrough, stronglyConnected } from '../../engine/reconcile/cycles';
import type { DependencyRef, Located, ScheduleTriggerManifest } from '../../manifests';
import { keyOf, type Analysis } from './analysis';

export interface Dependency {
  /** Whether the name resolves to an object (or, for a PodSet, to pods or a trigger) of the workspace. */
  readonly exists: boolean;
  /** The triggers it stands for. */
  readonly triggers: readonly Located<ScheduleTriggerManifest>[];
}

export function resolveDependency(ref: DependencyRef, from: ScheduleTriggerManifest, analysis: Analysis): Dependency {
  const namespace = ref.namespace ?? from.namespace;
  switch (ref.kind ?? 'ScheduleTrigger') {
    case 'ScheduleTrigger': {
      const trigger = analysis.trigger(namespace, ref.name);
      return { exists: trigger !== undefined, triggers: trigger ? [trigger] : [] };
    }
    case 'SchedulePlan': {
      const plan = analysis.plan(namespace, ref.name);
      return { exists: plan !== undefined, triggers: plan ? analysis.triggersOf(namespace, plan.value.podSet) : [] };
    }
    case 'PodSet': {
      const triggers = analysis.triggersOf(namespace, ref.name);
      return { exists: triggers.length > 0 || analysis.podSet(namespace, ref.name).length > 0, triggers };
    }
  }
}

const idOf = (t: ScheduleTriggerManifest): string => keyOf(t.namespace, t.name);

const cycleCache = new WeakMap<Analysis, Map<string, string[]>>();

/** For each trigger on a dependency cycle (by namespace/name), a shortest cycle through it (["a", "b", "a"]). */
export function dependencyCycles(analysis: Analysis): Map<string, string[]> {
  let cycles = cycleCache.get(analysis);
  if (cycles) return cycles;
  cycles = new Map();
  const successors = new Map<string, string[]>();
  for (const t of analysis.model.triggers) {
    successors.set(
      idOf(t.value),
      t.value.dependsOn.flatMap((ref) => resolveDependency(ref, t.value, analysis).triggers.map((x) => idOf(x.value))),
    );
  }
  const next = (id: string) => successors.get(id) ?? [];
  for (const component of stronglyConnected([...successors.keys()], next)) {
    const first = component[0];
    if (component.length === 1 && first !== undefined && !next(first).includes(first)) continue;
    for (const [id, ring] of cyclesThrough(component, next)) cycles.set(id, ring);
  }
  cycleCache.set(analysis, cycles);
  return cycles;
}

/** Whether every pod of the set is placed: bound (spec.nodeName) or in the set's SchedulePlan. */
function unplacedPods(namespace: string, podSet: string, analysis: Analysis): { readonly total: number; readonly unplaced: number } {
  const pods = analysis.podSet(namespace, podSet);
  const planned = new Set(analysis.plansOf(namespace, podSet).flatMap((p) => p.value.plan.map((e) => e.pod)));
  return { total: pods.length, unplaced: pods.filter((p) => !p.value.spec.nodeName && !planned.has(p.value.metadata.name)).length };
}

/**
 * Why each of the trigger's dependencies is not complete yet, in words (empty when all are). As the
 * planner has it (engine/planner/plan-all.ts), a dependency is complete when every pod of its set is
 * placed; in the workspace a trigger counts only once it is set to Schedule and its plan is written.
 */
export function incompleteDependencies(trigger: ScheduleTriggerManifest, analysis: Analysis): string[] {
  const reasons: string[] = [];
  for (const ref of trigger.dependsOn) {
    const kind = ref.kind ?? 'ScheduleTrigger';
    const namespace = ref.namespace ?? trigger.namespace;
    const named = `${kind} ${namespace === trigger.namespace ? '' : `${namespace}/`}${ref.name}`;
    const dependency = resolveDependency(ref, trigger, analysis);
    if (!dependency.exists) {
      reasons.push(`${named}, which is not in the workspace`);
      continue;
    }
    const planning = dependency.triggers.filter((t) => t.value.state !== 'Schedule').map((t) => t.value.name);
    const podSet = kind === 'PodSet' ? ref.name : (dependency.triggers[0]?.value.podSet ?? (kind === 'SchedulePlan' ? analysis.plan(namespace, ref.name)?.value.podSet : undefined));
    const pods = podSet === undefined ? { total: 0, unplaced: 0 } : unplacedPods(namespace, podSet, analysis);
    const why = [
      ...(planning.length > 0 ? [`${kind === 'ScheduleTrigger' ? 'it is' : planning.length === 1 ? `its trigger ${planning[0]} is` : `its triggers ${planning.join(', ')} are`} still Planning`] : []),
      ...(pods.unplaced > 0 ? [`${pods.unplaced} of its ${pods.total} pod${pods.total === 1 ? '' : 's'} ${pods.unplaced === 1 ? 'is' : 'are'} not placed`] : []),
    ];
    if (why.length > 0) reasons.push(`${named}, which is not complete (${why.join(', and ')})`);
  }
  return reasons;
}
