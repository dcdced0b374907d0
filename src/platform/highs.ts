// The engine's MilpSolver (src/engine/planner/solver/solver.ts) on HiGHS, compiled to WebAssembly (npm
// package `highs`, external to the bundles). Loading compiles highs.wasm from node_modules (no download);
// after that each solve is synchronous and runs on a fresh native instance, so solves share
// nothing and one loaded runtime serves every planner of the process. HiGHS is built single-threaded.
import type { Highs } from 'highs';
import { err, ok, type Result } from '../engine/api/result';
import type { MilpModel, MilpOptions, MilpSolution, MilpSolver } from '../engine/planner/solver/solver';
import { errorMessage } from '../engine/api/errors';

let loading: Promise<Result<MilpSolver>> | undefined;

/**
 * The process's HiGHS solver, loaded on first use; an error (the package or its .wasm missing from
 * an install) when it cannot be, and the caller plans without a solver.
 */
export function highsSolver(): Promise<Result<MilpSolver>> {
  loading ??= import('highs')
    .then((module) => module.default())
    .then(
      (highs): Result<MilpSolver> => ok(new HighsSolver(highs)),
      (error: unknown) => err(`the MILP solver (npm package highs) could not be loaded: ${errorMessage(error)}`),
    );
  return loading;
}

/** The work limit as HiGHS options: branch-and-bound nodes of a MILP (the root counts as one), simplex iterations of an LP (HiGHS's iteration limit leaves a MILP's LPs alone). */
function workLimit({ work, relaxation }: MilpOptions, columns: number): Record<string, number> {
  if (!work) return {};
  return relaxation
    ? { simplex_iteration_limit: work.simplexIterations }
    : { mip_max_nodes: Math.max(1, Math.floor(work.branchNodeColumns / Math.max(1, columns))) };
}

class HighsSolver implements MilpSolver {
  readonly name: string;

  constructor(private readonly highs: Highs) {
    this.name = `HiGHS ${highs.version.string}`;
  }

  solve(model: MilpModel, options: MilpOptions): MilpSolution {
    const { highs } = this;
    const numCols = model.cost.length;
    const numRows = model.rowLower.length;
    const minimize = model.sense === 'minimize';
    const unsolved = (message: string): MilpSolution => ({ status: 'error', bound: minimize ? -Infinity : Infinity, message });
    const instance = highs.createModel();
    try {
      instance.options.set({
        output_flag: false,
        time_limit: options.timeLimitMs / 1000,
        random_seed: options.seed,
        mip_rel_gap: 1e-6,
        ...workLimit(options, numCols),
      });
      instance.passModel({
        numCols,
        numRows,
        sense: minimize ? highs.constants.objectiveSense.minimize : highs.constants.objectiveSense.maximize,
        colCost: model.cost,
        colLower: model.lower,
        colUpper: model.upper,
        rowLower: model.rowLower.map((v) => (v === -Infinity ? -highs.infinity : v)),
        rowUpper: model.rowUpper.map((v) => (v === Infinity ? highs.infinity : v)),
        matrix: { format: 'csr', numRows, numCols, starts: model.starts, indices: model.columns, values: model.values },
        ...(options.relaxation ? {} : { integrality: Int32Array.from(model.integer) }),
      });
      if (options.start && !options.relaxation) instance.setSolution({ colValue: options.start });
      instance.run();
      const codes = highs.constants.modelStatus;
      const status = instance.getModelStatus();
      if (status === codes.infeasible) return { status: 'infeasible', bound: minimize ? Infinity : -Infinity };
      const finished = status === codes.optimal;
      const limited =
        status === codes.timeLimit || status === codes.iterationLimit || status === codes.solutionLimit || status === codes.interrupted;
      if (!finished && !limited) return unsolved(`HiGHS ended with model status ${status}`);
      const feasible = Number(instance.info.get('primal_solution_status')) === highs.constants.solutionStatus.feasible;
      const objective = feasible ? instance.getObjectiveValue() : undefined;
      const integral = !options.relaxation && model.integer.some((i) => i === 1);
      const dualBound = integral ? Number(instance.info.get('mip_dual_bound')) : finished ? objective : undefined;
      const bound =
        dualBound !== undefined && Number.isFinite(dualBound)
          ? dualBound
          : finished && objective !== undefined
            ? objective
            : minimize
              ? -Infinity
              : Infinity;
      return {
        status: finished ? 'optimal' : 'limit',
        bound,
        ...(feasible ? { values: Float64Array.from(instance.getSolution().colValue), objective: objective as number } : {}),
      };
    } catch (error) {
      return unsolved(errorMessage(error));
    } finally {
      instance.dispose();
    }
  }
}
