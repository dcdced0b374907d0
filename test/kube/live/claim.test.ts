// `podplan claim` against the test API server: idle pods of a warm pool (label planner.ciena.io/pool,
// annotation planner.ciena.io/phase) are moved to Starting with a resourceVersion-guarded update.
// Four claimers race for the same 500 pods with 2,000 requests while a recycler makes claimed pods
// Idle again: the losers' updates conflict and are retried with other pods, and no Idle pod is
// ever handed out twice.
import assert from 'node:assert/strict';
import { node, pod, podRef, podsOf, runLive, startCluster, type Cluster } from './cluster';

const idle = (name: string, pool = 'warm') =>
  pod(name, {
    namespace: 'pools',
    nodeName: 'node-0',
    labels: { 'planner.ciena.io/pool': pool },
    annotations: { 'planner.ciena.io/phase': 'Idle' },
  });

describe('kube/live: podplan claim', function () {
  this.timeout(120_000);
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('2,000 requests over 500 pods from four racing claimers while pods are recycled: each Idle pod handed out once', async () => {
    cluster = await startCluster([
      node('node-0', { cpu: '1000', memory: '1000Gi', pods: '1000' }),
      ...Array.from({ length: 500 }, (_, i) => idle(`warm-${i}`)),
      idle('cold-0', 'cold'),
    ]);
    const { server } = cluster;
    // The pool's own controller in miniature: a Starting pod is seen (with the request that claimed
    // it) and made Idle again, so 500 pods serve 2,000 claims.
    const seen: string[] = [];
    const recycle = () => {
      for (const [key, p] of podsOf(server)) {
        const annotations = (p.metadata?.annotations ?? {}) as Record<string, string>;
        if (annotations['planner.ciena.io/phase'] !== 'Starting') continue;
        seen.push(annotations['planner.ciena.io/claimed-by']!);
        server.patch(podRef, 'pools', key.split('/')[1]!, { metadata: { annotations: { 'planner.ciena.io/phase': 'Idle' } } });
      }
    };
    const recycler = setInterval(recycle, 100);
    const claimArgs = [
      'claim',
      '--context',
      'test',
      '--kubeconfig',
      cluster.kubeconfig,
      '--db',
      cluster.db,
      '--pool',
      'warm',
      '-n',
      'pools',
      '--count',
      '500',
      '--timeout',
      '10m',
    ];
    const runs = await Promise.all(Array.from({ length: 4 }, () => runLive(claimArgs)));
    clearInterval(recycler);
    recycle();

    for (const r of runs) assert.equal(r.code, 0, r.stderr);
    const claimed = runs.flatMap((r) => r.stdout.match(/^claimed \S+$/gm) ?? []);
    assert.equal(claimed.length, 2000, 'every request got a pod');
    assert.equal(seen.length, 2000, 'each claim moved an Idle pod to Starting: no two claims shared one');
    assert.equal(new Set(seen).size, 2000, 'and each Starting pod names the one request that claimed it');
    const cold = podsOf(server).get('pools/cold-0')!;
    assert.equal((cold.metadata?.annotations as Record<string, string>)['planner.ciena.io/phase'], 'Idle', 'another pool is left alone');
    const updates = server.counters.request('update', 'pods');
    assert.ok(updates > 2000, `racing claimers conflict (${updates - 2000} of ${updates} updates)`);
  });
});
