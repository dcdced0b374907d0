// The kube PoolTarget on the test API server: what counts as an idle pod of the pool, and the
// compare-and-swap (a PUT with the listed resourceVersion) with each way it can go.
import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import type { SwapRequest } from '../../src/engine/claims/types';
import { KubeHttp } from '../../src/kube/http';
import { openContext } from '../../src/kube/kubeconfig';
import { poolClient } from '../../src/kube/live/cluster';
import { KubePoolTarget, PHASE_ANNOTATION, POOL_LABEL } from '../../src/kube/pool';
import { startTestApiServer, type TestApiServer } from './apiserver';
import { pod } from './live/cluster';

const member = (name: string, phase: string | undefined, pool = 'warm') =>
  pod(name, { nodeName: 'n1', labels: { [POOL_LABEL]: pool }, ...(phase ? { annotations: { [PHASE_ANNOTATION]: phase } } : {}) });

describe('kube/pool', function () {
  this.timeout(30_000);
  let server: TestApiServer;
  let target: KubePoolTarget;
  before(async () => {
    server = await startTestApiServer();
    server.create(
      member('idle-1', 'Idle'),
      member('idle-2', 'Idle'),
      member('busy', 'Running'),
      member('unmarked', undefined),
      member('other', 'Idle', 'cold'),
    );
    const context = openContext({
      context: 'test',
      kubeconfig: await server.writeKubeconfig(),
      env: {},
      homedir: homedir(),
      cwd: process.cwd(),
    });
    assert.ok(context.ok);
    const client = poolClient(new KubeHttp(context.value), 'default', `${POOL_LABEL}=warm`);
    target = new KubePoolTarget({ pool: 'warm', list: () => client.list(), update: (p) => client.update(p) });
  });
  after(() => server.close());

  const swap = (p: SwapRequest['pod'], requestId = 'r1'): SwapRequest => ({
    pod: p,
    requestId,
    images: [],
    labels: { claimed: 'yes' },
    annotations: {},
    targetPhase: 'Running',
  });

  it('lists the pool pods whose phase annotation is Idle, and claims one with a guarded update', async () => {
    const listed = await target.listIdle();
    assert.ok(listed.ok);
    assert.deepEqual(listed.value.map((p) => p.name).sort(), ['idle-1', 'idle-2'], 'not Running, not unmarked, not another pool');
    const first = listed.value.find((p) => p.name === 'idle-1')!;
    const swapped = await target.swap(swap(first));
    assert.equal(swapped.kind, 'swapped');
    const stored = server.get({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'idle-1') as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    };
    assert.deepEqual(
      {
        phase: stored.metadata.annotations[PHASE_ANNOTATION],
        target: stored.metadata.annotations['planner.ciena.io/target-phase'],
        by: stored.metadata.annotations['planner.ciena.io/claimed-by'],
        label: stored.metadata.labels['claimed'],
      },
      { phase: 'Starting', target: 'Running', by: 'r1', label: 'yes' },
    );
    assert.equal((await target.swap(swap(first, 'r2'))).kind, 'conflict', 'the version it was listed at is gone: never handed out twice');
  });

  it('a pod written by someone else since the listing is a conflict', async () => {
    const listed = await target.listIdle();
    assert.ok(listed.ok);
    const second = listed.value.find((p) => p.name === 'idle-2')!;
    server.patch({ apiVersion: 'v1', kind: 'Pod' }, 'default', 'idle-2', { metadata: { labels: { touched: 'yes' } } });
    const result = await target.swap(swap(second));
    assert.equal(result.kind, 'conflict');
    const relisted = await target.listIdle();
    assert.ok(relisted.ok);
    assert.equal(
      (await target.swap(swap(relisted.value.find((p) => p.name === 'idle-2')!))).kind,
      'swapped',
      'listed again, it can be claimed',
    );
  });
});
