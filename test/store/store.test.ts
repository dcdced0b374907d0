import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../../src/engine/api/clock';
import { ok } from '../../src/engine/api/result';
import type { ClusterSnapshot } from '../../src/engine/api/types';
import type { Profile } from '../../src/engine/framework/profile';
import type { Plan } from '../../src/engine/planner/plan';
import { planFromManifest, readFile, writeSchedulePlan } from '../../src/manifests';
import { basisHash, type PlanStore } from '../../src/store/store';
import type { SourceRef } from '../../src/store/types';
import { NO_CPU, openTestStore, planOf, useTempDir, value } from './helpers';
import { syntheticPlan } from './synthetic';

const workspace: SourceRef = { kind: 'workspace', name: 'examples', server: 'examples/cluster' };
const prod: SourceRef = { kind: 'kube-context', name: 'prod', server: 'https://10.0.0.1:6443' };
const profile = { profileHash: 'sha256:profile' };
/** What a profile that lets plans preempt adds to a plan: running pods evicted, on their node, for a pod of the set. */
const victims = [
  { pod: 'batch/low-2', node: 'node-0003', by: 'web-1' },
  { pod: 'batch/low-0', node: 'node-0001', by: 'web-0' },
  { pod: 'batch/low-1', node: 'node-0001', by: 'web-0' },
];

describe('store/store', () => {
  const dir = useTempDir();
  let store: PlanStore;
  let clock: ManualClock;
  let file: string;
  let n = 0;

  beforeEach(async () => {
    file = join(dir.path, `history-${n++}.db`);
    clock = new ManualClock(1_000);
    store = await openTestStore(file, { clock, keepPerPodSet: 5 });
  });
  afterEach(() => store.close());

  const save = (plan: Plan, source: SourceRef = workspace): number =>
    value(store.savePlan(value(store.startRun(source, 'preview')), plan, profile));
  /** The file as the sqlite3 tool or another process sees it, beside the open store. */
  const rows = (sql: string): number => {
    const db = new Database(file, { readonly: true });
    try {
      return (db.prepare(sql).get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  describe('saving and reading a plan', () => {
    const plan = syntheticPlan({ pods: 300, unplaced: 12, nodes: 200, rejections: 6, scores: 4, trigger: 'web-trigger' });

    it('reads back the plan exactly as the planner made it, every diagnosis included', () => {
      assert.deepEqual(value(store.loadPlan(save(plan))), plan);
    });

    it('keeps the running pods a plan evicts, in its order, with their node and preemptor', () => {
      const preempting = { ...plan, victims };
      const id = save(preempting);
      assert.deepEqual(value(store.loadPlan(id)), preempting);
      const shown = value(store.getPlan(id));
      assert.deepEqual([shown.victims, shown.summary.evicted], [victims, 3]);
      const none = value(store.getPlan(save(plan)));
      assert.deepEqual([none.victims, none.summary.evicted], [[], 0]);
    });

    it('refuses a plan that evicts a pod twice and writes nothing of it', () => {
      const saved = store.savePlan(value(store.startRun(workspace, 'preview')), { ...plan, victims: [...victims, victims[0]!] }, profile);
      assert.deepEqual(saved.ok ? undefined : [saved.error.kind, saved.error.message], [
        'invalid',
        'plan for pod set web evicts pod batch/low-2 more than once',
      ]);
      assert.deepEqual(value(store.history()).items, []);
    });

    it("keeps each placed pod's devices (DRA) in order, those allocated before the plan marked; a plan without any has none", () => {
      const [first, second, ...rest] = plan.assignments;
      const gpu = (pod: string, device: string, existing?: true) => ({
        claim: `default/${pod}-gpu-abcde`,
        request: 'gpu',
        driver: 'gpu.example.com',
        pool: first!.node,
        device,
        ...(existing ? { existing } : {}),
      });
      const withDevices: Plan = {
        ...plan,
        assignments: [
          { ...first!, devices: [gpu(first!.pod, 'gpu-1'), gpu(first!.pod, 'gpu-0', true)] },
          { ...second!, devices: [gpu(second!.pod, 'gpu-2')] },
          ...rest,
        ],
      };
      const id = save(withDevices);
      assert.deepEqual(value(store.loadPlan(id)), withDevices);
      assert.deepEqual(value(store.getPlan(id)).assignments[0]?.devices, withDevices.assignments[0]?.devices);
      assert.equal(rows(`SELECT count(*) AS n FROM allocations WHERE plan_id = ${id}`), 3);
      assert.equal(value(store.getPlan(save(plan))).assignments[0]?.devices, undefined);
    });

    it("keeps the plan's objective and the bound its solver proved", () => {
      const solved = { ...plan, objective: 'cost' as const, bound: { nodes: 7, optimal: false, gap: 0.125, solver: 'HiGHS 1.15.1' } };
      const id = save(solved);
      assert.deepEqual(value(store.loadPlan(id)), solved);
      const { summary } = value(store.getPlan(id));
      assert.deepEqual([summary.objective, summary.bound], ['cost', solved.bound]);
    });

    it("shows the pods in the planner's order with reason histograms and top scores, full diagnoses opened one at a time", () => {
      const id = save(plan);
      const shown = value(store.getPlan(id));
      assert.deepEqual(
        shown.assignments.map((a) => [a.pod, a.node]),
        plan.assignments.map((a) => [a.pod, a.node]),
      );
      assert.deepEqual(
        shown.unplaced.map((u) => [u.pod, u.message]),
        plan.unplaced.map((u) => [u.pod, u.message]),
      );
      const first = shown.unplaced[0]!;
      assert.equal(
        first.diagnosis!.reasons.reduce((sum, r) => sum + r.count, 0),
        200,
      );
      assert.deepEqual(shown.assignments[0]!.diagnosis!.topScores, plan.assignments[0]!.diagnosis!.scores.slice(0, 3));
      assert.deepEqual(value(store.diagnosis(id, first.pod)), plan.unplaced[0]!.diagnosis);
      assert.equal(value(store.diagnosis(id, 'no-such-pod')), undefined);
    });

    it("summarizes the plan with its run's source, counts and status", () => {
      const id = save(plan, prod);
      const summary = value(store.summary(id));
      assert.deepEqual(
        { ...summary, id: 0, runId: 0 },
        {
          id: 0,
          runId: 0,
          runKind: 'preview',
          source: { kind: 'kube-context', name: 'prod', server: 'https://10.0.0.1:6443' },
          podSet: 'web',
          namespace: 'default',
          trigger: 'web-trigger',
          planner: 'default',
          profile: 'default-scheduler',
          profileHash: 'sha256:profile',
          snapshotHash: plan.snapshotHash,
          status: 'draft',
          createdAt: plan.createdAt,
          placed: 288,
          unplaced: 12,
          evicted: 0,
        },
      );
    });

    it('refuses a plan that lists a pod twice and writes nothing of it', () => {
      const broken = planOf({ 'web-0': 'n1', 'web-1': null });
      const twice = { ...broken, unplaced: [...broken.unplaced, { ...broken.unplaced[0]!, pod: 'web-0' }] };
      const saved = store.savePlan(value(store.startRun(workspace, 'preview')), twice, profile);
      assert.deepEqual(saved.ok ? undefined : saved.error.kind, 'invalid');
      assert.deepEqual(value(store.history()).items, []);
    });

    it('answers an unknown plan id with not-found', () => {
      for (const r of [
        store.getPlan(42),
        store.loadPlan(42),
        store.exportPlan(42),
        store.markApplied(42),
        store.markSuperseded(42),
        store.diffPlans(42, 43),
      ]) {
        assert.equal(r.ok ? 'ok' : r.error.kind, 'not-found');
      }
    });

    it('writes rows per pod, not per node: unplaced pods rejected by all 5,000 nodes stay a few rows each', () => {
      save(syntheticPlan({ pods: 2000, unplaced: 100, nodes: 5000, rejections: 20, scores: 5 }));
      const total = ['plans', 'assignments', 'unplaced', 'diagnoses', 'diagnosis_chunks'].reduce(
        (sum, table) => sum + rows(`SELECT count(*) AS n FROM ${table}`),
        0,
      );
      // A plan row, and per pod an assignment or unplaced row and a diagnosis row; chunks are few.
      assert.ok(total < 1 + 2000 * 2 + 20, `${total} rows`);
    });
  });

  describe('history', () => {
    it('lists plans newest first, filtered by pod set, namespace, trigger, source and status', () => {
      const a = save(planOf({ 'web-0': 'n1' }));
      const b = save(planOf({ 'db-0': 'n1' }, { podSet: 'db', trigger: 'db-trigger' }), prod);
      const c = save(planOf({ 'web-0': 'n2' }, { namespace: 'staging' }));
      value(store.markApplied(a));
      const ids = (query: Parameters<PlanStore['history']>[0]): number[] => value(store.history(query)).items.map((p) => p.id);
      assert.deepEqual(ids({}), [c, b, a]);
      assert.deepEqual(ids({ podSet: 'web' }), [c, a]);
      assert.deepEqual(ids({ podSet: 'web', namespace: 'default' }), [a]);
      assert.deepEqual(ids({ trigger: 'db-trigger' }), [b]);
      assert.deepEqual(ids({ source: prod }), [b]);
      assert.deepEqual(ids({ source: { kind: 'kube-context', name: 'never-seen' } }), []);
      assert.deepEqual(ids({ status: 'applied' }), [a]);
    });

    it('pages with next until the last page, which has none', () => {
      const saved = Array.from({ length: 7 }, (_, i) => save(planOf({ [`web-${i}`]: 'n1' }, { podSet: `set-${i}` })));
      const pages: number[][] = [];
      let before: number | undefined;
      for (;;) {
        const page = value(store.history({ limit: 3, ...(before !== undefined ? { before } : {}) }));
        pages.push(page.items.map((p) => p.id));
        if (page.next === undefined) break;
        before = page.next;
      }
      assert.deepEqual(pages, [saved.slice(4).reverse(), saved.slice(1, 4).reverse(), saved.slice(0, 1)]);
    });
  });

  describe('applied plans', () => {
    it("applying a plan supersedes the pod set's previously applied one, and only that one", () => {
      const first = save(planOf({ 'web-0': 'n1' }));
      const other = save(planOf({ 'db-0': 'n1' }, { podSet: 'db' }));
      const second = save(planOf({ 'web-0': 'n2' }));
      value(store.markApplied(first));
      value(store.markApplied(other));
      assert.equal(value(store.latestApplied('web', 'default'))?.id, first);
      value(store.markApplied(second));
      assert.equal(value(store.latestApplied('web', 'default'))?.id, second);
      assert.equal(value(store.summary(first)).status, 'superseded');
      assert.equal(value(store.summary(other)).status, 'applied');
      assert.equal(value(store.latestApplied('web', 'staging')), undefined);
    });

    it('a draft can be superseded without ever being applied', () => {
      const id = save(planOf({ 'web-0': 'n1' }));
      value(store.markSuperseded(id));
      assert.equal(value(store.summary(id)).status, 'superseded');
    });
  });

  describe('retention', () => {
    it('keeps the newest plans of each pod set, and the applied one besides, in the transaction of the insert', () => {
      const applied = save(planOf({ 'web-0': 'n1', 'web-1': null }));
      value(store.markApplied(applied));
      const web = Array.from({ length: 7 }, (_, i) =>
        save(planOf({ 'web-0': `n${i}`, 'web-1': null }, { victims: [{ pod: 'batch/low-0', node: `n${i}`, by: 'web-0' }] })),
      );
      const db = save(planOf({ 'db-0': 'n1' }, { podSet: 'db' }));
      assert.deepEqual(
        value(store.history({ podSet: 'web' })).items.map((p) => p.id),
        [...web.slice(2).reverse(), applied],
      );
      assert.deepEqual(
        value(store.history({ podSet: 'db' })).items.map((p) => p.id),
        [db],
      );
      const orphans = rows(
        `SELECT (SELECT count(*) FROM assignments WHERE plan_id NOT IN (SELECT id FROM plans))
              + (SELECT count(*) FROM unplaced WHERE plan_id NOT IN (SELECT id FROM plans))
              + (SELECT count(*) FROM diagnoses WHERE plan_id NOT IN (SELECT id FROM plans))
              + (SELECT count(*) FROM victims WHERE plan_id NOT IN (SELECT id FROM plans))
              + (SELECT count(*) FROM diagnosis_chunks WHERE plan_id NOT IN (SELECT id FROM plans)) AS n`,
      );
      assert.equal(orphans, 0);
    });
  });

  // What explain judges a stored plan's pod on, and what a preview must share with a draft it reuses:
  // the cluster the plan was made on (schema 8) and its pod-set profile (schema 9).
  describe('the cluster and profile a plan was made with (its basis)', () => {
    const cluster = (cpu: string): ClusterSnapshot => ({
      nodes: [{ metadata: { name: 'n1' }, status: { allocatable: { cpu, pods: '110' } } }],
      pods: [{ metadata: { name: 'web-0', namespace: 'default' }, spec: { containers: [{ name: 'c' }] } }],
      claimsNotCreated: ['default/web-0-gpu-bcdfg'],
    });
    const saveOn = (plan: Plan, on: ClusterSnapshot | undefined, with_?: Profile): number =>
      value(
        store.savePlan(value(store.startRun(workspace, 'preview')), plan, {
          ...profile,
          ...(on ? { basis: { cluster: on, ...(with_ ? { profile: with_ } : {}) } } : {}),
        }),
      );
    const planCluster = (id: number) => {
      const basis = store.planBasis(id);
      return basis.ok ? ok(basis.value?.cluster) : basis;
    };
    const clusters = () => rows('SELECT count(*) AS n FROM clusters');

    it('reads back as saved; plans made on the same cluster share one row; a plan saved without one has none', () => {
      const first = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'));
      const same = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'));
      const other = saveOn(planOf({ 'web-0': 'n1' }), cluster('8'));
      const none = saveOn(planOf({ 'web-0': 'n1' }), undefined);
      assert.deepEqual(value(planCluster(first)), cluster('4'));
      assert.deepEqual(value(planCluster(same)), cluster('4'));
      assert.deepEqual(value(planCluster(other)), cluster('8'));
      assert.equal(value(planCluster(none)), undefined);
      assert.equal(clusters(), 2);
      assert.equal(value(store.loadPlan(first)).assignments[0]?.node, 'n1', 'the plan itself as before');
      const missing = store.planBasis(99);
      assert.ok(!missing.ok && missing.error.kind === 'not-found');
    });

    it('keeps the profile with the cluster; the basis hash names both, so plans share a row only when both are the same', () => {
      const packs: Profile = { schedulerName: 'podset-planner-scheduler' };
      const spreads: Profile = { schedulerName: 'podset-planner-scheduler', percentageOfNodesToScore: 50 };
      const first = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'), packs);
      const same = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'), packs);
      const otherProfile = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'), spreads);
      const noProfile = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'));
      assert.deepEqual(value(store.planBasis(first)), { cluster: cluster('4'), profile: packs, placedBefore: [] });
      assert.deepEqual(value(store.planBasis(otherProfile)), { cluster: cluster('4'), profile: spreads, placedBefore: [] });
      assert.deepEqual(value(store.planBasis(noProfile)), { cluster: cluster('4'), placedBefore: [] }, 'as schema 8 kept it');
      assert.equal(clusters(), 3);
      const hashOf = (id: number) => value(store.summary(id)).basis;
      assert.equal(hashOf(first), basisHash({ cluster: cluster('4'), profile: packs }));
      assert.equal(hashOf(same), hashOf(first));
      assert.notEqual(hashOf(otherProfile), hashOf(first));
      assert.notEqual(
        basisHash({ cluster: { ...cluster('4'), claimsNotCreated: [] }, profile: packs }),
        hashOf(first),
        'any object of the cluster',
      );
      assert.equal(value(store.summary(saveOn(planOf({ 'web-0': 'n1' }), undefined))).basis, undefined);
    });

    // A set planned after others (a trigger's dependencies) was made on the cluster with their pods
    // placed: that is kept on the plan's own row, a delta on the cluster row it shares (schema 10).
    it('keeps the pods the sets planned before it placed with the plan, not as another copy of the cluster', () => {
      const packs: Profile = { schedulerName: 'podset-planner-scheduler' };
      const placedBefore = [
        { namespace: 'default', pod: 'first-1', node: 'n1' },
        { namespace: 'other', pod: 'first-0', node: 'n1' },
      ];
      const alone = saveOn(planOf({ 'web-0': 'n1' }), cluster('4'), packs);
      const after = saveOn({ ...planOf({ 'web-0': 'n1' }), placedBefore }, cluster('4'), packs);
      assert.deepEqual(value(store.planBasis(after)), { cluster: cluster('4'), profile: packs, placedBefore }, 'in the order placed');
      assert.deepEqual(value(store.planBasis(alone))?.placedBefore, [], 'none: known to be none');
      assert.deepEqual(value(store.loadPlan(after)).placedBefore, placedBefore, 'the plan as the planner made it');
      assert.equal(value(store.loadPlan(alone)).placedBefore, undefined);
      assert.equal(clusters(), 1, 'one cluster row for both');
      assert.equal(value(store.summary(after)).basis, value(store.summary(alone)).basis);
    });

    it('a cluster goes with the last plan made on it when retention drops the plans', () => {
      saveOn(planOf({ 'web-0': 'n1' }), cluster('1'));
      for (let i = 0; i < 5; i++) saveOn(planOf({ 'web-0': 'n1' }), cluster('2'));
      assert.equal(clusters(), 1, 'the first plan, dropped by retention (5 per pod set), took its cluster with it');
      assert.equal(rows('SELECT count(*) AS n FROM plans WHERE cluster_id NOT IN (SELECT id FROM clusters)'), 0);
    });
  });

  describe('diff', () => {
    it('tells which pods moved, became placed, became unplaced and why, came and went, and how many stayed', () => {
      const a = save(planOf({ stays: 'n1', moves: 'n1', fits: null, breaks: 'n2', goes: 'n3', stuck: null }));
      const b = save(planOf({ stays: 'n1', moves: 'n2', fits: 'n3', breaks: null, comes: 'n4', stuck: null }));
      const diff = value(store.diffPlans(a, b));
      assert.deepEqual(
        { ...diff, from: diff.from.id, to: diff.to.id },
        {
          from: a,
          to: b,
          moved: [{ pod: 'moves', from: 'n1', to: 'n2' }],
          becamePlaced: [{ pod: 'fits', node: 'n3', was: NO_CPU }],
          becameUnplaced: [{ pod: 'breaks', was: 'n2', message: NO_CPU, reasons: [{ reason: 'Insufficient cpu', count: 4 }] }],
          added: [{ pod: 'comes', node: 'n4' }],
          removed: [{ pod: 'goes', node: 'n3' }],
          unchanged: 1,
          stillUnplaced: 1,
          newlyEvicted: [],
          noLongerEvicted: [],
          stillEvicted: 0,
        },
      );
    });

    it('tells which running pods only one of the plans evicts; a pod evicted by both is counted', () => {
      const pods = { 'web-0': 'node-0001', 'web-1': 'node-0003' };
      const none = save(planOf(pods));
      const all = save(planOf(pods, { victims }));
      const some = save(planOf(pods, { victims: [victims[1]!, { pod: 'batch/low-9', node: 'node-0003', by: 'web-1' }] }));
      const sorted = [victims[1]!, victims[2]!, victims[0]!];
      const evictions = (a: number, b: number) => {
        const d = value(store.diffPlans(a, b));
        return { newly: d.newlyEvicted, noLonger: d.noLongerEvicted, still: d.stillEvicted, unchanged: d.unchanged };
      };
      assert.deepEqual(evictions(none, all), { newly: sorted, noLonger: [], still: 0, unchanged: 2 });
      assert.deepEqual(evictions(all, none), { newly: [], noLonger: sorted, still: 0, unchanged: 2 });
      assert.deepEqual(evictions(all, some), {
        newly: [{ pod: 'batch/low-9', node: 'node-0003', by: 'web-1' }],
        noLonger: [victims[2]!, victims[0]!],
        still: 1,
        unchanged: 2,
      });
    });
  });

  describe('export', () => {
    const readBack = (text: string): Plan => {
      const model = readFile({ name: 'plan.yaml', text });
      assert.deepEqual(model.errors, []);
      return planFromManifest(model.plans[0]!.value);
    };

    it('writes the stored plan as src/manifests writes the plan itself, without opening its diagnoses', () => {
      const plan = syntheticPlan({ pods: 40, unplaced: 3, nodes: 10, trigger: 'web-trigger' });
      const id = save(plan);
      assert.equal(value(store.exportPlan(id)), writeSchedulePlan(plan));
      const back = readBack(value(store.exportPlan(id)));
      assert.deepEqual(
        back.assignments,
        plan.assignments.map(({ pod, node }) => ({ pod, node })),
      );
      assert.deepEqual(
        back.unplaced.map((u) => u.message),
        plan.unplaced.map((u) => u.message),
      );
    });

    it('with diagnoses, reads back with src/manifests into the plan saved, evictions included', () => {
      const plan = { ...syntheticPlan({ pods: 40, unplaced: 3, nodes: 10, trigger: 'web-trigger' }), victims };
      assert.deepEqual(readBack(value(store.exportPlan(save(plan), { diagnoses: true }))), plan);
    });
  });

  describe('runs, trigger transitions and claims', () => {
    it('stamps runs with the injected clock and records how they ended', () => {
      const run = value(store.startRun(prod, 'live'));
      clock.advance(250);
      value(store.finishRun(run, 'failed', 'the API server went away'));
      assert.deepEqual(value(store.runs({ source: prod })).items, [
        {
          id: run,
          source: { kind: 'kube-context', name: 'prod', server: 'https://10.0.0.1:6443' },
          kind: 'live',
          startedAt: 1_000,
          finishedAt: 1_250,
          outcome: 'failed',
          message: 'the API server went away',
        },
      ]);
      assert.equal(store.finishRun(run + 1, 'succeeded').ok, false);
    });

    it('keeps trigger transitions per trigger, newest first', () => {
      value(store.recordTriggerTransition({ namespace: 'default', trigger: 'web', to: 'Planning', cause: 'manual', at: 10 }));
      value(
        store.recordTriggerTransition({
          namespace: 'default',
          trigger: 'db',
          from: 'Planning',
          to: 'Schedule',
          cause: 'dependency',
          at: 15,
        }),
      );
      value(
        store.recordTriggerTransition({
          namespace: 'default',
          trigger: 'web',
          from: 'Planning',
          to: 'Schedule',
          cause: 'quiet-time',
          at: 20,
        }),
      );
      const web = value(store.triggerHistory({ namespace: 'default', trigger: 'web' })).items;
      assert.deepEqual(
        web.map(({ from, to, cause, at }) => ({ from, to, cause, at })),
        [
          { from: 'Planning', to: 'Schedule', cause: 'quiet-time', at: 20 },
          { from: undefined, to: 'Planning', cause: 'manual', at: 10 },
        ],
      );
    });

    it('keeps claims per pool, newest first', () => {
      value(store.recordClaim({ namespace: 'ml', pool: 'gpu', request: 'r1', pod: 'worker-0', outcome: 'claimed', at: 1 }));
      value(store.recordClaim({ namespace: 'ml', pool: 'cpu', request: 'r2', outcome: 'failed', message: 'no idle pod', at: 2 }));
      value(store.recordClaim({ namespace: 'ml', pool: 'gpu', request: 'r3', pod: 'worker-0', outcome: 'conflict', at: 3 }));
      assert.deepEqual(
        value(store.claims({ pool: 'gpu' })).items.map((c) => [c.request, c.outcome]),
        [
          ['r3', 'conflict'],
          ['r1', 'claimed'],
        ],
      );
    });
  });
});
