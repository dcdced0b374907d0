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
