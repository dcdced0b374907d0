import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { basisHash, openStore } from '../../src/store/store';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/schema';
import { openTestStore, useTempDir, value } from './helpers';
import { syntheticPlan } from './synthetic';

const fixture = (version: number): string => new URL(`../fixtures/store/history-v${version}.sql`, import.meta.url).pathname;

/** Tables and indexes with their SQL, whitespace folded: what a database's schema is. */
function schemaOf(file: string): Array<[string, string]> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name').all() as Array<{
      name: string;
      sql: string;
    }>;
    return rows.map((r) => [r.name, r.sql.replace(/\s+/g, ' ')]);
  } finally {
    db.close();
  }
}

function pageSize(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
}

const digest = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('store/schema', () => {
  const dir = useTempDir();

  it('numbers its migrations 1, 2, … so user_version counts the ones applied', () => {
    assert.deepEqual(
      MIGRATIONS.map((m) => m.version),
      Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
    );
  });

  describe('migrates a database of every earlier version in place', () => {
    let fresh: Array<[string, string]>;
    before(async () => {
      const file = join(dir.path, 'fresh.db');
      (await openTestStore(file)).close();
      fresh = schemaOf(file);
    });

    for (let version = 0; version < SCHEMA_VERSION; version++) {
      it(`from version ${version}${version === 0 ? ' (a new, empty file)' : ''}`, async () => {
        const file = join(dir.path, `from-v${version}.db`);
        if (version > 0) {
          assert.ok(
            existsSync(fixture(version)),
            `test/fixtures/store/history-v${version}.sql: every released version needs its frozen database`,
          );
          const db = new Database(file);
          db.exec(readFileSync(fixture(version), 'utf8'));
          db.close();
        }
        const store = await openTestStore(file);
        try {
          assert.deepEqual(schemaOf(file), fresh, 'the migrated schema is the one a new database gets');
          // New files get 16 KB pages; a file that exists keeps its page size (changing it would rewrite it all).
          assert.equal(pageSize(file), version === 0 ? 16384 : 4096);
          if (version > 0) {
            // What the old version wrote reads back through today's code.
            const plan = value(store.loadPlan(1));
            assert.deepEqual(
              plan.assignments.map((a) => a.node),
              ['n1', 'n2'],
            );
            assert.deepEqual(
              plan.unplaced[0]!.diagnosis.rejections.map((r) => r.node),
              ['n1', 'n2'],
            );
            assert.deepEqual(
              value(store.history({ trigger: 'web-trigger' })).items.map((p) => p.id),
              [1],
            );
            assert.equal(value(store.latestApplied('web', 'default'))?.id, 1);
            assert.equal(value(store.triggerHistory({ trigger: 'web-trigger' })).items.length, 1);
            assert.equal(value(store.claims({ pool: 'gpu' })).items.length, version >= 2 ? 1 : 0);
            // Plans from before the history kept a plan's cluster have none (explain says so).
            assert.equal(value(store.planBasis(1)), undefined);
            // A plan kept with its cluster before the history kept its profile has the cluster alone (explain says so).
            if (version === 8) {
              const basis = value(store.planBasis(2));
              assert.deepEqual([basis?.cluster.nodes.map((n) => n.metadata.name), basis?.profile], [['g1', 'g2', 'c1'], undefined]);
              assert.equal(value(store.summary(2)).basis, basisHash({ cluster: basis!.cluster }), 'named as schema 8 named it');
            }
            // A plan kept before the history kept the pods the sets planned before it placed has none known (explain says so).
            if (version >= 8) assert.equal(value(store.planBasis(2))?.placedBefore, undefined);
            if (version === 9) {
              const basis = value(store.planBasis(3));
              assert.equal(value(store.summary(3)).trigger, 'second');
              assert.deepEqual(
                [basis?.cluster.nodes.map((n) => n.metadata.name), basis?.profile?.schedulerName, basis?.placedBefore],
                [['n1', 'n2', 'n3'], 'default-scheduler', undefined],
              );
              assert.equal(value(store.loadPlan(3)).placedBefore, undefined);
            }
            // Plans from before evictions were kept evict nothing.
            assert.deepEqual([value(store.getPlan(1)).victims, value(store.summary(1)).evicted, plan.victims], [[], 0, undefined]);
          }
          const run = value(store.startRun({ kind: 'workspace', name: 'examples' }, 'preview'));
          const preempting = {
            ...syntheticPlan({ pods: 20, unplaced: 2, nodes: 5 }),
            victims: [{ pod: 'batch/low-0', node: 'node-0001', by: 'web-0' }],
            placedBefore: [{ namespace: 'batch', pod: 'first-0', node: 'node-0002' }],
          };
          const saved = value(store.savePlan(run, preempting, { profileHash: 'p' }));
          assert.deepEqual(value(store.loadPlan(saved)), preempting);
          if (version > 0) assert.deepEqual(value(store.diffPlans(1, saved)).newlyEvicted, preempting.victims);
          value(store.recordClaim({ namespace: 'ml', pool: 'gpu', request: 'r9', outcome: 'claimed', at: 9 }));
        } finally {
          store.close();
        }
      });
    }
  });

  describe('refuses, and leaves untouched, a file it must not migrate', () => {
    const cases: Array<[string, (file: string) => void, string, RegExp]> = [
      [
        'a database from a newer Podplan',
        (file) => {
          const db = new Database(file);
          db.exec(`CREATE TABLE plans (id INTEGER PRIMARY KEY, future TEXT); PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
          db.close();
        },
        'newer-schema',
        new RegExp(
          `newer Podplan \\(schema version ${SCHEMA_VERSION + 1}, this one knows up to ${SCHEMA_VERSION}\\); it was left untouched`,
        ),
      ],
      [
        "another program's database",
        (file) => {
          const db = new Database(file);
          db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
          db.close();
        },
        'not-a-database',
        /another program's tables/,
      ],
      [
        'a file that is not SQLite at all',
        (file) => writeFileSync(file, 'apiVersion: v1\nkind: Config\n'.repeat(200)),
        'not-a-database',
        /not a database/,
      ],
    ];
    for (const [name, make, kind, message] of cases) {
      it(name, async () => {
        const file = join(dir.path, `${kind}-${name.length}.db`);
        make(file);
        const before = digest(file);
        const opened = await openStore(file);
        assert.equal(opened.ok, false);
        if (opened.ok) return;
        assert.equal(opened.error.kind, kind);
        assert.match(opened.error.message, message);
        assert.equal(digest(file), before, 'the file was changed');
        assert.equal(existsSync(`${file}-wal`), false);
      });
    }
  });

  it('says so when the directory cannot be made', async () => {
    const blocker = join(dir.path, 'a-file');
    writeFileSync(blocker, '');
    const opened = await openStore(join(blocker, 'history.db'));
    assert.equal(opened.ok ? 'ok' : opened.error.kind, 'cannot-open');
  });
});
