// `podplan serve-planner --context` (the built CLI) against a real kube-apiserver v1.37.2: Pallet's
// planner API answered on the cluster as it is at each request (a pod created while serving is
// planned), the scheduled pod kept to the eligible nodes the request lists, and nothing written.
import assert from 'node:assert/strict';
import { connectPlanner } from '../../src/rpc';
import { eventually, node, pod, startRealCluster, type KubeObject, type RealCluster } from './cluster';

describe('real kube-apiserver: podplan serve-planner --context', function () {
  this.timeout(180_000);
  let cluster: RealCluster;

  before(async () => {
    cluster = await startRealCluster();
  });
  after(async () => {
    await cluster?.stop();
  });

  it('answers BuildSchedulePlan for the live pods by their real names, follows the cluster, honours eligible nodes and writes nothing', async () => {
    const ns = 'shop';
    const crds = await cluster.podplan(['install-crds', ...cluster.admin]);
    assert.equal(crds.code, 0, crds.stderr);
    const member = (name: string): KubeObject =>
      pod(name, {
        namespace: ns,
        schedulerName: 'podset-planner-scheduler',
        cpu: '1',
        nodeSelector: { pool: 'planner' },
        labels: { 'planner.ciena.io/pod-set': 'cart' },
      });
    await cluster.apply(
      node('planner-a', { cpu: '4', memory: '16Gi', pods: '110' }, { pool: 'planner' }),
      node('planner-b', { cpu: '4', memory: '16Gi', pods: '110' }, { pool: 'planner' }),
      member('cart-0'),
      member('cart-1'),
      member('cart-2'),
    );
    const serving = cluster.spawnPodplan(['serve-planner', ...cluster.admin, '--port', '0']);
    try {
      await serving.waitFor((o) => /^serving the planner API on 127\.0\.0\.1:\d+/m.test(o.stdout), 'serve-planner listening');
      assert.match(serving.output.stdout, /\(context admin at https:\/\/127\.0\.0\.1:\d+; pod sets: shop\/cart\)/);
      const address = /serving the planner API on (127\.0\.0\.1:\d+)/.exec(serving.output.stdout)![1]!;
      const connected = connectPlanner(address, { deadlineMs: 20_000 });
      assert.ok(connected.ok);
      const client = connected.value;
      try {
        const request = { namespace: ns, podSet: 'cart', scheduledPod: '', eligibleNodes: [] };
        const first = await client.buildSchedulePlan(request);
        assert.ok(first.ok, JSON.stringify(first));
        assert.deepEqual(Object.keys(first.value).sort(), ['cart-0', 'cart-1', 'cart-2']);
        assert.ok(Object.values(first.value).every((n) => n === 'planner-a' || n === 'planner-b'));

        // A pod created while serving is planned: the mirror follows the real watch.
        await cluster.apply(member('cart-3'));
        const later = await eventually(async () => {
          const answer = await client.buildSchedulePlan(request);
          return answer.ok && 'cart-3' in answer.value ? answer.value : undefined;
        }, 'cart-3 in the plan');
        assert.equal(Object.keys(later).length, 4);

        // The pod Pallet's scheduler is placing is kept to the eligible nodes it lists.
        for (const only of ['planner-a', 'planner-b']) {
          const kept = await client.buildSchedulePlan({ ...request, scheduledPod: 'cart-0', eligibleNodes: [only] });
          assert.ok(kept.ok, JSON.stringify(kept));
          assert.equal(kept.value['cart-0'], only);
        }
      } finally {
        client.close();
      }
    } finally {
      const stopped = await serving.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.match(stopped.stderr, /^\S+ BuildSchedulePlan shop\/cart: 3 pods placed$/m);
      assert.match(stopped.stderr, /^\S+ BuildSchedulePlan shop\/cart: 4 pods placed$/m);
    }
    assert.ok(
      (await cluster.pods(ns)).every((p) => !p.spec.nodeName),
      'no pod bound',
    );
    const plans = await cluster.request<{ items: unknown[] }>('GET', `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduleplans`);
    assert.equal(plans.body.items.length, 0, 'no SchedulePlan written');
  });
});
