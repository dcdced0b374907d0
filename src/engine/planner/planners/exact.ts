// The exact planner: the optimizing planner's plan (solver-guided) handed to the solver with the
// request's whole time limit, whatever the set's size; proven optimal when the solve ends, else
// the proven gap.
// Without a solver it is the optimizing planner, and says so by carrying no bound.
import { solveExactly } from '../solver/solve-milp';
import { optimize } from './optimize';
import type { Planner } from '../planner';

export const EXACT = 'exact';

export const exact: Planner = {
  name: EXACT,
  plan(request) {
    // The optimizing planner's plan with the solver's guidance, then the solver with the whole limit.
    return solveExactly(request, optimize.plan(request));
  },
};
