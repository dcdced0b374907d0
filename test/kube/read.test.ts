import assert from 'node:assert/strict';
import {
  applyCrdInstall,
  clusterModel,
  KubeHttp,
  LAST_APPLIED_ANNOTATION,
  planCrdInstall,
  readCluster,
  type KubeContext,
} from '../../src/kube';
import { simulate } from '../../src/engine/scheduler/simulate';
import { startTestApiServer, type KubeObject, type TestApiServer } from './apiserver';
import { contextOn, DRA_API, gpuClaim, gpuClass, gpuSlice, namespace, node, ONE_GPU, pod, storageAndPolicy } from './support';

async function installCrds(context: KubeContext): Promise<void> {
  const http = new KubeHttp(context);
  const steps = await planCrdInstall(http);
  assert.ok(steps.ok);
  assert.ok((await applyCrdInstall(http, steps.value)).ok);
}

const trigger = (name: string, ns: string, podSet: string) => ({
  apiVersion: 'planner.ciena.io/v1alpha1',
  kind: 'ScheduleTrigger',
  metadata: { name, namespace: ns, labels: { 'planner.ciena.io/pod-set': podSet } },
  spec: { state: 'Planning' },
});

describe('kube/read (a cluster read once, through the manifests decoder)', () => {
  let server: TestApiServer;
  let context: KubeContext;

  beforeEach(async () => {
    server = await startTestApiServer();
    context = await contextOn(server, { contexts: [{ name: 'lab' }] });
    server.create(namespace('shop'), namespace('batch'), node('n1'), node('n2'), ...storageAndPolicy('shop'));
    server.create(
      pod('web-7d4b9-abcde', {
        namespace: 'shop',
        nodeName: 'n1',
        labels: { app: 'web' },
        owner: { kind: 'ReplicaSet', name: 'web-7d4b9' },
      }),
      pod('web-7d4b9-fghij', { namespace: 'shop', labels: { app: 'web' }, owner: { kind: 'ReplicaSet', name: 'web-7d4b9' } }),
      pod('job-1', { namespace: 'batch', cpu: '2' }),
    );
    server.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-password', namespace: 'shop' },
      type: 'Opaque',
      data: { password: 'aHVudGVyMg==' },
    });
  });
  afterEach(() => server.close());

  it('reads every kind Podplan uses, with apiVersion and kind, in snapshot order (by file: <ns>/<kind>.yaml, <kind>.yaml; then name)', async () => {
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    assert.equal(read.value.context, 'lab');
    assert.deepEqual(read.value.warnings, []);
    assert.deepEqual(
      read.value.objects.map(
        (o) => `${o.object.apiVersion} ${o.object.kind} ${o.object.metadata.namespace ?? '-'}/${o.object.metadata.name}`,
      ),
      [
        'v1 Pod batch/job-1',
        'storage.k8s.io/v1 CSIDriver -/csi.example',
        'storage.k8s.io/v1 CSINode -/n1',
        'v1 Namespace -/batch',
        'v1 Namespace -/default',
        'v1 Namespace -/kube-node-lease',
        'v1 Namespace -/kube-public',
        'v1 Namespace -/kube-system',
        'v1 Namespace -/shop',
        'v1 Node -/n1',
        'v1 Node -/n2',
        'v1 PersistentVolume -/pv-1',
        'scheduling.k8s.io/v1 PriorityClass -/high',
        'storage.k8s.io/v1 CSIStorageCapacity shop/fast-zone-a',
        'v1 PersistentVolumeClaim shop/data',
        'policy/v1 PodDisruptionBudget shop/web',
        'v1 Pod shop/web-7d4b9-abcde',
        'v1 Pod shop/web-7d4b9-fghij',
        'storage.k8s.io/v1 StorageClass -/fast',
      ],
    );
  });

  it('reads the resource.k8s.io/v1 kinds of Dynamic Resource Allocation, decoded as files are', async () => {
    server.create(gpuClass(), gpuSlice('n1'), gpuClaim('one-gpu', 'batch'), {
      apiVersion: DRA_API,
      kind: 'ResourceClaimTemplate',
      metadata: { name: 'gpus', namespace: 'batch' },
      spec: { spec: ONE_GPU },
    });
    const read = await readCluster(new KubeHttp(context), { namespace: 'batch' });
    assert.ok(read.ok);
    assert.deepEqual(
      read.value.objects.filter((o) => o.object.apiVersion === DRA_API).map((o) => `${o.object.kind} ${o.object.metadata.name}`),
      ['ResourceClaim one-gpu', 'ResourceClaimTemplate gpus', 'DeviceClass gpu', 'ResourceSlice n1-gpus'],
    );
    const model = clusterModel(read.value);
    assert.deepEqual(
      model.errors.filter((e) => e.severity === 'error'),
      [],
    );
    assert.deepEqual(
      [model.cluster.deviceClasses, model.cluster.resourceSlices, model.cluster.resourceClaims, model.cluster.resourceClaimTemplates].map(
        (list) => list?.map((o) => o.metadata.name),
      ),
      [['gpu'], ['n1-gpus'], ['one-gpu'], ['gpus']],
    );
    assert.equal(model.resourceClaims[0]?.file, 'context/lab/ResourceClaim/batch/one-gpu');
  });

  it('never asks for Secrets', async () => {
    server.counters.reset();
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    assert.ok(!read.value.objects.some((o) => o.object.kind === 'Secret'));
    assert.deepEqual(
      [...server.counters.requests.keys()].filter((k) => k.includes('secrets')),
      [],
    );
  });

  it('pods keep their real names and owners, and the model holds them as the engine reads them', async () => {
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    const model = clusterModel(read.value);
    assert.deepEqual(
      model.errors.filter((e) => e.severity === 'error'),
      [],
    );
    assert.deepEqual(
      model.cluster.nodes.map((n) => n.metadata.name),
      ['n1', 'n2'],
    );
    const pods = model.cluster.pods.map((p) => [
      `${p.metadata.namespace}/${p.metadata.name}`,
      p.spec.nodeName ?? null,
      p.metadata.ownerReferences?.[0]?.name ?? null,
    ]);
    assert.deepEqual(pods, [
      ['batch/job-1', null, null],
      ['shop/web-7d4b9-abcde', 'n1', 'web-7d4b9'],
      ['shop/web-7d4b9-fghij', null, 'web-7d4b9'],
    ]);
    assert.equal(model.pods[0]?.file, 'context/lab/Pod/batch/job-1');
  });

  it('drops managedFields, the last-applied annotation and literal env values', async () => {
    server.create({
      ...pod('leaky', {
        namespace: 'shop',
        env: { DB_PASSWORD: 'hunter2-literal', MODE: 'x' },
        annotations: { [LAST_APPLIED_ANNOTATION]: '{"spec":"..."}', team: 'a' },
      }),
    });
    const read = await readCluster(new KubeHttp(context), { namespace: 'shop' });
    assert.ok(read.ok);
    const leaky = read.value.objects.find((o) => o.object.metadata.name === 'leaky')?.object as unknown as {
      metadata: Record<string, unknown>;
      spec: { containers: Array<{ env: unknown }> };
    };
    assert.equal(leaky.metadata.managedFields, undefined);
    assert.deepEqual(leaky.metadata.annotations, { team: 'a' });
    assert.deepEqual(leaky.spec.containers[0]?.env, [{ name: 'DB_PASSWORD' }, { name: 'MODE' }]);
    assert.ok(!JSON.stringify(read.value).includes('hunter2-literal'));
  });

  it('-n reads one namespace of the namespaced kinds and every cluster-scoped object', async () => {
    const read = await readCluster(new KubeHttp(context), { namespace: 'batch' });
    assert.ok(read.ok);
    const namespaced = read.value.objects.filter((o) => o.resource.namespaced).map((o) => o.object.metadata.name);
    assert.deepEqual(namespaced, ['job-1']);
    assert.ok(read.value.objects.some((o) => o.object.kind === 'Node'));
  });

  it('without the planner CRDs there are no triggers or plans, and no warning', async () => {
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    assert.deepEqual(read.value.warnings, []);
    assert.equal(clusterModel(read.value).triggers.length, 0);
  });

  it('with them, ScheduleTriggers and SchedulePlans are read', async () => {
    await installCrds(context);
    server.create(trigger('nightly', 'batch', 'nightly'));
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    const model = clusterModel(read.value);
    assert.deepEqual(
      model.triggers.map((t) => [t.value.namespace, t.value.name, t.value.podSet, t.value.state]),
      [['batch', 'nightly', 'nightly', 'Planning']],
    );
  });

  it('a kind the user may not list is a warning naming it; the rest is read', async () => {
    server.setFaults({ forbiddenResources: ['poddisruptionbudgets.policy'] });
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    assert.equal(read.value.warnings.length, 1);
    assert.match(
      read.value.warnings[0] ?? '',
      /^cannot list poddisruptionbudgets\.policy in context lab: poddisruptionbudgets\.policy is forbidden: User "test" cannot list/,
    );
    assert.ok(!read.value.objects.some((o) => o.object.kind === 'PodDisruptionBudget'));
    assert.ok(read.value.objects.some((o) => o.object.kind === 'Pod'));
  });

  it('CSIDriver and CSIStorageCapacity reach the engine: a claim to provision is checked against the capacity the cluster publishes', async () => {
    // csi.example says storageCapacity: true; its only CSIStorageCapacity (max 20Gi) selects zone a, which only n3 is in.
    const claim = (name: string, size: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name, namespace: 'shop' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: size } } },
    });
    const withClaim = (name: string, claimName: string): KubeObject => {
      const p = pod(name, { namespace: 'shop' }) as { spec: Record<string, unknown> };
      return { ...p, spec: { ...p.spec, volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } } as KubeObject;
    };
    server.create(
      node('n3', '4', { zone: 'a' }),
      claim('mid', '15Gi'),
      claim('big', '50Gi'),
      withClaim('db', 'mid'),
      withClaim('huge-db', 'big'),
    );
    const read = await readCluster(new KubeHttp(context), { namespace: 'shop' });
    assert.ok(read.ok);
    const { cluster } = clusterModel(read.value);
    assert.deepEqual(
      cluster.csiDrivers?.map((d) => [d.metadata.name, d.spec.storageCapacity]),
      [['csi.example', true]],
    );
    assert.deepEqual(
      cluster.csiStorageCapacities?.map((c) => [c.metadata.name, c.storageClassName, c.maximumVolumeSize]),
      [['fast-zone-a', 'fast', '20Gi']],
    );
    const result = await simulate(cluster);
    assert.ok(result.ok);
    const outcome = (name: string) => result.value.outcomes.find((o) => o.pod === `shop/${name}`);
    assert.equal(outcome('db')?.node, 'n3');
    assert.equal(outcome('huge-db')?.node, undefined);
    assert.equal(
      outcome('huge-db')?.diagnosis.message,
      '0/3 nodes are available: 3 node(s) did not have enough free storage. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.',
    );
  });

  it('CSIStorageCapacity objects the user may not list are a warning; the rest is read', async () => {
    server.setFaults({ forbiddenResources: ['csistoragecapacities.storage.k8s.io'] });
    const read = await readCluster(new KubeHttp(context));
    assert.ok(read.ok);
    assert.equal(read.value.warnings.length, 1);
    assert.match(read.value.warnings[0] ?? '', /^cannot list csistoragecapacities\.storage\.k8s\.io in context lab: /);
    assert.ok(!read.value.objects.some((o) => o.object.kind === 'CSIStorageCapacity'));
    assert.ok(read.value.objects.some((o) => o.object.kind === 'CSIDriver'));
  });

  it('reads long lists page by page', async () => {
    server.create(...Array.from({ length: 1_100 }, (_, i) => pod(`p-${String(i).padStart(4, '0')}`, { namespace: 'batch' })));
    server.counters.reset();
    const read = await readCluster(new KubeHttp(context), { namespace: 'batch' });
    assert.ok(read.ok);
    assert.equal(read.value.objects.filter((o) => o.object.kind === 'Pod').length, 1_101);
    assert.equal(server.counters.request('list', 'pods'), 3);
  });

  it('an unreachable server fails the read with one line naming the context', async () => {
    await server.close();
    const read = await readCluster(new KubeHttp(context));
    assert.ok(!read.ok);
    assert.match(read.error, /^context lab \(https:\/\/127\.0\.0\.1:\d+\): listing \S+ failed: /);
    server = await startTestApiServer();
  });
});
