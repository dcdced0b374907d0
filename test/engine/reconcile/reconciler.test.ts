import assert from 'node:assert/strict';
import { blocked, DrainLevel, failed, Reconciler, type Dispatcher } from '../../../src/engine/reconcile/reconciler';
import { fixture, flush, randomDag, settlesWithin, summary, type Table } from './fake';

describe('engine/reconcile/reconciler', () => {
  describe('runs every node to a fixpoint; what can never proceed ends with a clear status', () => {
    const table: Array<{ name: string; graph: Table; seed?: string[]; expect: Record<string, string> }> = [
      {
        name: 'a chain seeded dependents first: each parks, then runs again when its dependency is ready',
        graph: { a: ['b'], b: ['c'], c: [] },
        expect: { a: 'ready', b: 'ready', c: 'ready' },
      },
      {
        name: 'a diamond',
        graph: { top: ['left', 'right'], left: ['base'], right: ['base'], base: [] },
        expect: { top: 'ready', left: 'ready', right: 'ready', base: 'ready' },
      },
      {
        name: 'a missing dependency fails leaf first, each level carrying the message of the one below',
        graph: { a: ['b'], b: ['c'] },
        expect: { a: 'failed: dependency failed: b: dependency not found: c', b: 'failed: dependency not found: c' },
      },
      {
        name: 'a dependency that ends not ready fails its dependents as not ready (Force)',
        graph: { a: ['b'], b: { ready: false }, c: ['a'] },
        expect: { a: 'failed: dependency not ready: b', b: 'not ready', c: 'failed: dependency failed: a: dependency not ready: b' },
      },
      {
        name: 'a two-node cycle is broken by Force and named from each side',
        graph: { a: ['b'], b: ['a'] },
        expect: { a: 'failed: dependency cycle: a → b → a', b: 'failed: dependency cycle: b → a → b' },
      },
      {
        name: 'a three-node cycle is named; a node waiting on it fails with the cycle as its reason',
        graph: { a: ['b'], b: ['c'], c: ['a'], d: ['a'], e: [] },
        expect: {
          a: 'failed: dependency cycle: a → b → c → a',
          b: 'failed: dependency cycle: b → c → a → b',
          c: 'failed: dependency cycle: c → a → b → c',
          d: 'failed: dependency failed: a: dependency cycle: a → b → c → a',
          e: 'ready',
        },
      },
      {
        name: 'a node that waits on itself',
        graph: { a: ['a'] },
        expect: { a: 'failed: dependency cycle: a → a' },
      },
      {
        name: 'a body that throws fails its node with its message, and its dependents after it',
        graph: { a: ['b'], b: { throws: 'boom' } },
        expect: { a: 'failed: dependency failed: b: boom', b: 'failed: boom' },
      },
      {
        name: 'a missing dependency and a cycle in one graph, with healthy nodes beside them',
        graph: { app: ['db', 'cache'], db: [], cache: ['queue'], queue: ['cache'], web: ['app'], docs: ['ghost'] },
        expect: {
          app: 'failed: dependency failed: cache: dependency cycle: cache → queue → cache',
          db: 'ready',
          cache: 'failed: dependency cycle: cache → queue → cache',
          queue: 'failed: dependency cycle: queue → cache → queue',
          web: 'failed: dependency failed: app: dependency failed: cache: dependency cycle: cache → queue → cache',
          docs: 'failed: dependency not found: ghost',
        },
      },
    ];
    for (const { name, graph, seed, expect } of table) {
      for (const poolSize of [1, 3]) {
        it(`${name} (pool of ${poolSize})`, async () => {
          const { reconciler } = fixture(graph, { poolSize, ...(seed ? { seed } : {}) });
          assert.deepEqual(await reconciler.run(), { aborted: false, complete: true });
          assert.deepEqual(summary(reconciler), expect);
        });
      }
    }
  });

  it('dispatches in seed order, ignores duplicates, and re-runs a parked node once per advance', async () => {
    const { fake, reconciler } = fixture({ a: ['b'], b: ['c'], c: [] }, { poolSize: 1, seed: ['a', 'b', 'a', 'c', 'b'] });
    await reconciler.run();
    assert.deepEqual(
      fake.calls.map(([id]) => id),
      ['a', 'b', 'c', 'b', 'a'],
    );
    assert.deepEqual(
      fake.calls.map(([, level]) => level),
      Array(5).fill(DrainLevel.None),
    );
    const counters = reconciler.counters();
    assert.deepEqual([counters.parks, counters.wakes, counters.cascadePasses, counters.forcePasses], [2, 2, 0, 0]);
  });

  it('does not trust a Blocked answer about a dependency that advanced while the body ran: it runs again', async () => {
    const { fake, reconciler } = fixture({ a: { needs: ['b'], gated: true }, b: [] });
    const run = reconciler.run();
    await flush();
    assert.equal(reconciler.status('b')?.ready, true, 'b ended ready after a looked for it');
    fake.open('a');
    await run;
    assert.deepEqual(summary(reconciler), { a: 'ready', b: 'ready' });
    assert.deepEqual(
      fake.calls.map(([id]) => id),
      ['a', 'b', 'a'],
    );
  });

  it('replays: the same graph and seed order give the same dispatches', async () => {
    const dag = randomDag(300, 11);
    const calls = async () => {
      const { fake, reconciler } = fixture(dag.table, { poolSize: 4, seed: dag.order });
      await reconciler.run();
      return fake.calls;
    };
    assert.deepEqual(await calls(), await calls());
  });

  it('reports why a node is parked while it waits', async () => {
    const { fake, reconciler } = fixture({ a: ['b', 'c'], c: [], gate: { gated: true } }, { seed: ['a', 'gate'] });
    const run = reconciler.run();
    await flush();
    assert.deepEqual(reconciler.status('a'), { id: 'a', state: 'parked', ready: false, failed: false, waitingOn: ['b', 'c'] });
    assert.equal(reconciler.status('c'), undefined, 'a dependency is not a node until it arrives');
    fake.open('gate');
    await run;
  });

  describe('runs bodies on a bounded pool, and parked nodes hold no slot', () => {
    for (const poolSize of [1, 2, 5]) {
      it(`never more than ${poolSize} in flight, and the pool fills`, async () => {
        const independent = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${i}`, []]));
        const { fake, reconciler } = fixture(independent, { poolSize, hops: 3 });
        await reconciler.run();
        assert.equal(fake.maxInFlight, poolSize);
        assert.equal(reconciler.counters().maxInFlight, poolSize);
      });
    }

    it('a pool of one finishes a chain of 50 seeded dependents first', async () => {
      const chain = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`n${i}`, i === 49 ? [] : [`n${i + 1}`]]));
      const { fake, reconciler } = fixture(chain, { poolSize: 1 });
      await reconciler.run();
      assert.equal(fake.maxInFlight, 1);
      assert.equal(reconciler.counters().ready, 50);
    });

    it('a random DAG of 500 nodes on a pool of 4', async () => {
      const dag = randomDag(500, 7);
      const { fake, reconciler } = fixture(dag.table, { poolSize: 4, seed: dag.order, hops: 5 });
      await reconciler.run();
      assert.equal(fake.maxInFlight, 4);
      assert.equal(reconciler.counters().ready, 500);
    });
  });

  describe('events while it runs', () => {
    it('a late arrival unblocks the nodes parked on it', async () => {
      const { fake, reconciler } = fixture({ a: ['b'], b: [], gate: { gated: true } }, { seed: ['a', 'gate'] });
      const run = reconciler.run();
      await flush();
      assert.equal(reconciler.status('a')?.state, 'parked');
      reconciler.onArrival('b', true);
      await flush();
      assert.deepEqual(summary(reconciler), { a: 'ready', gate: 'running', b: 'ready' });
      fake.open('gate');
      await run;
    });

    it('a data arrival wakes the nodes parked on it without becoming a node', async () => {
      const { fake, reconciler } = fixture({ trigger: ['profile/default'], other: [], gate: { gated: true } });
      const run = reconciler.run();
      await flush();
      assert.equal(reconciler.status('trigger')?.state, 'parked');
      fake.satisfied.add('profile/default');
      reconciler.onArrival('profile/default', false);
      await flush();
      assert.equal(reconciler.status('trigger')?.ready, true);
      assert.equal(reconciler.status('profile/default'), undefined);
      assert.equal(fake.runs('other'), 1, 'nodes not waiting on it do not run again');
      fake.open('gate');
      await run;
      assert.equal(fake.runs('profile/default'), 0);
    });

    it('data that arrived counts as present at the fixpoint: a node still waiting on it is not ready, not "not found"', async () => {
      const { reconciler } = fixture({ trigger: ['profile/default'] });
      reconciler.onArrival('profile/default', false);
      await reconciler.run();
      assert.deepEqual(summary(reconciler), { trigger: 'failed: dependency not ready: profile/default' });
    });

    it('a changed terminal node runs again; its ready dependents do not', async () => {
      const { fake, reconciler } = fixture({ a: ['b'], b: [] });
      await reconciler.run();
      reconciler.onArrival('b', true);
      assert.equal(reconciler.status('b')?.state, 'queued');
      await reconciler.run();
      assert.deepEqual([fake.runs('a'), fake.runs('b')], [2, 2]);
      assert.deepEqual(summary(reconciler), { a: 'ready', b: 'ready' });
    });

    it('a status wake acts only on a terminal status, and wakes the nodes parked on it', async () => {
      const { fake, reconciler } = fixture({ app: ['db'], db: { ready: false }, gate: { gated: true } });
      const run = reconciler.run();
      await flush();
      assert.deepEqual(summary(reconciler), { app: 'parked', db: 'not ready', gate: 'running' });
      const runs = fake.runs('app');
      reconciler.onStatusWake('db', false, false);
      await flush();
      assert.equal(fake.runs('app'), runs, 'a non-terminal status is ignored');
      fake.satisfied.add('db');
      reconciler.onStatusWake('db', true, false);
      await flush();
      assert.deepEqual(summary(reconciler), { app: 'ready', db: 'ready', gate: 'running' });
      fake.open('gate');
      await run;
    });

    it('a delete terminalizes a node whose body is in flight, disregards that body, and wakes its waiters', async () => {
      // db's body would end not ready: its outcome must not count either way.
      const { fake, reconciler } = fixture({ app: ['db'], db: { gated: true, ready: false } });
      const run = reconciler.run();
      await fake.started('db');
      await flush();
      reconciler.onDelete('db');
      assert.deepEqual(reconciler.status('db'), { id: 'db', state: 'deleted', ready: false, failed: false, message: 'deleted' });
      fake.open('db');
      await run;
      assert.deepEqual(summary(reconciler), { app: 'failed: dependency not found: db', db: 'deleted' });
      assert.equal(fake.runs('app'), 3, 'parked, woken by the delete, failed by Cascade');
    });

    it('a deleted parked node does not run again', async () => {
      const { fake, reconciler } = fixture({ app: ['db'], db: { gated: true } });
      const run = reconciler.run();
      await flush();
      reconciler.onDelete('app');
      fake.open('db');
      await run;
      assert.deepEqual(summary(reconciler), { app: 'deleted', db: 'ready' });
      assert.equal(fake.runs('app'), 1);
    });

    for (const [event, fire] of [
      ['an arrival', (r: Reconciler) => r.onArrival('db', true)],
      ['a status wake', (r: Reconciler) => r.onStatusWake('db', true, false)],
    ] as const) {
      it(`${event} for a node whose body is in flight runs it again after that body, never alongside`, async () => {
        const { fake, reconciler } = fixture({ db: { gated: true } });
        const run = reconciler.run();
        await fake.started('db');
        fire(reconciler);
        fake.open('db');
        await run;
        assert.deepEqual([fake.runs('db'), fake.maxInFlight, summary(reconciler)], [2, 1, { db: 'ready' }]);
      });
    }

    it('a node deleted and back while its old body is in flight runs once more, after that body', async () => {
      const { fake, reconciler } = fixture({ db: { gated: true } });
      const run = reconciler.run();
      await fake.started('db');
      reconciler.onDelete('db');
      reconciler.onArrival('db', true);
      assert.equal(fake.inFlight, 1);
      fake.open('db');
      await run;
      assert.equal(fake.maxInFlight, 1, 'never two bodies of one node at once');
      assert.deepEqual([fake.runs('db'), summary(reconciler)], [2, { db: 'ready' }]);
    });

    it('a dependency that arrives after a drain failed its dependents takes the failure back', async () => {
      const { fake, reconciler } = fixture({ a: ['b'], b: ['c'], c: [] }, { seed: ['a', 'b'] });
      await reconciler.run();
      assert.deepEqual(summary(reconciler), {
        a: 'failed: dependency failed: b: dependency not found: c',
        b: 'failed: dependency not found: c',
      });
      reconciler.onArrival('c', true);
      await reconciler.run();
      assert.deepEqual(summary(reconciler), { a: 'ready', b: 'ready', c: 'ready' });
      assert.equal(fake.calls.at(-1)?.[1], DrainLevel.None);
    });

    it('nodes chosen by setRerunAtDrain run again at the fixpoint, at the Cascade level', async () => {
      const { fake, reconciler } = fixture({ app: ['plan'], plan: { readyAtDrain: true } });
      reconciler.setRerunAtDrain((id) => id === 'plan');
      await reconciler.run();
      assert.deepEqual(summary(reconciler), { app: 'ready', plan: 'ready' });
      assert.deepEqual(fake.calls, [
        ['app', DrainLevel.None],
        ['plan', DrainLevel.None],
        ['app', DrainLevel.None], // plan ended (not ready) while app's first body was in flight
        ['plan', DrainLevel.Cascade],
        ['app', DrainLevel.Cascade],
      ]);
      await reconciler.run();
      assert.equal(fake.runs('plan'), 2, 'once per fixpoint, not again while nothing changed');
    });
  });

  describe('termination', () => {
    it('is structural: run() settles through microtasks alone, with no timer involved', async () => {
      const { reconciler } = fixture({ a: ['b'], b: ['a'], c: ['missing'], d: ['c'], e: [] });
      assert.equal(await settlesWithin(reconciler.run(), 500), true);
      assert.equal(reconciler.counters().queued + reconciler.counters().parked, 0);
    });

    it('an abort returns after the bodies in flight finish and starts nothing more; a later run goes on', async () => {
      const slow = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`n${i}`, { gated: true }]));
      const { fake, reconciler } = fixture(slow, { poolSize: 2 });
      const controller = new AbortController();
      const run = reconciler.run(controller.signal);
      await fake.started('n1');
      controller.abort();
      assert.equal(await settlesWithin(run, 100), false, 'still waiting for n0 and n1');
      fake.open('n0');
      fake.open('n1');
      assert.deepEqual(await run, { aborted: true, complete: false });
      assert.deepEqual(
        fake.calls.map(([id]) => id),
        ['n0', 'n1'],
      );
      assert.equal(reconciler.counters().queued, 4);
      for (let i = 2; i < 6; i++) fake.open(`n${i}`);
      assert.deepEqual(await reconciler.run(), { aborted: false, complete: true });
      assert.equal(reconciler.counters().ready, 6);
    });

    it('a body that throws synchronously or returns nothing fails its node; the run goes on', async () => {
      const dispatcher: Dispatcher = {
        dispatch(id) {
          if (id === 'sync') throw new Error('thrown before any promise');
          if (id === 'nothing') return Promise.resolve(undefined as never);
          if (id === 'string') return Promise.reject('rejected with a string');
          return Promise.resolve(id === 'after' ? blocked(['sync']) : failed('unused'));
        },
      };
      const reconciler = new Reconciler(dispatcher);
      reconciler.seed(['after', 'sync', 'nothing', 'string']);
      await reconciler.run();
      assert.deepEqual(summary(reconciler), {
        after: 'failed: dependency failed: sync: thrown before any promise',
        sync: 'failed: thrown before any promise',
        nothing: 'failed: reconcile body returned no outcome',
        string: 'failed: rejected with a string',
      });
      assert.equal(reconciler.counters().thrown, 2);
    });

    it('run() is not re-entrant', async () => {
      const { fake, reconciler } = fixture({ a: { gated: true } });
      const run = reconciler.run();
      await assert.rejects(reconciler.run(), /already running/);
      fake.open('a');
      await run;
    });

    it('a pool size that is not a whole number >= 1 is a programming error', () => {
      const { fake } = fixture({});
      for (const poolSize of [0, 1.5, -1]) assert.throws(() => new Reconciler(fake, { poolSize }), RangeError);
    });

    it('10,000 nodes in a random DAG, seeded in random order, all reach ready', async () => {
      const dag = randomDag(10_000, 2024);
      const { fake, reconciler } = fixture(dag.table, { poolSize: 16, seed: dag.order });
      assert.deepEqual(await reconciler.run(), { aborted: false, complete: true });
      const counters = reconciler.counters();
      assert.equal(counters.ready, 10_000);
      assert.deepEqual([counters.failed, counters.cascadePasses, counters.forcePasses], [0, 0, 0]);
      assert.ok(fake.maxInFlight <= 16);
      assert.ok(counters.dispatched <= 10_000 + dag.edges, 'at most one extra run per edge');
    });
  });
});
