// store/recording: one run in the history as the CLI and the editor record it (a real SQLite file,
// a manual clock): plans saved under the run, a scheduler's decisions saved in batches as plans of
// every pending pod, trigger flips as transitions, the run finished once; failures are one line.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/api/clock';
import { Code } from '../../src/engine/framework/status';
import type { ScheduleOutcome } from '../../src/engine/scheduler/scheduler';
import { DECISION_FLUSH_MS, decisionsPlan, RunRecording, sha256 } from '../../src/store/recording';
import { ALL_PENDING_PODS, type PlanStore } from '../../src/store/store';
import type { SourceRef } from '../../src/store/types';
import { NO_CPU, noCpu, openTestStore, planOf, useTempDir, value } from './helpers';

const cluster: SourceRef = { kind: 'kube-context', name: 'prod', server: 'https://10.0.0.1:6443' };
const HOW = { planner: 'run', profile: 'podplan', scores: 1 } as const;

/** Placed on `node`, scored above one other node. */
function bound(pod: string, node: string): ScheduleOutcome {
  const scores = [
    { node, total: 90, plugins: [] },
    { node: 'other', total: 10, plugins: [] },
  ];
  return {
    pod,
    node,
    attempts: 1,
    diagnosis: {
      ...noCpu(pod),
      status: { code: Code.Success, reasons: [] },
      rejections: [],
      feasibleNodes: 2,
      chosenNode: node,
      scores,
      message: '',
    },
  };
}
const unplaced = (pod: string): ScheduleOutcome => ({ pod, attempts: 1, diagnosis: noCpu(pod) });

describe('store/recording', () => {
  const dir = useTempDir();
  let store: PlanStore;
  let clock: ManualClock;
  let errors: string[];
  let n = 0;

  beforeEach(async () => {
    clock = new ManualClock(1_000);
    store = await openTestStore(join(dir.path, `recording-${n++}.db`), { clock });
    errors = [];
  });
  afterEach(() => store.close());

  const start = (decisions = true) =>
    value(RunRecording.start(store, cluster, 'live', { clock, onError: (m) => errors.push(m), ...(decisions ? { decisions: HOW } : {}) }));
  const runs = () => value(store.runs()).items;
  const plans = () => value(store.history()).items;

  it('starts a run of the given kind on its source, and finishes it once with its message', () => {
    const recording = start(false);
    assert.deepEqual(
      runs().map((r) => [r.kind, r.source.kind, r.source.name, r.outcome]),
      [['live', 'kube-context', 'prod', 'running']],
    );
    recording.finish('succeeded', '2 pods bound, 0 not placed');
    recording.finish('failed', 'ignored: the run is already finished');
    assert.deepEqual(
      runs().map((r) => [r.outcome, r.message]),
      [['succeeded', '2 pods bound, 0 not placed']],
    );
    assert.deepEqual(errors, []);
  });

  it('saves a plan under the run and answers its id', () => {
    const recording = start(false);
    const id = recording.savePlan(planOf({ 'web-0': 'n1', 'web-1': null }));
    assert.equal(typeof id, 'number');
    const [plan] = plans();
    assert.deepEqual(
      [plan?.id, plan?.runId, plan?.placed, plan?.unplaced, plan?.profileHash],
      [id, recording.run, 1, 1, sha256('default-scheduler')],
    );
  });

  it('keeps a scheduler’s decisions and saves them every DECISION_FLUSH_MS as one plan of every pending pod, a pod’s latest decision winning', () => {
    const recording = start();
    recording.decision(unplaced('shop/web-0'));
    recording.decision(bound('shop/web-0', 'n1'));
    recording.decision(unplaced('shop/web-1'));
    assert.equal(plans().length, 0, 'nothing written before the batch is due');
    clock.advance(DECISION_FLUSH_MS);
    const first = plans();
    assert.deepEqual(
      first.map((p) => [p.podSet, p.namespace, p.planner, p.profile, p.placed, p.unplaced]),
      [[ALL_PENDING_PODS, ALL_PENDING_PODS, 'run', 'podplan', 1, 1]],
    );
    const stored = value(store.loadPlan(first[0]!.id));
    assert.deepEqual(
      stored.assignments.map((a) => [a.pod, a.node]),
      [['shop/web-0', 'n1']],
    );
    assert.deepEqual(
      stored.unplaced.map((u) => [u.pod, u.message]),
      [['shop/web-1', NO_CPU]],
    );
    clock.advance(DECISION_FLUSH_MS);
    assert.equal(plans().length, 1, 'no empty batch is saved');
    recording.decision(bound('shop/web-1', 'n2'));
    recording.finish('succeeded', 'done');
    assert.equal(plans().length, 2, 'finishing saves what is left');
    assert.equal(clock.pendingTimers, 0, 'and stops the batches');
  });

  it('records a trigger set to Schedule after its quiet time', () => {
    start(false).triggerScheduled('shop', 'cart');
    assert.deepEqual(
      value(store.triggerHistory()).items.map((t) => [t.namespace, t.trigger, t.from, t.to, t.cause]),
      [['shop', 'cart', 'Planning', 'Schedule', 'quiet-time']],
    );
  });

  it('a write that fails is one line to onError, never a throw', () => {
    const recording = start(false);
    recording.savePlan(planOf({ 'web-0': 'n1' }, { unplaced: [{ pod: 'web-0', message: NO_CPU, diagnosis: noCpu('web-0') }] }));
    assert.deepEqual(errors, ['the plan history was not written: plan for pod set web lists pod web-0 more than once']);
  });

  it('decisionsPlan keeps the best scores of a placed pod and the whole diagnosis of an unplaced one', () => {
    const plan = decisionsPlan([bound('shop/a', 'n1'), unplaced('shop/b')], HOW, 7, 'sha256:x');
    assert.deepEqual(
      plan.assignments[0]?.diagnosis?.scores.map((s) => s.node),
      ['n1'],
    );
    assert.equal(plan.unplaced[0]?.diagnosis.rejections.length, 4);
    assert.deepEqual([plan.createdAt, plan.snapshotHash], [7, 'sha256:x']);
    assert.equal(plan.victims, undefined, 'no preemption, no victims');
  });

  it('decisionsPlan keeps the pods preemption evicted: for a placed pod on its node, for a nominated one on the node it waits for; each pod once', () => {
    const preemptor = { ...bound('shop/a', 'n1'), victims: ['batch/low-0', 'batch/low-1'] };
    const nominated = { ...unplaced('shop/b'), nominatedNode: 'n2', victims: ['batch/low-2', 'batch/low-1'] };
    const plan = decisionsPlan([preemptor, nominated, unplaced('shop/c')], HOW, 7);
    assert.deepEqual(plan.victims, [
      { pod: 'batch/low-0', node: 'n1', by: 'shop/a' },
      { pod: 'batch/low-1', node: 'n2', by: 'shop/b' },
      { pod: 'batch/low-2', node: 'n2', by: 'shop/b' },
    ]);
    const recording = start();
    recording.decision(preemptor);
    recording.finish('succeeded', 'done');
    assert.deepEqual(errors, []);
    assert.deepEqual(value(store.getPlan(plans()[0]!.id)).victims, [
      { pod: 'batch/low-0', node: 'n1', by: 'shop/a' },
      { pod: 'batch/low-1', node: 'n1', by: 'shop/a' },
    ]);
  });
});
