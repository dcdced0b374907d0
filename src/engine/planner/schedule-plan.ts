// A Plan as the SchedulePlan object Pallet's controllers read (planner.ciena.io/v1alpha1): spec.plan
// holds the pod → node assignments exactly as Pallet defines them; status carries what Podplan adds
// (who planned it, from which snapshot, and why each unplaced pod was left out), which Pallet ignores.
// The object is plain data so src/manifests can write it as YAML and the kube layer can create it.
import { schedulePlanName } from './name';
import { PLANNER_API_VERSION, POD_SET_LABEL, type Plan } from './plan';

export interface SchedulePlanObject {
  readonly apiVersion: typeof PLANNER_API_VERSION;
  readonly kind: 'SchedulePlan';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
  };
  readonly spec: { readonly plan: ReadonlyArray<{ readonly pod: string; readonly node: string }> };
  readonly status: {
    readonly planner: string;
    readonly profile: string;
    readonly trigger?: string;
    readonly snapshotHash: string;
    /** RFC 3339 with milliseconds, so it reads back to the same instant. */
    readonly createdAt: string;
    readonly unplaced: ReadonlyArray<{ readonly pod: string; readonly message: string }>;
  };
}

/** What a SchedulePlan carries of a Plan: no diagnoses, so a stored plan exports without opening them. */
export type ExportablePlan = Omit<Plan, 'assignments' | 'unplaced'> & {
  readonly assignments: ReadonlyArray<{ readonly pod: string; readonly node: string }>;
  readonly unplaced: ReadonlyArray<{ readonly pod: string; readonly message: string }>;
};

export function schedulePlanObject(plan: ExportablePlan): SchedulePlanObject {
  return {
    apiVersion: PLANNER_API_VERSION,
    kind: 'SchedulePlan',
    metadata: {
      name: schedulePlanName(plan.namespace, plan.podSet),
      namespace: plan.namespace,
      labels: { [POD_SET_LABEL]: plan.podSet },
    },
    spec: { plan: plan.assignments.map((a) => ({ pod: a.pod, node: a.node })) },
    status: {
      planner: plan.planner,
      profile: plan.profile,
      ...(plan.trigger !== undefined ? { trigger: plan.trigger } : {}),
      snapshotHash: plan.snapshotHash,
      createdAt: new Date(plan.createdAt).toISOString(),
      unplaced: plan.unplaced.map((u) => ({ pod: u.pod, message: u.message })),
    },
  };
}
