// Building a pod set's Plan: the planner chosen for the set places its pending pods on the cluster
// (its bound pods stay where they are), a gang places all or nothing, and the plan records who made
// it, from what, and why each pod left out could not be placed.
import { err, ok, type Result } from '../api/result';
import { podKey, type Labels, type Pod } from '../api/types';
import { podInfo, type NodeInfoLister, type PodInfo } from '../framework/node-info';
import type { Framework } from '../framework/runtime';
import { boundLater, boundOf, proveBound, type PlanBound } from './solver/bound';
import { exact } from './planners/exact';
import { applyGang } from './planners/gang';
import { GREEDY, greedy } from './planners/greedy';
import { snapshotHash } from './podset/hash';
import { optimize } from './planners/optimize';
import { pallet } from './planners/pallet';
import type { PlacedPod, Plan, PlanAssignment, PlanVictim, UnplacedPod } from './plan';
import { preemptForUnplaced, victimsOfPlaced } from './search/preempt';
import { OBJECTIVES, type Objective, type Planner, type SolverSettings } from './planner';
import type { PodSetFramework } from './scheduler/plugin';
import { podSetKey, type PodSet } from './podset/podset';
import { planDevices } from '../plugins/dynamicresources/plan-devices';

export const PLANNERS: ReadonlyMap<string, Planner> = new Map([greedy, optimize, exact, pallet].map((p) => [p.name, p]));
export const DEFAULT_PLANNER = GREEDY;
export const DEFAULT_OBJECTIVE: Objective = 'pack';

/** On a ScheduleTrigger (or the set's pods): which planner plans the set. Podplan's addition. */
export const PLANNER_LABEL = 'planner.ciena.io/planner';
/** On a ScheduleTrigger (or the set's pods): the set is a gang of at least this many pods. Podplan's addition. */
export const MIN_MEMBER_LABEL = 'planner.ciena.io/min-member';
/** On a ScheduleTrigger (or the set's pods): what the planner minimizes once it placed all it can (OBJECTIVES). Podplan's addition. */
export const OBJECTIVE_LABEL = 'planner.ciena.io/objective';

export interface PlanSettings {
  /** A name in PLANNERS; DEFAULT_PLANNER when not given. */
  readonly planner?: string;
  readonly objective?: Objective;
  /** A gang: nothing is placed unless at least this many members are (bound members count). */
  readonly minMember?: number;
  /** The ScheduleTrigger that asked, recorded on the plan. */
  readonly trigger?: string;
  /** Pod key → the only nodes that pod may go to. */
  readonly eligible?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Pod name → its node in the set's current plan (replanning): what the moves objective keeps. */
  readonly previous?: ReadonlyMap<string, string>;
  /** Pods the planner cannot place may evict lower-priority running pods (PodSetPlanner allowPreemption). */
  readonly allowPreemption?: boolean;
}

export interface PlanInput {
  readonly podSet: PodSet;
  /** The cluster: nodes and the pods bound to them (the set's bound members among them). */
  readonly snapshot: NodeInfoLister;
  /** The planning framework (planningFramework in ./plugin). */
  readonly framework: Framework;
  /** Injected clock, ms since the epoch. */
  readonly now: number;
  /** A MILP solver for the exact planner and the bound beside every plan, when the process has one. */
  readonly solver?: SolverSettings;
  /** Pods other sets' plans put on the snapshot before this one (plan-all, the live coordinator): recorded on the plan (Plan.placedBefore). */
  readonly placedBefore?: readonly PlacedPod[];
}

/** A label whose value cannot be used, and why. */
export interface LabelError {
  readonly label: string;
  readonly message: string;
}

/** Settings read from labels (a trigger's, else the set's pods'): planner and gang size; bad values are errors naming the label. */
export function settingsFromLabels(labels: readonly (Labels | undefined)[]): Result<PlanSettings, LabelError> {
  const find = (key: string) => labels.map((l) => l?.[key]).find((v) => v !== undefined);
  const planner = find(PLANNER_LABEL);
  if (planner !== undefined && !PLANNERS.has(planner))
    return err({ label: PLANNER_LABEL, message: unknownPlanner(planner, `label ${PLANNER_LABEL}`) });
  const objective = find(OBJECTIVE_LABEL);
  if (objective !== undefined && !isObjective(objective)) {
    return err({
      label: OBJECTIVE_LABEL,
      message: `label ${OBJECTIVE_LABEL}: unknown objective "${objective}" (one of ${OBJECTIVES.join(', ')})`,
    });
  }
  const minMember = find(MIN_MEMBER_LABEL);
  if (minMember !== undefined && !/^[1-9][0-9]*$/.test(minMember)) {
    return err({ label: MIN_MEMBER_LABEL, message: `label ${MIN_MEMBER_LABEL}: "${minMember}" is not a whole number of at least 1` });
  }
  return ok({
    ...(planner !== undefined ? { planner } : {}),
    ...(objective !== undefined && isObjective(objective) ? { objective } : {}),
    ...(minMember !== undefined ? { minMember: Number(minMember) } : {}),
  });
}

/** The profile's defaults for its pod sets (PodSetPlanner args). */
export interface PlanDefaults {
  readonly planner?: string;
  readonly objective?: Objective;
  readonly allowPreemption?: boolean;
}

/** A set's settings: the first of its labels (its trigger's, then its pods') that says, else the profile's defaults. */
export function planSettings(defaults: PlanDefaults, labels: readonly (Labels | undefined)[]): Result<PlanSettings, LabelError> {
  const fromLabels = settingsFromLabels(labels);
  if (!fromLabels.ok) return fromLabels;
  const { planner, objective, allowPreemption } = defaults;
  return ok({
    ...(planner !== undefined ? { planner } : {}),
    ...(objective !== undefined ? { objective } : {}),
    ...(allowPreemption ? { allowPreemption } : {}),
    ...fromLabels.value,
  });
}

function unknownPlanner(name: string, where: string): string {
  return `${where}: unknown planner "${name}" (one of ${[...PLANNERS.keys()].join(', ')})`;
}

export function isObjective(value: unknown): value is Objective {
  return OBJECTIVES.includes(value as Objective);
}

export function buildPlan(input: PlanInput, settings: PlanSettings = {}): Result<Plan> {
  const { podSet, snapshot, framework } = input;
  const name = settings.planner ?? DEFAULT_PLANNER;
  const planner = PLANNERS.get(name);
  if (!planner) return err(unknownPlanner(name, 'planner'));
  if (podSet.pods.length === 0) return err(`pod set ${podSetKey(podSet)} has no pods`);
  const pending: PodInfo[] = [];
  for (const pod of podSet.pending) {
    const info = podInfo(pod);
    if (!info.ok) return err(info.error);
    pending.push(info.value);
  }
  const objective = settings.objective ?? DEFAULT_OBJECTIVE;
  const request = {
    pods: pending,
    snapshot,
    framework,
    objective,
    ...(settings.eligible ? { eligible: settings.eligible } : {}),
    ...(settings.minMember !== undefined ? { gang: Math.max(0, settings.minMember - podSet.bound.length) } : {}),
    ...(settings.previous ? { previous: previousByKey(pending, settings.previous) } : {}),
    ...(input.solver ? { solver: input.solver } : {}),
  };
  let result = planner.plan(request);
  // Every plan gets its bound when there is a solver: the planners that solve bring theirs.
  let later: (() => PlanBound | undefined) | undefined;
  if (input.solver && !result.bound && pending.length > 0) {
    if (input.solver.deferBound) later = boundLater(request, result, input.solver);
    else {
      const proven = proveBound(request);
      if (proven) result = { ...result, bound: boundOf(request, result, proven, input.solver.solver.name) };
    }
  }
  let victims: readonly PlanVictim[] = [];
  if (settings.allowPreemption) ({ result, victims } = preemptForUnplaced(request, result));
  if (settings.minMember !== undefined) {
    result = applyGang(
      result,
      podSetKey(podSet),
      settings.minMember,
      { profile: framework.profileName, nodesTotal: snapshot.list().length },
      podSet.bound.length,
    );
  }
  const objects = snapshot.objects?.()?.deviceClasses ? (snapshot.objects?.() ?? {}) : (framework.handle.objects?.() ?? {});
  const devices = planDevices(
    objects,
    result.placed.flatMap(({ pod, node }) => {
      const info = snapshot.get(node);
      return info ? [{ pod: pod.pod, node: info.node }] : [];
    }),
  );
  const assignments: PlanAssignment[] = [
    ...podSet.bound.map((p) => ({ pod: p.metadata.name, node: p.spec.nodeName as string })),
    ...result.placed.map(({ pod, node, diagnosis }) => {
      const got = devices.get(pod.pod);
      return { pod: pod.pod.metadata.name, node, ...(diagnosis ? { diagnosis } : {}), ...(got ? { devices: got } : {}) };
    }),
  ];
  const unplaced: UnplacedPod[] = result.unplaced.map(({ pod, message, diagnosis }) => ({
    pod: pod.pod.metadata.name,
    message,
    diagnosis,
  }));
  victims = victimsOfPlaced(victims, result.placed);
  const cluster = snapshot.list();
  const pods: Pod[] = cluster.flatMap((n) => n.pods.map((p) => p.pod));
  const onNodes = new Set(pods.map(podKey));
  const plan: Plan = {
    podSet: podSet.name,
    namespace: podSet.namespace,
    ...(settings.trigger !== undefined ? { trigger: settings.trigger } : {}),
    planner: planner.name,
    objective,
    ...(result.bound ? { bound: result.bound } : {}),
    profile: framework.profileName,
    assignments,
    unplaced,
    ...(victims.length > 0 ? { victims } : {}),
    ...(input.placedBefore?.length ? { placedBefore: input.placedBefore } : {}),
    createdAt: input.now,
    snapshotHash: snapshotHash(
      cluster.map((n) => n.node),
      [...pods, ...podSet.pending.filter((p) => !onNodes.has(podKey(p)))],
    ),
  };
  if (later) input.solver?.deferBound?.(plan, later);
  return ok(plan);
}

/** The current plan's nodes by pod key, for the pods still to place. */
function previousByKey(pending: readonly PodInfo[], byName: ReadonlyMap<string, string>): Map<string, string> {
  const previous = new Map<string, string>();
  for (const pod of pending) {
    const node = byName.get(pod.pod.metadata.name);
    if (node !== undefined) previous.set(pod.key, node);
  }
  return previous;
}

/** What a plan is asked for beside the set and the cluster: the set's trigger, and settings over every other. */
export interface PodSetPlanOptions {
  /** The set's ScheduleTrigger: its labels say first, its name is recorded on the plan. */
  readonly trigger?: { readonly name: string; readonly labels?: Labels };
  /** Over the labels' and the profile's settings (a planner chosen on the command line). */
  readonly override?: PlanSettings;
}

/**
 * The one entry point to plan a pod set, which `podplan plan` (a set on its own, and each trigger's
 * set through plan-all) and the editor (previews, Schedule Now, Apply Plan, quick fixes) all call.
 * A pending member that does not decode (requests that do not parse) refuses the plan, every such
 * pod named at once: a plan that silently left one out would look complete. The planning framework
 * is a profile's (podSetFramework in ./plugin); the settings are its trigger's labels', else its
 * pods', else the profile's PodSetPlanner args, `override` over them.
 */
export function planPodSet(planning: PodSetFramework, input: Omit<PlanInput, 'framework'>, options: PodSetPlanOptions = {}): Result<Plan> {
  const undecodable = input.podSet.pending.map((p) => podInfo(p)).flatMap((r) => (r.ok ? [] : [r.error]));
  if (undecodable.length > 0) return err(`pod set ${podSetKey(input.podSet)} cannot be planned: ${undecodable.join('; ')}`);
  const { trigger, override } = options;
  const settings = planSettings(planning.args, [trigger?.labels, ...input.podSet.pods.map((p) => p.metadata.labels)]);
  if (!settings.ok) return err(settings.error.message);
  return buildPlan(
    { ...input, framework: planning.framework, ...(planning.solver ? { solver: planning.solver } : {}) },
    { ...settings.value, ...(trigger ? { trigger: trigger.name } : {}), ...override },
  );
}
