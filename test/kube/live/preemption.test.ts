// `podplan run` preempts as kube-scheduler: the victim gets the DisruptionTarget condition and is
// deleted, the preemptor is nominated to the node and bound there once the watch shows the victim
// gone; --once waits for that. (Against a real kube-apiserver: test/real/preemption.test.ts.)
import assert from 'node:assert/strict';
import type { KubeObject } from '../apiserver';
import { node, pod, podsOf, runArgs, runLive, startCluster, type Cluster } from './cluster';

const withPriority = (object: KubeObject, priority: number): KubeObject => ({ ...object, spec: { ...(object.spec as object), priority } });

describe('kube/live: podplan run and preemption', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('deletes the lower-priority pod (its status patched with DisruptionTarget first), then binds the preemptor on its nominated node, once', async () => {
    const running = withPriority(pod('batch', { cpu: '3', nodeName: 'node-a', schedulerName: 'default-scheduler' }), 0);
    const urgent = withPriority(pod('urgent', { cpu: '2' }), 1000);
    cluster = await startCluster([
      node('node-a', { cpu: '4', memory: '32Gi', pods: '110' }),
      { ...running, status: { phase: 'Running' } },
      urgent,
    ]);
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /not placed default\/urgent: 0\/1 nodes are available: 1 Insufficient cpu\. preemption: /);
    assert.match(run.stdout, /^bound default\/urgent to node-a$/m);
    const pods = podsOf(cluster.server);
    assert.equal(pods.get('default/batch'), undefined, 'the victim is deleted');
    assert.equal(pods.get('default/urgent')?.spec.nodeName, 'node-a');
    assert.equal(cluster.server.counters.bindings.get('default/urgent'), 1);
    const writes = cluster.server.counters.writes.filter((w) => w.name === 'batch').map((w) => `${w.verb} ${w.resource}`);
    assert.deepEqual(writes.slice(-2), ['update pods/status', 'delete pods'], JSON.stringify(writes));
  });
});
