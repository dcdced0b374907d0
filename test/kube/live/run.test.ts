// `podplan run` against the test API server with the real client-node: pods of its schedulers are
// bound end to end (informer → decision → binding → confirmation), exactly once each, under binding
// faults and dropped watches; other schedulers' pods are never touched; --dry-run writes nothing.
import assert from 'node:assert/strict';
import { node, pod, podsOf, runArgs, runLive, startCluster, until, type Cluster } from './cluster';

/** `count` nodes of 8 cpu / 32Gi, and `pods` pending pods of podplan (100m / 128Mi each). */
function workload(nodes: number, pods: number) {
  return [
    ...Array.from({ length: nodes }, (_, i) => node(`node-${i}`)),
    ...Array.from({ length: pods }, (_, i) => pod(`web-${i}`, { namespace: `ns-${i % 4}` })),
  ];
}

/** Pods of another scheduler, and one too big for any node. */
const bystanders = [
  pod('other-0', { schedulerName: 'default-scheduler' }),
  pod('other-1', { schedulerName: 'default-scheduler' }),
  pod('huge', { cpu: '64' }),
];

function assertBoundOnce(cluster: Cluster, expectUnplaced: readonly string[]): void {
  const pods = podsOf(cluster.server);
  const { bindings } = cluster.server.counters;
  for (const [key, p] of pods) {
    if (p.spec.schedulerName !== 'podplan') {
      assert.equal(p.spec.nodeName, undefined, `${key} belongs to another scheduler and was left alone`);
      assert.equal(bindings.get(key), undefined, `${key} was never posted a binding`);
    } else if (expectUnplaced.includes(key)) {
      assert.equal(p.spec.nodeName, undefined, `${key} cannot be placed`);
    } else {
      assert.ok(p.spec.nodeName, `${key} is bound`);
      assert.equal(bindings.get(key), 1, `${key} is bound exactly once`);
    }
  }
}

describe('kube/live: podplan run', function () {
  this.timeout(120_000);
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('schedules 2,000 pending pods on 500 nodes end to end, each bound once, and reports what it could not place', async () => {
    cluster = await startCluster([...workload(500, 2000), ...bystanders]);
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^2000 pods bound, 1 not placed\.$/m);
    assert.match(run.stdout, /not placed default\/huge: 0\/500 nodes are available: 500 Insufficient cpu\./);
    assertBoundOnce(cluster, ['default/huge']);
  });

  for (const mode of ['close', 'reset'] as const) {
    it(`binds every pod once under 30% 409s, 10% 500s and a watch dropped every 200 events (${mode === 'close' ? 'closed cleanly' : 'connection reset'}), and leaves no connection open`, async () => {
      cluster = await startCluster([...workload(500, 2000), ...bystanders]);
      cluster.server.setFaults({ bindingConflictShare: 0.3, bindingErrorShare: 0.1, dropWatchEvery: 200, dropWatchMode: mode, seed: 7 });
      const run = await runLive(runArgs(cluster, '--once'));
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stdout, /^2000 pods bound, 1 not placed\.$/m);
      assert.ok(cluster.server.counters.droppedWatches > 0, 'watches were dropped');
      assertBoundOnce(cluster, ['default/huge']);
      const { server } = cluster;
      await until('every connection of the run is closed', () => server.openConnections === 0);
      assert.equal(server.openWatches, 0);
    });
  }

  it('SIGTERM with bindings the server never answers: at the deadline they are aborted and reported not bound, and it exits', async () => {
    cluster = await startCluster(workload(3, 5));
    const { server } = cluster;
    // Bindings are received (and counted) but never carried out or answered while the client waits.
    server.setFaults({ bindingLatencyMs: 600_000 });
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    await until('five bindings are in flight', () => server.counters.request('create', 'pods/binding') === 5);
    stop('SIGTERM');
    const result = await run;
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /SIGTERM: finishing the bindings in flight/);
    assert.match(result.stderr, /still waiting after 4 s: 5 bindings in flight aborted, not bound/);
    assert.equal(
      (result.stdout.match(/^not placed ns-\d\/web-\d: .*was aborted \(the scheduler is stopping\): not bound/gm) ?? []).length,
      5,
      result.stdout,
    );
    assert.match(result.stdout, /^0 pods bound, 5 not placed\.$/m);
    assert.equal(server.counters.bindings.size, 0, 'no binding was carried out');
    await until('every connection of the run is closed', () => server.openConnections === 0);
  });

  it('--dry-run prints what it would bind and writes nothing', async () => {
    cluster = await startCluster([...workload(3, 5), ...bystanders]);
    const writesBefore = cluster.server.counters.writes.length;
    const run = await runLive(runArgs(cluster, '--once', '--dry-run'));
    assert.equal(run.code, 1, run.stderr);
    assert.equal((run.stdout.match(/^would bind ns-\d\/web-\d to node-\d$/gm) ?? []).length, 5);
    assert.match(run.stdout, /^5 pods would be bound, 1 not placed\.$/m);
    assert.equal(cluster.server.counters.writes.length, writesBefore, 'nothing was written');
    assert.equal(cluster.server.counters.request('create', 'pods/binding'), 0);
    assert.equal(cluster.server.counters.request('create', 'leases'), 0);
  });
});
