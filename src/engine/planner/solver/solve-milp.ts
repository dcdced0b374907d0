// The solver's plan: the whole set as one MILP (milp.ts) handed to the request's solver, started
// from a heuristic's plan so a time limit never returns worse than it. The solution is
// carried out pod by pod in queue order with every filter plugin checking each placement (replay):
// the engine, not the model, has the last word. The plan carries what the solver proved: optimal,
// or the gap to its bound when the time limit stopped it.
import { better, boundOf, proveBound } from './bound';
import { placementModel, startOf, targetsOf } from './milp';
import { solveOptions, type PlannerResult, type PlanRequest } from '../planner';
import { replay } from '../search/replay';
import { relativeGap } from './solver';

/** The solver's plan for the request from `incumbent`, with its bound; the incumbent when the solver finds nothing better. */
export function solveExactly(request: PlanRequest, incumbent: PlannerResult): PlannerResult {
  const settings = request.solver;
  if (!settings) return incumbent;
  const { solver } = settings;
  // When the incumbent places every pod, so can the best plan: the model then asks for all of them
  // and weighs nodes alone, which the solver settles far sooner than the weighted objective.
  const placesAll = incumbent.placed.length === request.pods.length && request.objective === 'pack';
  const placement = placementModel(request, { goal: placesAll ? 'every-pod' : 'plan' });
  const start = startOf(placement, incumbent);
  const solution = solver.solve(placement.model, { ...solveOptions(settings), ...(start ? { start } : {}) });
  let result = incumbent;
  let accepted = false;
  if (solution.values) {
    const targets = targetsOf(placement, solution.values, request.previous);
    const replayed = replay(request, targets);
    // A gang's minimum the incumbent misses is met by the solver's plan (or it places none).
    result = request.gang !== undefined && incumbent.placed.length < request.gang ? replayed : better(request, incumbent, replayed);
    // The engine kept every placement the solver made: the solver's proof holds for the plan.
    accepted =
      replayed.placed.length === placedBy(placement, solution.values) &&
      replayed.placed.every(({ pod, node }) => targets.get(pod) === node);
  }
  // A solve that ended proves its own bound; else the aggregated model may prove more.
  const proven = solution.status === 'optimal' ? {} : (proveBound(request, settings) ?? {});
  // Every pod placed costs the nodes opened, at most the nodes used.
  const fromSolve = placesAll
    ? Math.max(0, Math.ceil(solution.bound - 1e-6))
    : nodesFromObjectiveBound(request, placement.placementWeight, placement.usedWeight, solution.bound);
  const nodes = proven.nodes === undefined && fromSolve === 0 ? {} : { nodes: Math.max(proven.nodes ?? 0, fromSolve) };
  const optimal = solution.status === 'optimal' && accepted;
  const objectiveGap = solution.objective === undefined ? 1 : relativeGap(solution.objective, solution.bound);
  return { ...result, bound: boundOf(request, result, { ...proven, ...nodes }, solver.name, { optimal, objectiveGap }) };
}

function placedBy(placement: ReturnType<typeof placementModel>, values: Float64Array): number {
  return placement.assignments.reduce((sum, { column }) => sum + Math.round(values[column] as number), 0);
}

/**
 * Nodes any plan placing every pod must use, from the solver's bound on the plan objective (pack,
 * one priority level): such a plan costs opened + usedWeight * used - weight * pods, at most
 * (1 + usedWeight) * used - weight * pods, so used >= (bound + weight * pods) / (1 + usedWeight).
 */
function nodesFromObjectiveBound(request: PlanRequest, weights: readonly number[], usedWeight: number, bound: number): number {
  if (request.objective !== 'pack' || weights.length !== 1 || !Number.isFinite(bound)) return 0;
  const used = (bound + (weights[0] as number) * request.pods.length) / (1 + usedWeight);
  return Math.max(0, Math.ceil(used - 1e-6));
}
