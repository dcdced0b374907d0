// The driver seam: better-sqlite3 first; where it cannot load (a native build for another Node ABI),
// node:sqlite; where neither loads, one error value and the caller runs without history.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  betterSqlite3,
  isNotADatabase,
  nativeAddonName,
  noDriverMessage,
  type DriverLoader,
  type DriverName,
} from '../../src/store/driver';
import { openStore } from '../../src/store/store';
import { assertWhole, openTestStore, savedIds, startWriter, useTempDir, value } from './helpers';
import { syntheticPlan } from './synthetic';

const failing = (name: DriverName, why: string): DriverLoader => ({ name, load: () => Promise.reject(new Error(why)) });

/** Node 22 from the npm registry's `node` package, kept under .cache/ (not a dependency of the project). */
const NODE22_PREFIX = fileURLToPath(new URL('../../.cache/node22', import.meta.url));
const NODE22 = join(NODE22_PREFIX, 'node_modules', 'node', 'bin', 'node');

describe('store/driver', () => {
  const dir = useTempDir();

  it('opens with better-sqlite3 where it loads', async () => {
    const store = await openTestStore(join(dir.path, 'native.db'));
    assert.equal(store.driver, 'better-sqlite3');
    store.close();
  });

  it('takes the next driver when one cannot load', async () => {
    const opened = await openStore(join(dir.path, 'second.db'), {
      loaders: [failing('node:sqlite', 'No such built-in module: node:sqlite'), betterSqlite3],
    });
    assert.equal(opened.ok && opened.value.driver, 'better-sqlite3');
    if (opened.ok) opened.value.close();
  });

  it("when no driver loads, returns one error in plain words, each driver's own error as its detail, and throws nothing", async () => {
    const opened = await openStore(join(dir.path, 'none.db'), {
      loaders: [
        failing('better-sqlite3', 'was compiled against a different Node.js version using NODE_MODULE_VERSION 115'),
        failing('node:sqlite', 'No such built-in module: node:sqlite'),
      ],
    });
    assert.deepEqual(opened, {
      ok: false,
      error: {
        kind: 'no-driver',
        message: noDriverMessage(),
        detail:
          'better-sqlite3: was compiled against a different Node.js version using NODE_MODULE_VERSION 115; node:sqlite: No such built-in module: node:sqlite',
      },
    });
  });

  describe('knows a file that is not a database by the code each driver carries, not by its words', () => {
    const table: Array<[what: string, error: unknown, notADatabase: boolean]> = [
      ['better-sqlite3', Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' }), true],
      ['node:sqlite', Object.assign(new Error('file is not a database'), { code: 'ERR_SQLITE_ERROR', errcode: 26 }), true],
      ['another SQLite error', Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 }), false],
      ['the words alone', new Error('file is not a database'), false],
    ];
    for (const [what, error, expected] of table) it(what, () => assert.equal(isNotADatabase(error), expected));
  });

  it('says which Node has no driver and what each driver needs', () => {
    assert.equal(
      noDriverMessage('v20.20.2', '115', 'linux-x64'),
      'no SQLite driver could be loaded in Node v20.20.2 (linux-x64): node:sqlite needs Node 22.5 or newer, and there is no better-sqlite3 built for this Node (module version 115)',
    );
  });

  it('names a shipped addon by platform, architecture and Node module version', () => {
    assert.equal(nativeAddonName('linux', 'x64', '115'), 'better_sqlite3-linux-x64-node115.node');
  });

  describe('under Node 22, where this better-sqlite3 build cannot load', function () {
    this.timeout(300_000);

    before(() => {
      if (!existsSync(NODE22)) {
        // A separate prefix: the project's node_modules is shared and stays as installed.
        execFileSync('npm', ['install', '--prefix', NODE22_PREFIX, '--no-save', '--no-audit', '--no-fund', 'node@22'], {
          stdio: 'ignore',
          timeout: 240_000,
        });
      }
      assert.match(execFileSync(NODE22, ['--version'], { encoding: 'utf8' }), /^v22\./);
    });

    it('falls back to node:sqlite, and the two drivers read and write the same file', async () => {
      const file = join(dir.path, 'shared-by-two-nodes.db');
      const store = await openTestStore(file);
      const run = value(store.startRun({ kind: 'workspace', name: 'examples' }, 'preview'));
      const mine = value(store.savePlan(run, syntheticPlan({ pods: 30, unplaced: 2, nodes: 8 }), { profileHash: 'p' }));
      store.close();

      const writer = startWriter(file, 'from-node-22', 5, 3, { node: NODE22 });
      assert.equal(await writer.exited, 0, writer.lines.join('\n'));
      assert.equal(writer.lines[0], 'driver node:sqlite');
      const theirs = savedIds(writer.lines);
      assert.equal(theirs.length, 5);

      assert.deepEqual(assertWhole(file), [mine, ...theirs]);
      const again = await openTestStore(file);
      try {
        for (const id of theirs) assert.ok(value(again.loadPlan(id)).unplaced.every((u) => u.diagnosis.rejections.length === 300));
      } finally {
        again.close();
      }
    });
  });
});
