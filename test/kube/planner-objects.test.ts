import assert from 'node:assert/strict';
import { applyCrdInstall, KubeHttp, PlannerObjects, planCrdInstall, type ApiObject, type KubeContext } from '../../src/kube';
import { startTestApiServer, type TestApiServer } from './apiserver';
import { contextOn, namespace } from './support';

const trigger = (name: string, state = 'Planning'): ApiObject => ({
  apiVersion: 'planner.ciena.io/v1alpha1',
  kind: 'ScheduleTrigger',
  metadata: { name, namespace: 'batch', labels: { 'planner.ciena.io/pod-set': name } },
  spec: { state },
});

const plan = (name: string): ApiObject => ({
  apiVersion: 'planner.ciena.io/v1alpha1',
  kind: 'SchedulePlan',
  metadata: { name, namespace: 'batch', labels: { 'planner.ciena.io/pod-set': 'nightly' } },
  spec: { plan: [{ pod: 'a', node: 'n1' }] },
});

describe('kube/planner-objects (ScheduleTrigger and SchedulePlan over KubeHttp)', () => {
  let server: TestApiServer;
  let context: KubeContext;
  let objects: PlannerObjects;

  beforeEach(async () => {
    server = await startTestApiServer();
    context = await contextOn(server);
    server.create(namespace('batch'));
    objects = new PlannerObjects(new KubeHttp(context));
  });
  afterEach(() => server.close());

  async function install(): Promise<void> {
    const http = new KubeHttp(context);
    const steps = await planCrdInstall(http);
    assert.ok(steps.ok && (await applyCrdInstall(http, steps.value)).ok);
  }

  it('without the CRDs a list is empty, not an error', async () => {
    assert.deepEqual(await objects.list('ScheduleTrigger'), { ok: true, value: [] });
  });

  it('creates, gets and lists, with apiVersion and kind on list items', async () => {
    await install();
    const created = await objects.create(trigger('nightly'));
    assert.ok(created.ok);
    assert.ok(created.value.metadata.resourceVersion);
    const got = await objects.get('ScheduleTrigger', 'batch', 'nightly');
    assert.ok(got.ok);
    assert.deepEqual(got.value.spec, { state: 'Planning' });
    const listed = await objects.list('ScheduleTrigger', 'batch');
    assert.ok(listed.ok);
    assert.deepEqual(
      listed.value.map((o) => [o.kind, o.metadata.name]),
      [['ScheduleTrigger', 'nightly']],
    );
    const selected = await objects.list('ScheduleTrigger', undefined, 'planner.ciena.io/pod-set=other');
    assert.deepEqual(selected, { ok: true, value: [] });
  });

  it('an update with a stale resourceVersion is a conflict value; with the current one it is written', async () => {
    await install();
    const created = await objects.create(trigger('nightly'));
    assert.ok(created.ok);
    const first = await objects.update({ ...created.value, spec: { state: 'Schedule' } });
    assert.ok(first.ok);
    const stale = await objects.update({ ...created.value, spec: { state: 'Planning' } });
    assert.ok(!stale.ok);
    assert.equal(stale.error.kind, 'conflict');
    assert.equal(stale.error.status, 409);
    assert.match(stale.error.message, /the object has been modified; please apply your changes to the latest version and try again/);
    const missing = await objects.update({ ...trigger('nightly'), spec: { state: 'Planning' } });
    assert.ok(!missing.ok);
    assert.match(missing.error.message, /needs the metadata\.resourceVersion it read/);
  });

  it('a status write goes to the status subresource and leaves the spec alone', async () => {
    await install();
    const created = await objects.create(plan('nightly-plan'));
    assert.ok(created.ok);
    const written = await objects.updateStatus({ ...created.value, spec: { plan: [] }, status: {} });
    assert.ok(written.ok);
    assert.deepEqual((written.value as ApiObject & { spec: unknown }).spec, { plan: [{ pod: 'a', node: 'n1' }] });
    assert.equal(server.counters.request('update', 'scheduleplans.planner.ciena.io/status'), 1);
  });

  it('patches are merge patches (a custom resource refuses strategic merge with 415)', async () => {
    await install();
    assert.ok((await objects.create(trigger('nightly'))).ok);
    const patched = await objects.patch('ScheduleTrigger', 'batch', 'nightly', { spec: { state: 'Schedule' } });
    assert.ok(patched.ok);
    assert.deepEqual(patched.value.spec, { state: 'Schedule' });
    const strategic = await new KubeHttp(context).request('/apis/planner.ciena.io/v1alpha1/namespaces/batch/scheduletriggers/nightly', {
      method: 'PATCH',
      body: { spec: { state: 'Planning' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    assert.ok(!strategic.ok);
    assert.equal(strategic.error.kind, 'unsupported-media-type');
  });

  it('a conditional merge patch (resourceVersion in the patch) conflicts when the object moved on', async () => {
    await install();
    const created = await objects.create(trigger('nightly'));
    assert.ok(created.ok);
    assert.ok((await objects.patch('ScheduleTrigger', 'batch', 'nightly', { spec: { state: 'Schedule' } })).ok);
    const stale = await objects.patch('ScheduleTrigger', 'batch', 'nightly', {
      metadata: { resourceVersion: created.value.metadata.resourceVersion },
      spec: { state: 'Planning' },
    });
    assert.ok(!stale.ok);
    assert.equal(stale.error.kind, 'conflict');
  });

  it('a missing object is a not-found value', async () => {
    await install();
    const got = await objects.get('SchedulePlan', 'batch', 'nope');
    assert.ok(!got.ok);
    assert.deepEqual([got.error.kind, got.error.status], ['not-found', 404]);
  });
});
