// Planning every ScheduleTrigger of a workspace (or a cluster snapshot) to the fixpoint: a trigger
// with spec.dependsOn is planned only once what it names is complete (every pod placed) or, with
// requireReady, its pods are Ready; each plan is assumed on the cluster before the next, so a set
// planned later sees the pods planned before it. A SchedulePlan already written that a trigger of the
// run depends on and the run does not plan again (its set has no trigger here) stands: its pods are
// assumed on their nodes before any plan is made (placed-before.ts). The Reconciler decides the
// order and ends what can never proceed with a clear status (a dependency not found, failed, never
// ready, or a cycle).
import { err, ok, type Result } from '../api/result';
import { podKey, type ClusterSnapshot, type Pod } from '../api/types';
import { Snapshot } from '../framework/snapshot';
import { failed, Reconciler, terminal, type NodeStatus, type Terminal } from '../reconcile/reconciler';
import {
  nodeId,
  parseNodeId,
  podSetProgress,
  TRIGGER_KIND,
  triggerDispatcher,
  type DependencyProgress,
  type TriggerDescriptor,
} from '../reconcile/triggers';
import { planPodSet, type PlanSettings } from './build';
import {
  assumePlacements,
  placementsOf,
  podsByKey,
  POD_SET_KIND,
  resolveDependency,
  SCHEDULE_PLAN_KIND,
  writtenPlansBefore,
} from './placed-before';
import { schedulePlanName } from './podset/name';
import type { PlacedPod, Plan } from './plan';
import type { PodSetFramework } from './scheduler/plugin';
import { podSetKey, podSetsIn, resolvePodSet, type PodSetRef } from './podset/podset';
import { readTrigger, triggerKey, type TriggerSpec } from './podset/trigger';
import { WhatIf } from './search/what-if';

export { POD_SET_KIND, SCHEDULE_PLAN_KIND } from './placed-before';

export interface WorkspaceInput {
  /** Nodes, and pods bound or not: the sets' pods among them. */
  readonly cluster: ClusterSnapshot;
  readonly triggers: readonly TriggerSpec[];
  /** SchedulePlans already written, which a trigger may depend on. */
  readonly plans?: readonly Plan[];
  readonly planning: PodSetFramework;
  /** Injected clock, ms since the epoch: every plan's createdAt. */
  readonly now: number;
  /** Settings over every trigger's own (a planner chosen on the command line). */
  readonly override?: PlanSettings;
  /** Plans made at once at most (the Reconciler's pool). */
  readonly poolSize?: number;
}

export interface TriggerOutcome {
  readonly trigger: TriggerSpec;
  /** `ScheduleTrigger/namespace/name`. */
  readonly id: string;
  /** Its plan placed every pod. */
  readonly ready: boolean;
  /** It could not be planned: a bad trigger, a set without pods, a dependency that failed, was not found, never got ready, or a cycle. */
  readonly failed: boolean;
  readonly message?: string;
  readonly plan?: Plan;
}

/** Plans every trigger; an error only when the cluster itself cannot be read (a malformed bound pod). */
export async function planWorkspace(input: WorkspaceInput): Promise<Result<TriggerOutcome[]>> {
  const base = Snapshot.fromCluster(input.cluster);
  if (!base.ok) return err(base.error);
  const working = new WhatIf(base.value);
  const schedulerName = input.planning.args.schedulerName;
  const triggerId = (t: TriggerSpec) => nodeId({ kind: TRIGGER_KIND, namespace: t.namespace, name: t.name });
  const setId = (kind: string, ref: PodSetRef) =>
    nodeId({ kind, namespace: ref.namespace, name: kind === SCHEDULE_PLAN_KIND ? schedulePlanName(ref.namespace, ref.name) : ref.name });

  const descriptors = new Map<string, TriggerDescriptor>();
  const specs = new Map<string, TriggerSpec>();
  const owner = new Map<string, TriggerSpec>();
  for (const t of input.triggers) {
    const id = triggerId(t);
    specs.set(id, t);
    descriptors.set(id, { id, ...(t.dependsOn ? { dependsOn: t.dependsOn } : {}), ...(t.requireReady ? { requireReady: true } : {}) });
    const set = podSetKey({ namespace: t.namespace, name: t.podSet });
    if (!owner.has(set)) owner.set(set, t);
  }

  const plans = new Map<string, Plan>();
  for (const p of input.plans ?? []) plans.set(setId(SCHEDULE_PLAN_KIND, { namespace: p.namespace, name: p.podSet }), p);
  const planOfTrigger = new Map<string, Plan>();
  /** Pods placed by the plans made so far, by key, and in the order they were put on the working copy. */
  const placed = new Set<string>();
  const placedInOrder: PlacedPod[] = [];
  const members = (ref: PodSetRef) => resolvePodSet(input.cluster.pods, ref, schedulerName).pods;
  const podOf = podsByKey(input.cluster.pods);

  // The written plans the run's triggers depend on and it does not plan again: their pods go on
  // their nodes first, and every plan of the run records them.
  const inRun = new Set(input.triggers);
  const standing = new Set<Plan>();
  for (const t of input.triggers)
    for (const p of writtenPlansBefore({ namespace: t.namespace, name: t.podSet }, input.triggers, input.plans ?? [], (d) => inRun.has(d)))
      standing.add(p);
  // Each plan's pods are looked up among its own set's members: a name another set's pod has is not it.
  for (const p of standing)
    placedInOrder.push(...assumePlacements(working, placementsOf([p]), podsByKey(members({ namespace: p.namespace, name: p.podSet }))));

  const plan = async (descriptor: TriggerDescriptor): Promise<Terminal> => {
    const spec = specs.get(descriptor.id) as TriggerSpec;
    const config = readTrigger(spec);
    if (!config.ok) return failed(config.error.message);
    const ref = { namespace: spec.namespace, name: spec.podSet };
    const first = owner.get(podSetKey(ref)) as TriggerSpec;
    if (first !== spec) return failed(`pod set ${podSetKey(ref)} is planned by ScheduleTrigger ${triggerKey(first)}`);
    const podSet = resolvePodSet(input.cluster.pods, ref, schedulerName);
    // The cluster it is made on is the input's with what the plans before it placed: the plan records them.
    const built = planPodSet(
      input.planning,
      { podSet, snapshot: working.snapshot, now: input.now, placedBefore: [...placedInOrder] },
      { trigger: spec, override: input.override },
    );
    if (!built.ok) return failed(built.error);
    const made = built.value;
    placedInOrder.push(...assumePlacements(working, placementsOf([made]), podOf));
    for (const a of made.assignments) placed.add(`${made.namespace}/${a.pod}`);
    planOfTrigger.set(descriptor.id, made);
    plans.set(setId(SCHEDULE_PLAN_KIND, ref), made);
    // What waits on the set or its plan looks again.
    reconciler.onArrival(setId(POD_SET_KIND, ref), false);
    reconciler.onArrival(setId(SCHEDULE_PLAN_KIND, ref), false);
    const total = made.assignments.length + made.unplaced.length;
    return made.unplaced.length === 0
      ? terminal(true, `planned all ${total} pods`)
      : terminal(false, `planned ${made.assignments.length} of ${total} pods; left out: ${made.unplaced.map((u) => u.pod).join(', ')}`);
  };

  const progress = (id: string): DependencyProgress => {
    const node = parseNodeId(id);
    if (!node.ok) return { complete: false, ready: false };
    const { kind, namespace, name } = node.value;
    const isPlaced = (pod: Pod) => placed.has(podKey(pod));
    if (kind === TRIGGER_KIND) {
      const spec = specs.get(id);
      return podSetProgress({
        pods: spec ? members({ namespace, name: spec.podSet }) : [],
        planned: planOfTrigger.has(id),
        placed: isPlaced,
      });
    }
    if (kind === POD_SET_KIND) {
      const first = owner.get(podSetKey({ namespace, name }));
      // A set no trigger of the run plans: its written plan, if any, is its plan.
      const written = first === undefined ? plans.get(setId(SCHEDULE_PLAN_KIND, { namespace, name })) : undefined;
      const inPlan = new Set(written?.assignments.map((a) => a.pod));
      return podSetProgress({
        pods: members({ namespace, name }),
        planned: first === undefined || planOfTrigger.has(triggerId(first)),
        placed: (pod) => isPlaced(pod) || inPlan.has(pod.metadata.name),
      });
    }
    if (kind === SCHEDULE_PLAN_KIND) {
      // A set a trigger of the run plans has the plan that trigger makes, not the one written before.
      const named = plans.get(id);
      const first = named && owner.get(podSetKey({ namespace: named.namespace, name: named.podSet }));
      const p = first && !planOfTrigger.has(triggerId(first)) ? undefined : named;
      const inPlan = new Set(p?.assignments.map((a) => a.pod));
      return podSetProgress({
        pods: p ? members({ namespace: p.namespace, name: p.podSet }) : [],
        planned: p !== undefined,
        placed: (pod) => isPlaced(pod) || inPlan.has(pod.metadata.name),
      });
    }
    return { complete: false, ready: false };
  };

  const reconciler = new Reconciler(triggerDispatcher(descriptors, { plan, progress }), input.poolSize ? { poolSize: input.poolSize } : {});
  // Pod sets and plans are data a trigger may wait on: present (so not "not found") but never run.
  const sets = [
    ...podSetsIn(input.cluster.pods, schedulerName),
    ...input.triggers.map((t) => ({ namespace: t.namespace, name: t.podSet })),
  ];
  for (const ref of sets) reconciler.onArrival(setId(POD_SET_KIND, ref), false);
  for (const ref of [...sets, ...(input.plans ?? []).map((p) => ({ namespace: p.namespace, name: p.podSet }))])
    reconciler.onArrival(setId(SCHEDULE_PLAN_KIND, ref), false);
  reconciler.seed(descriptors.keys());
  await reconciler.run();

  return ok(
    input.triggers.map((trigger): TriggerOutcome => {
      const id = triggerId(trigger);
      const status = reconciler.status(id) as NodeStatus;
      const made = planOfTrigger.get(id);
      return {
        trigger,
        id,
        ready: status.ready,
        failed: status.failed,
        ...(status.message !== undefined ? { message: status.message } : {}),
        ...(made ? { plan: made } : {}),
      };
    }),
  );
}

/** One pod set's plan as the one entry point makes it. */
export interface SetOutcome {
  readonly plan?: Plan;
  /** The set's trigger, when it has one. */
  readonly trigger?: TriggerSpec;
  /** It could not be planned (a bad trigger, a dependency that failed, pods that do not decode, …): `message` says why. */
  readonly failed: boolean;
  readonly message?: string;
}

/**
 * The one entry point to plan one pod set of a workspace, which `podplan plan --pod-set` and the
 * editor's preview both call. A set with a ScheduleTrigger is planned through it after what it
 * depends on (only those, transitively: each planned and assumed on the cluster first, as
 * planWorkspace does); a set without one, directly on the cluster. Either way through
 * build.planPodSet, so a pending pod that does not decode refuses the plan. An error only when the
 * cluster itself cannot be read.
 */
export async function planOnePodSet(input: WorkspaceInput, ref: PodSetRef): Promise<Result<SetOutcome>> {
  const own = input.triggers.find((t) => t.namespace === ref.namespace && t.podSet === ref.name);
  if (own) {
    const outcomes = await planWorkspace({ ...input, triggers: withDependencies(own, input.triggers, input.plans ?? []) });
    if (!outcomes.ok) return outcomes;
    const outcome = outcomes.value.find((o) => o.trigger === own) as TriggerOutcome;
    return ok({
      trigger: own,
      failed: outcome.failed,
      ...(outcome.plan ? { plan: outcome.plan } : {}),
      ...(outcome.message !== undefined ? { message: outcome.message } : {}),
    });
  }
  const snapshot = Snapshot.fromCluster(input.cluster);
  if (!snapshot.ok) return err(snapshot.error);
  const podSet = resolvePodSet(input.cluster.pods, ref, input.planning.args.schedulerName);
  const built = planPodSet(
    input.planning,
    { podSet, snapshot: snapshot.value, now: input.now },
    input.override ? { override: input.override } : {},
  );
  return ok(built.ok ? { plan: built.value, failed: false } : { failed: true, message: built.error });
}

/**
 * The pod sets planOnePodSet plans for `ref`: its own, and through its trigger those of every
 * trigger it depends on (transitively), which are planned and assumed first.
 */
export function podSetsPlannedFor(ref: PodSetRef, triggers: readonly TriggerSpec[]): PodSetRef[] {
  const own = triggers.find((t) => t.namespace === ref.namespace && t.podSet === ref.name);
  const planned = own ? withDependencies(own, triggers, []).map((t) => ({ namespace: t.namespace, name: t.podSet })) : [];
  return [ref, ...planned.filter((set) => set.namespace !== ref.namespace || set.name !== ref.name)];
}

/** `trigger` and every trigger it depends on, transitively (a PodSet or SchedulePlan entry stands for the triggers of that set), in input order. */
function withDependencies(trigger: TriggerSpec, triggers: readonly TriggerSpec[], plans: readonly Plan[]): TriggerSpec[] {
  const needed = new Set<TriggerSpec>();
  const visit = (t: TriggerSpec) => {
    if (needed.has(t)) return;
    needed.add(t);
    for (const ref of t.dependsOn ?? []) for (const other of resolveDependency(ref, t.namespace, triggers, plans).triggers) visit(other);
  };
  visit(trigger);
  return triggers.filter((t) => needed.has(t));
}
