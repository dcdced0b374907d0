import assert from 'node:assert/strict';
import { CLAIM_DEFAULTS, type ClaimsSnapshot, type SwapResult } from '../../../src/engine/claims';
import { type Claim, got, Harness, type SwapFault } from './harness';

/** A harness whose first listing has run. */
async function started(pods: readonly string[] = [], options: ConstructorParameters<typeof Harness>[1] = {}): Promise<Harness> {
  const h = new Harness(pods, options);
  await h.settle();
  return h;
}

function claims(h: Harness, n: number): Claim[] {
  return Array.from({ length: n }, () => h.claim());
}

/** Every accepted request is waiting, in flight, or answered: never two of these, never none. */
function assertAccounted(s: ClaimsSnapshot, all: readonly Claim[]): void {
  const answered = all.filter((c) => c.outcome).length;
  const accepted = all.filter((c) => c.accepted).length;
  assert.equal(s.queued + s.inFlight + answered, accepted, `queued ${s.queued} + in flight ${s.inFlight} + answered ${answered}`);
}

describe('engine/claims/scheduler', () => {
  describe('ready queue', () => {
    it('answers requests in arrival order with pods in the order they went idle', async () => {
      const h = await started(['a', 'b', 'c']);
      // b and a are used and recycled, b first: the earliest recycled goes first, after c.
      const first = claims(h, 2);
      await h.settle();
      assert.deepEqual(first.map(got), ['a', 'b']);
      h.pool.setPhase('b', 'Idle');
      h.clock.advance(1);
      h.pool.setPhase('a', 'Idle');
      h.scheduler.notifyIdle();
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      const next = claims(h, 3);
      await h.settle();
      assert.deepEqual(next.map(got), ['c', 'b', 'a']);
    });

    it('queues a pod once however often a listing repeats it', async () => {
      const h = await started(['a', 'b']);
      for (let i = 0; i < 3; i++) {
        h.scheduler.notifyIdle();
        await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      }
      assert.equal(h.target.listings.length, 4);
      assert.equal(h.snapshot().idleReady, 2);
      const all = claims(h, 3);
      await h.settle();
      assert.deepEqual(all.map(got), ['a', 'b', undefined]);
      assert.deepEqual(
        h.target.swaps.map((s) => s.pod.uid),
        ['a', 'b'],
      );
    });
  });

  describe('reservations', () => {
    it('keeps a claimed pod out of a stale listing for the TTL, then lets the swap decide', async () => {
      const h = await started(['a']);
      const stale = h.pool.get('a');
      assert.ok(stale);
      const [first] = claims(h, 1);
      await h.settle();
      assert.equal(first && got(first), 'a');
      h.target.staleListing = [stale]; // the cache still shows a Idle at its old version
      const second = h.claim();
      h.scheduler.notifyIdle();
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      assert.deepEqual(h.target.swapsOf(second.id), [], 'not handed out again within the TTL');
      assert.equal(h.snapshot().reserved, 1);

      await h.advance(CLAIM_DEFAULTS.reservationTtlMs);
      assert.equal(h.snapshot().reserved, 0, 'expired');
      h.scheduler.notifyIdle();
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      // Past the TTL the stale entry is tried; the pool says the pod is no longer Idle.
      assert.deepEqual(h.target.swapsOf(second.id), ['a']);
      assert.equal(second.outcome, undefined, 'still waiting');
      assert.equal(h.snapshot().conflicts, 1);
    });
  });

  describe('poll back-off', () => {
    // Listing times in seconds over the first 1000 s; a request enqueued at 0 lists at once.
    const cases: Array<{ name: string; pods: string[]; listings: number[] }> = [
      { name: 'polls an empty pool at 10 s, 20 s, 40 s … up to 5 min', pods: [], listings: [0, 0, 10, 30, 70, 150, 310, 610, 910] },
      {
        name: 'polls every 10 s while pods are idle',
        pods: ['a', 'b'],
        listings: [0, ...Array.from({ length: 100 }, (_, i) => (i + 1) * 10)],
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const h = await started(c.pods);
        h.claim();
        await h.advance(1_000_000, 1_000);
        assert.deepEqual(
          h.target.listings.map((t) => Math.floor(t / 1_000)),
          c.listings,
        );
      });
    }

    it('starts over when a request arrives: lists at once, then 10 s, 20 s … later', async () => {
      const h = await started([]);
      h.claim();
      await h.advance(1_000_000, 1_000); // polled at 610 s and 910 s; the next would be at 1210 s
      h.claim();
      await h.advance(30_000, 1_000);
      assert.deepEqual(
        h.target.listings.slice(-3),
        [1000, 1010, 1030].map((t) => t * 1_000),
      );
    });

    it('reports a failing listing, keeps polling on the back-off, and raises no scale-up for it', async () => {
      const h = await started([]);
      h.target.listingError = 'the server is currently unable to handle the request';
      h.claim();
      await h.advance(30_000, 1_000);
      assert.deepEqual(h.target.listings, [0, 0, 10_000, 30_000]);
      assert.equal(h.snapshot().lastListError, 'the server is currently unable to handle the request');
      assert.deepEqual(h.scaleUps, []);
      h.target.listingError = undefined;
      h.pool.add('a');
      await h.advance(40_000, 1_000);
      assert.deepEqual([h.snapshot().lastListError, h.snapshot().claimed], [undefined, 1]);
    });

    it('starts over on an idle notice, and a conflict lists again at once', async () => {
      const h = await started([]);
      h.claim();
      await h.advance(700_000, 1_000); // backed off to 5 min: polled at 610 s, next at 910 s
      h.scheduler.notifyIdle();
      await h.advance(11_000, 100);
      assert.deepEqual(h.target.listings.slice(-2), [700_200, 710_200], 'the delayed refresh, then a poll 10 s after it');

      // The next poll (20 s on) finds a pod whose swap conflicts: the request is parked and the
      // pool listed again at once, which finds the pod at its new version.
      h.pool.add('a');
      h.target.faults.set('a', 'touch');
      await h.advance(20_000, 100);
      assert.deepEqual(h.target.listings.slice(-2), [730_200, 730_200]);
      assert.deepEqual([h.snapshot().claimed, h.snapshot().conflicts], [1, 1]);
    });
  });

  describe('idle notices', () => {
    it('refreshes 200 ms after a notice, once for a burst of notices', async () => {
      const h = await started(['a']);
      const [first, second] = claims(h, 2);
      await h.settle();
      assert.equal(first && got(first), 'a');
      const listed = h.target.listings.length;
      h.pool.setPhase('a', 'Idle');
      for (let i = 0; i < 5; i++) {
        h.scheduler.notifyIdle();
        await h.advance(20);
      }
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs - 101);
      assert.equal(h.target.listings.length, listed, 'not before 200 ms');
      assert.equal(second?.outcome, undefined);
      await h.advance(1);
      assert.equal(second && got(second), 'a');
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      assert.equal(h.target.listings.length, listed + 1, 'one refresh for five notices');
    });

    it('lists again after a listing that was already out when a refresh was asked for', async () => {
      const h = await started([]);
      const claim = h.claim(); // lists: the pool is empty at that moment
      h.target.holdListings = true;
      await h.advance(CLAIM_DEFAULTS.pollMinMs); // the poll's listing is held, showing an empty pool
      h.pool.add('a');
      h.scheduler.notifyIdle();
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      assert.equal(h.target.listings.length, 3, 'one listing at a time');
      h.target.holdListings = false;
      h.target.release();
      await h.settle();
      assert.equal(h.target.listings.length, 4);
      assert.equal(got(claim), 'a');
    });
  });

  describe('scale-up signal', () => {
    it('is raised once per burst of starved requests', async () => {
      const h = await started([]);
      claims(h, 5);
      await h.advance(600_000, 1_000);
      assert.deepEqual(h.scaleUps, [{ pool: 'warm', waiting: 5 }]);
      assert.equal(h.snapshot().scaleUpSignalled, true);

      for (const uid of ['a', 'b', 'c', 'd', 'e']) h.pool.add(uid);
      h.scheduler.notifyIdle();
      await h.advance(CLAIM_DEFAULTS.idleRefreshDelayMs);
      assert.equal(h.snapshot().scaleUpSignalled, false, 'the burst is served');

      claims(h, 2);
      await h.advance(60_000, 1_000);
      assert.deepEqual(h.scaleUps, [
        { pool: 'warm', waiting: 5 },
        { pool: 'warm', waiting: 2 },
      ]);
    });
  });

  describe('snapshot', () => {
    it('accounts for every request at every step, also mid-dispatch and across a conflict', async () => {
      const h = await started(['a', 'b', 'c']);
      const seen: Array<[number, number]> = [];
      h.target.duringSwap = () => seen.push([h.snapshot().queued, h.snapshot().inFlight]);
      h.target.faults.set('b', 'touch');
      h.target.holdSwaps = true;
      const all = claims(h, 5);
      assertAccounted(h.snapshot(), all);
      assert.deepEqual(
        seen,
        [
          [0, 1],
          [0, 2],
          [0, 3],
        ],
        'a request counts as in flight, not queued, from the moment its swap starts',
      );
      assert.deepEqual(h.snapshot(), {
        pool: 'warm',
        idleReady: 0,
        queued: 2,
        reserved: 3,
        inFlight: 3,
        lastDispatchAt: h.clock.now(),
        scaleUpSignalled: false,
        stopped: false,
        claimed: 0,
        conflicts: 0,
        lastListError: undefined,
      });
      h.target.holdSwaps = false;
      h.target.release();
      await h.settle();
      assertAccounted(h.snapshot(), all);
      assert.deepEqual(all.map(got), ['a', 'b', 'c', undefined, undefined], 'b conflicted once and was claimed at its new version');
      assert.deepEqual(
        { claimed: h.snapshot().claimed, conflicts: h.snapshot().conflicts, queued: h.snapshot().queued },
        { claimed: 3, conflicts: 1, queued: 2 },
      );
    });
  });

  describe('deadlines and cancellation', () => {
    type When = 'waiting' | 'at enqueue' | 'in flight';
    const cases: Array<{ name: string; stop: 'cancel' | 'deadline'; when: When; swap?: SwapFault; want: string; dispatched: boolean }> = [
      { name: 'a waiting request is answered at its deadline', stop: 'deadline', when: 'waiting', want: 'deadline', dispatched: false },
      { name: 'a waiting request is answered when cancelled', stop: 'cancel', when: 'waiting', want: 'cancelled', dispatched: false },
      {
        name: 'a request cancelled before it is enqueued is answered at once',
        stop: 'cancel',
        when: 'at enqueue',
        want: 'cancelled',
        dispatched: false,
      },
      {
        name: 'a request past its deadline when enqueued is answered at once',
        stop: 'deadline',
        when: 'at enqueue',
        want: 'deadline',
        dispatched: false,
      },
      {
        name: 'a request cancelled during its swap still gets the pod it was swapped',
        stop: 'cancel',
        when: 'in flight',
        want: 'a',
        dispatched: true,
      },
      {
        name: 'a request cancelled during a swap that conflicts is not requeued',
        stop: 'cancel',
        when: 'in flight',
        swap: 'touch',
        want: 'cancelled',
        dispatched: true,
      },
      {
        name: 'a request whose deadline passes during a swap that conflicts is not requeued',
        stop: 'deadline',
        when: 'in flight',
        swap: 'touch',
        want: 'deadline',
        dispatched: true,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const h = await started(c.when === 'waiting' ? [] : ['a']);
        const abort = new AbortController();
        if (c.when === 'at enqueue') abort.abort();
        if (c.swap) h.target.faults.set('a', c.swap);
        h.target.holdSwaps = c.when === 'in flight';
        const deadline = c.stop === 'deadline' ? h.clock.now() + (c.when === 'at enqueue' ? 0 : 500) : undefined;
        const claim = h.claim(c.stop === 'cancel' ? { signal: abort.signal } : { deadline });
        assert.equal(claim.accepted, true);
        await h.advance(100);
        if (c.stop === 'cancel') abort.abort();
        await h.advance(c.stop === 'deadline' ? 400 : 0);
        h.target.release();
        await h.settle();
        assert.equal(got(claim), c.want);
        assert.equal(h.target.swapsOf(claim.id).length > 0, c.dispatched);
        if (c.when === 'waiting') assert.equal(claim.answeredAt, 100 + (c.stop === 'deadline' ? 400 : 0), 'answered when it happened');
        assert.equal(h.snapshot().queued, 0);
      });
    }
  });

  describe('swap outcomes', () => {
    const conflict: SwapResult = { kind: 'conflict', message: 'the object has been modified' };
    const notIdle: SwapResult = { kind: 'unexpectedPhase', phase: 'Running', message: 'pod a is Running' };
    const broken: SwapResult = { kind: 'error', message: 'admission webhook denied the request' };
    // `wait`: time to let pass before the answer is checked.
    const cases: Array<{ name: string; fault: SwapFault; wait?: number; want: string; reserved: number; message?: RegExp }> = [
      {
        name: 'a version conflict requeues the request, which gets the pod at its new version at once',
        fault: 'touch',
        want: 'a',
        reserved: 1,
      },
      {
        name: 'a conflict the listing does not show yet blocks that version until the TTL, then the next poll claims it',
        fault: conflict,
        wait: CLAIM_DEFAULTS.pollMinMs,
        want: 'a',
        reserved: 1,
      },
      { name: 'an unexpected phase requeues the request, which gets another pod', fault: notIdle, want: 'b', reserved: 2 },
      {
        name: 'a hard error fails the request and releases the reservation',
        fault: broken,
        want: 'failed',
        reserved: 0,
        message: /claiming pod a for r1 failed: admission webhook/,
      },
      { name: 'a swap that throws is a hard error too', fault: 'throw', want: 'failed', reserved: 0, message: /connection reset/ },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const h = await started(['a', ...(c.fault === notIdle ? ['b'] : [])]);
        h.target.faults.set('a', c.fault);
        const claim = h.claim();
        await h.settle();
        if (c.wait) {
          assert.equal(claim.outcome, undefined);
          await h.advance(c.wait, 100);
        }
        assert.equal(got(claim), c.want);
        assert.equal(h.snapshot().reserved, c.reserved);
        if (c.message) assert.match(claim.outcome?.ok === false ? claim.outcome.error.message : '', c.message);
        if (c.want === 'failed') {
          // The pod was never taken: the next request gets it after a refresh.
          const next = h.claim();
          await h.settle();
          assert.equal(got(next), 'a');
        }
      });
    }

    it('serves a request parked after a conflict before newer ones', async () => {
      const h = await started(['a']);
      h.target.faults.set('a', 'touch');
      h.target.holdSwaps = true;
      const first = h.claim();
      const second = h.claim();
      h.target.holdSwaps = false;
      h.target.release();
      await h.settle();
      assert.deepEqual([got(first), got(second)], ['a', undefined]);
    });

    it('writes the claimer options on the pod it hands out', async () => {
      const h = await started(['a']);
      const claim = h.claim({ options: { images: ['app:2'], labels: { team: 'x' }, annotations: { note: 'y' } } });
      await h.settle();
      assert.ok(claim.outcome?.ok);
      const pod = claim.outcome.value;
      assert.deepEqual(
        [pod.phase, pod.targetPhase, pod.images, pod.labels, pod.annotations],
        ['Starting', 'Running', ['app:2'], { team: 'x' }, { note: 'y' }],
      );
      assert.deepEqual(h.pool.get('a'), pod);
    });
  });

  describe('back-pressure and limits', () => {
    it('refuses requests beyond capacity without answering them, and takes them again once there is room', async () => {
      const h = await started([], { capacity: 2 });
      const abort = new AbortController();
      const [first, second, third] = [h.claim({ signal: abort.signal }), h.claim(), h.claim()];
      assert.deepEqual([first.accepted, second.accepted, third.accepted], [true, true, false]);
      await h.settle();
      assert.equal(third.outcome, undefined);
      abort.abort();
      assert.equal(h.claim().accepted, true);
    });

    it('refuses a request that is still pending (a programming error)', () => {
      const h = new Harness(['a']);
      const request = { id: 'x', reply: () => undefined };
      assert.equal(h.scheduler.enqueue(request), true);
      assert.throws(() => h.scheduler.enqueue(request), /enqueued twice/);
    });

    it('keeps at most maxInFlight swaps in flight', async () => {
      const uids = Array.from({ length: 200 }, (_, i) => `p${i}`);
      const h = await started(uids);
      h.target.holdSwaps = true;
      const all = claims(h, 200);
      assert.deepEqual([h.snapshot().inFlight, h.snapshot().queued], [CLAIM_DEFAULTS.maxInFlight, 200 - CLAIM_DEFAULTS.maxInFlight]);
      h.target.holdSwaps = false;
      h.target.release();
      await h.settle();
      assert.deepEqual(all.map(got), uids);
    });
  });

  describe('shutdown', () => {
    it('answers waiting requests, lets swaps in flight finish, answers late enqueues, and leaves no timer', async () => {
      const h = await started(['a']);
      h.target.holdSwaps = true;
      const deadline = h.clock.now() + 60_000;
      const [inFlight, waiting] = [h.claim({ deadline }), h.claim({ deadline })];
      let done = false;
      const stopped = h.scheduler.shutdown().then(() => (done = true));
      assert.equal(got(waiting), 'shutdown', 'answered before shutdown returns');
      const late = h.claim();
      assert.deepEqual([late.accepted, got(late)], [true, 'shutdown']);
      await h.settle();
      assert.equal(done, false, 'waits for the swap in flight');
      h.target.release();
      await stopped;
      assert.equal(got(inFlight), 'a');
      assert.equal(h.snapshot().stopped, true);
      assert.equal(h.clock.pendingTimers, 0);
    });

    it('gives up on a swap that never settles after the grace time', async () => {
      const h = await started(['a']);
      h.target.holdSwaps = true;
      const claim = h.claim();
      let done = false;
      const stopped = h.scheduler.shutdown().then(() => (done = true));
      await h.advance(CLAIM_DEFAULTS.shutdownGraceMs - 1);
      assert.equal(done, false);
      await h.advance(1);
      await stopped;
      assert.equal(got(claim), 'shutdown');
      assert.match(claim.outcome?.ok === false ? claim.outcome.error.message : '', /may be left Starting/);
      h.target.release(); // the late result is ignored
      await h.settle();
      assert.equal(got(claim), 'shutdown');
    });
  });
});
