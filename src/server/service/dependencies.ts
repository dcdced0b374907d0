// spec.dependsOn of ScheduleTriggers: what each entry names, and the cycles among triggers. A
// PodSet or SchedulePlan entry stands for the triggers of that pod set.
import { cyclesThrough, stronglyConnected } from '../../engine/reconcile/cycles';
import { dependencyId, podSetProgress, unmetDependencies, type PodSetProgress } from '../../engine/reconcile/triggers';
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

/**
 * Why each of the trigger's dependencies does not let it go ahead yet, in words (empty when all do).
 * The rule is the engine's (`unmetDependencies`, as `podplan plan` and `podplan run` apply it): a
 * dependency is complete when its set has pods, its trigger is set to Schedule and every pod is bound
 * or in the set's SchedulePlan; with `requireReady`, when every pod of its set is bound and Ready.
 */
export function incompleteDependencies(trigger: ScheduleTriggerManifest, analysis: Analysis): string[] {
  const byId = new Map<
    string,
    {
      readonly kind: string;
      readonly named: string;
      readonly exists: boolean;
      readonly progress: PodSetProgress;
      readonly planning: readonly string[];
    }
  >();
  for (const ref of trigger.dependsOn) {
    const kind = ref.kind ?? 'ScheduleTrigger';
    const namespace = ref.namespace ?? trigger.namespace;
    const dependency = resolveDependency(ref, trigger, analysis);
    const planning = dependency.triggers.filter((t) => t.value.state !== 'Schedule').map((t) => t.value.name);
    const podSet =
      kind === 'PodSet'
        ? ref.name
        : (dependency.triggers[0]?.value.podSet ??
          (kind === 'SchedulePlan' ? analysis.plan(namespace, ref.name)?.value.podSet : undefined));
    const pods = podSet === undefined ? [] : analysis.podSet(namespace, podSet).map((p) => p.value);
    const planned = new Set(podSet === undefined ? [] : analysis.plansOf(namespace, podSet).flatMap((p) => p.value.plan.map((e) => e.pod)));
    byId.set(dependencyId(ref, trigger.namespace), {
      kind,
      named: `${kind} ${namespace === trigger.namespace ? '' : `${namespace}/`}${ref.name}`,
      exists: dependency.exists,
      planning,
      progress: podSetProgress({ pods, planned: planning.length === 0, placed: (pod) => planned.has(pod.metadata.name) }),
    });
  }
  const unknown = { complete: false, ready: false };
  return unmetDependencies(trigger, (id) => byId.get(id)?.progress ?? unknown).flatMap((id) => {
    const d = byId.get(id);
    if (!d) return [];
    if (!d.exists) return [`${d.named}, which is not in the workspace`];
    const { total, unplaced, notReady } = d.progress;
    const pods = (n: number) => `${n} of its ${total} pod${total === 1 ? '' : 's'} ${n === 1 ? 'is' : 'are'}`;
    const why = trigger.requireReady
      ? [total === 0 ? 'it has no pods' : `${pods(notReady)} not Ready`]
      : [
          ...(d.planning.length > 0
            ? [
                `${d.kind === 'ScheduleTrigger' ? 'it is' : d.planning.length === 1 ? `its trigger ${d.planning[0]} is` : `its triggers ${d.planning.join(', ')} are`} still Planning`,
              ]
            : []),
          ...(unplaced > 0 ? [`${pods(unplaced)} not placed`] : []),
          ...(total === 0 ? ['it has no pods'] : []),
        ];
    return [`${d.named}, which is not ${trigger.requireReady ? 'Ready' : 'complete'} (${why.join(', and ')})`];
  });
}
