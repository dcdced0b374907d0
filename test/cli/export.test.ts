// `podplan export <plan-id>`: a plan from the history as Pallet's SchedulePlan on stdout. What it
// prints reads back with src/manifests into the plan that was saved.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Plan } from '../../src/engine/planner/plan';
import { planFromManifest, readFile, writeSchedulePlan } from '../../src/manifests';
import { ALL_PENDING_PODS } from '../../src/store/store';
import { openTestStore, planOf, useTempDir, value } from '../store/helpers';
import { syntheticPlan } from '../store/synthetic';
import { cli } from './run-cli';

function readBack(yaml: string): Plan {
  const model = readFile({ name: 'exported.yaml', text: yaml });
  assert.deepEqual(model.errors, []);
  assert.equal(model.plans.length, 1);
  return planFromManifest(model.plans[0]!.value);
}

describe('cli export', () => {
  const dir = useTempDir();
  // Made by a profile that lets plans preempt: it evicts two running pods.
  const plan: Plan = {
    ...syntheticPlan({
      podSet: 'batch',
      namespace: 'team-a',
      trigger: 'batch-trigger',
      pods: 12,
      unplaced: 2,
      nodes: 6,
      rejections: 3,
      scores: 2,
    }),
    victims: [
      { pod: 'team-b/low-1', node: 'node-0001', by: 'batch-0' },
      { pod: 'team-b/low-0', node: 'node-0002', by: 'batch-1' },
    ],
  };
  let db: string;

  before(async () => {
    db = join(dir.path, 'history.db');
    const store = await openTestStore(db);
    const run = value(store.startRun({ kind: 'workspace', name: 'examples' }, 'preview'));
    assert.equal(value(store.savePlan(run, plan, { profileHash: 'sha256:p' })), 1);
    assert.equal(
      value(
        store.savePlan(run, planOf({ 'default/a': 'n1' }, { podSet: ALL_PENDING_PODS, namespace: ALL_PENDING_PODS, planner: 'schedule' }), {
          profileHash: 'sha256:p',
        }),
      ),
      2,
    );
    // The same plan with two of its pods' names made up for workload replicas (podplan plan on a Deployment's template).
    assert.equal(value(store.savePlan(run, plan, { profileHash: 'sha256:p', madeUp: ['batch-0', 'batch-1'] })), 3);
    store.close();
  });

  it('refuses a plan that places pods whose names were made up (no real pod has them), unless --made-up-names', async () => {
    const refused = await cli(['export', '3', '--db', db]);
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      /^podplan export: plan 3 places pods whose names were made up for workload replicas with no pod in the files \(batch-0, batch-1\): a SchedulePlan naming them matches no real pod \(Pallet matches pods by name\); --made-up-names writes it anyway\n$/,
    );
    const asked = await cli(['export', '3', '--made-up-names', '--db', db]);
    assert.equal(asked.code, 0);
    assert.equal(asked.stdout, writeSchedulePlan(plan));
  });

  it("prints the SchedulePlan under Pallet's name, as src/manifests writes the plan", async () => {
    const { code, stdout } = await cli(['export', '1', '--db', db]);
    assert.equal(code, 0);
    assert.equal(stdout, writeSchedulePlan(plan));
    assert.match(
      stdout,
      /^apiVersion: planner\.ciena\.io\/v1alpha1\nkind: SchedulePlan\nmetadata:\n {2}name: batch-[bcdfghjklmnpqrstvwxz2456789]+\n {2}namespace: team-a\n/,
    );
  });

  it('says in its status which running pods the plan evicts, where and for which pod', async () => {
    const { stdout } = await cli(['export', '1', '--db', db]);
    assert.match(
      stdout,
      /\n {2}victims:\n {4}- pod: team-b\/low-1\n {6}node: node-0001\n {6}by: batch-0\n {4}- pod: team-b\/low-0\n {6}node: node-0002\n {6}by: batch-1\n/,
    );
  });

  it('reads back into the same placements, unplaced pods, messages and evictions', async () => {
    const back = readBack((await cli(['export', '1', '--db', db])).stdout);
    assert.deepEqual(
      back.assignments,
      plan.assignments.map(({ pod, node }) => ({ pod, node })),
    );
    assert.deepEqual(
      back.unplaced.map(({ pod, message }) => ({ pod, message })),
      plan.unplaced.map(({ pod, message }) => ({ pod, message })),
    );
    assert.deepEqual({ ...back, assignments: [], unplaced: [] }, { ...plan, assignments: [], unplaced: [] });
  });

  it('with --diagnoses, reads back into the plan saved, every diagnosis included', async () => {
    const { code, stdout } = await cli(['export', '1', '--diagnoses', '--db', db]);
    assert.equal(code, 0);
    assert.deepEqual(readBack(stdout), plan);
  });

  const bad: Array<[args: string[], expected: RegExp]> = [
    [['2'], /plan 2 is a podplan schedule run over every pending pod, not a pod set's plan: it has no SchedulePlan/],
    [['4'], /^podplan export: plan 4 is not in the history\n$/],
    [['one'], /"one" is not a plan id/],
  ];
  for (const [args, expected] of bad) {
    it(`refuses ${args.join(' ')} with exit 2`, async () => {
      const { code, stdout, stderr } = await cli(['export', ...args, '--db', db]);
      assert.equal(code, 2);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
    });
  }
});
