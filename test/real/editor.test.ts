// The editor's live source (src/server/live-source.ts), in process, against a real kube-apiserver
// v1.37.2: a context as the source, Apply Plan (a SchedulePlan and the trigger's flip through the
// real CRDs, or bindings), and Run Podplan as scheduler through the live scheduler's one life cycle:
// the Events podplan run writes, the Lease podplan run elects on (the namespace the request names),
// and a stop that ends by its deadline while the API server holds a binding.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result } from '../../src/engine/api/result';
import { schedulePlanName } from '../../src/engine/planner/podset/name';
import { systemClock } from '../../src/platform/clock';
import type { History } from '../../src/server/history';
import { LiveSource } from '../../src/server/live-source';
import { clusterSummary } from '../../src/server/service';
import { openHistory } from '../../src/server/store-history';
import { eventually, node, pod, startRealCluster, type KubeObject, type RealCluster } from './cluster';
import { startFaultProxy } from './proxy';

const POD_SETS = 'podset-planner-scheduler';
const WORKSPACE = { kind: 'workspace' as const, name: 'folder' };

function value<T>(result: Result<T>): T {
  if (!result.ok) assert.fail(result.error);
  return result.value;
}

describe('real kube-apiserver: the editor’s live source', function () {
  this.timeout(180_000);
  let cluster: RealCluster;
  let dir: string;
  let history: History;
  let live: LiveSource;

  const member = (name: string, set: string, ns: string) =>
    pod(name, {
      namespace: ns,
      schedulerName: POD_SETS,
      cpu: '500m',
      nodeSelector: { pool: 'editor' },
      labels: { 'planner.ciena.io/pod-set': set },
    });
  const trigger = (name: string, ns: string): KubeObject => ({
    apiVersion: 'planner.ciena.io/v1alpha1',
    kind: 'ScheduleTrigger',
    metadata: { name, namespace: ns, labels: { 'planner.ciena.io/pod-set': name } },
    spec: { state: 'Planning' },
  });
  const podNamed = async (ns: string, name: string) => (await cluster.pods(ns)).find((p) => p.metadata.name === name);
  const lease = async (ns: string) =>
    (
      await cluster.request<{ spec?: { holderIdentity?: string; leaseTransitions?: number } }>(
        'GET',
        `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/podplan-scheduler`,
      )
    ).body.spec;

  before(async () => {
    cluster = await startRealCluster();
    const crds = await cluster.podplan(['install-crds', ...cluster.admin]);
    assert.equal(crds.code, 0, crds.stderr);
    await eventually(
      async () => ((await cluster.request('GET', '/apis/planner.ciena.io/v1alpha1')).status === 200 ? true : undefined),
      'the planner API served',
    );
    await cluster.apply(
      node('editor-a', { cpu: '4', memory: '16Gi', pods: '110' }, { pool: 'editor' }),
      node('editor-b', { cpu: '4', memory: '16Gi', pods: '110' }, { pool: 'editor' }),
    );
    dir = mkdtempSync(join(tmpdir(), 'podplan-real-editor-'));
    history = await openHistory(join(dir, 'history.db'), [], () => undefined);
  });
  after(async () => {
    history?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const open = (kubeconfig: string) =>
    new LiveSource({
      kubeconfig: { env: { KUBECONFIG: kubeconfig }, homedir: dir, cwd: dir },
      clock: systemClock,
      analysis: {},
      onChange: () => undefined,
      log: () => undefined,
      history: () => history,
    });
  afterEach(async () => {
    await live?.close();
  });

  it('Apply Plan writes the SchedulePlan and flips the trigger through the real CRDs, or binds a set without a trigger; the history says applied', async () => {
    const ns = 'editor-apply';
    await cluster.apply(trigger('cart', ns), member('cart-0', 'cart', ns), member('cart-1', 'cart', ns), member('solo-0', 'solo', ns));
    live = open(cluster.kubeconfig);
    assert.equal(value(await live.contexts(WORKSPACE)).contexts[0]?.name, 'admin');
    value(await live.select('admin'));
    const summary = clusterSummary(live.analysis()!, []);
    assert.ok(['editor-a', 'editor-b'].every((n) => summary.nodes.some((x) => x.name === n)));

    const preview = value(await live.applyPlan({ trigger: { name: 'cart', namespace: ns }, trusted: true }, history));
    const planName = schedulePlanName(ns, 'cart');
    assert.deepEqual(
      preview.writes.map((w) => [w.object, w.created]),
      [
        [`SchedulePlan ${ns}/${planName}`, true],
        [`ScheduleTrigger ${ns}/cart`, false],
      ],
    );
    const before = await cluster.request('GET', `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduleplans/${planName}`);
    assert.equal(before.status, 404, 'nothing written before the confirmation');
    value(await live.applyPlan({ trigger: { name: 'cart', namespace: ns }, trusted: true, confirm: preview.token }, history));
    const written = await cluster.request<{
      spec: { plan: Array<{ pod: string; node: string }> };
      metadata: { annotations?: Record<string, string> };
    }>('GET', `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduleplans/${planName}`);
    assert.equal(written.status, 200, written.text);
    assert.deepEqual(
      written.body.spec.plan.map((e) => [e.pod, e.node]).sort(),
      preview.plan.assignments.map((a) => [a.pod, a.node]).sort(),
      'the plan it showed, through the CRD’s schema',
    );
    assert.ok(written.body.metadata.annotations?.['podplan.io/plan-status']);
    const flipped = await cluster.request<{ spec: { state: string } }>(
      'GET',
      `/apis/planner.ciena.io/v1alpha1/namespaces/${ns}/scheduletriggers/cart`,
    );
    assert.equal(flipped.body.spec.state, 'Schedule');
    assert.equal(value(history.list({ podSet: 'cart' })).entries[0]?.status, 'applied');

    const solo = value(await live.applyPlan({ podSet: { name: 'solo', namespace: ns }, trusted: true }, history));
    assert.deepEqual(
      solo.writes.map((w) => w.object),
      [`Pod ${ns}/solo-0`],
    );
    value(await live.applyPlan({ podSet: { name: 'solo', namespace: ns }, trusted: true, confirm: solo.token }, history));
    assert.equal((await podNamed(ns, 'solo-0'))?.spec.nodeName, solo.plan.assignments[0]?.node);
  });

  it('Run Podplan as scheduler writes the Events podplan run writes, on the Lease podplan run --lease-namespace names; stopped, it releases it to podplan run', async () => {
    const ns = 'editor-run';
    const leases = 'podplan-leases';
    await cluster.namespace(leases);
    await cluster.apply(
      pod('web-0', { namespace: ns, nodeSelector: { pool: 'editor' } }),
      pod('web-1', { namespace: ns, nodeSelector: { pool: 'editor' } }),
    );
    live = open(cluster.kubeconfig);
    value(await live.select('admin'));
    value(await live.scheduler({ action: 'start', trusted: true, leaseNamespace: leases }));
    const holder = await eventually(async () => (await lease(leases))?.holderIdentity || undefined, 'the editor holding the Lease');
    assert.equal(holder, `podplan-editor_${process.pid}`);
    for (const name of ['web-0', 'web-1']) {
      const bound = await eventually(async () => (await podNamed(ns, name))?.spec.nodeName, `${name} bound`);
      const scheduled = await eventually(async () => {
        const events = (await cluster.events(ns)).filter((e) => e.regarding.name === name && e.reason === 'Scheduled');
        return events.length > 0 ? events : undefined;
      }, `the Scheduled event of ${name}`);
      assert.equal(scheduled[0]?.note, `Successfully assigned ${ns}/${name} to ${bound}`);
      assert.equal(scheduled[0]?.reportingController, 'podplan');
    }
    const stopped = value(await live.scheduler({ action: 'stop', trusted: true }));
    assert.equal(stopped.running, false);
    assert.ok(stopped.bound >= 2, `${stopped.bound} bound (the set Apply Plan released before counts too)`);
    const released = await lease(leases);
    assert.equal(released?.holderIdentity, '', 'released on stop');
    const transitions = released?.leaseTransitions ?? 0;

    // podplan run told the same namespace elects on that very Lease.
    await cluster.apply(pod('web-2', { namespace: ns, nodeSelector: { pool: 'editor' } }));
    const run = await cluster.podplan([
      'run',
      ...cluster.admin,
      '--once',
      '--no-history',
      '--lease-namespace',
      leases,
      '--identity',
      'cli-copy',
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /cli-copy leads; scheduling/);
    assert.match(run.stdout, /^1 pods bound, 0 not placed\.$/m);
    assert.equal((await lease(leases))?.leaseTransitions, transitions + 1, 'the same Lease, passed from the editor to podplan run');
  });

  it('stopping the editor’s scheduler ends by its deadline while the API server holds a binding: aborted, not bound, and said', async () => {
    const ns = 'editor-stop';
    await cluster.apply(pod('held-0', { namespace: ns, nodeSelector: { pool: 'editor' } }));
    const proxy = await startFaultProxy(cluster, {}, 7, { leaseWrites: false, bindings: true });
    try {
      live = open(proxy.kubeconfig);
      value(await live.select('proxy'));
      value(await live.scheduler({ action: 'start', trusted: true }));
      await eventually(async () => (proxy.held.bindings > 0 ? true : undefined), 'the binding held by the API server');
      const stopped = value(await live.scheduler({ action: 'stop', trusted: true }));
      assert.equal(stopped.running, false);
      assert.equal(stopped.bound, 0);
      assert.ok(
        stopped.errors.some((e) => /still waiting after 4 s: 1 binding in flight aborted, not bound/.test(e)),
        stopped.errors.join('\n'),
      );
      assert.equal((await podNamed(ns, 'held-0'))?.spec.nodeName, undefined);
    } finally {
      await live.close();
      await proxy.close();
    }
  });
});
