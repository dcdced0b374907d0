// A plan is written in one transaction with its assignments, diagnoses and the pruning of its pod
// set's history: a process killed at any moment leaves each plan whole or absent, and the last plan
// it reported committed is still there.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { seededRandom } from '../../src/engine/api/random';
import { assertWhole, openTestStore, savedIds, startWriter, useTempDir, value } from './helpers';

/** PODPLAN_STRESS_SCALE=0.2 runs a fifth of the kills (a quick local loop); CI runs them all. */
const KILLS = Math.max(1, Math.round(50 * Number(process.env['PODPLAN_STRESS_SCALE'] ?? 1)));

describe('store: a writer killed with SIGKILL in the middle of writing plans', function () {
  this.timeout(KILLS * 10_000);
  const dir = useTempDir();

  it(`leaves the file intact and every plan whole or absent, ${KILLS} times over`, async () => {
    const file = join(dir.path, 'history.db');
    const random = seededRandom(7);
    let present: number[] = [];
    let midWrite = 0;
    for (let i = 0; i < KILLS; i++) {
      // Retention keeps the file small and prunes inside the transactions being killed.
      const writer = startWriter(file, `set-${i % 3}`, 0, i + 1, { keep: 10 });
      await writer.waitFor(/^saved /);
      if (i % 2 === 0) {
        // Killed as soon as the next plan starts: this lands inside its transaction.
        await writer.waitFor(/^writing [1-9]/);
      } else {
        // Writes go on back to back; a random pause puts the kill anywhere in the next plans.
        await new Promise((resolve) => setTimeout(resolve, random.int(120)));
      }
      writer.child.kill('SIGKILL');
      assert.equal(await writer.exited, 'SIGKILL');
      if (writer.lines.at(-1)?.startsWith('writing ')) midWrite++;

      present = assertWhole(file);
      const lastCommitted = Math.max(...savedIds(writer.lines));
      assert.ok(present.includes(lastCommitted), `after kill ${i + 1}: plan ${lastCommitted}, reported committed, is gone`);
    }

    // How many kills cut a plan short depends on the machine's load; one is enough to mean something.
    assert.ok(midWrite > 0, `none of ${KILLS} kills landed while a plan was being written`);
    console.log(`      ${midWrite} of ${KILLS} kills landed while a plan was being written`);

    // The file still opens, and the last plan reads back with its diagnoses.
    const store = await openTestStore(file);
    try {
      const last = Math.max(...present);
      const plan = value(store.loadPlan(last));
      assert.ok(plan.unplaced.every((u) => u.diagnosis.pod.endsWith(u.pod)));
      assert.ok(plan.assignments.every((a) => a.diagnosis?.chosenNode === a.node));
    } finally {
      store.close();
    }
  });
});
