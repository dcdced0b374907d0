import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer, type KubeObject, type TestApiServer } from './index';
import { clients, node, pod, until, type Clients } from './client';

interface Seen {
  readonly type: string;
  readonly name: string;
  readonly rv: number;
  readonly code?: number;
}

interface WatchRun {
  readonly events: Seen[];
  /** resolves with the `done` callback's error (null on a clean close) */
  readonly done: Promise<unknown>;
  readonly abort: () => void;
}

async function watch(kc: k8s.KubeConfig, path: string, params: Record<string, string | boolean | number>): Promise<WatchRun> {
  const events: Seen[] = [];
  let finish: (err: unknown) => void = () => undefined;
  const done = new Promise<unknown>((resolve) => (finish = resolve));
  const controller = await new k8s.Watch(kc).watch(
    path,
    params,
    (type, obj: KubeObject & { code?: number }) => {
      const seen: Seen = { type, name: obj.metadata?.name ?? '', rv: Number(obj.metadata?.resourceVersion ?? 0) };
      events.push(type === 'ERROR' ? { ...seen, code: obj.code } : seen);
    },
    (err) => finish(err),
  );
  return { events, done, abort: () => controller.abort() };
}

const POD = { apiVersion: 'v1', kind: 'Pod' };
const types = (run: WatchRun): string[] => run.events.map((e) => `${e.type} ${e.name}`);

describe('test/kube/apiserver: watch streams and informers', () => {
  let server: TestApiServer;
  let c: Clients;

  beforeEach(async () => {
    server = await startTestApiServer({ bookmarkIntervalMs: 0 });
    c = clients(server);
  });
  afterEach(() => server.close());

  describe('watch', () => {
    it('from a list resourceVersion: what changed after it, in order, with increasing resourceVersions', async () => {
      server.create(pod('before'));
      const rv = (await c.core.listNamespacedPod({ namespace: 'default' })).metadata?.resourceVersion ?? '';
      server.create(pod('a'));
      const run = await watch(c.kc, '/api/v1/namespaces/default/pods', { resourceVersion: rv });
      server.patch(POD, 'default', 'a', { metadata: { labels: { x: 'y' } } });
      server.delete(POD, 'default', 'a');
      await until(() => run.events.length === 3);
      run.abort();
      assert.deepEqual(types(run), ['ADDED a', 'MODIFIED a', 'DELETED a']);
      assert.ok(run.events.every((e, i) => i === 0 || e.rv > (run.events[i - 1] as Seen).rv));
    });

    it('without a resourceVersion: the current objects as ADDED, then changes', async () => {
      server.create(pod('a'), pod('b'));
      const run = await watch(c.kc, '/api/v1/pods', {});
      server.create(pod('c'));
      await until(() => run.events.length === 3);
      run.abort();
      assert.deepEqual(types(run), ['ADDED a', 'ADDED b', 'ADDED c']);
    });

    it('an object leaving a selector is DELETED for that watch, one entering it is ADDED', async () => {
      server.create(node('n1'), pod('p'), pod('q', { nodeName: 'n1' }));
      const unbound = await watch(c.kc, '/api/v1/pods', {
        fieldSelector: 'spec.nodeName=',
        resourceVersion: String(server.resourceVersion),
      });
      const bound = await watch(c.kc, '/api/v1/pods', {
        fieldSelector: 'spec.nodeName!=',
        resourceVersion: String(server.resourceVersion),
      });
      await c.core.createNamespacedPodBinding({
        namespace: 'default',
        name: 'p',
        body: { metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } },
      });
      await until(() => unbound.events.length === 1 && bound.events.length === 1);
      unbound.abort();
      bound.abort();
      assert.deepEqual([types(unbound), types(bound)], [['DELETED p'], ['ADDED p']]);
    });

    it('the legacy /watch/ path watches one object by name', async () => {
      server.create(pod('a'), pod('b'));
      const run = await watch(c.kc, '/api/v1/watch/namespaces/default/pods/b', {});
      server.patch(POD, 'default', 'a', { metadata: { labels: { x: 'y' } } });
      server.patch(POD, 'default', 'b', { metadata: { labels: { x: 'y' } } });
      await until(() => run.events.length === 2);
      run.abort();
      assert.deepEqual(types(run), ['ADDED b', 'MODIFIED b']);
    });

    it('allowWatchBookmarks: BOOKMARK events carry the current resourceVersion; other watches get none', async () => {
      const withBookmarks = await watch(c.kc, '/api/v1/pods', {
        allowWatchBookmarks: true,
        resourceVersion: String(server.resourceVersion),
      });
      const without = await watch(c.kc, '/api/v1/pods', { resourceVersion: String(server.resourceVersion) });
      server.create(node('n1'));
      server.sendBookmarks();
      server.create(pod('a'));
      await until(() => withBookmarks.events.length === 2 && without.events.length === 1);
      withBookmarks.abort();
      without.abort();
      assert.deepEqual(types(withBookmarks), ['BOOKMARK ', 'ADDED a']);
      assert.equal(withBookmarks.events[0]?.rv, (withBookmarks.events[1]?.rv ?? 0) - 1);
      assert.deepEqual(types(without), ['ADDED a']);
    });

    it('bookmarks come by themselves at the configured interval', async () => {
      const ticking = await startTestApiServer({ bookmarkIntervalMs: 20 });
      try {
        const run = await watch(clients(ticking).kc, '/api/v1/nodes', {
          allowWatchBookmarks: true,
          resourceVersion: String(ticking.resourceVersion),
        });
        await until(() => run.events.length >= 2);
        run.abort();
        assert.ok(run.events.every((e) => e.type === 'BOOKMARK'));
      } finally {
        await ticking.close();
      }
    });

    it('timeoutSeconds ends the watch cleanly', async () => {
      const run = await watch(c.kc, '/api/v1/pods', { timeoutSeconds: 1, resourceVersion: String(server.resourceVersion) });
      assert.equal(await run.done, null);
      assert.equal(server.openWatches, 0);
    });

    const gone: [string, (s: TestApiServer) => string][] = [
      [
        'after compaction, from an older resourceVersion',
        (s) => {
          const rv = String(s.resourceVersion);
          s.create(pod('a'));
          s.compact();
          return rv;
        },
      ],
      [
        'beyond the bounded history',
        (s) => {
          const rv = String(s.resourceVersion);
          s.setHistoryLimit(2);
          s.create(pod('a'), pod('b'), pod('c'));
          return rv;
        },
      ],
      [
        'when the next watch is set to fail',
        (s) => {
          s.setFaults({ goneOnNextWatches: 1 });
          return String(s.resourceVersion);
        },
      ],
    ];
    for (const [when, prepare] of gone) {
      it(`410 Gone ${when}: an ERROR event with an Expired Status, then a clean close`, async () => {
        const rv = prepare(server);
        const run = await watch(c.kc, '/api/v1/pods', { resourceVersion: rv });
        assert.equal(await run.done, null);
        assert.deepEqual(
          run.events.map((e) => [e.type, e.code]),
          [['ERROR', 410]],
        );
      });
    }

    it('a 410 for a too old resourceVersion names it and the oldest one kept', async () => {
      const rv = server.resourceVersion;
      server.create(pod('a'));
      server.compact();
      let status: Record<string, unknown> = {};
      await new k8s.Watch(c.kc).watch(
        '/api/v1/pods',
        { resourceVersion: String(rv) },
        (_t, obj: Record<string, unknown>) => (status = obj),
        () => undefined,
      );
      await until(() => status.kind === 'Status');
      assert.deepEqual([status.reason, status.message], ['Expired', `too old resource version: ${rv} (${server.resourceVersion})`]);
    });

    const drops: ['close' | 'reset', (err: unknown) => void][] = [
      ['close', (err) => assert.equal(err, null)],
      ['reset', (err) => assert.ok(err instanceof Error, `expected a connection error, got ${String(err)}`)],
    ];
    for (const [mode, check] of drops) {
      it(`dropWatchEvery=3 (${mode}): the stream ends after 3 events`, async () => {
        server.setFaults({ dropWatchEvery: 3, dropWatchMode: mode });
        const run = await watch(c.kc, '/api/v1/pods', { resourceVersion: String(server.resourceVersion) });
        for (const name of ['a', 'b', 'c', 'd']) server.create(pod(name));
        check(await run.done);
        assert.deepEqual(types(run), ['ADDED a', 'ADDED b', 'ADDED c']);
        assert.equal(server.counters.droppedWatches, 1);
      });
    }
  });

  describe('client-node informers', () => {
    function informer(): { inf: k8s.Informer<k8s.V1Pod> & k8s.ObjectCache<k8s.V1Pod>; errors: unknown[] } {
      const inf = k8s.makeInformer(c.kc, '/api/v1/pods', () => c.core.listPodForAllNamespaces());
      const errors: unknown[] = [];
      inf.on('error', (err) => errors.push(err));
      return { inf, errors };
    }
    const cached = (inf: k8s.ObjectCache<k8s.V1Pod>): string[] =>
      inf
        .list()
        .map((p) => p.metadata?.name ?? '')
        .sort();

    it('list then watch: the cache follows creates, updates and deletes', async () => {
      server.create(pod('a'));
      const { inf } = informer();
      const updates: string[] = [];
      inf.on('update', (p) => updates.push(`${p.metadata?.name}@${p.spec?.nodeName}`));
      await inf.start();
      server.create(node('n1'), pod('b'));
      await c.core.createNamespacedPodBinding({
        namespace: 'default',
        name: 'b',
        body: { metadata: { name: 'b' }, target: { kind: 'Node', name: 'n1' } },
      });
      server.delete(POD, 'default', 'a');
      await until(() => cached(inf).join() === 'b' && updates.length === 1);
      await inf.stop();
      assert.deepEqual(updates, ['b@n1']);
      assert.deepEqual([server.counters.request('list', 'pods'), server.counters.request('watch', 'pods')], [1, 1]);
    });

    it('relists after a 410 Gone and catches up with what it missed', async () => {
      server.create(pod('a'));
      const { inf, errors } = informer();
      await inf.start();
      // b is created and the history compacted while the informer is between two watches
      server.closeWatches();
      server.create(pod('b'));
      server.compact();
      await until(() => cached(inf).join() === 'a,b');
      assert.deepEqual(errors, []);
      await inf.stop();
      assert.equal(server.counters.request('list', 'pods'), 2);
    });

    it('a cleanly closed watch is resumed by the informer itself, losing nothing', async () => {
      const { inf, errors } = informer();
      await inf.start();
      server.setFaults({ dropWatchEvery: 3, dropWatchMode: 'close' });
      const all = Array.from({ length: 10 }, (_, i) => `p${i}`);
      for (const name of all) {
        server.create(pod(name));
        await until(() => inf.list().length > all.indexOf(name));
      }
      assert.deepEqual(errors, []);
      await inf.stop();
      assert.deepEqual(cached(inf), [...all].sort());
      assert.ok(server.counters.request('watch', 'pods') >= 4);
      assert.equal(server.counters.request('list', 'pods'), 1);
    });

    it('a reset connection stops the informer with an error; restarting it catches up', async () => {
      const { inf, errors } = informer();
      await inf.start();
      server.setFaults({ dropWatchEvery: 2, dropWatchMode: 'reset' });
      server.create(pod('a'), pod('b'), pod('c'));
      await until(() => errors.length === 1);
      server.clearFaults();
      server.create(pod('d'));
      await inf.start();
      await until(() => cached(inf).join() === 'a,b,c,d');
      await inf.stop();
    });
  });
});
