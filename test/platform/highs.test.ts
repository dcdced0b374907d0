import assert from 'node:assert/strict';
import { seededRandom } from '../../src/engine/api/random';
import { MilpBuilder, type MilpSolver } from '../../src/engine/planner/solver/solver';
import { highsSolver } from '../../src/platform/highs';

/** maximize x + y with x, y in 0..3 and x + y <= 4.5: 4 in whole numbers, 4.5 relaxed. */
function smallModel() {
  const b = new MilpBuilder();
  const x = b.column(1, 0, 3, true);
  const y = b.column(1, 0, 3, true);
  b.row(
    [
      [x, 1],
      [y, 1],
    ],
    -Infinity,
    4.5,
  );
  return b.build('maximize');
}

/** A seeded two-constraint 0/1 knapsack of 20 items: optimum 716, which HiGHS proves only after branching. */
function knapsack() {
  const random = seededRandom(7);
  const draw = () => 10 + Math.floor(random.next() * 90);
  const b = new MilpBuilder();
  const items = Array.from({ length: 20 }, () => b.column(draw(), 0, 1, true));
  for (let k = 0; k < 2; k++) {
    const weights = items.map((item) => [item, draw()] as const);
    b.row(weights, -Infinity, weights.reduce((sum, [, w]) => sum + w, 0) / 2);
  }
  return b.build('maximize');
}

describe('platform/highs (the MilpSolver on HiGHS compiled to WebAssembly)', () => {
  let solver: MilpSolver;
  before(async () => {
    // From node_modules/highs/build/highs.wasm: nothing is downloaded.
    const loaded = await highsSolver();
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.error);
    solver = loaded.value;
  });

  it('solves a MILP to optimality: the objective, the values, the bound equal to it', () => {
    const solved = solver.solve(smallModel(), { timeLimitMs: 10_000, seed: 1 });
    assert.equal(solved.status, 'optimal');
    assert.equal(solved.objective, 4);
    assert.equal(solved.bound, 4);
    assert.equal((solved.values?.[0] ?? 0) + (solved.values?.[1] ?? 0), 4);
  });

  it('solves the LP relaxation when asked', () => {
    const relaxed = solver.solve(smallModel(), { timeLimitMs: 10_000, seed: 1, relaxation: true });
    assert.equal(relaxed.status, 'optimal');
    assert.equal(relaxed.objective, 4.5);
  });

  it('a work limit ends the solve at the same point whatever the time limit: nodes for a MILP, iterations for an LP', () => {
    const model = knapsack();
    assert.equal(solver.solve(model, { timeLimitMs: 60_000, seed: 1 }).objective, 716);
    // 20 columns: 3 branch-and-bound nodes.
    const work = { branchNodeColumns: 60, simplexIterations: 1 };
    const stopped = solver.solve(model, { timeLimitMs: 10_000, seed: 1, work });
    assert.equal(stopped.status, 'limit');
    assert.equal(stopped.objective, 715);
    assert.equal(stopped.bound, 720);
    for (const timeLimitMs of [5_000, 1_000_000]) assert.deepEqual(solver.solve(model, { timeLimitMs, seed: 1, work }), stopped);
    const relaxed = solver.solve(model, { timeLimitMs: 10_000, seed: 1, work, relaxation: true });
    assert.equal(relaxed.status, 'limit');
    assert.deepEqual(solver.solve(model, { timeLimitMs: 1_000_000, seed: 1, work, relaxation: true }), relaxed);
  });

  it('says infeasible as a status, not an exception', () => {
    const b = new MilpBuilder();
    const x = b.column(0, 0, 1, true);
    b.row([[x, 1]], 2, Infinity);
    assert.equal(solver.solve(b.build('minimize'), { timeLimitMs: 10_000, seed: 1 }).status, 'infeasible');
  });

  it('is one runtime for the process: every caller gets the same loaded solver, and solves share nothing', async () => {
    const again = await highsSolver();
    assert.ok(again.ok);
    assert.equal(again.value, solver);
    assert.deepEqual(solver.solve(smallModel(), { timeLimitMs: 10_000, seed: 1 }).objective, 4);
  });
});
