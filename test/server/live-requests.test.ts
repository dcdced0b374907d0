// The live source's requests over stdio (server.ts wiring): the server inherits KUBECONFIG, lists
// its contexts, switches to one, answers the Cluster view and previews from the cluster, records
// those previews as runs of the kube-context source, and goes back to the workspace files.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Result } from '../../src/engine/api/result';
import { PLANNER_CRDS } from '../../src/kube/crds';
import {
  ClusterSummaryRequest,
  ListContextsRequest,
  PreviewPlanRequest,
  SelectSourceRequest,
  type ClusterSummary,
  type ContextList,
  type SourceView,
} from '../../src/protocol/requests';
import type { PlanView } from '../../src/protocol/webview';
import { openStore } from '../../src/store/store';
import type { KubeObject } from '../kube/apiserver';
import { node, pod, POD_SETS } from '../kube/live/cluster';
import { useLiveServer } from './live-session';

const member = (name: string) =>
  pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu: '1', labels: { 'planner.ciena.io/pod-set': 'cart' } });

function value<T>(result: Result<T>): T {
  if (!result.ok) assert.fail(result.error);
  return result.value;
}

describe('server: a kube context as the source (over stdio)', function () {
  this.timeout(60_000);
  const live = useLiveServer({
    namespaces: ['shop'],
    objects: [
      ...(PLANNER_CRDS as unknown as KubeObject[]),
      node('n1'),
      member('cart-0'),
      member('cart-1'),
      {
        apiVersion: 'planner.ciena.io/v1alpha1',
        kind: 'ScheduleTrigger',
        metadata: { name: 'cart', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'cart' } },
        spec: { state: 'Planning' },
      },
    ],
    context: { name: 'live', namespace: 'shop' },
    workspace: 'test/fixtures/workspaces/cluster',
  });

  const request = <R>(method: string, params?: object) => live.session.connection.sendRequest(method, params) as Promise<R>;

  it('lists the contexts, switches to one, and the Cluster view and previews come from the cluster', async () => {
    const contexts = value(await request<Result<ContextList>>(ListContextsRequest.method));
    assert.deepEqual(
      contexts.contexts.map((c) => c.name),
      ['live'],
    );
    assert.equal(contexts.source.kind, 'workspace');
    const source = value(await request<Result<SourceView>>(SelectSourceRequest.method, { context: 'live' }));
    assert.deepEqual([source.kind, source.name], ['cluster', 'live']);
    const summary = await request<ClusterSummary>(ClusterSummaryRequest.method);
    assert.deepEqual(summary.source, { kind: 'cluster', name: 'live' });
    assert.deepEqual(
      summary.nodes.map((n) => n.name),
      ['n1'],
    );
    assert.deepEqual(summary.contexts, ['live']);
    assert.equal(summary.scheduler?.running, false);
    const plan = value(await request<Result<PlanView>>(PreviewPlanRequest.method, { trigger: { namespace: 'shop', name: 'cart' } }));
    assert.deepEqual(
      plan.assignments.map((a) => a.node),
      ['n1', 'n1'],
    );
    assert.ok(!JSON.stringify([contexts, summary, plan]).includes(live.api.token), 'no token in any answer');
  });

  it('records previews of the cluster as runs of the kube-context source', async () => {
    const store = value(
      await openStore(join(live.dir, 'history.db')).then((r) => (r.ok ? r : { ok: false as const, error: r.error.message })),
    );
    try {
      const runs = store.runs();
      assert.ok(runs.ok);
      assert.deepEqual(
        runs.value.items.map((r) => [r.source.kind, r.source.name]),
        [['kube-context', 'live']],
      );
    } finally {
      store.close();
    }
  });

  it('goes back to the workspace files', async () => {
    const source = value(await request<Result<SourceView>>(SelectSourceRequest.method, {}));
    assert.equal(source.kind, 'workspace');
    const summary = await request<ClusterSummary>(ClusterSummaryRequest.method);
    assert.equal(summary.source.kind, 'workspace');
    assert.ok(summary.nodes.length > 1, 'the workspace’s nodes again');
  });

  it('a context that cannot be read is refused, and leaves the server on the workspace files', async () => {
    value(await request<Result<SourceView>>(SelectSourceRequest.method, { context: 'live' }));
    const refused = await request<Result<SourceView>>(SelectSourceRequest.method, { context: 'nope' });
    assert.ok(!refused.ok && /no context "nope"/.test(refused.error));
    assert.equal((await request<ClusterSummary>(ClusterSummaryRequest.method)).source.kind, 'workspace');
  });
});
