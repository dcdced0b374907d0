// The planners' one interface: a pod set's pending pods and the cluster in, where each pod goes (or
// why it cannot) out. Every planner asks the planning framework's own filter plugins whether a pod
// fits a node, so a plan honours exactly the constraints the scheduler will check.
import { CycleState, PLANNED_PODS, StateKey } from '../framework/cycle-state';
import type { Diagnosis } from '../framework/diagnosis';
import type { NodeInfoLister, PodInfo } from '../framework/node-info';
import type { Framework } from '../framework/runtime';
import type { Node } from '../api/types';
import type { PlanBound } from './solver/bound';
import type { Plan } from './plan';
import type { MilpOptions, MilpSolver, MilpWorkLimit } from './solver/solver';
import { PREEMPTION_MODE } from '../framework/preemption/record';

/**
 * What a planner minimizes once it has placed all it can: pack, the nodes taken into use; balance,
 * the load of the busiest node; spread, the most pods of the set on one node (resilience); cost,
 * the summed cost of the nodes used (NODE_COST_KEY); moves, the pods placed elsewhere than the
 * current plan put them (replanning keeps planned pods where they are, unless that costs placement).
 */
export type Objective = 'pack' | 'balance' | 'spread' | 'cost' | 'moves';
export const OBJECTIVES: readonly Objective[] = ['pack', 'balance', 'spread', 'cost', 'moves'];

/** A node's cost per use (a decimal number, label or annotation) for the cost objective; a node without it costs 1. */
export const NODE_COST_KEY = 'planner.ciena.io/node-cost';

/** The node's cost for the cost objective: its NODE_COST_KEY annotation, else label, else 1. */
export function nodeCost(node: Node): number {
  const text = node.metadata.annotations?.[NODE_COST_KEY] ?? node.metadata.labels?.[NODE_COST_KEY];
  const value = text === undefined ? NaN : Number(text);
  return Number.isFinite(value) && value >= 0 ? value : 1;
}

export interface PlanRequest {
  /** The pods to place, in any order; planners order them themselves, deterministically. */
  readonly pods: readonly PodInfo[];
  /** The cluster as it is; planners work on copies and never change it. */
  readonly snapshot: NodeInfoLister;
  /** The planning framework: its filters decide what fits, its pipeline is the greedy baseline. */
  readonly framework: Framework;
  readonly objective: Objective;
  /** Pod key → the only nodes that pod may go to (the nodes a scheduler found eligible for it). */
  readonly eligible?: ReadonlyMap<string, ReadonlySet<string>>;
  /** Pod key → its node in the current plan: what the moves objective keeps. */
  readonly previous?: ReadonlyMap<string, string>;
  /** A gang: at least this many of the pods placed, or none (the solver's model keeps to it; buildPlan enforces it). */
  readonly gang?: number;
  /** A MILP solver for the exact planner and the bounds, when the process has one loaded. */
  readonly solver?: SolverSettings;
}

export interface SolverSettings {
  readonly solver: MilpSolver;
  /** Wall-clock limit of one solve. */
  readonly timeLimitMs: number;
  /** Work limit of one solve: what ends it, the same on every machine, when the time limit is far above its cost (the optimizing planner's). */
  readonly work?: MilpWorkLimit;
  /** The solver's seed. */
  readonly seed: number;
  /**
   * Given, a plan whose planner brought no bound of its own is made without one, and the proof of
   * its bound is handed here to run when the caller chooses (the editor shows a preview first, then
   * its bound); not given, every plan carries its bound.
   */
  readonly deferBound?: (plan: Plan, prove: () => PlanBound | undefined) => void;
}

/** A solve's limits and seed by the settings. */
export function solveOptions({ timeLimitMs, work, seed }: SolverSettings): MilpOptions {
  return { timeLimitMs, seed, ...(work ? { work } : {}) };
}

export interface Placement {
  readonly pod: PodInfo;
  readonly node: string;
  /** The cycle that chose the node, when the planner ran one. */
  readonly diagnosis?: Diagnosis;
}

export interface Unplaced {
  readonly pod: PodInfo;
  /** A scheduling cycle for the pod on the cluster as planned: why no node fits. */
  readonly diagnosis: Diagnosis;
  /** The upstream-format message. */
  readonly message: string;
}

export interface PlannerResult {
  /** In the order the scheduler will place them (its queue order), so the plan replays as made. */
  readonly placed: readonly Placement[];
  readonly unplaced: readonly Unplaced[];
  /** How far from the best possible the placement is proven to be, when a solver said. */
  readonly bound?: PlanBound;
}

export interface Planner {
  readonly name: string;
  plan(request: PlanRequest): PlannerResult;
}

/** The plugin that ties the scheduler to the plans (src/engine/planner/scheduler/plugin.ts). */
export const PLUGIN_NAME = 'PodSetPlanner';

/** What a planner's own cycles carry: the PodSetPlanner plugin then only applies the node restriction. */
export interface PlanningCycle {
  readonly eligible?: ReadonlySet<string>;
}

export const PLANNING_CYCLE = new StateKey<PlanningCycle>('PodSetPlanner/planning');

/** A fresh CycleState for a planner's what-if cycle of `pod`. */
export function planningState(pod: PodInfo, eligible: PlanRequest['eligible']): CycleState {
  const state = new CycleState();
  // The planner's copy holds the pods it placed so far: their claims count as allocated there.
  state.write(PLANNED_PODS, true);
  const nodes = eligible?.get(pod.key);
  state.write(PLANNING_CYCLE, nodes ? { eligible: nodes } : {});
  // Plans do not evict: preemption only says where it would make room.
  state.write(PREEMPTION_MODE, 'report');
  return state;
}

/**
 * The pods in the order the framework's queue releases them (its queueSort plugin), arrival order
 * being the order given: the order in which the scheduler will carry a plan out.
 */
export function queueOrder(framework: Framework, pods: readonly PodInfo[]): PodInfo[] {
  const queued = pods.map((info, timestamp) => ({ info, timestamp, attempts: 0 }));
  queued.sort((a, b) => (framework.queueSortLess(a, b) ? -1 : framework.queueSortLess(b, a) ? 1 : a.timestamp - b.timestamp));
  return queued.map((q) => q.info);
}
