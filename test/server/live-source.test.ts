// The editor's live source (src/server/live-source.ts), in process, against the test API server
// over real HTTPS: contexts from KUBECONFIG, a context as the source of the Cluster view and the
// previews, Apply Plan (confirm, then SchedulePlan + trigger flip, or bindings), Podplan as the
// scheduler started and stopped, no writes from an untrusted workspace, no token in any answer.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { err, type Result } from '../../src/engine/api/result';
import { systemClock } from '../../src/platform/clock';
import { PLANNER_CRDS } from '../../src/kube/crds';
import { schedulePlanName } from '../../src/engine/planner/podset/name';
import { LiveSource } from '../../src/server/live-source';
import { clusterSummary } from '../../src/server/service';
import { openHistory } from '../../src/server/store-history';
import type { History } from '../../src/server/history';
import { ALL_PENDING_PODS } from '../../src/store/store';
import { openTestStore, value as storeValue } from '../store/helpers';
import { startTestApiServer, type KubeObject, type TestApiServer } from '../kube/apiserver';
import { node, pod, POD_SETS } from '../kube/live/cluster';
import { gpuClaim, gpuClass, gpuSlice } from '../kube/support';

const TRIGGER = { apiVersion: 'planner.ciena.io/v1alpha1', kind: 'ScheduleTrigger' } as const;
const PLAN = { apiVersion: 'planner.ciena.io/v1alpha1', kind: 'SchedulePlan' } as const;
const WORKSPACE = { kind: 'workspace' as const, name: 'folder' };

const member = (name: string) =>
  pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu: '2', labels: { 'planner.ciena.io/pod-set': 'cart' } });
const loner = (name: string) =>
  pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu: '1', labels: { 'planner.ciena.io/pod-set': 'solo' } });
const trigger: KubeObject = {
  ...TRIGGER,
  metadata: { name: 'cart', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'cart' } },
  spec: { state: 'Planning' },
};

function value<T>(result: Result<T>): T {
  if (!result.ok) assert.fail(result.error);
  return result.value;
}

async function until(what: string, condition: () => boolean | Promise<boolean>, limitMs = 30_000): Promise<void> {
  for (let waited = 0; !(await condition()); waited += 50) {
    if (waited > limitMs) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('server/live-source: a kube context as the editor’s source', function () {
  this.timeout(60_000);
  let server: TestApiServer;
  let dir: string;
  let history: History;
  let live: LiveSource;
  let changes = 0;
  let kubeconfig = '';
  const nodeOf = (ns: string, name: string) =>
    (server.get({ apiVersion: 'v1', kind: 'Pod' }, ns, name) as { spec: { nodeName?: string } } | undefined)?.spec.nodeName;

  beforeEach(async () => {
    server = await startTestApiServer();
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    server.create(node('n1', { cpu: '4', memory: '16Gi', pods: '110' }), node('n2', { cpu: '4', memory: '16Gi', pods: '110' }));
    server.create(
      trigger,
      member('cart-0'),
      member('cart-1'),
      loner('solo-0'),
      pod('web-0', { namespace: 'shop' }),
      pod('web-1', { namespace: 'shop' }),
    );
    dir = mkdtempSync(join(tmpdir(), 'podplan-live-source-'));
    kubeconfig = await server.writeKubeconfig({ contexts: [{ name: 'test', namespace: 'shop' }, { name: 'other' }] });
    history = await openHistory(join(dir, 'history.db'), [], () => undefined);
    changes = 0;
    live = new LiveSource({
      kubeconfig: { env: { KUBECONFIG: kubeconfig }, homedir: dir, cwd: dir },
      clock: systemClock,
      analysis: {},
      onChange: () => changes++,
      log: () => undefined,
      history: () => history,
    });
  });

  afterEach(async () => {
    await live.close();
    history.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the contexts of KUBECONFIG (current first-named) without credentials; the workspace is the source until one is picked', async () => {
    const list = value(await live.contexts(WORKSPACE));
    assert.deepEqual(
      list.contexts.map((c) => [c.name, c.current]),
      [
        ['test', true],
        ['other', false],
      ],
    );
    assert.deepEqual(list.source, WORKSPACE);
    assert.ok(!JSON.stringify(list).includes(server.token), 'no token in the list');
    assert.equal(live.analysis(), undefined);
  });

  it('a picked context feeds the Cluster view and follows the cluster; the kubeconfig is left as it was', async () => {
    const before = readFileSync(kubeconfig, 'utf8');
    const source = value(await live.select('other'));
    assert.equal(source?.name, 'other');
    value(await live.select('test'));
    assert.equal(readFileSync(kubeconfig, 'utf8'), before, 'switching never rewrites the kubeconfig (its current-context stays)');
    assert.equal(live.source()?.name, 'test');
    const summary = clusterSummary(live.analysis()!, []);
    assert.deepEqual(summary.nodes.map((n) => n.name).sort(), ['n1', 'n2']);
    assert.deepEqual(summary.pending.map((p) => `${p.namespace}/${p.name}`).sort(), [
      'shop/cart-0',
      'shop/cart-1',
      'shop/solo-0',
      'shop/web-0',
      'shop/web-1',
    ]);
    server.create(node('n3'));
    await until('the new node is mirrored', () => clusterSummary(live.analysis()!, []).nodes.length === 3);
    await until('the client is told', () => changes > 0);
    value(await live.select(undefined));
    assert.equal(live.analysis(), undefined, 'back to the workspace files');
  });

  it('an unknown context is refused with the names there are, and no credential', async () => {
    const answer = await live.select('nope');
    assert.ok(!answer.ok);
    assert.match(answer.error, /no context "nope".*test, other/);
    assert.ok(!answer.error.includes(server.token));
  });

  it('Apply Plan: refused for an untrusted workspace; the confirmation names the objects and fields; nothing is written before it', async () => {
    value(await live.select('test'));
    const untrusted = await live.applyPlan({ trigger: { name: 'cart' }, trusted: false }, history);
    assert.ok(!untrusted.ok && /not trusted/.test(untrusted.error));
    const preview = value(await live.applyPlan({ trigger: { name: 'cart' }, trusted: true }, history));
    assert.equal(preview.context, 'test');
    assert.equal(preview.applied, false);
    const planName = schedulePlanName('shop', 'cart');
    assert.deepEqual(
      preview.writes.map((w) => [w.object, w.created, w.fields[0]]),
      [
        [`SchedulePlan shop/${planName}`, true, 'spec.plan: 2 pods to nodes'],
        ['ScheduleTrigger shop/cart', false, 'spec.state: Planning → Schedule'],
      ],
    );
    assert.equal(server.get(PLAN, 'shop', planName), undefined, 'nothing written yet');

    const applied = value(await live.applyPlan({ trigger: { name: 'cart' }, trusted: true, confirm: preview.token }, history));
    assert.equal(applied.applied, true);
    const written = server.get(PLAN, 'shop', planName) as {
      spec: { plan: Array<{ pod: string; node: string }> };
      metadata: { annotations?: Record<string, string> };
    };
    assert.deepEqual(written.spec.plan.map((e) => e.pod).sort(), ['cart-0', 'cart-1']);
    assert.ok(written.metadata.annotations?.['podplan.io/plan-status'], 'Podplan’s status rides in the annotation');
    assert.equal((server.get(TRIGGER, 'shop', 'cart') as { spec: { state: string } }).spec.state, 'Schedule');
    const entries = value(history.list({ podSet: 'cart' })).entries;
    assert.equal(entries[0]?.status, 'applied', 'recorded as applied in the history');
    const again = await live.applyPlan({ trigger: { name: 'cart' }, trusted: true, confirm: preview.token }, history);
    assert.ok(!again.ok, 'a confirmation is used once');
  });

  it('Apply Plan of a pod set without a trigger binds its pods as planned; a history that fails to record it as applied says so', async () => {
    value(await live.select('test'));
    const preview = value(await live.applyPlan({ podSet: { name: 'solo' }, trusted: true }, history));
    assert.deepEqual(
      preview.writes.map((w) => w.object),
      ['Pod shop/solo-0'],
    );
    const failing = Object.assign(Object.create(history) as History, { markApplied: () => err('the database is locked') });
    const applied = value(await live.applyPlan({ podSet: { name: 'solo' }, trusted: true, confirm: preview.token }, failing));
    assert.equal(nodeOf('shop', 'solo-0'), preview.plan.assignments[0]?.node);
    assert.equal(applied.plan.historyError, 'the plan is applied, but not recorded as applied in the plan history: the database is locked');
  });

  it('Apply Plan without a trigger refuses a pod set whose pods use ResourceClaims: a binding alone would leave the claims unallocated', async () => {
    const base = loner('gpu-0');
    server.create(gpuClass(), gpuSlice('n1'), gpuClaim('gpu-0', 'shop'), {
      ...base,
      spec: { ...(base.spec as object), resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-0' }] },
    });
    value(await live.select('test'));
    await until('the claim is mirrored', () => (live.analysis()?.model.cluster.resourceClaims ?? []).length === 1);
    const refused = await live.applyPlan({ podSet: { name: 'solo' }, trusted: true }, history);
    assert.ok(!refused.ok);
    assert.match(
      refused.error,
      /^Apply Plan binds pods without writing their ResourceClaims; shop\/gpu-0 uses claims: run Podplan as the scheduler/,
    );
  });

  it('Run Podplan as scheduler binds the pending pods of its scheduler name; stop drains and keeps the figures; switching is refused meanwhile', async () => {
    value(await live.select('test'));
    const refused = await live.scheduler({ action: 'start', trusted: false });
    assert.ok(!refused.ok && /not trusted/.test(refused.error));
    const started = value(await live.scheduler({ action: 'start', trusted: true }));
    assert.equal(started.running, true);
    assert.equal(started.context, 'test');
    await until('web pods bound', () => nodeOf('shop', 'web-0') !== undefined && nodeOf('shop', 'web-1') !== undefined);
    const busy = await live.select('other');
    assert.ok(!busy.ok && /stop it before switching/.test(busy.error));
    await until('the status counts them', async () => value(await live.scheduler({ action: 'status', trusted: true })).bound >= 2);
    const stopped = value(await live.scheduler({ action: 'stop', trusted: true }));
    assert.equal(stopped.running, false);
    assert.ok(stopped.bound >= 2);
    assert.equal(server.counters.bindings.get('shop/web-0'), 1, 'bound once');
  });

  it('Run Podplan as scheduler records its run in the history as podplan run does: a live run of the context, every decision, the run finished on stop', async () => {
    value(await live.select('test'));
    value(await live.scheduler({ action: 'start', trusted: true }));
    await until('web pods bound', () => nodeOf('shop', 'web-0') !== undefined && nodeOf('shop', 'web-1') !== undefined);
    const stopped = value(await live.scheduler({ action: 'stop', trusted: true }));
    const store = await openTestStore(join(dir, 'history.db'));
    try {
      const runs = storeValue(store.runs()).items;
      assert.deepEqual(
        runs.map((r) => [r.kind, r.source.kind, r.source.name, r.source.server, r.outcome, r.message]),
        [['live', 'kube-context', 'test', server.url, 'succeeded', `${stopped.bound} pods bound, ${stopped.unplaced} not placed`]],
      );
      const decisions = storeValue(store.history({ podSet: ALL_PENDING_PODS })).items;
      assert.ok(
        decisions.length > 0 && decisions.every((p) => p.runId === runs[0]?.id && p.planner === 'run'),
        'decisions saved under the run',
      );
      const placed = decisions.flatMap((p) => storeValue(store.loadPlan(p.id)).assignments.map((a) => [a.pod, a.node]));
      for (const pod of ['shop/web-0', 'shop/web-1'])
        assert.deepEqual(
          placed.find(([p]) => p === pod),
          [pod, nodeOf('shop', pod.slice('shop/'.length))],
          `${pod} where it was bound`,
        );
      assert.ok(!JSON.stringify(runs).includes(server.token), 'no token in the history');
    } finally {
      store.close();
    }
  });

  it('after Apply Plan, the scheduler binds the pod set where the plan put it', async () => {
    value(await live.select('test'));
    const preview = value(await live.applyPlan({ trigger: { name: 'cart' }, trusted: true }, history));
    value(await live.applyPlan({ trigger: { name: 'cart' }, trusted: true, confirm: preview.token }, history));
    value(await live.scheduler({ action: 'start', trusted: true }));
    await until('the set is bound', () => nodeOf('shop', 'cart-0') !== undefined && nodeOf('shop', 'cart-1') !== undefined);
    for (const a of preview.plan.assignments) assert.equal(nodeOf('shop', a.pod), a.node, `${a.pod} where planned`);
    value(await live.scheduler({ action: 'stop', trusted: true }));
  });
});
