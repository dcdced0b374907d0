// Per-cycle state shared between a pod's stages (PreFilter writes, Filter reads), with typed keys so
// a plugin reads back exactly the type it wrote.

export class StateKey<T> {
  /** Phantom field so keys of different types are not interchangeable. */
  declare readonly type: T;
  constructor(readonly name: string) {}
}

/**
 * The cycle judges a cluster a plan leaves (a planner's what-if, the editor's check of a
 * SchedulePlan): the pods on its nodes may be placed there by the plan, not reserved, so the claims
 * of theirs that are not allocated count as allocated on their node (DynamicResources), as the
 * scheduler carrying the plan out would find them.
 */
export const PLANNED_PODS = new StateKey<true>('PlannedPods');

/** A value copied when the state is cloned (a plugin's per-cycle data that later stages mutate). */
export interface Cloneable<T> {
  clone(): T;
}

export class CycleState {
  private readonly values = new Map<StateKey<unknown>, unknown>();
  /** Plugins whose PreFilter returned Skip: their Filter is not run in this cycle. */
  readonly skipFilterPlugins = new Set<string>();
  /** Plugins whose PreScore returned Skip: their Score is not run in this cycle. */
  readonly skipScorePlugins = new Set<string>();
  /** How many scored nodes this cycle's Diagnosis keeps, overriding the profile's recordScores (explaining one pod in full). */
  recordScores?: number;
  /** A node's complete verdict is being taken (engine/explain/verdicts.ts): a plugin may add what its rejection is made of as data (Status.devices). */
  explainFilters?: boolean;

  write<T>(key: StateKey<T>, value: T): void {
    this.values.set(key, value);
  }

  read<T>(key: StateKey<T>): T | undefined {
    return this.values.get(key) as T | undefined;
  }

  delete(key: StateKey<unknown>): void {
    this.values.delete(key);
  }

  /** A copy for trying a hypothetical (planning, preemption): values that can clone themselves do. */
  clone(): CycleState {
    const copy = new CycleState();
    for (const [key, value] of this.values) {
      const cloneable = value as Partial<Cloneable<unknown>> | null;
      copy.values.set(key, cloneable && typeof cloneable.clone === 'function' ? cloneable.clone() : value);
    }
    for (const p of this.skipFilterPlugins) copy.skipFilterPlugins.add(p);
    for (const p of this.skipScorePlugins) copy.skipScorePlugins.add(p);
    if (this.recordScores !== undefined) copy.recordScores = this.recordScores;
    if (this.explainFilters !== undefined) copy.explainFilters = this.explainFilters;
    return copy;
  }
}
