import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import type { QueuedPodInfo } from '../../../src/engine/framework/interfaces';
import { seededRandom } from '../../../src/engine/api/random';
import {
  ActionType,
  clusterEvent,
  EventAssignedPodDelete,
  EventNodeAdd,
  nodeSchedulingPropertiesChange,
  type ClusterEvent,
  type QueueingHintEntry,
} from '../../../src/engine/framework/events';
import type { PodInfo } from '../../../src/engine/framework/node-info';
import { Framework } from '../../../src/engine/framework/runtime';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import { EVENTS as SCHEDULING_GATES_EVENTS } from '../../../src/engine/plugins/SchedulingGates';
import { SchedulingQueue, type QueueName } from '../../../src/engine/queue/scheduling-queue';
import { makeNode, makePod, type NodeBuilder, type PodBuilder } from '../../builders';

// Higher priority first, then earlier arrival: the order PrioritySort gives.
const byPriority = (a: QueuedPodInfo, b: QueuedPodInfo) => {
  const pa = a.info.pod.spec.priority ?? 0;
  const pb = b.info.pod.spec.priority ?? 0;
  return pa !== pb ? pa > pb : a.timestamp < b.timestamp;
};

/** The default profile's queueing hints, as a scheduler gives them to its queue (the in-tree plugins' own). */
function defaultHints(): readonly QueueingHintEntry[] {
  const registry = inTreeRegistry();
  assert.ok(registry.ok);
  const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
  assert.ok(framework.ok);
  return [
    ...framework.value.queueingHints(),
    ...SCHEDULING_GATES_EVENTS.map(({ event, hint }) => ({ plugin: 'SchedulingGates', event, hint: hint ?? (() => 'Queue' as const) })),
  ];
}

/** A claim added: the event a PreEnqueue plugin standing for DynamicResources is registered for in these tests. */
const CLAIM_ADDED = clusterEvent('resource.k8s.io/ResourceClaim', ActionType.Add);
/** The PreEnqueue plugin of these tests: holds the pod while `found()` says no; registered for a claim's addition and any update of the pod. */
const held = (found: (info: PodInfo) => boolean) => ({
  preEnqueue: (info: PodInfo) => (found(info) ? undefined : 'DynamicResources'),
  queueingHints: [
    { plugin: 'DynamicResources', event: CLAIM_ADDED, hint: () => 'Queue' as const },
    { plugin: 'DynamicResources', event: clusterEvent('TargetPod', ActionType.Update), hint: () => 'Queue' as const },
  ],
});

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
            queue.onEvent(EventNodeAdd);
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

  // SchedulerPopFromBackoffQ (on by default in 1.37): when activeQ is empty, pop takes the head of
  // backoffQ's heap of pods rejected by plugins (activeQueue unlockedPop → backoffQueue popBackoff),
  // never a pod backing off for an error (entityErrorBackoffQ) nor an unschedulable one.
  describe('pops from backoffQ when activeQ is empty (SchedulerPopFromBackoffQ)', () => {
    /** Adds the pod and fails it now, sent to backoffQ by an event during its cycle: rejected by a plugin, or with an error. */
    const failNow = (queue: SchedulingQueue, pod: PodBuilder, how: 'rejected' | 'error' | 'unschedulable') => {
      queue.add(pod.info);
      const popped = queue.pop();
      assert.equal(popped?.info.id, pod.info.id, `${pod.info.key} popped to fail it`);
      if (how === 'error') return queue.addBackoff(popped);
      if (how === 'rejected') queue.onEvent(EventNodeAdd);
      queue.addUnschedulable(popped, new Set(['NodeResourcesFit']));
    };
    const popAll = (queue: SchedulingQueue) => {
      const names: string[] = [];
      for (let q = queue.pop(); q; q = queue.pop()) names.push(q.info.pod.metadata.name);
      return names;
    };

    // upstream scheduling_queue_test.go TestPriorityQueue_Pop, "individual pod, ... PopFromBackoffQ
    // enabled, pops from both activeQ and backoffQ": a medium-priority pod in activeQ, a
    // high-priority one in backoffQ, another in the error back-off heap, one unschedulable: pop
    // gives the medium one, then the backing-off one; then nothing.
    it('TestPriorityQueue_Pop: activeQ first, then backoffQ; not the error back-off nor the unschedulable pod', () => {
      const { queue } = setup();
      failNow(queue, makePod('hpp').priority(1000), 'rejected');
      failNow(queue, makePod('hpp2').priority(1000), 'error');
      // A pop of another pod makes a new cycle, so unschedulable stays unschedulable.
      failNow(queue, makePod('up').priority(0), 'unschedulable');
      queue.add(makePod('mpp').priority(100).info);
      assert.deepEqual(
        ['hpp', 'hpp2', 'up', 'mpp'].map((n) => queue.whereIs(`uid-default-${n}`)),
        ['backoff', 'backoff', 'unschedulable', 'active'],
      );
      assert.equal(queue.hasNext(), true);
      assert.deepEqual(popAll(queue), ['mpp', 'hpp']);
      assert.equal(queue.hasNext(), false);
      assert.deepEqual(queue.counts(), { active: 0, backoff: 1, unschedulable: 1, gated: 0, inFlight: 2 });
    });

    // upstream TestHighPriorityBackoff: a high-priority pod moved to backoffQ after failing does not
    // pass the mid-priority pod waiting in activeQ; here, it is popped next, still backing off.
    it('TestHighPriorityBackoff: the mid-priority pod in activeQ goes before the high-priority one backing off, which follows at once', () => {
      const { clock, queue } = setup();
      queue.add(makePod('test-midpod').priority(100).info);
      queue.add(makePod('test-highpod').priority(1000).info);
      const high = queue.pop();
      assert.equal(high?.info.pod.metadata.name, 'test-highpod');
      queue.addUnschedulable(high, new Set(['fooPlugin']));
      queue.onEvent(EventNodeAdd);
      assert.equal(queue.whereIs(high.info.id), 'backoff');
      assert.deepEqual(popAll(queue), ['test-midpod', 'test-highpod']);
      assert.equal(clock.now(), 0, 'without waiting for its back-off');
    });

    // upstream backoff_queue_test.go TestBackoffQueueOrdering, "Pods with the same window are ordered
    // by priority if PopFromBackoffQ is enabled": five pods that failed once (UnschedulableCount 1,
    // 1 s back-off) at -3 s, -2 s (two, priorities 1 and 2), -2 s + 1 ms (priority 2) and -1 s of a
    // whole second T, and one at T. At T, popAllBackoffCompleted gives pod5, pod4, pod2, pod3 (the
    // -1 s window by priority, then timestamp); pod1 and pod0 stay. Here, with activeQ empty, pop
    // gives backoffQ's order itself: the completed ones, then pod1 and pod0 still backing off.
    const ordering = () => {
      const T = 13_000;
      const clock = new ManualClock(T - 3_000);
      const queue = new SchedulingQueue({ clock, less: byPriority });
      failNow(queue, makePod('pod5').priority(1), 'rejected');
      clock.advance(1_000);
      failNow(queue, makePod('pod3').priority(1), 'rejected');
      failNow(queue, makePod('pod4').priority(2), 'rejected');
      clock.advance(1);
      failNow(queue, makePod('pod2').priority(2), 'rejected');
      clock.advance(999);
      failNow(queue, makePod('pod1').priority(1), 'rejected');
      clock.advance(1_000);
      failNow(queue, makePod('pod0').priority(1), 'rejected');
      assert.equal(clock.now(), T);
      return queue;
    };
    it('TestBackoffQueueOrdering: backoffQ orders by expiry window, then as activeQ (priority, then timestamp)', () => {
      assert.deepEqual(popAll(ordering()), ['pod5', 'pod4', 'pod2', 'pod3', 'pod1', 'pod0']);
    });
    it('TestBackoffQueueOrdering: the flush at T moves pod5, pod4, pod2 and pod3; activeQ pops them by priority, then backoffQ the rest', () => {
      const queue = ordering();
      queue.flushBackoffCompleted();
      assert.deepEqual(
        ['pod0', 'pod1', 'pod2', 'pod3', 'pod4', 'pod5'].map((n) => queue.whereIs(`uid-default-${n}`)),
        ['backoff', 'backoff', 'active', 'active', 'active', 'active'],
      );
      assert.deepEqual(popAll(queue), ['pod4', 'pod2', 'pod5', 'pod3', 'pod1', 'pod0']);
    });

    // upstream backoff_queue_test.go TestBackoffQueue_popAllBackoffCompleted: pod0 and pod1 rejected
    // (backoffQ), pod2 and pod3 failed with an error (the error heap); pod0 and pod2 failed 2 s
    // before the check (their back-off is over), pod1 and pod3 one second later than upstream's
    // (at the check, as a manual clock cannot go back; still backing off either way). The flush
    // moves the completed pods of both heaps; of those left, pop takes only backoffQ's.
    describe('TestBackoffQueue_popAllBackoffCompleted, then popBackoff', () => {
      const table: Array<[name: string, inBackoff: string[], moved: string[], poppedLeft: string[]]> = [
        ['Both queues empty, no pods moved to activeQ', [], [], []],
        ['Pods only in backoffQ, some pods moved to activeQ', ['pod0', 'pod1'], ['pod0'], ['pod1']],
        ['Pods only in errorBackoffQ, some pods moved to activeQ', ['pod2', 'pod3'], ['pod2'], []],
        ['Pods in both queues, some pods moved to activeQ', ['pod0', 'pod1', 'pod2', 'pod3'], ['pod0', 'pod2'], ['pod1']],
        ['Pods in both queues, all pods moved to activeQ', ['pod0', 'pod2'], ['pod0', 'pod2'], []],
        ['Pods in both queues, no pods moved to activeQ', ['pod1', 'pod3'], [], ['pod1']],
      ];
      const how: Record<string, 'rejected' | 'error'> = { pod0: 'rejected', pod1: 'rejected', pod2: 'error', pod3: 'error' };
      for (const [name, inBackoff, moved, poppedLeft] of table) {
        it(name, () => {
          const { clock, queue } = setup();
          for (const p of inBackoff.filter((p) => p === 'pod0' || p === 'pod2')) failNow(queue, makePod(p), how[p]!);
          clock.advance(2_000);
          for (const p of inBackoff.filter((p) => p === 'pod1' || p === 'pod3')) failNow(queue, makePod(p), how[p]!);
          queue.flushBackoffCompleted();
          const active = inBackoff.filter((p) => queue.whereIs(`uid-default-${p}`) === 'active');
          assert.deepEqual(active, moved);
          assert.equal(queue.counts().backoff, inBackoff.length - moved.length);
          for (const _ of moved) queue.pop();
          assert.deepEqual(popAll(queue), poppedLeft);
          assert.equal(queue.counts().backoff, inBackoff.length - moved.length - poppedLeft.length);
        });
      }
    });

    // upstream AddUnschedulablePodIfNotPresent: "Refresh the timestamp since the pod is re-added".
    it('refreshes the timestamp of a pod that failed: it goes after a pod of its priority added before it failed', () => {
      const { clock, queue } = setup();
      queue.add(makePod('a').info);
      clock.advance(10);
      queue.add(makePod('b').info);
      clock.advance(10);
      const a = queue.pop();
      assert.equal(a?.info.pod.metadata.name, 'a');
      queue.onEvent(EventNodeAdd);
      queue.addUnschedulable(a, new Set(['NodeResourcesFit']));
      clock.advance(2_000);
      queue.flushBackoffCompleted();
      assert.equal(queue.whereIs(a.info.id), 'active');
      const next = queue.pop();
      assert.equal(next?.info.pod.metadata.name, 'b');
      const again = queue.pop();
      assert.deepEqual([again?.info.pod.metadata.name, again?.timestamp, again?.attempts], ['a', 20, 2]);
    });

    it('tells listeners when a rejected pod enters backoffQ (it can be popped), not when an erring one does', () => {
      const { queue } = setup();
      let ready = 0;
      queue.onReady(() => ready++);
      failNow(queue, makePod('r'), 'rejected');
      failNow(queue, makePod('e'), 'error');
      assert.equal(ready, 3, 'r added, r into backoffQ, e added');
    });
  });

  /** A node updated from `before` to `after`: each part that changed is one event, as the scheduler delivers them. */
  const nodeUpdate = (before: NodeBuilder, after: NodeBuilder) =>
    nodeSchedulingPropertiesChange(after.obj, before.obj).map((event) => ({ event, oldObj: before.obj, newObj: after.obj }));
  const roomy = () => makeNode('n').alloc({ cpu: '4', memory: '8Gi', pods: '110' });

  // upstream isPodWorthRequeuing: only the hints of the plugins that rejected the pod are asked, only
  // for events they registered; one Queue moves it (activeQ here: its back-off is over).
  // upstream isPodWorthRequeuing: a QueueingHintFn's error is logged and taken as Queue, so the pod
  // does not stay stuck; the event goes on to the other pods.
  describe('takes a hint that fails (returns an error or throws) as Queue, and goes on with the event', () => {
    const table: Array<[name: string, hint: QueueingHintEntry['hint'], where: QueueName]> = [
      ['QueueSkip: stays', () => 'QueueSkip', 'unschedulable'],
      ['Queue: moved', () => 'Queue', 'backoff'],
      ['an error returned: moved', () => ({ error: 'unexpected object' }), 'backoff'],
      [
        'thrown: moved',
        () => {
          throw new TypeError('cannot read properties of undefined');
        },
        'backoff',
      ],
    ];
    for (const [name, hint, where] of table) {
      it(name, () => {
        const clock = new ManualClock(0);
        const queue = new SchedulingQueue({
          clock,
          less: byPriority,
          queueingHints: [
            { plugin: 'Tested', event: EventNodeAdd, hint },
            { plugin: 'Other', event: EventNodeAdd, hint: () => 'Queue' },
          ],
        });
        queue.add(makePod('a').info);
        failOnce(queue, 'Tested');
        queue.add(makePod('b').info);
        failOnce(queue, 'Other');
        queue.onEvent(EventNodeAdd, undefined, makeNode('n').obj);
        assert.deepEqual([queue.whereIs('uid-default-a'), queue.whereIs('uid-default-b')], [where, 'backoff']);
      });
    }
  });

  describe('moves an unschedulable pod back only when a hint of a plugin that rejected it says Queue', () => {
    const table: Array<
      [
        name: string,
        plugin: string,
        pod: PodBuilder,
        events: () => Array<{ event: ClusterEvent; oldObj?: unknown; newObj?: unknown }>,
        moves: boolean,
      ]
    > = [
      [
        'NodeResourcesFit: a bound pod deleted',
        'NodeResourcesFit',
        makePod('p'),
        () => [{ event: EventAssignedPodDelete, oldObj: makePod('gone').node('n').obj }],
        true,
      ],
      [
        'NodeResourcesFit: a pending pod deleted (it held no room)',
        'NodeResourcesFit',
        makePod('p'),
        () => [{ event: EventAssignedPodDelete, oldObj: makePod('gone').obj }],
        false,
      ],
      [
        'NodeResourcesFit: a node added that fits it',
        'NodeResourcesFit',
        makePod('p').req({ cpu: '2' }),
        () => [{ event: EventNodeAdd, newObj: roomy().obj }],
        true,
      ],
      [
        'NodeResourcesFit: a node added too small',
        'NodeResourcesFit',
        makePod('p').req({ cpu: '8' }),
        () => [{ event: EventNodeAdd, newObj: roomy().obj }],
        false,
      ],
      [
        "NodeResourcesFit: a node's allocatable grown",
        'NodeResourcesFit',
        makePod('p').req({ cpu: '6' }),
        () => nodeUpdate(roomy(), makeNode('n').alloc({ cpu: '8', memory: '8Gi', pods: '110' })),
        true,
      ],
      [
        'TaintToleration: a bound pod deleted',
        'TaintToleration',
        makePod('p'),
        () => [{ event: EventAssignedPodDelete, oldObj: makePod('gone').node('n').obj }],
        false,
      ],
      ['TaintToleration: the taint removed', 'TaintToleration', makePod('p'), () => nodeUpdate(roomy().taint('k', 'v'), roomy()), true],
      [
        'TaintToleration: another taint it does not tolerate added',
        'TaintToleration',
        makePod('p'),
        () => nodeUpdate(roomy().taint('k', 'v'), roomy().taint('k', 'v').taint('j', 'w')),
        false,
      ],
      [
        'NodeAffinity: an annotation changed',
        'NodeAffinity',
        makePod('p').nodeSelector({ pool: 'a' }),
        () => nodeUpdate(roomy(), roomy().annotations({ note: 'x' })),
        false,
      ],
      [
        'NodeAffinity: a label changed that does not match',
        'NodeAffinity',
        makePod('p').nodeSelector({ pool: 'a' }),
        () => nodeUpdate(roomy(), roomy().labels({ pool: 'b' })),
        false,
      ],
      [
        'NodeAffinity: a label changed that matches',
        'NodeAffinity',
        makePod('p').nodeSelector({ pool: 'a' }),
        () => nodeUpdate(roomy(), roomy().labels({ pool: 'a' })),
        true,
      ],
      ["NodeName: a node's labels changed", 'NodeName', makePod('p'), () => nodeUpdate(roomy(), roomy().labels({ pool: 'a' })), false],
      ['NodeName: a node added', 'NodeName', makePod('p'), () => [{ event: EventNodeAdd, newObj: roomy().obj }], true],
      [
        'NodePorts: a bound pod holding its host port deleted',
        'NodePorts',
        makePod('p').hostPort(80),
        () => [{ event: EventAssignedPodDelete, oldObj: makePod('gone').hostPort(80).node('n').obj }],
        true,
      ],
      [
        'NodePorts: a bound pod holding another port deleted',
        'NodePorts',
        makePod('p').hostPort(80),
        () => [{ event: EventAssignedPodDelete, oldObj: makePod('gone').hostPort(81).node('n').obj }],
        false,
      ],
    ];
    for (const [name, plugin, pod, events, moves] of table) {
      it(`${name} → ${moves ? 'moves' : 'stays'}`, () => {
        const clock = new ManualClock(0);
        const queue = new SchedulingQueue({ clock, less: byPriority, queueingHints: defaultHints() });
        queue.add(pod.info);
        const popped = failOnce(queue, plugin);
        clock.advance(5000);
        for (const { event, oldObj, newObj } of events()) queue.onEvent(event, oldObj, newObj);
        assert.equal(queue.whereIs(popped.info.id), moves ? 'active' : 'unschedulable');
      });
    }
  });

  // upstream determineSchedulingHintForInFlightPod: the events seen while the pod was being
  // scheduled are replayed for it when it fails; one its rejecting plugin's hint queues sends it to
  // backoffQ, else it waits among the unschedulable pods.
  describe('replays the events that came during its cycle when a pod fails', () => {
    const table: Array<[name: string, event: () => { event: ClusterEvent; oldObj?: unknown; newObj?: unknown }, where: QueueName]> = [
      ['a node added that fits it: backoffQ', () => ({ event: EventNodeAdd, newObj: roomy().obj }), 'backoff'],
      [
        'a node added too small: unschedulable',
        () => ({ event: EventNodeAdd, newObj: makeNode('n').alloc({ cpu: '1', pods: '110' }).obj }),
        'unschedulable',
      ],
      ['a pending pod deleted: unschedulable', () => ({ event: EventAssignedPodDelete, oldObj: makePod('gone').obj }), 'unschedulable'],
    ];
    for (const [name, make, where] of table) {
      it(name, () => {
        const queue = new SchedulingQueue({ clock: new ManualClock(0), less: byPriority, queueingHints: defaultHints() });
        queue.add(makePod('p').req({ cpu: '2' }).info);
        const popped = queue.pop();
        assert.ok(popped);
        const { event, oldObj, newObj } = make();
        queue.onEvent(event, oldObj, newObj);
        queue.addUnschedulable(popped, new Set(['NodeResourcesFit']));
        assert.equal(queue.whereIs(popped.info.id), where);
      });
    }

    it('forgets the events of cycles that are over: a later failure does not replay them', () => {
      const queue = new SchedulingQueue({ clock: new ManualClock(0), less: byPriority, queueingHints: defaultHints() });
      queue.add(makePod('a').req({ cpu: '2' }).info);
      const a = queue.pop();
      assert.ok(a);
      queue.onEvent(EventNodeAdd, undefined, roomy().obj);
      queue.addUnschedulable(a, new Set(['NodeResourcesFit']));
      queue.add(makePod('b').req({ cpu: '2' }).info);
      const b = queue.pop();
      assert.equal(b?.info.pod.metadata.name, 'b');
      queue.addUnschedulable(b, new Set(['NodeResourcesFit']));
      assert.equal(queue.whereIs(b.info.id), 'unschedulable');
    });
  });

  // upstream handleSchedulingFailure: a pod no longer in the informer cache (deleted while it was
  // being scheduled or bound) is not added back; the queue, told of the deletion, no longer has it
  // in flight, and a failure reported for it afterwards leaves no trace.
  describe('drops the failure of a pod deleted while it was in flight', () => {
    const table: Array<[name: string, fail: (queue: SchedulingQueue, popped: QueuedPodInfo) => void]> = [
      ['rejected by plugins (addUnschedulable)', (queue, popped) => queue.addUnschedulable(popped, new Set(['NodeResourcesFit']))],
      ['failed with an error, e.g. its binding (addBackoff)', (queue, popped) => queue.addBackoff(popped)],
    ];
    for (const [name, fail] of table) {
      it(name, () => {
        const incoming: string[] = [];
        const clock = new ManualClock(0);
        const queue = new SchedulingQueue({ clock, less: byPriority, onIncoming: (q, e) => incoming.push(`${q}/${e}`) });
        queue.add(makePod('p').info);
        const popped = queue.pop();
        assert.ok(popped);
        queue.delete(popped.info.id);
        fail(queue, popped);
        assert.equal(queue.whereIs(popped.info.id), undefined);
        assert.deepEqual(queue.failureCounts(popped.info.id), { unschedulable: 0, errors: 0 });
        assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 0, gated: 0, inFlight: 0 });
        assert.deepEqual(incoming, ['active/UnscheduledPodAdd']);
      });
    }
  });

  // upstream moveEntitiesToActiveOrBackoffQueue, called by the flush only when it moves a pod:
  // UnschedulableTimeout is then recorded for the pods in flight (addEventIfAnyInFlight), and, a
  // wildcard, it requeues one that fails after its back-off.
  describe('records the 5-minute flush for the pods in flight when it moved one', () => {
    const table: Array<[name: string, waitingFailedAt: number, where: QueueName]> = [
      ["a pod flushed during r's cycle: r, rejected, goes to backoffQ", 0, 'backoff'],
      ['nothing flushed: r, rejected, waits among the unschedulable pods', 100_000, 'unschedulable'],
    ];
    for (const [name, waitingFailedAt, where] of table) {
      it(name, () => {
        const { clock, queue } = setup();
        clock.advance(waitingFailedAt);
        queue.add(makePod('waiting').info);
        failOnce(queue, 'TaintToleration');
        clock.advance(300_001 - waitingFailedAt);
        queue.add(makePod('r').info);
        const r = queue.pop();
        assert.equal(r?.info.pod.metadata.name, 'r');
        queue.flushUnschedulableLeftover();
        queue.addUnschedulable(r, new Set(['NodeResourcesFit']));
        assert.equal(queue.whereIs(r.info.id), where);
      });
    }
  });

  it('puts a moved pod still backing off into backoffQ, not activeQ', () => {
    const { clock, queue } = setup();
    queue.add(makePod('p').info);
    const popped = failOnce(queue, 'NodeResourcesFit');
    clock.advance(500);
    queue.add(makePod('q').info);
    queue.done(queue.pop()?.info.id ?? '');
    queue.onEvent(EventAssignedPodDelete, makePod('gone').node('n').obj);
    assert.equal(queue.whereIs(popped.info.id), 'backoff');
  });

  it('retries an unschedulable pod after more than 5 minutes even without an event, on the 30 s flush', () => {
    const { clock, queue } = setup();
    queue.start();
    queue.add(makePod('p').info);
    const popped = failOnce(queue, 'TaintToleration');
    clock.advance(300_000);
    assert.equal(queue.whereIs(popped.info.id), 'unschedulable', 'the flush at 5 minutes exactly leaves it');
    clock.advance(30_000);
    assert.equal(queue.whereIs(popped.info.id), 'active');
    queue.stop();
  });

  // upstream flushUnschedulableEntitiesLeftover: moved once currentTime.Sub(lastScheduleTime) >
  // podMaxInUnschedulablePodsDuration (strictly more), counting from its last flush when later.
  describe('flushes a pod unschedulable for more than the limit, not at the limit (flushUnschedulableEntitiesLeftover)', () => {
    const table: Array<[name: string, at: number, where: QueueName]> = [
      ['1 ms before the limit: stays', 299_999, 'unschedulable'],
      ['at the limit: stays', 300_000, 'unschedulable'],
      ['1 ms after the limit: moved', 300_001, 'active'],
    ];
    for (const [name, at, where] of table) {
      it(name, () => {
        const { clock, queue } = setup();
        queue.add(makePod('p').info);
        const popped = failOnce(queue, 'TaintToleration');
        clock.advance(at);
        queue.flushUnschedulableLeftover();
        assert.equal(queue.whereIs(popped.info.id), where);
      });
    }
  });

  // upstream PriorityQueue.Update → PodSchedulingPropertiesChange: each part of the pod's own update
  // that changed (TargetPod/UpdatePodLabel, …ScaleDown, …ScaleUp, …Toleration) is offered to the
  // hints of the plugins that rejected it; its status or annotations are the general Update, which
  // none of them registered.
  describe("moves an unschedulable pod on its own update only when a rejecting plugin's hint says so", () => {
    const table: Array<[name: string, plugin: string, updated: () => PodBuilder, moves: boolean]> = [
      ['NodeResourcesFit: requests lowered', 'NodeResourcesFit', () => makePod('p').req({ cpu: '500m' }), true],
      ['NodeResourcesFit: requests raised', 'NodeResourcesFit', () => makePod('p').req({ cpu: '2' }), false],
      ['NodeResourcesFit: labels', 'NodeResourcesFit', () => makePod('p').req({ cpu: '1' }).labels({ app: 'web' }), false],
      ['NodeResourcesFit: annotations', 'NodeResourcesFit', () => makePod('p').req({ cpu: '1' }).annotations({ note: 'x' }), false],
      ['NodeResourcesFit: nothing it reads (a status write)', 'NodeResourcesFit', () => makePod('p').req({ cpu: '1' }), false],
      [
        'TaintToleration: a toleration added',
        'TaintToleration',
        () => makePod('p').req({ cpu: '1' }).tolerate({ key: 'k', operator: 'Exists' }),
        true,
      ],
      [
        'NodeUnschedulable: a toleration added, not of the cordon',
        'NodeUnschedulable',
        () => makePod('p').req({ cpu: '1' }).tolerate({ key: 'k', operator: 'Exists' }),
        false,
      ],
      [
        "NodeUnschedulable: the cordon's toleration added",
        'NodeUnschedulable',
        () =>
          makePod('p').req({ cpu: '1' }).tolerate({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }),
        true,
      ],
    ];
    for (const [name, plugin, updated, moves] of table) {
      it(`${name} → ${moves ? 'moves' : 'stays'}`, () => {
        const queue = new SchedulingQueue({ clock: new ManualClock(0), less: byPriority, queueingHints: defaultHints() });
        queue.add(makePod('p').req({ cpu: '1' }).info);
        const popped = failOnce(queue, plugin);
        queue.update(updated().info);
        assert.equal(queue.whereIs(popped.info.id), moves ? 'backoff' : 'unschedulable');
      });
    }
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
      ...held((info) => created || info.pod.metadata.annotations?.['named'] === 'yes'),
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
    for (const event of [EventNodeAdd, EventAssignedPodDelete, CLAIM_ADDED]) queue.onEvent(event);
    assert.equal(queue.whereIs(b.id), 'gated');
    created = true;
    queue.onEvent(EventNodeAdd);
    assert.equal(queue.whereIs(b.id), 'gated');
    queue.onEvent(CLAIM_ADDED);
    assert.deepEqual([queue.whereIs(b.id), ready], ['active', 2]);
  });

  // upstream backoffQueue.add: the error heap (not popped early) takes an entity with no
  // unschedulable nor pending plugins; a PreEnqueue plugin that held it is one of its unschedulable
  // plugins (runPreEnqueuePlugins), so a pod held after an error and let in while backing off goes to
  // the heap pop takes from.
  describe('sends a pod to the error back-off heap only when no plugin rejected or held it', () => {
    const table: Array<[name: string, heldAfterError: boolean, popped: boolean]> = [
      ['an error: the error heap, not popped early', false, false],
      ['an error, then held at PreEnqueue and let in by its claim: popped at once', true, true],
    ];
    for (const [name, heldAfterError, popped] of table) {
      it(name, () => {
        const clock = new ManualClock(0);
        let found = true;
        const queue = new SchedulingQueue({ clock, less: byPriority, ...held(() => found) });
        queue.add(makePod('p').info);
        const p = queue.pop();
        assert.ok(p);
        found = !heldAfterError;
        queue.addBackoff(p);
        assert.equal(queue.whereIs(p.info.id), heldAfterError ? 'gated' : 'backoff');
        found = true;
        queue.onEvent(CLAIM_ADDED);
        assert.equal(queue.whereIs(p.info.id), 'backoff');
        assert.equal(queue.pop()?.info.id, popped ? p.info.id : undefined);
      });
    }
  });

  // upstream PriorityQueue.Activate / activate: from the unschedulable pods (PreEnqueue asked again)
  // or backoffQ to activeQ; a pod in flight has ForceActivate recorded for it alone.
  describe('activates one pod (ForceActivate)', () => {
    const table: Array<{ name: string; start: 'unschedulable' | 'held' | 'still held' | 'backoff' | 'inFlight'; after: QueueName }> = [
      { name: 'unschedulable: activeQ', start: 'unschedulable', after: 'active' },
      { name: 'held, now let in: activeQ', start: 'held', after: 'active' },
      { name: 'held, still held: stays held', start: 'still held', after: 'gated' },
      { name: 'backing off: activeQ at once', start: 'backoff', after: 'active' },
      { name: 'in flight, then rejected: backoffQ (not unschedulable)', start: 'inFlight', after: 'backoff' },
    ];
    for (const row of table) {
      it(row.name, () => {
        const clock = new ManualClock(0);
        let found = true;
        const queue = new SchedulingQueue({ clock, less: byPriority, ...held(() => found) });
        queue.add(makePod('other').info);
        failOnce(queue, 'NodeResourcesFit');
        queue.add(makePod('p').info);
        const p = queue.pop();
        assert.ok(p);
        if (row.start === 'inFlight') {
          queue.activate(p.info.id);
          queue.addUnschedulable(p, new Set(['NodeResourcesFit']));
        } else {
          found = row.start !== 'held' && row.start !== 'still held';
          // An event during its cycle sends it to backoffQ, where PreEnqueue runs on entry.
          if (row.start !== 'unschedulable') queue.onEvent(CLAIM_ADDED);
          queue.addUnschedulable(p, new Set([row.start === 'unschedulable' ? 'NodeResourcesFit' : 'DynamicResources']));
          assert.equal(
            queue.whereIs(p.info.id),
            { unschedulable: 'unschedulable', held: 'gated', 'still held': 'gated', backoff: 'backoff' }[row.start],
          );
          found = row.start !== 'still held';
          queue.activate(p.info.id);
        }
        assert.deepEqual([queue.whereIs(p.info.id), queue.whereIs('uid-default-other')], [row.after, 'unschedulable']);
      });
    }
  });

  it('runs the PreEnqueue plugins on every move into activeQ or backoffQ: a pod they hold now waits gated', () => {
    const clock = new ManualClock(0);
    let found = true;
    const queue = new SchedulingQueue({ clock, less: byPriority, ...held(() => found) });
    const a = makePod('a').info;
    const b = makePod('b').info;
    queue.add(a);
    queue.add(b);
    failOnce(queue, 'DynamicResources');
    const popped = queue.pop();
    assert.ok(popped);
    // Its claim is deleted meanwhile: a moved by an event and b failing with an error wait gated.
    found = false;
    queue.onEvent(CLAIM_ADDED);
    queue.addBackoff(popped);
    assert.deepEqual([queue.whereIs(a.id), queue.whereIs(b.id)], ['gated', 'gated']);
    // Let in while the back-off of their failed attempt (1 s, to the end of second 1) still runs: backoffQ, then activeQ.
    found = true;
    queue.onEvent(CLAIM_ADDED);
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
        const queue = new SchedulingQueue({ clock, less: byPriority, ...held(() => found) });
        const pod = makePod('p').info;
        queue.add(pod);
        // Its attempts, each failed, each retried once its back-off is over.
        for (let i = 1; i <= attempts; i++) {
          failOnce(queue, 'DynamicResources');
          if (i < attempts) {
            clock.advance(queue.backoffDuration(i) + 1_000);
            queue.onEvent(CLAIM_ADDED);
            assert.equal(queue.whereIs(pod.id), 'active');
          }
        }
        // Its claim deleted after the last failure: moved by an event, it is held.
        found = false;
        queue.onEvent(CLAIM_ADDED);
        assert.equal(queue.whereIs(pod.id), 'gated');
        const heldAt = clock.now();
        clock.advance(letInAfterMs);
        found = true;
        if (by === 'update') queue.update(makePod('p').annotations({ seen: 'yes' }).info);
        else queue.onEvent(CLAIM_ADDED);
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

  // upstream recordIncomingEntitiesMetrics: each move into a queue counts under the queue and the
  // event's label (scheduler_queue_incoming_pods_total); a pod left among the unschedulable ones by an
  // event its hints skip is not counted again.
  it('reports each pod entering a queue with the label of the event that moved it', () => {
    const clock = new ManualClock(0);
    const incoming: string[] = [];
    const queue = new SchedulingQueue({
      clock,
      less: byPriority,
      queueingHints: defaultHints(),
      initialBackoffMs: 8_000,
      maxBackoffMs: 16_000,
      onIncoming: (q, event) => incoming.push(`${q}/${event}`),
    });
    queue.start();
    queue.add(makePod('p').nodeSelector({ hint: 'sel' }).info);
    failOnce(queue, 'NodeAffinity');
    const node = makeNode('n').labels({ hint: 'other' });
    for (const { event, oldObj, newObj } of [
      ...nodeUpdate(node, makeNode('n').labels({ hint: 'other' }).annotations({ note: 'x' })),
      ...nodeUpdate(node, makeNode('n').labels({ hint: 'other', unrelated: 'yes' })),
    ])
      queue.onEvent(event, oldObj, newObj);
    assert.equal(queue.whereIs('uid-default-p'), 'unschedulable');
    for (const { event, oldObj, newObj } of nodeUpdate(node, makeNode('n').labels({ hint: 'sel' }))) queue.onEvent(event, oldObj, newObj);
    assert.equal(queue.pop()?.info.pod.metadata.name, 'p');
    // A gated pod: counted as unschedulable when added, and again when the 5-minute flush finds it still held.
    queue.add(makePod('g').gate('example.com/wait').info);
    clock.advance(300_000);
    clock.advance(30_000);
    assert.deepEqual(incoming, [
      'active/UnscheduledPodAdd',
      'unschedulable/ScheduleAttemptFailure',
      'backoff/NodeUpdateNodeLabel',
      'active/PopFromBackoffQ',
      'unschedulable/UnscheduledPodAdd',
      'unschedulable/UnschedulableTimeout',
    ]);
    queue.stop();
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
