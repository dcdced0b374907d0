import assert from 'node:assert/strict';
import { MilpBuilder, type MilpSolver } from '../../src/engine/planner/solver';
import { highsSolver } from '../../src/platform/highs';

/** maximize x + y with x, y in 0..3 and x + y <= 4.5: 4 in whole numbers, 4.5 relaxed. */
function smallModel() {
  const b = new MilpBuilder();
  const x = b.column(1, 0, 3, true);
  const y = b.column(1, 0, 3, true);
  b.row([[x, 1], [y, 1]], -Infinity, 4.5);
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
