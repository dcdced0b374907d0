// The seam between the planners and a mixed-integer linear programming solver: the engine states a
// model (columns, rows in compressed sparse rows, a linear objective) and reads back values, the
// proven bound and the gap. The solver itself (HiGHS compiled to WebAssembly) lives outside the
// engine (src/platform/highs.ts) and is handed in, loaded, through the PlanRequest; its solve is
// synchronous, so planners stay synchronous too.

export interface MilpModel {
  readonly sense: 'minimize' | 'maximize';
  /** Per column. */
  readonly cost: Float64Array;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  /** Per column: 1 when it must take whole values. */
  readonly integer: Uint8Array;
  /** Per row: the bounds of its sum (-Infinity / Infinity when open). */
  readonly rowLower: Float64Array;
  readonly rowUpper: Float64Array;
  /** The constraint matrix, row by row: row i's entries are starts[i]..starts[i+1] of columns/values. */
  readonly starts: Int32Array;
  readonly columns: Int32Array;
  readonly values: Float64Array;
}

/**
 * How much work a solve may do, counted by the solver (never in time): a solve the work limit ends
 * ends at the same point on a quiet machine and on a loaded one, so its result is the same.
 */
export interface MilpWorkLimit {
  /**
   * Branch-and-bound nodes of a MILP solve times its model's columns (a node's LP costs about as
   * much as the model is wide): a model of `c` columns gets floor(branchNodeColumns / c) nodes, the
   * root at least.
   */
  readonly branchNodeColumns: number;
  /** Simplex iterations of an LP relaxation solve. */
  readonly simplexIterations: number;
}

export interface MilpOptions {
  /** Wall-clock limit of the solve (the solver's clock, not the engine's); with a work limit, only a safety net above its usual cost. */
  readonly timeLimitMs: number;
  /** Work limit: with it, the same seed and model give the same solve whatever the machine's load, unless the time limit comes first. */
  readonly work?: MilpWorkLimit;
  /** The solver's random seed: the same seed and model give the same solve when it ends within its limits. */
  readonly seed: number;
  /** Solve the LP relaxation only (integrality dropped). */
  readonly relaxation?: boolean;
  /** A feasible solution to start from (the heuristic planner's), so a time limit never returns worse. */
  readonly start?: Float64Array;
}

export type MilpStatus =
  /** Solved: `values` is an optimum (within the solver's tolerances). */
  | 'optimal'
  | 'infeasible'
  /** A limit stopped the solve: `values` (if any) is the best solution found, `bound` what is proven. */
  | 'limit'
  /** The solver could not solve the model (a numerical or internal failure): `message` says why. */
  | 'error';

export interface MilpSolution {
  readonly status: MilpStatus;
  /** Per column, when the solve found a feasible solution. */
  readonly values?: Float64Array;
  /** The objective of `values`. */
  readonly objective?: number;
  /** The best bound proven on the objective (a lower bound when minimizing). */
  readonly bound: number;
  readonly message?: string;
}

export interface MilpSolver {
  readonly name: string;
  solve(model: MilpModel, options: MilpOptions): MilpSolution;
}

/** Builds a MilpModel column by column and row by row. */
export class MilpBuilder {
  private readonly cost: number[] = [];
  private readonly lower: number[] = [];
  private readonly upper: number[] = [];
  private readonly integer: number[] = [];
  private readonly rowLower: number[] = [];
  private readonly rowUpper: number[] = [];
  private readonly starts: number[] = [0];
  private readonly columns: number[] = [];
  private readonly values: number[] = [];

  get columnCount(): number {
    return this.cost.length;
  }

  get rowCount(): number {
    return this.rowLower.length;
  }

  /** A new column; its index. */
  column(cost: number, lower: number, upper: number, integer: boolean): number {
    this.cost.push(cost);
    this.lower.push(lower);
    this.upper.push(upper);
    this.integer.push(integer ? 1 : 0);
    return this.cost.length - 1;
  }

  setCost(column: number, cost: number): void {
    this.cost[column] = cost;
  }

  /** lower <= sum(coefficient * column) <= upper; entries with a zero coefficient are left out. */
  row(entries: ReadonlyArray<readonly [column: number, coefficient: number]>, lower: number, upper: number): void {
    for (const [column, coefficient] of entries) {
      if (coefficient === 0) continue;
      this.columns.push(column);
      this.values.push(coefficient);
    }
    this.starts.push(this.columns.length);
    this.rowLower.push(lower);
    this.rowUpper.push(upper);
  }

  build(sense: MilpModel['sense']): MilpModel {
    return {
      sense,
      cost: Float64Array.from(this.cost),
      lower: Float64Array.from(this.lower),
      upper: Float64Array.from(this.upper),
      integer: Uint8Array.from(this.integer),
      rowLower: Float64Array.from(this.rowLower),
      rowUpper: Float64Array.from(this.rowUpper),
      starts: Int32Array.from(this.starts),
      columns: Int32Array.from(this.columns),
      values: Float64Array.from(this.values),
    };
  }
}

/** The relative gap between a solution's objective and the proven bound (0 when proven optimal). */
export function relativeGap(objective: number, bound: number): number {
  if (objective === bound) return 0;
  return Math.abs(objective - bound) / Math.max(1, Math.abs(objective));
}
