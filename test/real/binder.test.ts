// The live Binder against a real kube-apiserver v1.37.2: what the server answers to binding a pod
// that is already bound (a 409 Conflict on pods/binding whose Status names the pod, not the node),
// and what the binder makes of it by reading the pod: success when the pod is on the node it asked
// for, "bound by someone else" when it is on another.
import assert from 'node:assert/strict';
import { systemClock } from '../../src/platform/clock';
import { Code } from '../../src/engine/framework/status';
import { KubeBinder } from '../../src/kube/binder';
import { KubeHttp } from '../../src/kube/http';
import { openContext } from '../../src/kube/kubeconfig';
import { bindingPoster, boundNodeReader } from '../../src/kube/live/cluster';
import { makePod } from '../builders';
import { node, pod, startRealCluster, type RealCluster } from './cluster';

describe('real kube-apiserver: the binder', function () {
  this.timeout(180_000);
  let cluster: RealCluster;
  let http: KubeHttp;

  before(async () => {
    cluster = await startRealCluster();
    const context = openContext({ kubeconfig: cluster.kubeconfig, context: 'admin', env: {}, homedir: cluster.dir, cwd: cluster.dir });
    assert.ok(context.ok, context.ok ? '' : context.error);
    http = new KubeHttp(context.value);
  });
  after(async () => {
    http?.close();
    await cluster?.stop();
  });

  const binder = () => new KubeBinder({ post: bindingPoster(http), readBoundNode: boundNodeReader(http), clock: systemClock });

  it('binding a bound pod is a 409 Conflict on pods/binding naming the pod; a fresh binder reads the pod and decides from its node', async () => {
    await cluster.apply(node('bind-a'), node('bind-b'), pod('web', { namespace: 'binder' }));
    const created = (await cluster.pods('binder')).find((p) => p.metadata.name === 'web');
    assert.ok(created?.metadata.uid);
    const web = makePod('web', 'binder').obj;
    const target = { ...web, metadata: { ...web.metadata, uid: created.metadata.uid } };

    const first = await binder().bind(target, 'bind-a');
    assert.equal(first.code, Code.Success, first.reasons.join(', '));

    // The answer itself, as the server gives it (test/kube/binder.test.ts transcribes it).
    const again = await bindingPoster(http)({ namespace: 'binder', name: 'web' }, 'bind-b');
    assert.deepEqual(again, {
      kind: 'status',
      code: 409,
      reason: 'Conflict',
      details: { name: 'web', kind: 'pods/binding' },
      message: 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "bind-a"',
    });

    // A binder that did not make the binding (a restarted scheduler, one whose answer was lost).
    const same = await binder().bind(target, 'bind-a');
    assert.equal(same.code, Code.Success, same.reasons.join(', '));
    const other = binder();
    const elsewhere = await other.bind(target, 'bind-b');
    assert.equal(elsewhere.code, Code.Error);
    assert.deepEqual(elsewhere.reasons, ['pod binder/web is already bound to node bind-a by someone else']);
    assert.equal(other.counters().boundElsewhere, 1);
    assert.equal((await cluster.pods('binder')).find((p) => p.metadata.name === 'web')?.spec?.nodeName, 'bind-a');
  });
});
