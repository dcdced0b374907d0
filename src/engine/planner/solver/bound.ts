// How far a plan is from the best possible, proven by the solver: the fewest nodes any plan placing
// every pod can use (or, when not every pod can be placed, the most pods any plan can place), from
// the placement model (milp.ts; for larger sets aggregated, alike empty nodes pooled, a relaxation
// of the real problem) solved within a time limit: its LP relaxation first, then the MILP; what
// the solver proves by then is the bound. Stronger than
// the resource sums: it knows which pods may go where, that a template's anti-affine replicas take a
// node each, and that each node holds whole pods.
import { placementClasses, placementModel, type PlacementClasses } from './milp';
import type { MilpModel } from './solver';
import { solveOptions, type PlannerResult, type PlanRequest, type SolverSettings } from '../planner';
import { compareQuality, quality } from '../search/quality';

export interface PlanBound {
  /** No plan placing every pod uses fewer nodes (given when every pod may be placeable). */
  readonly nodes?: number;
  /** No plan places more pods (given when the solver proved not every pod can be placed). */
  readonly placeable?: number;
  /** The plan is proven to be the best for its objective. */
  readonly optimal: boolean;
  /** How far the plan may be from the best: (its nodes - bound) / its nodes, or (placeable - placed) / placeable. */
  readonly gap: number;
  /** The solver that proved it. */
  readonly solver: string;
}

/** What the solver proves on the request: the fewest nodes for every pod, else the most pods placeable. */
export interface ProvenBound {
  readonly nodes?: number;
  readonly placeable?: number;
}

/** Sets up to this many pods times nodes get the bound of the node-by-node model. */
const NODE_BY_NODE_PAIRS = 2000;

/** Sets beyond this many pods times nodes get the LP relaxation's bounds only (the MILP adds little there, and takes its whole limit). */
const MILP_BOUND_PAIRS = 100_000;

/**
 * The models a bound solves, each built from the request on first use: `prepare` builds them all
 * now, for a bound proven later on a cluster that may have changed by then.
 */
interface BoundProblem {
  readonly pods: number;
  /** Pods times nodes: how the models are built and which solves are worth their cost. */
  readonly pairs: number;
  mostPods(): MilpModel;
  fewestNodes(): MilpModel;
  prepare(): void;
}

function boundProblem(request: PlanRequest, classes: PlacementClasses | undefined): BoundProblem {
  // Small sets are modelled node by node (exact); larger ones with alike empty nodes pooled (smaller, weaker).
  const pairs = request.pods.length * request.snapshot.list().length;
  const aggregate = pairs > NODE_BY_NODE_PAIRS;
  let modelled = aggregate ? classes : undefined;
  const classesNow = () => (modelled ??= placementClasses(request, aggregate));
  let most: MilpModel | undefined;
  let fewest: MilpModel | undefined;
  const problem: BoundProblem = {
    pods: request.pods.length,
    pairs,
    // Maximizing placement is minimizing its negative: the bound is minus the most pods.
    mostPods: () => (most ??= placementModel(request, { aggregate, goal: 'most-pods' }, classesNow()).model),
    fewestNodes: () => (fewest ??= placementModel(request, { aggregate, goal: 'fewest-nodes' }, classesNow()).model),
    prepare: () => {
      problem.mostPods();
      problem.fewestNodes();
    },
  };
  return problem;
}

function solveBound(problem: BoundProblem, settings: SolverSettings, placed: number | undefined): ProvenBound | undefined {
  const { solver } = settings;
  const options = solveOptions(settings);
  const { pairs } = problem;
  const mostPods = (): ProvenBound | undefined => {
    const pods = solver.solve(problem.mostPods(), { ...options, relaxation: pairs > MILP_BOUND_PAIRS });
    return pods.status === 'error' || !Number.isFinite(pods.bound) ? undefined : { placeable: Math.max(0, Math.floor(-pods.bound + 1e-6)) };
  };
  // A plan that leaves pods out: first whether any plan places them all (else the nodes' bound has no model to solve).
  if (placed !== undefined && placed < problem.pods) {
    const most = mostPods();
    if (!most || (most.placeable ?? 0) < problem.pods) return most;
  }
  const fewest = problem.fewestNodes();
  // The LP relaxation first (quick, and a bound whatever happens next), then the MILP for a stronger one.
  const relaxed = solver.solve(fewest, { ...options, relaxation: true });
  if (relaxed.status === 'error') return undefined;
  if (relaxed.status !== 'infeasible' && pairs > MILP_BOUND_PAIRS) return { nodes: Math.max(0, Math.ceil(relaxed.bound - 1e-6)) };
  if (relaxed.status !== 'infeasible') {
    const nodes = solver.solve(fewest, options);
    if (nodes.status !== 'infeasible') {
      const proven = (solution: typeof nodes) => (solution.status !== 'error' && Number.isFinite(solution.bound) ? solution.bound : 0);
      return { nodes: Math.max(0, Math.ceil(Math.max(proven(relaxed), proven(nodes)) - 1e-6)) };
    }
  }
  return mostPods();
}

/**
 * The request's bound; undefined when the request has no solver or the solve failed. `classes`:
 * the request's aggregated placement classes when the caller has them already; `placed`: how many
 * pods the plan beside it places.
 */
export function proveBound(
  request: PlanRequest,
  settings: SolverSettings | undefined = request.solver,
  classes?: PlacementClasses,
  placed?: number,
): ProvenBound | undefined {
  return settings ? solveBound(boundProblem(request, classes), settings, placed) : undefined;
}

/**
 * The bound of `result` to prove later (the editor shows a preview before its bound): what it reads
 * of the request (the models, how good the result is) is taken now, so the proof is the one
 * `proveBound` and `boundOf` give now even when the cluster changes in between (a workspace's next
 * plan assumed on it). Only the solves are left to the returned proof.
 */
export function boundLater(request: PlanRequest, result: PlannerResult, settings: SolverSettings): () => PlanBound | undefined {
  const problem = boundProblem(request, undefined);
  problem.prepare();
  const judged = judge(request, result);
  return () => {
    const proven = solveBound(problem, settings, undefined);
    return proven ? judged(proven, settings.solver.name) : undefined;
  };
}

/** What a solve of the plan's own model proved: optimal, else how far its best solution was from its bound. */
export interface SolveProof {
  readonly optimal: boolean;
  readonly objectiveGap: number;
}

/** The bound beside a plan: its gap to what is proven, and whether that proves it the best. */
export function boundOf(request: PlanRequest, result: PlannerResult, proven: ProvenBound, solver: string, solve?: SolveProof): PlanBound {
  return judge(request, result)(proven, solver, solve);
}

/** How good `result` is, read now; then its bound given what is proven. */
function judge(request: PlanRequest, result: PlannerResult): (proven: ProvenBound, solver: string, solve?: SolveProof) => PlanBound {
  const q = quality(request, result);
  const all = request.pods.length;
  const { objective } = request;
  return (proven, solver, solve) => {
    const optimal = solve?.optimal ?? false;
    if (q.placed < all) {
      const placeable = proven.placeable ?? all;
      const gap = optimal || placeable === 0 ? 0 : (placeable - q.placed) / placeable;
      return { placeable, optimal, gap, solver };
    }
    const nodes = proven.nodes ?? 0;
    if (objective !== 'pack') {
      // The bound is on nodes, which balance does not minimize: the gap is the solve's own.
      return { nodes, optimal, gap: optimal ? 0 : (solve?.objectiveGap ?? 1), solver };
    }
    const gap = optimal || q.nodes === 0 ? 0 : Math.max(0, (q.nodes - nodes) / q.nodes);
    // Every pod placed, opening as few nodes as proven necessary: nothing is better when packing.
    return { nodes, optimal: optimal || (gap === 0 && q.opened === q.nodes), gap, solver };
  };
}

/** The better of two results by the request's objective (the first when as good). */
export function better(request: PlanRequest, a: PlannerResult, b: PlannerResult): PlannerResult {
  return compareQuality(quality(request, b), quality(request, a), request.objective) < 0 ? b : a;
}

/** "within 1.4% of the best possible", "proven optimal": the bound in words, for `podplan plan` and the plan view. */
export function describeBound(bound: PlanBound, placed: number, nodes: number): string {
  if (bound.optimal) return 'proven optimal';
  const within = `within ${(bound.gap * 100).toFixed(1)}% of the best possible`;
  if (bound.placeable !== undefined) return `places ${placed}; no plan places more than ${bound.placeable} (${within})`;
  return `uses ${nodes} node${nodes === 1 ? '' : 's'}; no plan uses fewer than ${bound.nodes ?? 0} (${within})`;
}
