import assert from 'node:assert/strict';
import { ClusterMirror, Informer, KubeHttp, NODE, POD, SCHEDULE_TRIGGER, type InformerEvent, type KubeContext } from '../../src/kube';
import { systemClock } from '../../src/platform/clock';
import { startTestApiServer, type TestApiServer } from './apiserver';
import { contextOn, eventually, namespace, node, pod } from './support';

/** Short back-off so restarts happen within a test. */
const BACKOFF = { initialMs: 50, maxMs: 400 };

describe('kube/informer (list + watch, kept alive)', () => {
  let server: TestApiServer;
  let context: KubeContext;
  let informers: Array<{ stop(): Promise<void> }>;

  beforeEach(async () => {
    server = await startTestApiServer({ bookmarkIntervalMs: 0 });
    context = await contextOn(server);
    server.create(namespace('a'), namespace('b'));
    informers = [];
  });
  afterEach(async () => {
    for (const i of informers) await i.stop();
    await server.close();
  });

  function watchPods(options: { namespace?: string } = {}) {
    const events: InformerEvent[] = [];
    const errors: string[] = [];
    const informer = new Informer(new KubeHttp(context), {
      resource: POD,
      clock: systemClock,
      backoff: BACKOFF,
      onEvent: (e) => events.push(e),
      onError: (m) => errors.push(m),
      ...options,
    });
    informers.push(informer);
    const seen = () => events.map((e) => `${e.type} ${e.object.metadata.name}`);
    return { informer, events, errors, seen };
  }

  it('lists, reports synced, then streams add/update/delete as typed events', async () => {
    server.create(pod('p1', { namespace: 'a' }));
    const { informer, seen, events } = watchPods();
    await informer.start();
    await informer.synced;
    assert.deepEqual(seen(), ['add p1']);
    assert.equal(events[0]?.resource, POD);
    assert.equal(events[0]?.object.kind, 'Pod');
    server.create(pod('p2', { namespace: 'a' }));
    const p1 = server.get({ apiVersion: 'v1', kind: 'Pod' }, 'a', 'p1')!;
    server.update({ ...p1, metadata: { ...p1.metadata, labels: { moved: 'yes' } } });
    server.delete({ apiVersion: 'v1', kind: 'Pod' }, 'a', 'p2');
    await eventually(() => seen().length === 4, 'four events');
    assert.deepEqual(seen(), ['add p1', 'add p2', 'update p1', 'delete p2']);
    assert.deepEqual(
      informer.list().map((o) => o.metadata.name),
      ['p1'],
    );
  });

  it('lists and watches with the same label and field selectors', async () => {
    server.create(
      pod('mine', { namespace: 'a', schedulerName: 'podplan', labels: { team: 'x' } }),
      pod('theirs', { namespace: 'a', labels: { team: 'x' } }),
      pod('other-team', { namespace: 'a', schedulerName: 'podplan', labels: { team: 'y' } }),
    );
    const events: InformerEvent[] = [];
    const informer = new Informer(new KubeHttp(context), {
      resource: POD,
      clock: systemClock,
      labelSelector: 'team=x',
      fieldSelector: 'spec.schedulerName=podplan',
      onEvent: (e) => events.push(e),
    });
    informers.push(informer);
    await informer.start();
    await informer.synced;
    server.create(
      pod('mine-too', { namespace: 'b', schedulerName: 'podplan', labels: { team: 'x' } }),
      pod('not-mine', { namespace: 'b', labels: { team: 'x' } }),
    );
    await eventually(() => events.length === 2, 'the second matching pod');
    assert.deepEqual(
      events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['add mine', 'add mine-too'],
    );
  });

  it('asks for bookmarks: its resourceVersion moves on with no event', async () => {
    const { informer, seen } = watchPods({ namespace: 'a' });
    await informer.start();
    await informer.synced;
    await eventually(() => server.openWatches > 0, 'the watch');
    server.create(pod('elsewhere', { namespace: 'b' }));
    const before = informer.resourceVersion;
    server.sendBookmarks();
    await eventually(() => informer.resourceVersion === String(server.resourceVersion), 'the bookmark');
    assert.notEqual(informer.resourceVersion, before);
    assert.deepEqual(seen(), []);
  });

  it('re-lists on 410 Gone and misses nothing', async () => {
    server.create(pod('p1', { namespace: 'a' }));
    const { informer, seen } = watchPods();
    await informer.start();
    await informer.synced;
    server.setFaults({ goneOnNextWatches: 1 });
    server.closeWatches();
    server.create(pod('p2', { namespace: 'a' }));
    await eventually(() => seen().includes('add p2'), 'p2 after the re-list');
    assert.equal(informer.lists, 2);
    assert.equal(informer.restarts, 0);
  });

  it('a watch closed cleanly is resumed by client-node itself', async () => {
    const { informer, seen } = watchPods();
    await informer.start();
    await informer.synced;
    server.setFaults({ dropWatchEvery: 2, dropWatchMode: 'close' });
    for (let i = 0; i < 6; i++) server.create(pod(`p${i}`, { namespace: 'a' }));
    await eventually(() => seen().length === 6, 'six adds');
    assert.equal(informer.restarts, 0);
  });

  it('a reset connection stops client-node’s informer: it is restarted after a back-off, and nothing is lost', async () => {
    const { informer, seen, errors } = watchPods();
    await informer.start();
    await informer.synced;
    server.setFaults({ dropWatchEvery: 3, dropWatchMode: 'reset' });
    for (let i = 0; i < 9; i++) server.create(pod(`p${i}`, { namespace: 'a' }));
    await eventually(() => new Set(seen()).size === 9 && informer.list().length === 9, 'all nine pods');
    assert.ok(informer.restarts >= 1, `restarts: ${informer.restarts}`);
    assert.match(errors[0] ?? '', /^pods: .*; retrying in 0\.1 s$/);
    assert.ok(server.counters.droppedWatches >= 1);
  });

  it('a forbidden kind reports once and counts as synced with nothing', async () => {
    server.setFaults({ forbiddenResources: ['nodes'] });
    const errors: string[] = [];
    const informer = new Informer(new KubeHttp(context), {
      resource: NODE,
      clock: systemClock,
      backoff: BACKOFF,
      onEvent: () => undefined,
      onError: (m) => errors.push(m),
    });
    informers.push(informer);
    await informer.start();
    await informer.synced;
    assert.equal(informer.unavailable, 'forbidden');
    assert.equal(errors.length, 1);
    assert.match(errors[0] ?? '', /^cannot list nodes: nodes is forbidden: /);
  });

  it('a kind whose API group is not served (no planner CRDs) is none, silently', async () => {
    const errors: string[] = [];
    const informer = new Informer(new KubeHttp(context), {
      resource: SCHEDULE_TRIGGER,
      clock: systemClock,
      backoff: BACKOFF,
      onEvent: () => undefined,
      onError: (m) => errors.push(m),
    });
    informers.push(informer);
    await informer.start();
    await informer.synced;
    assert.equal(informer.unavailable, 'not-served');
    assert.deepEqual(errors, []);
  });

  it('ClusterMirror keeps the model of the moment', async () => {
    server.create(node('n1'), pod('p1', { namespace: 'a' }));
    const mirror = new ClusterMirror(new KubeHttp(context), { clock: systemClock });
    informers.push(mirror);
    await mirror.start();
    await mirror.synced;
    assert.deepEqual(
      mirror.model().cluster.pods.map((p) => p.metadata.name),
      ['p1'],
    );
    const first = mirror.model();
    assert.equal(mirror.model(), first, 'unchanged cluster, same model');
    server.create(pod('p0', { namespace: 'a', nodeName: 'n1' }), node('n2'));
    await eventually(() => mirror.model().cluster.pods.length === 2 && mirror.model().cluster.nodes.length === 2, 'the new pod and node');
    assert.deepEqual(
      mirror.model().cluster.pods.map((p) => [p.metadata.name, p.spec.nodeName ?? null]),
      [
        ['p0', 'n1'],
        ['p1', null],
      ],
    );
  });
});
