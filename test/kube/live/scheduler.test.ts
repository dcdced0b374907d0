// The live loop's composition without a cluster: events in, bindings out, on a manual clock. Only
// the leader binds; a bound pod is unconfirmed until the watch shows it bound; one the watch never
// shows expires and is tried again; a pod of another scheduler is never touched; what a run left
// (not placed, not tried) is counted from what the watch shows now.
import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import type { Pod } from '../../../src/engine/api/types';
import { InMemoryBinder } from '../../../src/engine/framework/binder';
import { errorStatus } from '../../../src/engine/framework/status';
import { seededRandom } from '../../../src/engine/api/random';
import { mergeProfile } from '../../../src/engine/framework/profile';
import { Framework } from '../../../src/engine/framework/runtime';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import { composeLiveScheduler } from '../../../src/kube/live/compose';
import type { SchedulingEffects } from '../../../src/kube/live/effects';
import { liveCache, LiveScheduler } from '../../../src/kube/live/scheduler';
import { makeNode, makePod } from '../../builders';

function live() {
  const clock = new ManualClock(0);
  const binder = new InMemoryBinder();
  const warnings: string[] = [];
  const composed = composeLiveScheduler({
    clock,
    cache: liveCache(clock, 30_000),
    binder,
    writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
    report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: (m) => warnings.push(m) },
  });
  assert.ok(composed.ok);
  const scheduler: LiveScheduler = composed.value;
  /** Lets timers due now and the bindings' promises run. */
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      clock.advance(0);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  return { clock, binder, warnings, scheduler, settle };
}

/** A live scheduler with two profiles of the default plugins, `first` and `second`, over one cache. */
function twoProfiles(refuse = false) {
  const clock = new ManualClock(0);
  const landed = new InMemoryBinder();
  const binder = {
    bind: async (pod: Pod, node: string) => (refuse ? errorStatus('the API server refused the binding') : landed.bind(pod, node)),
    bindings: landed.bindings,
  };
  const registry = inTreeRegistry();
  assert.ok(registry.ok);
  const profile = (schedulerName: string) => {
    const framework = Framework.build(registry.value, mergeProfile(DEFAULT_PROFILE, { schedulerName }), {
      random: seededRandom(1),
      binder,
      clock,
    });
    assert.ok(framework.ok);
    return { schedulerName, framework: framework.value };
  };
  const scheduler = new LiveScheduler({
    clock,
    cache: liveCache(clock, 30_000),
    profiles: [profile('first'), profile('second')],
    writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
    report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: () => undefined },
  });
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      clock.advance(0);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const incoming = () => Object.fromEntries([...scheduler.counts().queueIncoming.values()].map((e) => [`${e.queue}/${e.event}`, e.count]));
  return { clock, binder, scheduler, settle, incoming };
}

const member = (name: string, set: string) =>
  makePod(name).req({ cpu: '1' }).labels({ 'planner.ciena.io/pod-set': set }).scheduler('podset-planner-scheduler').obj;
const ours = (name: string) => makePod(name).req({ cpu: '1' }).scheduler('podplan').obj;
const bound = (pod: Pod, node: string): Pod => ({ ...pod, spec: { ...pod.spec, nodeName: node } });

describe('kube/live/scheduler', () => {
  it('binds only while leading, and is idle once the watch has confirmed every binding', async () => {
    const s = live();
    s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '4', memory: '8Gi', pods: '10' }).obj);
    const pods = [ours('a'), ours('b'), makePod('theirs').scheduler('default-scheduler').obj];
    for (const p of pods) s.scheduler.podAdded(p);
    await s.settle();
    assert.equal(s.binder.bindings.size, 0, 'a follower binds nothing');
    assert.equal(s.scheduler.counts().pending, 2, 'but queues its own pods');

    s.scheduler.setLeading(true);
    await s.settle();
    assert.deepEqual([...s.binder.bindings.keys()].sort(), ['default/a', 'default/b'], "the other scheduler's pod is left alone");
    assert.equal(s.scheduler.counts().unconfirmed, 2);
    assert.equal(s.scheduler.idle(), false, 'bound, not yet seen bound');
    for (const p of pods.slice(0, 2)) s.scheduler.podUpdated(bound(p, 'n1'));
    assert.equal(s.scheduler.idle(), true);
    await s.scheduler.stop();
  });

  // Queueing hints through the live loop: a node's update is split into its parts, each offered to
  // the hints of the plugins that rejected the pod; only the label change that makes its selector
  // match moves it (to backoffQ, popped at once as activeQ is empty). counts().queueIncoming is what
  // /metrics serves as scheduler_queue_incoming_pods_total.
  it('moves a pod rejected by its node selector only on the node change that makes it match, and counts each move by event', async () => {
    const s = live();
    s.scheduler.setLeading(true);
    const node = () => makeNode('n1').alloc({ cpu: '4', memory: '8Gi', pods: '10' }).labels({ pool: 'other' });
    s.scheduler.nodeAdded(node().obj);
    s.scheduler.podAdded(makePod('a').req({ cpu: '1' }).scheduler('podplan').nodeSelector({ pool: 'x' }).obj);
    await s.settle();
    assert.equal(s.scheduler.counts().unschedulable, 1);
    s.scheduler.nodeUpdated(node().annotations({ note: 'unrelated' }).obj);
    s.scheduler.nodeUpdated(node().annotations({ note: 'unrelated' }).labels({ unrelated: 'yes' }).obj);
    await s.settle();
    assert.deepEqual(
      [s.scheduler.counts().unschedulable, s.binder.bindings.size],
      [1, 0],
      'not moved by the annotation nor the unrelated label',
    );
    s.scheduler.nodeUpdated(node().annotations({ note: 'unrelated' }).labels({ unrelated: 'yes', pool: 'x' }).obj);
    await s.settle();
    assert.deepEqual([...s.binder.bindings.keys()], ['default/a']);
    const incoming = Object.fromEntries([...s.scheduler.counts().queueIncoming.values()].map((e) => [`${e.queue}/${e.event}`, e.count]));
    assert.deepEqual(incoming, {
      'active/UnscheduledPodAdd': 1,
      'unschedulable/ScheduleAttemptFailure': 1,
      'backoff/NodeUpdateNodeLabel': 1,
      'active/PopFromBackoffQ': 1,
    });
    await s.scheduler.stop();
  });

  it('requeues a pod whose binding the watch never shows once its assumption expires', async () => {
    const s = live();
    s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '4', memory: '8Gi', pods: '10' }).obj);
    s.scheduler.podAdded(ours('lost'));
    s.scheduler.setLeading(true);
    await s.settle();
    assert.equal(s.binder.bindings.get('default/lost'), 'n1');
    s.clock.advance(31_000);
    await s.settle();
    assert.match(s.warnings.join('\n'), /pod default\/lost was assumed on node n1 but never seen bound; requeued/);
    assert.equal(s.scheduler.counts().unconfirmed, 0);
    await s.scheduler.stop();
  });

  it('counts as not placed only pods the watch has not shown bound since, and as not tried the pods waiting for a first cycle', async () => {
    const s = live();
    s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '2', memory: '8Gi', pods: '10' }).obj);
    const big = makePod('big').req({ cpu: '4' }).scheduler('podplan').obj;
    const later = makePod('later').req({ cpu: '4' }).scheduler('podplan').obj;
    s.scheduler.podAdded(big);
    s.scheduler.setLeading(true);
    await s.settle();
    assert.deepEqual(
      s.scheduler.notPlaced().map((o) => o.pod),
      ['default/big'],
    );
    s.scheduler.setLeading(false);
    s.scheduler.podAdded(ours('waiting'));
    s.scheduler.podAdded(later);
    await s.settle();
    assert.equal(s.scheduler.untried(), 2, 'queued while it does not lead');
    s.scheduler.podUpdated(bound(big, 'n2'));
    s.scheduler.podUpdated(bound(later, 'n2'));
    assert.deepEqual(s.scheduler.notPlaced(), [], 'big was bound after all (by another copy, say)');
    assert.equal(s.scheduler.untried(), 1, 'a pod seen bound is no longer waiting');
    await s.scheduler.stop();
  });

  it('counts as bound here a pod whose binding landed though its answer was lost, once the watch shows it on that node', async () => {
    const clock = new ManualClock(0);
    const landed = new InMemoryBinder();
    // The binding reaches the API server, the answer does not: the cycle sees an error.
    const binder = { bind: async (pod: Pod, node: string) => (await landed.bind(pod, node), errorStatus('socket hang up')) };
    const composed = composeLiveScheduler({
      clock,
      cache: liveCache(clock, 30_000),
      binder,
      writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
      report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: () => undefined },
    });
    assert.ok(composed.ok);
    const scheduler = composed.value;
    scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '4', memory: '8Gi', pods: '10' }).obj);
    const pod = ours('unanswered');
    scheduler.podAdded(pod);
    scheduler.setLeading(true);
    for (let i = 0; i < 5; i++) {
      clock.advance(0);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(landed.bindings.get('default/unanswered'), 'n1');
    assert.equal(scheduler.boundHere(), 0, 'not yet seen bound');
    scheduler.podUpdated(bound(pod, 'n1'));
    assert.equal(scheduler.boundHere(), 1);
    assert.deepEqual(scheduler.notPlaced(), []);
    scheduler.podUpdated(bound(ours('elsewhere'), 'n2'));
    assert.equal(scheduler.boundHere(), 1, 'a pod this process never tried is not counted');
    await scheduler.stop();
  });

  // upstream has one queue and one nominator for every profile: a nominated pod's deletion or lost
  // nomination (AssignedPodDelete of it, for pods of lower or equal priority) reaches every
  // profile's pods, and a pod deleted or bound leaves every profile's nominated pods.
  describe("hands a profile's nominated-pod events to the other profiles' queues", () => {
    const table: Array<{ name: string; priority: number; change: 'delete' | 'clear'; moved: number }> = [
      { name: 'nominated pod deleted, same priority: moved', priority: 0, change: 'delete', moved: 1 },
      { name: 'nominated pod deleted, lower priority: stays', priority: -1, change: 'delete', moved: 0 },
      { name: 'nomination cleared, same priority: moved', priority: 0, change: 'clear', moved: 1 },
      { name: 'nomination cleared, lower priority: stays', priority: -1, change: 'clear', moved: 0 },
    ];
    for (const row of table) {
      it(row.name, async () => {
        const s = twoProfiles();
        s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '1', memory: '8Gi', pods: '10' }).obj);
        s.scheduler.podAdded(makePod('busy').req({ cpu: '1' }).node('n1').obj);
        s.scheduler.podAdded(makePod('big').req({ cpu: '1' }).scheduler('second').obj);
        s.scheduler.setLeading(true);
        await s.settle();
        s.scheduler.setLeading(false);
        assert.equal(s.scheduler.counts().unschedulable, 1, "second's big waits for room");
        const q = () => makePod('q').req({ cpu: '1' }).scheduler('first').gate('wait').priority(row.priority);
        s.scheduler.podAdded(q().nominatedTo('n1').obj);
        if (row.change === 'delete') s.scheduler.podDeleted(q().nominatedTo('n1').obj);
        else s.scheduler.podUpdated(q().obj);
        assert.equal(s.incoming()['backoff/AssignedPodDelete'] ?? 0, row.moved);
        await s.scheduler.stop();
      });
    }

    it("a pod's binding refused in one profile frees the room its assumption held for another's pods", async () => {
      const s = twoProfiles(true);
      s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '1', memory: '8Gi', pods: '10' }).obj);
      s.scheduler.podAdded(makePod('a').req({ cpu: '1' }).scheduler('first').obj);
      s.scheduler.podAdded(makePod('big').req({ cpu: '1' }).scheduler('second').obj);
      s.scheduler.setLeading(true);
      await s.settle();
      assert.equal(s.incoming()['unschedulable/ScheduleAttemptFailure'], 1, 'big found no room beside the assumed a');
      assert.equal(s.incoming()['backoff/AssignedPodDelete'], 1, 'the forgotten a moved big');
      await s.scheduler.stop();
    });

    it('a nominated pod deleted leaves the nominated pods of its own profile when another profile applies the deletion', async () => {
      const s = twoProfiles();
      s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '1', memory: '8Gi', pods: '10' }).obj);
      const q = makePod('q').req({ cpu: '1' }).scheduler('second').gate('wait').priority(10).nominatedTo('n1').obj;
      s.scheduler.podAdded(q);
      s.scheduler.podAdded(makePod('p').req({ cpu: '1' }).scheduler('second').obj);
      s.scheduler.setLeading(true);
      await s.settle();
      assert.equal(s.binder.bindings.size, 0, 'q holds the room on n1');
      s.scheduler.podDeleted(q);
      await s.settle();
      assert.deepEqual([...s.binder.bindings], [['default/p', 'n1']]);
      await s.scheduler.stop();
    });
  });

  // upstream async preemption: once the victims' deletions are made, Activate moves the preemptor
  // alone to activeQ (event ForceActivate; DefaultPreemption's PreEnqueue now lets it in); pods other
  // PreEnqueue plugins hold are not asked again (a claim created without an event leaves its pod held).
  // Once a preemption is carried out, upstream activates the preemptor only when an eviction failed
  // (no deletion event will come); else its victims' deletion events let it in. Other held pods stay.
  for (const [name, failed, expected] of [
    ['every eviction made: the preemptor waits for its victims’ deletion events', [], { unschedulable: 1, active: 0, forced: undefined }],
    ['an eviction failed: the preemptor alone is activated', ['default/victim'], { unschedulable: 0, active: 1, forced: 1 }],
  ] as const) {
    it(name, async () => {
      const clock = new ManualClock(0);
      const binder = new InMemoryBinder();
      let preempted: () => void = () => assert.fail('no preemption');
      const effects: SchedulingEffects = {
        scheduled: () => undefined,
        failed: () => undefined,
        event: () => undefined,
        preempt: () => new Promise((resolve) => (preempted = () => resolve(failed))),
        inFlight: () => 0,
        podObserved: () => undefined,
        stop: () => Promise.resolve(),
      };
      const composed = composeLiveScheduler({
        clock,
        cache: liveCache(clock, 30_000),
        binder,
        effects,
        writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
        report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: () => undefined },
      });
      assert.ok(composed.ok);
      const scheduler = composed.value;
      const settle = async () => {
        for (let i = 0; i < 5; i++) {
          clock.advance(0);
          await new Promise((resolve) => setImmediate(resolve));
        }
      };
      const incoming = () =>
        Object.fromEntries([...scheduler.counts().queueIncoming.values()].map((e) => [`${e.queue}/${e.event}`, e.count]));
      scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '1', memory: '8Gi', pods: '10' }).obj);
      scheduler.podAdded(makePod('victim').req({ cpu: '1' }).node('n1').obj);
      scheduler.podAdded(makePod('claimant').scheduler('podplan').deviceClaims({ claim: 'gpu' }).obj);
      scheduler.podAdded(makePod('urgent').req({ cpu: '1' }).priority(100).scheduler('podplan').obj);
      scheduler.setLeading(true);
      await settle();
      assert.equal(scheduler.counts().gated, 1, 'claimant waits for its claim');
      assert.equal(scheduler.counts().unschedulable, 1, 'urgent waits for its victim to go');
      // The claim appears without an event (as a resync would show it): claimant stays held until one comes.
      scheduler.objectsChanged({
        resourceClaims: [{ metadata: { name: 'gpu', namespace: 'default', uid: 'uid-gpu' }, spec: { devices: { requests: [] } } }],
      });
      scheduler.setLeading(false);
      preempted();
      await settle();
      assert.deepEqual(
        [scheduler.counts().gated, scheduler.counts().unschedulable, scheduler.counts().active, incoming()['active/ForceActivate']],
        [1, expected.unschedulable, expected.active, expected.forced],
      );
      await scheduler.stop();
    });
  }

  // A victim seen deleted before the evictions returned lets the preemptor go ahead at once
  // (upstream IsPodRunningPreemption's check of the last victim): its deletion event is not lost on a
  // preemptor still held.
  it('a preemptor whose victims are all seen deleted goes ahead before its evictions return', async () => {
    const clock = new ManualClock(0);
    const binder = new InMemoryBinder();
    const effects: SchedulingEffects = {
      scheduled: () => undefined,
      failed: () => undefined,
      event: () => undefined,
      preempt: () => new Promise(() => undefined),
      inFlight: () => 0,
      podObserved: () => undefined,
      stop: () => Promise.resolve(),
    };
    const composed = composeLiveScheduler({
      clock,
      cache: liveCache(clock, 30_000),
      binder,
      effects,
      writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
      report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: () => undefined },
    });
    assert.ok(composed.ok);
    const scheduler = composed.value;
    const settle = async () => {
      for (let i = 0; i < 5; i++) {
        clock.advance(1_000);
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '1', memory: '8Gi', pods: '10' }).obj);
    const victim = makePod('victim').req({ cpu: '1' }).node('n1').obj;
    scheduler.podAdded(victim);
    scheduler.podAdded(makePod('urgent').req({ cpu: '1' }).priority(100).scheduler('podplan').obj);
    scheduler.setLeading(true);
    await settle();
    assert.equal(binder.bindings.get('default/urgent'), undefined, 'it waits for its victim');
    scheduler.podDeleted(victim);
    await settle();
    assert.equal(binder.bindings.get('default/urgent'), 'n1');
    await scheduler.stop();
  });

  it('holds a trigger until the triggers it dependsOn have complete plans', async () => {
    const s = live();
    s.scheduler.nodeAdded(makeNode('n1').alloc({ cpu: '8', memory: '8Gi', pods: '10' }).obj);
    s.scheduler.setLeading(true);
    s.scheduler.triggerApplied({ name: 'db', namespace: 'default', podSet: 'db', state: 'Planning', quietTime: '10s' });
    s.scheduler.triggerApplied({ name: 'web', namespace: 'default', podSet: 'web', state: 'Schedule', dependsOn: [{ name: 'db' }] });
    for (const p of [member('db-0', 'db'), member('web-0', 'web'), member('web-1', 'web')]) s.scheduler.podAdded(p);
    await s.settle();
    assert.match(s.warnings.join('\n'), /ScheduleTrigger default\/web waits for ScheduleTrigger\/default\/db/);
    assert.equal(s.binder.bindings.size, 0, 'db waits for its quiet time, web for db');

    s.clock.advance(10_000);
    await s.settle();
    s.clock.advance(1_000);
    await s.settle();
    assert.deepEqual([...s.binder.bindings.keys()].sort(), ['default/db-0', 'default/web-0', 'default/web-1'], 'db is planned, then web');
    await s.scheduler.stop();
  });
});
