// PodSetPlanner, the plugin that makes the scheduler follow the plans, after Pallet's plugin of that
// name. A pod of a pod set reaching the scheduler is held (Unschedulable) while its ScheduleTrigger
// is Planning; once it is Schedule the pod goes to its planned node, the plan being rebuilt first
// when that node no longer holds (or the pod joined late). Where Pallet scores the planned node 100
// and every other 1, this plugin narrows the cycle to the planned node at PreFilter: node sampling
// can then never leave it out, and the other filters still check it. Reserve and Unreserve report
// what the cycle did, so the plan follows a pod bound elsewhere or a binding undone.
//
// In a planner's own what-if cycles (marked in the CycleState) it only keeps a pod to the nodes the
// planner allows it.
import type { Clock } from '../../api/clock';
import { fieldNotSupported, type ArgsError } from '../../api/field';
import { err, ok, type Result } from '../../api/result';
import { StateKey, type CycleState } from '../../framework/cycle-state';
import type { FrameworkHandle, PluginFactory, PreFilterPlugin, PreFilterResult, ReservePlugin } from '../../framework/interfaces';
import type { NodeInfoLister, PodInfo } from '../../framework/node-info';
import type { Binder, ClaimWriter } from '../../framework/binder';
import { mergeProfile, type Profile, type ProfileError } from '../../framework/profile';
import { Framework, type FrameworkOptions } from '../../framework/runtime';
import { SKIP, SUCCESS, unschedulable, type Status } from '../../framework/status';
import type { Random } from '../../api/random';
import { ArgsReader } from '../../plugins/args';
import { inTreeRegistry, type PluginModule } from '../../plugins/registry';
import { isObjective, PLANNERS } from '../build';
import { OBJECTIVES, PLANNING_CYCLE, PLUGIN_NAME, type Objective, type SolverSettings } from '../planner';
import { POD_SET_SCHEDULER_NAME } from '../podset/podset';

export const NAME = PLUGIN_NAME;

/** The plugin's args (pluginConfig), for the pod sets scheduled with the profile. */
export interface PodSetPlannerArgs {
  /** The planner of sets whose trigger names none; the default planner when not given. */
  readonly planner?: string;
  readonly objective?: Objective;
  /** The schedulerName pods of a pod set carry. */
  readonly schedulerName: string;
  /**
   * Plans may evict lower-priority pods to place the set's pods, as DefaultPreemption would (the
   * victims are listed in the plan). Off by default: a plan that silently evicts is a surprise.
   */
  readonly allowPreemption?: boolean;
  /** Pallet's args that mean nothing to Podplan (PALLET_ONLY_ARGS), as given: accepted and reported as ignored. */
  readonly ignored?: readonly string[];
}

/** Pallet's PodSetPlanner args about its own process (logging, its planner service's timeout, its refresh loop). */
export const PALLET_ONLY_ARGS = ['debug', 'callTimeout', 'updatePeriod'] as const;

export function readArgs(args: unknown): Result<PodSetPlannerArgs, ArgsError> {
  const reader = new ArgsReader(NAME);
  const value = reader.object(args, [], ['planner', 'objective', 'schedulerName', 'allowPreemption', ...PALLET_ONLY_ARGS]) ?? {};
  const ignored = PALLET_ONLY_ARGS.filter((key) => value[key] !== undefined);
  const planner = reader.string(value['planner'], ['planner']);
  if (planner !== undefined && !PLANNERS.has(planner)) reader.errors.push(fieldNotSupported(['planner'], planner, [...PLANNERS.keys()]));
  const objective = reader.string(value['objective'], ['objective']);
  if (objective !== undefined && !isObjective(objective)) reader.errors.push(fieldNotSupported(['objective'], objective, OBJECTIVES));
  const schedulerName = reader.string(value['schedulerName'], ['schedulerName']) ?? POD_SET_SCHEDULER_NAME;
  const allowPreemption = reader.bool(value['allowPreemption'], ['allowPreemption']);
  return reader.result({
    ...(planner !== undefined ? { planner } : {}),
    ...(objective !== undefined && isObjective(objective) ? { objective } : {}),
    schedulerName,
    ...(allowPreemption ? { allowPreemption } : {}),
    ...(ignored.length > 0 ? { ignored } : {}),
  });
}

/** Where a pod reaching the scheduler may go, as its pod set's plan says. */
export type Admission =
  | { readonly kind: 'not-in-a-set' }
  | { readonly kind: 'held'; readonly reason: string }
  | { readonly kind: 'planned'; readonly node: string }
  | { readonly kind: 'left-out'; readonly reason: string };

/** What the plugin asks of whoever keeps the triggers and plans (the PodSetCoordinator). */
export interface PodSetGate {
  admit(pod: PodInfo, cluster: NodeInfoLister): Admission;
  reserved(pod: PodInfo, node: string): void;
  unreserved(pod: PodInfo, node: string): void;
}

/** The node the plan gave the pod in this cycle: set at PreFilter, read at Reserve. */
const PLANNED = new StateKey<string>(`${NAME}/planned`);

export class PodSetPlanner implements PreFilterPlugin, ReservePlugin {
  readonly name = NAME;

  constructor(
    readonly args: PodSetPlannerArgs,
    private readonly handle: FrameworkHandle,
    private readonly gate: PodSetGate | undefined,
  ) {}

  preFilter(state: CycleState, pod: PodInfo): { status: Status; result?: PreFilterResult } {
    const planning = state.read(PLANNING_CYCLE);
    if (planning) return planning.eligible ? { status: SUCCESS, result: { nodeNames: planning.eligible } } : { status: SKIP };
    const admission = this.gate?.admit(pod, this.handle.snapshot()) ?? { kind: 'not-in-a-set' };
    switch (admission.kind) {
      case 'not-in-a-set':
        return { status: SKIP };
      case 'held':
      case 'left-out':
        return { status: unschedulable(admission.reason) };
      case 'planned':
        state.write(PLANNED, admission.node);
        return { status: SUCCESS, result: { nodeNames: new Set([admission.node]) } };
    }
  }

  reserve(state: CycleState, pod: PodInfo, nodeName: string): Status {
    if (state.read(PLANNED) !== undefined) this.gate?.reserved(pod, nodeName);
    return SUCCESS;
  }

  unreserve(state: CycleState, pod: PodInfo, nodeName: string): void {
    if (state.read(PLANNED) !== undefined) this.gate?.unreserved(pod, nodeName);
  }
}

export interface PodSetFramework {
  readonly framework: Framework;
  /** The PodSetPlanner args of the profile. */
  readonly args: PodSetPlannerArgs;
  /** The MILP solver its plans may use (the exact planner, the bound beside every plan). */
  readonly solver?: SolverSettings;
}

/** PodSetPlanner for a registry (a profile that configures it validates against one with it); `made` is told of each plugin built. */
export function podSetPlannerModule(gate?: PodSetGate, made?: (plugin: PodSetPlanner) => void): PluginModule {
  const factory: PluginFactory = (args, handle) => {
    const read = readArgs(args);
    if (!read.ok) return read;
    const plugin = new PodSetPlanner(read.value, handle, gate);
    made?.(plugin);
    return ok(plugin);
  };
  return { NAME, factory };
}

/** Score records a plan keeps per pod unless the profile says otherwise: the best nodes, not all. */
export const PLAN_RECORD_SCORES = 3;

/**
 * A framework of the in-tree plugins for `profile` (merged onto the defaults already) with
 * PodSetPlanner enabled too, registered as an extra plugin. Plan with one built without a gate;
 * schedule pod-set pods with one built with the coordinator as its gate.
 */
export function podSetFramework(
  profile: Profile,
  options: {
    readonly random: Random;
    readonly gate?: PodSetGate;
    readonly solver?: SolverSettings;
    readonly binder?: Binder;
    readonly claimWriter?: ClaimWriter;
    /** FrameworkOptions.clusterControllers (a live scheduler's). */
    readonly clusterControllers?: boolean;
    /** What plugins read the time from and wait on (a live scheduler's clock). */
    readonly clock?: Clock;
    /** FrameworkOptions.recordEvent (a live scheduler's). */
    readonly recordEvent?: FrameworkOptions['recordEvent'];
  },
): Result<PodSetFramework, readonly ProfileError[]> {
  let plugin: PodSetPlanner | undefined;
  const registry = inTreeRegistry([podSetPlannerModule(options.gate, (made) => (plugin = made))]);
  if (!registry.ok) return err([{ code: 'profile/invalid', path: ['plugins'], message: registry.error }]);
  const withPlanner = mergeProfile(profile, {
    schedulerName: profile.schedulerName,
    recordScores: profile.recordScores ?? PLAN_RECORD_SCORES,
    plugins: { multiPoint: { enabled: [{ name: NAME }] } },
  });
  const built = Framework.build(registry.value, withPlanner, {
    random: options.random,
    ...(options.binder ? { binder: options.binder } : {}),
    ...(options.claimWriter ? { claimWriter: options.claimWriter } : {}),
    ...(options.clusterControllers ? { clusterControllers: true } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.recordEvent ? { recordEvent: options.recordEvent } : {}),
  });
  if (!built.ok) return built;
  return ok({ framework: built.value, args: (plugin as PodSetPlanner).args, ...(options.solver ? { solver: options.solver } : {}) });
}
