import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import { Backoff } from '../../../src/engine/claims/backoff';
import { Fifo } from '../../../src/engine/claims/fifo';
import { ReadyQueue } from '../../../src/engine/claims/ready-queue';
import { Reservations } from '../../../src/engine/claims/reservations';
import { type PoolPhase, type PoolPod } from '../../../src/engine/claims';

function pod(uid: string, resourceVersion = '1', more: { idleSince?: number; phase?: PoolPhase } = {}): PoolPod {
  return {
    uid,
    name: uid,
    resourceVersion,
    phase: more.phase ?? 'Idle',
    idleSince: more.idleSince,
    images: [],
    labels: {},
    annotations: {},
  };
}

function drain(queue: ReadyQueue): string[] {
  const out: string[] = [];
  for (let p = queue.take(); p; p = queue.take()) out.push(`${p.uid}@${p.resourceVersion}`);
  return out;
}

describe('engine/claims/ready-queue', () => {
  const never = (): boolean => false;
  const cases: Array<{ name: string; listings: PoolPod[][]; blocked?: string[]; want: string[] }> = [
    {
      name: 'hands out pods in the order they were first seen',
      listings: [
        [pod('a'), pod('b')],
        [pod('c'), pod('b'), pod('a')],
      ],
      want: ['a@1', 'b@1', 'c@1'],
    },
    {
      name: 'keeps one entry per UID, with the newest version, across refreshes',
      listings: [
        [pod('a'), pod('b')],
        [pod('b', '7'), pod('a'), pod('b', '7')],
      ],
      want: ['a@1', 'b@7'],
    },
    { name: 'drops pods a listing no longer shows', listings: [[pod('a'), pod('b')], [pod('b')]], want: ['b@1'] },
    {
      name: 'queues the new pods of one listing oldest idle first',
      listings: [[pod('x', '1', { idleSince: 30 }), pod('y', '1', { idleSince: 10 }), pod('z', '1', { idleSince: 20 })]],
      want: ['y@1', 'z@1', 'x@1'],
    },
    { name: 'skips pods that are not Idle', listings: [[pod('a', '1', { phase: 'Starting' }), pod('b')]], want: ['b@1'] },
    { name: 'skips blocked pods', listings: [[pod('a'), pod('b')]], blocked: ['a'], want: ['b@1'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const queue = new ReadyQueue();
      const blocked = c.blocked ? (p: PoolPod) => c.blocked?.includes(p.uid) ?? false : never;
      for (const listing of c.listings) queue.refresh(listing, blocked);
      assert.equal(queue.size, c.want.length);
      assert.deepEqual(drain(queue), c.want);
    });
  }
});

describe('engine/claims/reservations', () => {
  // TTL 2000 ms; the pod was handed to a swap at version 5 at t=0.
  const cases: Array<{ name: string; settle?: 'keep' | 'release'; at: number; listed: string; blocks: boolean }> = [
    { name: 'a swap in flight blocks any version', at: 10, listed: '9', blocks: true },
    { name: 'a swap in flight blocks past the TTL too', at: 9_000, listed: '5', blocks: true },
    { name: 'a settled swap blocks the stale version within the TTL', settle: 'keep', at: 1_999, listed: '5', blocks: true },
    { name: 'a settled swap blocks nothing after the TTL', settle: 'keep', at: 2_000, listed: '5', blocks: false },
    { name: 'a settled swap lets a newer version (recycled) through', settle: 'keep', at: 10, listed: '8', blocks: false },
    { name: 'a released reservation blocks nothing', settle: 'release', at: 0, listed: '5', blocks: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const clock = new ManualClock(0);
      const reservations = new Reservations(clock, 2_000);
      reservations.hold(pod('a', '5'));
      if (c.settle) reservations.settle('a', c.settle === 'keep');
      clock.advance(c.at);
      assert.equal(reservations.blocks(pod('a', c.listed)), c.blocks);
    });
  }

  it('counts a reservation until its TTL runs out from when the swap settled', () => {
    const clock = new ManualClock(0);
    const reservations = new Reservations(clock, 2_000);
    reservations.hold(pod('a'));
    reservations.hold(pod('b'));
    clock.advance(2_500);
    assert.equal(reservations.size, 2, 'in flight');
    reservations.settle('a', true);
    clock.advance(1_999);
    assert.equal(reservations.size, 2);
    clock.advance(1);
    assert.equal(reservations.size, 1);
    reservations.dispose();
    assert.equal(clock.pendingTimers, 0);
  });
});

describe('engine/claims/backoff', () => {
  it('doubles from min to max and starts over on reset', () => {
    const backoff = new Backoff(10_000, 300_000);
    const delays = Array.from({ length: 8 }, () => backoff.next());
    assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    backoff.reset();
    assert.equal(backoff.next(), 10_000);
  });
});

describe('engine/claims/fifo', () => {
  it('keeps order and removes from the middle in place', () => {
    const fifo = new Fifo<string>();
    const [, b] = ['a', 'b', 'c'].map((x) => fifo.push(x));
    assert.ok(b && fifo.remove(b));
    assert.equal(fifo.remove(b), false, 'already out');
    assert.equal(fifo.size, 2);
    assert.deepEqual([fifo.shift(), fifo.shift(), fifo.shift()], ['a', 'c', undefined]);
  });
});
