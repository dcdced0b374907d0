// `podplan history`, and how every history command finds and opens the database: --db, else
// PODPLAN_DB, else podplan/history.db in the user's data directory. A history that cannot be opened
// is one line on stderr and exit 2, never a crash. Real database files in a temp dir.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../../src/engine/api/clock';
import type { DriverLoader } from '../../src/store/driver';
import { openTestStore, planOf, useTempDir, value } from '../store/helpers';
import { cli } from './run-cli';

const at = (hour: number): number => Date.UTC(2026, 0, 1, hour);

describe('cli history', () => {
  const dir = useTempDir();
  let db: string;

  before(async () => {
    db = join(dir.path, 'history.db');
    const store = await openTestStore(db, { clock: new ManualClock(at(0)) });
    const run = value(store.startRun({ kind: 'workspace', name: 'examples' }, 'preview'));
    const triggered = { podSet: 'batch', namespace: 'team-a', trigger: 'batch-trigger' };
    // Saved as plans 1 to 5, an hour apart.
    const plans = [
      planOf({ 'web-0': 'n1', 'web-1': null }, { createdAt: at(1) }),
      planOf({ 'batch-0': 'n2' }, { ...triggered, createdAt: at(2) }),
      planOf({ 'web-0': 'n1', 'web-1': 'n3' }, { createdAt: at(3) }),
      planOf({ 'batch-0': null, 'batch-1': null }, { ...triggered, createdAt: at(4) }),
      planOf({ 'web-0': 'n2', 'web-1': 'n3' }, { createdAt: at(5), victims: [{ pod: 'batch/low-1', node: 'n3', by: 'web-1' }] }),
    ];
    for (const plan of plans) value(store.savePlan(run, plan, { profileHash: 'sha256:p' }));
    store.close();
  });

  const history = (...args: string[]) => cli(['history', '--db', db, ...args]);

  it('lists the plans newest first: when, pod set, trigger, planner, status, counts (running pods evicted too) and source', async () => {
    const { code, stdout } = await history();
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `ID   CREATED                POD SET   NAMESPACE   TRIGGER         PLANNER   STATUS   PLACED   UNPLACED   EVICTED   SOURCE
5    2026-01-01T05:00:00Z   web       default     -               default   draft    2        0          1         workspace examples
4    2026-01-01T04:00:00Z   batch     team-a      batch-trigger   default   draft    0        2          0         workspace examples
3    2026-01-01T03:00:00Z   web       default     -               default   draft    2        0          0         workspace examples
2    2026-01-01T02:00:00Z   batch     team-a      batch-trigger   default   draft    1        0          0         workspace examples
1    2026-01-01T01:00:00Z   web       default     -               default   draft    1        1          0         workspace examples
`,
    );
  });

  const ids = (stdout: string): number[] => [...stdout.matchAll(/^(\d+) /gm)].map((m) => Number(m[1]));

  const filters: Array<[args: string[], expected: number[]]> = [
    [
      ['--pod-set', 'web'],
      [5, 3, 1],
    ],
    [
      ['--namespace', 'team-a'],
      [4, 2],
    ],
    [
      ['--trigger', 'batch-trigger'],
      [4, 2],
    ],
    [['--pod-set', 'web', '--namespace', 'team-a'], []],
  ];
  for (const [args, expected] of filters) {
    it(`filters with ${args.join(' ')} → plans ${expected.join(', ') || 'none'}`, async () => {
      const { code, stdout } = await history(...args);
      assert.equal(code, 0);
      assert.deepEqual(ids(stdout), expected);
      if (expected.length === 0) assert.equal(stdout, 'No plans in the history match.\n');
    });
  }

  it('pages with --limit; the last line is the command for the next page, which --before gives', async () => {
    const first = await history('--pod-set', 'web', '--limit', '2');
    assert.deepEqual(ids(first.stdout), [5, 3]);
    const more = /^More: podplan (.*)$/m.exec(first.stdout);
    assert.equal(more?.[1], `history --db ${db} --pod-set web --limit 2 --before 3`);
    const second = await cli(more[1].split(' '));
    assert.deepEqual(ids(second.stdout), [1]);
    assert.doesNotMatch(second.stdout, /More:/);
  });

  it('prints the plans and the next page as JSON with --json', async () => {
    const { code, stdout } = await history('--limit', '1', '--json');
    assert.equal(code, 0);
    const json = JSON.parse(stdout) as { plans: Array<{ id: number; podSet: string; source: { name: string } }>; next?: number };
    assert.deepEqual(
      json.plans.map((p) => [p.id, p.podSet, p.source.name]),
      [[5, 'web', 'examples']],
    );
    assert.equal(json.next, 5);
  });

  const bad: Array<[args: string[], expected: RegExp]> = [
    [['--limit', '0'], /--limit must be a positive whole number, not "0"/],
    [['--before', 'x'], /--before must be a positive whole number, not "x"/],
    [['--pod-sets', 'web'], /^podplan history: unknown option --pod-sets \(did you mean --pod-set\?\)/],
    [['web'], /unexpected argument "web"/],
  ];
  for (const [args, expected] of bad) {
    it(`refuses ${args.join(' ')} with exit 2`, async () => {
      const { code, stdout, stderr } = await history(...args);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
    });
  }

  describe('where the history is', () => {
    it('reads PODPLAN_DB when --db is not given, and --db over it', async () => {
      assert.deepEqual(ids((await cli(['history'], {}, { PODPLAN_DB: db })).stdout), [5, 4, 3, 2, 1]);
      const other = join(dir.path, 'other.db');
      const { code, stderr } = await cli(['history', '--db', other], {}, { PODPLAN_DB: db });
      assert.equal(code, 2);
      assert.match(stderr, new RegExp(`no plan history at ${other}`));
    });

    it("defaults to podplan/history.db in the user's data directory, where podplan schedule records", async () => {
      const files = { 'c.yaml': 'kind: Node\napiVersion: v1\nmetadata: { name: n1 }\nstatus: { allocatable: { cpu: "1", pods: "10" } }\n' };
      const scheduled = await cli(['schedule', 'c.yaml'], files);
      const recorded = /^Recorded as plan (\d+) in (.*) \(podplan show \d+\)\.$/m.exec(scheduled.stderr);
      assert.ok(recorded, scheduled.stderr);
      assert.match(recorded[2]!, /[/\\]podplan[/\\]history\.db$/);
      assert.match((await cli(['history', '--limit', '1'])).stdout, new RegExp(`^${recorded[1]} .* schedule `, 'm'));
    });
  });

  describe('a history that cannot be opened: one line on stderr and exit 2, for every history command', () => {
    const failing = (name: 'better-sqlite3' | 'node:sqlite'): DriverLoader => ({
      name,
      load: () => Promise.reject(new Error(`${name} does not load here`)),
    });
    const cases: Array<[what: string, prepare: () => string, expected: RegExp, sqlite?: DriverLoader[]]> = [
      ['no file there', () => join(dir.path, 'missing.db'), /there is no plan history at .*missing\.db/],
      [
        'a file that is not SQLite',
        () => {
          const file = join(dir.path, 'notes.db');
          writeFileSync(file, 'these are my notes, not a database\n'.repeat(100));
          return file;
        },
        /cannot open the plan history: .*notes\.db: file is not a database/,
      ],
      [
        'a history from a newer Podplan',
        () => {
          const file = join(dir.path, 'newer.db');
          const raw = new Database(file);
          raw.pragma('user_version = 99');
          raw.close();
          return file;
        },
        /cannot open the plan history: .*newer\.db was written by a newer Podplan \(schema version 99/,
      ],
      [
        'no SQLite driver loads',
        () => db,
        /cannot open the plan history: no SQLite driver could be loaded/,
        [failing('better-sqlite3'), failing('node:sqlite')],
      ],
    ];
    for (const [what, prepare, expected, sqlite] of cases) {
      for (const command of [['history'], ['show', '1'], ['diff', '1', '2'], ['export', '1']]) {
        it(`${what}: podplan ${command[0]}`, async () => {
          const { code, stdout, stderr } = await cli([...command, '--db', prepare()], {}, {}, sqlite ? { sqlite } : {});
          assert.equal(code, 2);
          assert.equal(stdout, '');
          assert.match(stderr, expected);
          assert.equal(stderr.split('\n').length, 2, stderr);
        });
      }
    }
  });
});
