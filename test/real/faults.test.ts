// Faults between podplan run and a real kube-apiserver (test/real/proxy.ts): 409 and 500 answers on
// bindings, bindings that land but whose answer is lost, and watches ended cleanly or reset. Every
// pod is still bound, and the API server accepted exactly one binding per pod.
import assert from 'node:assert/strict';
import { node, pod, startRealCluster, type RealCluster } from './cluster';
import { startFaultProxy } from './proxy';

describe('real kube-apiserver: podplan run through a faulty connection', function () {
  this.timeout(300_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('binds 300 pods on 30 nodes, each accepted once, under 20% 409s, 10% 500s, 10% lost answers and watches cut every 3 s', async () => {
    const ns = 'faults';
    const nodes = Array.from({ length: 30 }, (_, i) => node(`f-${i}`, { cpu: '8', memory: '32Gi', pods: '110' }));
    const pods = Array.from({ length: 300 }, (_, i) => pod(`w-${i}`, { namespace: ns, cpu: '200m' }));
    await cluster.apply(...nodes, ...pods);
    const proxy = await startFaultProxy(cluster, { conflictShare: 0.2, errorShare: 0.1, lostResponseShare: 0.1, watchLifetimeMs: 3_000 });
    try {
      // Leader election stays on (the Lease's requests go through the proxy too): a renewal that
      // misses its deadline on a loaded machine loses the Lease, which the run then takes back.
      const run = await cluster.podplan(['run', '--context', 'proxy', '--kubeconfig', proxy.kubeconfig, '--once', '--no-history']);
      assert.equal(
        run.code,
        0,
        run.stdout
          .split('\n')
          .filter((l) => !l.startsWith('bound '))
          .slice(-20)
          .join('\n') +
          run.stderr
            .split('\n')
            .filter((l) => !l.includes('hang up'))
            .slice(-20)
            .join('\n'),
      );
      assert.equal(run.stdout.match(/^\d+ pods? bound.*$/m)?.[0], '300 pods bound, 0 not placed.');
      const listed = await cluster.pods(ns);
      assert.equal(listed.filter((p) => p.spec.nodeName).length, 300);
      assert.equal(proxy.accepted.size, 300);
      assert.ok(
        [...proxy.accepted.values()].every((n) => n === 1),
        'one accepted binding per pod',
      );
      assert.ok(proxy.counts.conflicts > 0 && proxy.counts.errors > 0 && proxy.counts.lost > 0, JSON.stringify(proxy.counts));
      assert.ok(proxy.counts.watchesEnded + proxy.counts.watchesReset > 0, JSON.stringify(proxy.counts));
    } finally {
      await proxy.close();
    }
  });
});
