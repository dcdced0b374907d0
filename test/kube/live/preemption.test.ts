// `podplan run` deletes no pod: where upstream would preempt, the preemptor is not bound onto a node
// whose victims still run (that would overcommit the node); it waits, reported with upstream's message.
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

  it('does not bind a high-priority pod onto a full node: the running low-priority pod stays, the preemptor waits with the preemption message', async () => {
    const running = withPriority(pod('batch', { cpu: '3', nodeName: 'node-a', schedulerName: 'default-scheduler' }), 0);
    const urgent = withPriority(pod('urgent', { cpu: '2' }), 1000);
    cluster = await startCluster([node('node-a', { cpu: '4', memory: '32Gi', pods: '110' }), { ...running, status: { phase: 'Running' } }, urgent]);
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /not placed default\/urgent: 0\/1 nodes are available: 1 Insufficient cpu\./);
    const pods = podsOf(cluster.server);
    assert.equal(pods.get('default/urgent')?.spec.nodeName, undefined, 'not bound onto the full node');
    assert.equal(pods.get('default/batch')?.spec.nodeName, 'node-a', 'the running pod is left as it is');
  });
});
