// The CLI beside the editor: two processes open the same history and write at once. WAL lets
// readers go on during a write; BEGIN IMMEDIATE and busy_timeout make the second writer wait its
// turn instead of failing.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { assertWhole, openTestStore, savedIds, startWriter, useTempDir, value } from './helpers';

describe('store: two processes writing at once', function () {
  this.timeout(120_000);
  const dir = useTempDir();

  it('both migrate the new file once, both write every plan, and a reader in a third sees only whole plans', async () => {
    const file = join(dir.path, 'shared.db');
    const PLANS = 30;
    const writers = [startWriter(file, 'editor-set', PLANS, 1), startWriter(file, 'cli-set', PLANS, 2)];

    // Meanwhile this process reads as the editor's views would.
    await writers[0]!.waitFor(/^saved /);
    const reader = await openTestStore(file);
    let reads = 0;
    try {
      while (writers.some((w) => w.child.exitCode === null)) {
        for (const p of value(reader.history({ limit: 5 })).items) {
          assert.equal(value(reader.getPlan(p.id)).assignments.length, p.placed);
        }
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      reader.close();
    }

    assert.deepEqual(
      await Promise.all(writers.map((w) => w.exited)),
      [0, 0],
      writers.map((w) => w.lines.filter((l) => l.startsWith('error')).join(' ')).join(' '),
    );
    const saved = writers.flatMap((w) => savedIds(w.lines));
    assert.equal(new Set(saved).size, 2 * PLANS);
    assert.deepEqual(
      assertWhole(file),
      [...saved].sort((a, b) => a - b),
    );
    assert.ok(reads > 0);
  });
});
