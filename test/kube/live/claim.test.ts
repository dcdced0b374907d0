// `podplan claim` against the test API server: idle pods of a warm pool (label planner.ciena.io/pool,
// annotation planner.ciena.io/phase) are moved to Starting with a resourceVersion-guarded update.
// Four claimers race for the same 500 pods with 2,000 requests: the losers' updates conflict and are
// retried with other pods, and no pod is ever handed out twice.
import assert from 'node:assert/strict';
import { node, pod, podsOf, runLive, startCluster, type Cluster } from './cluster';

const idle = (name: string, pool = 'warm') => pod(name, { namespace: 'pools', nodeName: 'node-0', labels: { 'planner.ciena.io/pool': pool }, annotations: { 'planner.ciena.io/phase': 'Idle' } });

describe('kube/live: podplan claim', function () {
  this.timeout(120_000);
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('2,000 requests over 500 idle pods from four racing claimers: each pod claimed once', async () => {
    cluster = await startCluster([node('node-0', { cpu: '1000', memory: '1000Gi', pods: '1000' }), ...Array.from({ length: 500 }, (_, i) => idle(`warm-${i}`)), idle('cold-0', 'cold')]);
    const claimArgs = ['claim', '--context', 'test', '--kubeconfig', cluster.kubeconfig, '--db', cluster.db, '--pool', 'warm', '-n', 'pools', '--count', '500', '--timeout', '5s'];
    const runs = await Promise.all(Array.from({ length: 4 }, () => runLive(claimArgs)));
    const claimed = runs.flatMap((r) => (r.stdout.match(/^claimed \S+$/gm) ?? []).map((line) => line.slice('claimed '.length)));
    assert.equal(claimed.length, 500, 'every idle pod was handed out');
    assert.equal(new Set(claimed).size, 500, 'no pod was handed out twice');
    for (const r of runs) assert.equal(r.code, 1, 'each claimer got fewer pods than it asked for');
    const unanswered = runs.reduce((n, r) => n + (r.stdout.match(/^not claimed /gm) ?? []).length, 0);
    assert.equal(unanswered, 1500, 'the other requests ran out of time');

    const requests = new Set<string>();
    for (const [key, p] of podsOf(cluster.server)) {
      const annotations = (p.metadata?.annotations ?? {}) as Record<string, string>;
      if (key === 'pools/cold-0') {
        assert.equal(annotations['planner.ciena.io/phase'], 'Idle', 'another pool is left alone');
        continue;
      }
      assert.equal(annotations['planner.ciena.io/phase'], 'Starting', `${key} is Starting`);
      assert.equal(annotations['planner.ciena.io/target-phase'], 'Running');
      const by = annotations['planner.ciena.io/claimed-by'];
      assert.ok(by && !requests.has(by), `${key} names the one request that claimed it`);
      requests.add(by);
    }
    const updates = cluster.server.counters.request('update', 'pods');
    assert.ok(updates > 500, `some updates conflicted (${updates - 500} of ${updates})`);
  });
});
