// `podplan show <plan-id>`: a plan from the history with where each pod went, its score, and for
// each pod not placed kube-scheduler's message and how many nodes rejected it for each reason.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/api/clock';
import type { Diagnosis } from '../../src/engine/framework/diagnosis';
import { Code } from '../../src/engine/framework/status';
import type { StoredPlan } from '../../src/store/types';
import { noCpu, openTestStore, planOf, useTempDir, value } from '../store/helpers';
import { cli } from './run-cli';

/** web-0's cycle: n3 and n4 short of cpu, n1 chosen over n2. */
const chosenN1: Diagnosis = {
  pod: 'default/web-0',
  profile: 'default-scheduler',
  nodesTotal: 4,
  nodesEvaluated: 4,
  feasibleNodes: 2,
  status: { code: Code.Success, reasons: [] },
  chosenNode: 'n1',
  rejections: noCpu('web-0').rejections.slice(2),
  filters: [],
  scores: [
    { node: 'n1', total: 187.5, plugins: [{ plugin: 'NodeResourcesFit', raw: 87.5, normalized: 87.5, weight: 1, weighted: 87.5 }] },
    { node: 'n2', total: 120, plugins: [{ plugin: 'NodeResourcesFit', raw: 20, normalized: 20, weight: 1, weighted: 20 }] },
  ],
  stages: [],
};

const TAINT = 'node(s) had untolerated taint {dedicated: gpu}';
const MIXED = `0/4 nodes are available: 1 ${TAINT}, 3 Insufficient cpu.`;

/** web-2: three nodes short of cpu, one with a taint it does not tolerate. */
function mixed(): Diagnosis {
  const d = noCpu('web-2');
  const [first, ...rest] = d.rejections;
  return {
    ...d,
    rejections: [{ ...first!, plugin: 'TaintToleration', code: Code.UnschedulableAndUnresolvable, reasons: [TAINT] }, ...rest],
    message: MIXED,
  };
}

describe('cli show', () => {
  const dir = useTempDir();
  let db: string;
  let id: number;

  before(async () => {
    db = join(dir.path, 'history.db');
    const store = await openTestStore(db, { clock: new ManualClock(0) });
    const run = value(store.startRun({ kind: 'kube-context', name: 'prod', server: 'https://10.0.0.1:6443' }, 'trigger'));
    const base = planOf({ 'web-1': 'n2' }, { trigger: 'web-trigger', createdAt: Date.UTC(2026, 0, 1, 10) });
    id = value(
      store.savePlan(
        run,
        {
          ...base,
          assignments: [{ pod: 'web-0', node: 'n1', diagnosis: chosenN1 }, ...base.assignments],
          unplaced: [{ pod: 'web-2', message: MIXED, diagnosis: mixed() }],
        },
        { profileHash: 'sha256:p' },
      ),
    );
    store.close();
  });

  it('marks the names podplan schedule made up for workload replicas, as schedule does (* in the table, madeUp in JSON)', async () => {
    const files = Object.fromEntries(
      readdirSync('examples/cluster')
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [join('examples/cluster', f), readFileSync(join('examples/cluster', f), 'utf8')]),
    );
    const history = join(dir.path, 'made-up.db');
    const scheduled = await cli(['schedule', 'examples/cluster', '--db', history], files);
    const recorded = /Recorded as plan (\d+)/.exec(scheduled.stderr)?.[1];
    assert.ok(recorded, scheduled.stderr);
    const shown = await cli(['show', recorded, '--db', history]);
    assert.equal(shown.code, 0, shown.stderr);
    const marked = (text: string) => [...text.matchAll(/^(\S+\/\S+?)(\*?) +node-/gm)].map((m) => `${m[1]}${m[2]}`);
    assert.deepEqual(marked(shown.stdout), marked(scheduled.stdout), 'the same pods marked as podplan schedule marked them');
    assert.ok(marked(shown.stdout).includes('shop/web-0*'));
    assert.match(shown.stdout, /^\* a name made up for a workload's replica that had no pod in the files: no real pod has it$/m);
    const json = JSON.parse((await cli(['show', recorded, '-o', 'json', '--db', history])).stdout) as StoredPlan;
    assert.ok(json.summary.madeUp?.includes('shop/web-0') && !json.summary.madeUp.includes('data/ingest'));
  });

  it('prints how the plan was made, each placement with its score, and why each other pod was not placed', async () => {
    const { code, stdout } = await cli(['show', String(id), '--db', db]);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `Plan ${id}: pod set web in namespace default, draft
  planner default, profile default-scheduler (sha256:p), trigger web-trigger
  made 2026-01-01T10:00:00Z from kube-context prod (run 1), snapshot sha256:snap
  2 placed, 1 not placed

POD     NODE   SCORE
web-0   n1     188
web-1   n2

Not placed:
  web-2: ${MIXED}
      3  Insufficient cpu
      1  ${TAINT}
`,
    );
  });

  it("a plan that preempts: each preemptor's node with the pods it evicts, and the evicted pods with their node and preemptor", async () => {
    const store = await openTestStore(db, { clock: new ManualClock(0) });
    const run = value(store.startRun({ kind: 'workspace', name: 'examples' }, 'preview'));
    const victims = [
      { pod: 'batch/low-0', node: 'n2', by: 'web-1' },
      { pod: 'batch/low-1', node: 'n2', by: 'web-1' },
    ];
    const preempting = value(
      store.savePlan(run, planOf({ 'web-0': 'n1', 'web-1': 'n2' }, { createdAt: Date.UTC(2026, 0, 1, 11), victims }), {
        profileHash: 'sha256:p',
      }),
    );
    store.close();
    const { code, stdout } = await cli(['show', String(preempting), '--db', db]);
    assert.equal(code, 0);
    assert.equal(
      stdout,
      `Plan ${preempting}: pod set web in namespace default, draft
  planner default, profile default-scheduler (sha256:p)
  made 2026-01-01T11:00:00Z from workspace examples (run 2), snapshot sha256:snap
  2 placed, 0 not placed, 2 evicted

POD     NODE                                     SCORE
web-0   n1
web-1   n2 (preempts batch/low-0, batch/low-1)

Preempted:
  batch/low-0 on n2: preempted by default/web-1
  batch/low-1 on n2: preempted by default/web-1
`,
    );
    const json = JSON.parse((await cli(['show', String(preempting), '--json', '--db', db])).stdout) as StoredPlan;
    assert.deepEqual([json.summary.evicted, json.victims], [2, victims]);
  });

  it('prints the plan as JSON with --json: each pod with its reason histogram and best scored nodes', async () => {
    const { code, stdout } = await cli(['show', String(id), '--json', '--db', db]);
    assert.equal(code, 0);
    const plan = JSON.parse(stdout) as StoredPlan;
    assert.equal(plan.summary.id, id);
    assert.deepEqual(plan.assignments[0], {
      pod: 'web-0',
      node: 'n1',
      diagnosis: { reasons: [{ reason: 'Insufficient cpu', count: 2 }], topScores: chosenN1.scores },
    });
    assert.deepEqual(plan.unplaced[0]?.diagnosis?.reasons, [
      { reason: 'Insufficient cpu', count: 3 },
      { reason: TAINT, count: 1 },
    ]);
  });

  const bad: Array<[args: string[], expected: RegExp]> = [
    [['99'], /^podplan show: plan 99 is not in the history\n$/],
    [['web'], /"web" is not a plan id/],
    [['0'], /"0" is not a plan id/],
    [[], /a plan id is needed/],
    [['1', '2'], /unexpected argument "2"/],
  ];
  for (const [args, expected] of bad) {
    it(`refuses ${args.join(' ') || 'no id'} with exit 2`, async () => {
      const { code, stdout, stderr } = await cli(['show', ...args, '--db', db]);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
    });
  }
});
