import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import type { QueuedPodInfo } from '../../../src/engine/framework/interfaces';
import { SchedulingQueue, type ClusterEvent, type QueueName } from '../../../src/engine/queue/scheduling-queue';
import { makePod } from '../../builders';

// Higher priority first, then earlier arrival: the order PrioritySort gives.
const byPriority = (a: QueuedPodInfo, b: QueuedPodInfo) => {
  const pa = a.info.pod.spec.priority ?? 0;
  const pb = b.info.pod.spec.priority ?? 0;
  return pa !== pb ? pa > pb : a.timestamp < b.timestamp;
};

function setup() {
  const clock = new ManualClock(0);
  const queue = new SchedulingQueue({ clock, less: byPriority });
  return { clock, queue };
}

/** Pops the pod and fails it as unschedulable, rejected by `plugins`. */
function failOnce(queue: SchedulingQueue, ...plugins: string[]): QueuedPodInfo {
  const popped = queue.pop();
  assert.ok(popped, 'a pod to pop');
  queue.addUnschedulable(popped, new Set(plugins));
  return popped;
}

describe('engine/queue/scheduling-queue', () => {
  it('pops by the QueueSort order: priority first, then arrival', () => {
    const { clock, queue } = setup();
    queue.add(makePod('low').priority(1).info);
    clock.advance(1);
    queue.add(makePod('high').priority(10).info);
    clock.advance(1);
    queue.add(makePod('low-later').priority(1).info);
    const order = [queue.pop(), queue.pop(), queue.pop()].map((q) => q?.info.pod.metadata.name);
    assert.deepEqual(order, ['high', 'low', 'low-later']);
    assert.equal(queue.pop(), undefined);
  });

  // upstream backoff_queue_test.go TestBackoffQueue_calculateBackoffDuration (its rows with entity
  // size 1, in ms here): initial × 2^(count-1), capped at the maximum; 0 for no failure.
  describe('backs off initial × 2^(count-1), capped (calculateBackoffDuration)', () => {
    const table: Array<[name: string, initial: number, max: number, count: number, ms: number]> = [
      ['no backoff', 1, 32, 0, 0],
      ['normal', 3, 1000, 5, 48],
      ['hitting max backoff duration', 1, 32, 16, 32],
      ['overflow_32bit', 1, 2 ** 31 - 1, 32, 2 ** 31 - 1],
      ['the defaults: 1 s', 1000, 10_000, 1, 1000],
      ['the defaults: 8 s at the fourth failure', 1000, 10_000, 4, 8000],
      ['the defaults: 10 s from the fifth', 1000, 10_000, 5, 10_000],
    ];
    for (const [name, initial, max, count, ms] of table) {
      it(`${name}: count ${count} → ${ms} ms`, () => {
        const queue = new SchedulingQueue({ clock: new ManualClock(0), less: byPriority, initialBackoffMs: initial, maxBackoffMs: max });
        assert.equal(queue.backoffDuration(count), ms);
      });
    }
  });

  // upstream backoff_queue_test.go TestBackoffQueue_getBackoffTime and scheduling_queue.go
  // AddUnschedulablePodIfNotPresent: the count is UnschedulableCount (a rejection by plugins, which
  // clears ConsecutiveErrorsCount), or ConsecutiveErrorsCount (an error, or a rejection naming no
  // plugin) while that is not 0; the expiry, from the last failure, is truncated to its whole second
  // (alignToWindow), and the pod backs off while the expiry is not before the current whole second
  // (isEntityBackingoff); a maximum of 0 turns back-off off.
  describe('counts failures as upstream and backs off to the whole second after the expiry (getBackoffTime, isEntityBackingoff)', () => {
    type Failure = 'rejected' | 'error' | 'no plugin';
    const table: Array<{
      name: string;
      failures: Failure[];
      /** When the last failure happens (ms of the clock). */
      at: number;
      counts: { unschedulable: number; errors: number };
      /** The first whole second the pod is out of back-off. */
      activeAt: number;
      max?: number;
    }> = [
      {
        name: 'backoff by UnschedulableCount: 1 s from 0 ends in second 1, out at 2 s',
        failures: ['rejected'],
        at: 0,
        counts: { unschedulable: 1, errors: 0 },
        activeAt: 2000,
      },
      {
        name: 'a failure at 0.7 s: 1.7 s truncates to 1 s, out at 2 s',
        failures: ['rejected'],
        at: 700,
        counts: { unschedulable: 1, errors: 0 },
        activeAt: 2000,
      },
      {
        name: 'a failure at 0.3 s: 1.3 s truncates to 1 s, out at 2 s',
        failures: ['rejected'],
        at: 300,
        counts: { unschedulable: 1, errors: 0 },
        activeAt: 2000,
      },
      {
        name: 'backoff is calculated with ConsecutiveErrorsCount: two errors after a rejection, 2 s',
        failures: ['rejected', 'error', 'error'],
        at: 0,
        counts: { unschedulable: 1, errors: 2 },
        activeAt: 3000,
      },
      {
        name: 'a rejection clears the errors: two errors then a rejection back off by UnschedulableCount 1',
        failures: ['error', 'error', 'rejected'],
        at: 0,
        counts: { unschedulable: 1, errors: 0 },
        activeAt: 2000,
      },
      {
        name: 'a rejection naming no plugin is an error',
        failures: ['rejected', 'no plugin'],
        at: 0,
        counts: { unschedulable: 1, errors: 1 },
        activeAt: 2000,
      },
      {
        name: 'three rejections: 4 s, out at 5 s (attempts would say the same; errors between would not)',
        failures: ['rejected', 'rejected', 'rejected'],
        at: 0,
        counts: { unschedulable: 3, errors: 0 },
        activeAt: 5000,
      },
      {
        name: 'zero maxBackoffDuration means no backoff',
        failures: ['rejected'],
        at: 0,
        counts: { unschedulable: 1, errors: 0 },
        activeAt: 0,
        max: 0,
      },
    ];
    for (const row of table) {
      it(row.name, () => {
        const clock = new ManualClock(0);
        const queue = new SchedulingQueue({ clock, less: byPriority, ...(row.max !== undefined ? { maxBackoffMs: row.max } : {}) });
        const pod = makePod('p').info;
        queue.add(pod);
        row.failures.forEach((failure, i) => {
          if (i === row.failures.length - 1) clock.advance(row.at);
          const popped = queue.pop();
          assert.ok(popped, `attempt ${i + 1}`);
          if (failure === 'error') queue.addBackoff(popped);
          else {
            // An event during the cycle sends it to backoffQ at once, as its back-off is what is tested.
            queue.onEvent('NodeAdd');
            queue.addUnschedulable(popped, new Set(failure === 'rejected' ? ['NodeResourcesFit'] : []));
          }
          if (i < row.failures.length - 1) {
            clock.advance(20_000);
            queue.flushBackoffCompleted();
          }
        });
        assert.deepEqual(queue.failureCounts(pod.id), row.counts);
        const start = clock.now() - row.at;
        clock.advance(Math.max(0, start + row.activeAt - 1 - clock.now()));
        queue.flushBackoffCompleted();
        if (row.activeAt > row.at) assert.equal(queue.whereIs(pod.id), 'backoff', '1 ms before');
        else assert.equal(queue.whereIs(pod.id), 'active', 'no back-off: activeQ at once');
        clock.advance(1);
        queue.flushBackoffCompleted();
        assert.equal(queue.whereIs(pod.id), 'active');
      });
    }
  });

  it('retries a pod that failed with an error after its backoff, flushed by the periodic timer on whole seconds', () => {
    const clock = new ManualClock(250);
    const queue = new SchedulingQueue({ clock, less: byPriority });
    queue.start();
    queue.add(makePod('p').info);
    const popped = queue.pop();
    assert.ok(popped);
    queue.addBackoff(popped);
    assert.equal(queue.whereIs(popped.info.id), 'backoff');
    // Failed at 0.25 s: its 1 s back-off expires in second 1 (1.25 s truncated), so the 2 s flush lets it out.
    clock.advance(1_749);
    assert.equal(queue.whereIs(popped.info.id), 'backoff');
    clock.advance(1);
    assert.equal(queue.whereIs(popped.info.id), 'active');
    assert.equal(queue.pop()?.attempts, 2);
    queue.stop();
  });

  describe('moves an unschedulable pod back only on an event one of its rejecting plugins cares about', () => {
    const table: Array<[plugin: string, event: ClusterEvent, moves: boolean]> = [
      ['NodeResourcesFit', 'PodDelete', true],
      ['NodeResourcesFit', 'NodeAdd', true],
      ['TaintToleration', 'PodDelete', false],
      ['TaintToleration', 'NodeUpdate', true],
      ['NodeName', 'NodeUpdate', false],
      ['SomeOutOfTreePlugin', 'PodAdd', true],
    ];
    for (const [plugin, event, moves] of table) {
      it(`${plugin} + ${event} → ${moves ? 'moves' : 'stays'}`, () => {
        const { clock, queue } = setup();
        queue.add(makePod('p').info);
        const popped = failOnce(queue, plugin);
        // A pop of another pod makes a new cycle, so the event below is not "during" p's cycle.
        queue.add(makePod('other').info);
        queue.done(queue.pop()?.info.id ?? '');
        clock.advance(5000);
        queue.onEvent(event);
        assert.equal(queue.whereIs(popped.info.id), moves ? 'active' : 'unschedulable');
      });
    }
  });

  it('sends a pod to backoff rather than unschedulable when an event arrived during its cycle', () => {
    const { queue } = setup();
    queue.add(makePod('p').info);
    const popped = queue.pop();
    assert.ok(popped);
    queue.onEvent('NodeAdd');
    queue.addUnschedulable(popped, new Set(['NodeResourcesFit']));
    assert.equal(queue.whereIs(popped.info.id), 'backoff');
  });

  it('puts a moved pod still backing off into backoffQ, not activeQ', () => {
    const { clock, queue } = setup();
    queue.add(makePod('p').info);
    const popped = failOnce(queue, 'NodeResourcesFit');
    clock.advance(500);
    queue.add(makePod('q').info);
    queue.done(queue.pop()?.info.id ?? '');
    queue.onEvent('PodDelete');
    assert.equal(queue.whereIs(popped.info.id), 'backoff');
  });

  it('retries an unschedulable pod after 5 minutes even without an event', () => {
    const { clock, queue } = setup();
    queue.start();
    queue.add(makePod('p').info);
    const popped = failOnce(queue, 'TaintToleration');
    clock.advance(299_000);
    assert.equal(queue.whereIs(popped.info.id), 'unschedulable');
    clock.advance(30_000);
    assert.equal(queue.whereIs(popped.info.id), 'active');
    queue.stop();
  });

  it('holds a pod with scheduling gates until an update removes them', () => {
    const { queue } = setup();
    const gated = makePod('g').gate('example.com/wait');
    queue.add(gated.info);
    assert.equal(queue.whereIs(gated.info.id), 'gated');
    assert.equal(queue.pop(), undefined);
    queue.update(makePod('g').info);
    assert.equal(queue.whereIs(gated.info.id), 'active');
  });

  it('holds a pod its PreEnqueue plugins hold until its update or a change of the other objects lets it in', () => {
    const clock = new ManualClock(0);
    // What the PreEnqueue plugins see: which pods' claims can be found (annotated pods, and any once `created`).
    let created = false;
    const queue = new SchedulingQueue({
      clock,
      less: byPriority,
      preEnqueue: (info) => created || info.pod.metadata.annotations?.['named'] === 'yes',
    });
    let ready = 0;
    queue.onReady(() => ready++);
    const a = makePod('a').info;
    const b = makePod('b').info;
    queue.add(a);
    queue.add(b);
    assert.deepEqual([queue.whereIs(a.id), queue.whereIs(b.id), queue.pop()], ['gated', 'gated', undefined]);
    // The pod's own update that lets it in (its status names its claim).
    queue.update(makePod('a').annotations({ named: 'yes' }).info);
    assert.equal(queue.whereIs(a.id), 'active');
    // Other events leave a held pod where it is; a change of the other objects that lets it in moves it.
    for (const event of ['NodeAdd', 'PodUpdate', 'ObjectsUpdate'] as const) queue.onEvent(event);
    assert.equal(queue.whereIs(b.id), 'gated');
    created = true;
    queue.onEvent('NodeAdd');
    assert.equal(queue.whereIs(b.id), 'gated');
    queue.onEvent('ObjectsUpdate');
    assert.deepEqual([queue.whereIs(b.id), ready], ['active', 2]);
  });

  it('runs the PreEnqueue plugins on every move into activeQ or backoffQ: a pod they hold now waits gated', () => {
    const clock = new ManualClock(0);
    let found = true;
    const queue = new SchedulingQueue({ clock, less: byPriority, preEnqueue: () => found });
    const a = makePod('a').info;
    const b = makePod('b').info;
    queue.add(a);
    queue.add(b);
    failOnce(queue, 'DynamicResources');
    const popped = queue.pop();
    assert.ok(popped);
    // Its claim is deleted meanwhile: a moved by an event and b failing with an error wait gated.
    found = false;
    queue.onEvent('NodeAdd');
    queue.addBackoff(popped);
    assert.deepEqual([queue.whereIs(a.id), queue.whereIs(b.id)], ['gated', 'gated']);
    // Let in while the back-off of their failed attempt (1 s, to the end of second 1) still runs: backoffQ, then activeQ.
    found = true;
    queue.onEvent('ObjectsUpdate');
    assert.deepEqual([queue.whereIs(a.id), queue.whereIs(b.id)], ['backoff', 'backoff']);
    clock.advance(1_999);
    queue.flushBackoffCompleted();
    assert.deepEqual([queue.whereIs(a.id), queue.whereIs(b.id)], ['backoff', 'backoff']);
    clock.advance(1);
    queue.flushBackoffCompleted();
    assert.deepEqual([queue.whereIs(a.id), queue.whereIs(b.id)], ['active', 'active']);
  });

  // upstream requeueEntityWithQueueingStrategy: a gated pod let in (its gating plugin's hint Queue,
  // so queueAfterBackoff) goes to backoffQ while isEntityBackingoff, else to activeQ; getBackoffTime
  // gives a pod with no failed attempts no back-off, so a pod held from its arrival goes to activeQ.
  describe('lets a pod held at PreEnqueue in to backoffQ while the back-off of its last attempt runs, else to activeQ', () => {
    const table: Array<
      [name: string, attempts: number, letInAfterMs: number, by: 'ObjectsUpdate' | 'update', where: QueueName, activeAtMs: number]
    > = [
      ['held from its arrival (never attempted, no back-off), let in by its claim: activeQ', 0, 0, 'ObjectsUpdate', 'active', 0],
      ['held from its arrival, let in by its own update: activeQ', 0, 0, 'update', 'active', 0],
      [
        '1 failure (1 s back-off, to the end of second 1), let in after 500 ms by its claim: backoffQ until 2 s',
        1,
        500,
        'ObjectsUpdate',
        'backoff',
        2_000,
      ],
      ['1 failure, let in after 500 ms by its own update: backoffQ until 2 s', 1, 500, 'update', 'backoff', 2_000],
      ['1 failure, let in after 1.5 s: still in second 1, backoffQ until 2 s', 1, 1_500, 'ObjectsUpdate', 'backoff', 2_000],
      ['1 failure, let in after 2 s: its back-off is over, activeQ', 1, 2_000, 'ObjectsUpdate', 'active', 2_000],
      ['3 failures (4 s back-off), let in after 3 s: backoffQ until 5 s', 3, 3_000, 'ObjectsUpdate', 'backoff', 5_000],
      ['3 failures, let in after 5 s: activeQ', 3, 5_000, 'ObjectsUpdate', 'active', 5_000],
    ];
    for (const [name, attempts, letInAfterMs, by, where, activeAtMs] of table) {
      it(name, () => {
        const clock = new ManualClock(0);
        let found = attempts > 0;
        const queue = new SchedulingQueue({ clock, less: byPriority, preEnqueue: () => found });
        const pod = makePod('p').info;
        queue.add(pod);
        // Its attempts, each failed, each retried once its back-off is over.
        for (let i = 1; i <= attempts; i++) {
          failOnce(queue, 'DynamicResources');
          if (i < attempts) {
            clock.advance(queue.backoffDuration(i) + 1_000);
            queue.onEvent('ObjectsUpdate');
            assert.equal(queue.whereIs(pod.id), 'active');
          }
        }
        // Its claim deleted after the last failure: moved by an event, it is held.
        found = false;
        queue.onEvent('ObjectsUpdate');
        assert.equal(queue.whereIs(pod.id), 'gated');
        const heldAt = clock.now();
        clock.advance(letInAfterMs);
        found = true;
        if (by === 'update') queue.update(makePod('p').annotations({ seen: 'yes' }).info);
        else queue.onEvent('ObjectsUpdate');
        assert.equal(queue.whereIs(pod.id), where);
        clock.advance(Math.max(0, heldAt + activeAtMs - clock.now() - 1));
        queue.flushBackoffCompleted();
        if (where === 'backoff') assert.equal(queue.whereIs(pod.id), 'backoff', '1 ms before its back-off ends');
        clock.advance(1);
        queue.flushBackoffCompleted();
        assert.equal(queue.whereIs(pod.id), 'active');
      });
    }
  });

  it('tells listeners when a pod becomes ready and forgets deleted pods', () => {
    const { queue } = setup();
    let ready = 0;
    const stop = queue.onReady(() => ready++);
    queue.add(makePod('a').info);
    queue.add(makePod('b').info);
    stop();
    queue.add(makePod('c').info);
    assert.equal(ready, 2);
    queue.delete(makePod('b').info.id);
    assert.deepEqual(queue.counts(), { active: 2, backoff: 0, unschedulable: 0, gated: 0, inFlight: 0 });
  });
});
