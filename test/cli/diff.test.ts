// `podplan diff <a> <b>`: from one plan of the history to another, which pods moved, which became
// placeable, which could no longer be placed and why.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { PlanDiff } from '../../src/store/types';
import { NO_CPU, openTestStore, planOf, useTempDir, value } from '../store/helpers';
import { cli } from './run-cli';

describe('cli diff', () => {
  const dir = useTempDir();
  let db: string;

  before(async () => {
    db = join(dir.path, 'history.db');
    const store = await openTestStore(db);
    const run = value(store.startRun({ kind: 'workspace', name: 'examples' }, 'preview'));
    const save = (pods: Record<string, string | null>): number => value(store.savePlan(run, planOf(pods), { profileHash: 'sha256:p' }));
    assert.equal(save({ stays: 'n1', moves: 'n2', fits: null, breaks: 'n2', stuck: null, goes: 'n3' }), 1);
    assert.equal(save({ stays: 'n1', moves: 'n3', fits: 'n4', breaks: null, stuck: null, comes: 'n4' }), 2);
    // Plan 2 again, made by a profile that lets plans preempt: breaks is placed by evicting two running pods.
    const preempting = planOf(
      { stays: 'n1', moves: 'n3', fits: 'n4', breaks: 'n2', stuck: null, comes: 'n4' },
      {
        victims: [
          { pod: 'batch/low-1', node: 'n2', by: 'breaks' },
          { pod: 'batch/low-0', node: 'n2', by: 'breaks' },
        ],
      },
    );
    assert.equal(value(store.savePlan(run, preempting, { profileHash: 'sha256:p' })), 3);
    store.close();
  });

  it('lists the pods moved, newly placed and newly unplaced (with the reasons), then what is only in one plan', async () => {
    const { code, stdout } = await cli(['diff', '1', '2', '--db', db]);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `From plan 1 (pod set web in namespace default: 4 placed, 2 not placed)
to   plan 2 (pod set web in namespace default: 4 placed, 2 not placed)

Moved (1):
  moves: n2 → n3

Newly placed (1):
  fits: on n4, was: ${NO_CPU}

Newly unplaced (1):
  breaks: was on n2; ${NO_CPU}
      4  Insufficient cpu

Only in plan 2 (1):
  comes: on n4

Only in plan 1 (1):
  goes: on n3

Unchanged: 1 on the same node, 1 still not placed.
`,
    );
  });

  it('prints the difference as JSON with --json', async () => {
    const { code, stdout } = await cli(['diff', '2', '1', '--json', '--db', db]);
    assert.equal(code, 0);
    const d = JSON.parse(stdout) as PlanDiff;
    assert.deepEqual([d.from.id, d.to.id], [2, 1]);
    assert.deepEqual(d.moved, [{ pod: 'moves', from: 'n3', to: 'n2' }]);
    assert.deepEqual(d.becameUnplaced, [{ pod: 'fits', was: 'n4', message: NO_CPU, reasons: [{ reason: 'Insufficient cpu', count: 4 }] }]);
  });

  it('a plan that evicts against one that does not: the running pods only one of them evicts, with node and preemptor', async () => {
    const { code, stdout } = await cli(['diff', '2', '3', '--db', db]);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `From plan 2 (pod set web in namespace default: 4 placed, 2 not placed)
to   plan 3 (pod set web in namespace default: 5 placed, 1 not placed, 2 evicted)

Newly placed (1):
  breaks: on n2, was: ${NO_CPU}

Evicted only by plan 3 (2):
  batch/low-0 on n2: preempted by default/breaks
  batch/low-1 on n2: preempted by default/breaks

Unchanged: 4 on the same node, 1 still not placed.
`,
    );
    const back = JSON.parse((await cli(['diff', '3', '2', '--json', '--db', db])).stdout) as PlanDiff;
    assert.deepEqual([back.newlyEvicted, back.stillEvicted], [[], 0]);
    assert.deepEqual(back.noLongerEvicted, [
      { pod: 'batch/low-0', node: 'n2', by: 'breaks' },
      { pod: 'batch/low-1', node: 'n2', by: 'breaks' },
    ]);
    assert.match(
      (await cli(['diff', '3', '2', '--db', db])).stdout,
      /\n\nEvicted only by plan 3 \(2\):\n {2}batch\/low-0 on n2: preempted by default\/breaks\n/,
    );
    assert.match(
      (await cli(['diff', '3', '3', '--db', db])).stdout,
      /\n\nUnchanged: 5 on the same node, 1 still not placed, 2 evicted by both\.\n$/,
    );
  });

  it('a plan against itself: nothing changed', async () => {
    assert.match((await cli(['diff', '2', '2', '--db', db])).stdout, /\n\nUnchanged: 4 on the same node, 2 still not placed\.\n$/);
  });

  const bad: Array<[args: string[], expected: RegExp]> = [
    [['1', '9'], /^podplan diff: plan 9 is not in the history\n$/],
    [['1'], /^podplan diff: 2 plan ids are needed \(as podplan history lists them\), only 1 was given\n$/],
    [['1', 'latest'], /"latest" is not a plan id/],
    [['1', '2', '3'], /unexpected argument "3"/],
  ];
  for (const [args, expected] of bad) {
    it(`refuses ${args.join(' ')} with exit 2`, async () => {
      const { code, stdout, stderr } = await cli(['diff', ...args, '--db', db]);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
    });
  }
});
