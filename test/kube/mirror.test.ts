import assert from 'node:assert/strict';
import { ClusterMirror, KubeHttp, type KubeContext } from '../../src/kube';
import { systemClock } from '../../src/platform/clock';
import { startTestApiServer, type KubeObject, type TestApiServer } from './apiserver';
import { contextOn, eventually, gpuClaim, gpuClass, namespace, node, storageAndPolicy } from './support';

const capacity = (name: string, maximumVolumeSize: string): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIStorageCapacity',
  metadata: { name, namespace: 'shop' },
  storageClassName: 'fast',
  nodeTopology: { matchLabels: { zone: 'b' } },
  capacity: '500Gi',
  maximumVolumeSize,
});

describe('kube/mirror (the live model of every kind the cluster reader lists)', () => {
  let server: TestApiServer;
  let context: KubeContext;
  let mirror: ClusterMirror | undefined;

  beforeEach(async () => {
    server = await startTestApiServer({ bookmarkIntervalMs: 0 });
    context = await contextOn(server);
    server.create(namespace('shop'), node('n1', '4', { zone: 'a' }), ...storageAndPolicy('shop'));
  });
  afterEach(async () => {
    await mirror?.stop();
    mirror = undefined;
    await server.close();
  });

  it('holds the CSIDrivers and CSIStorageCapacities, and follows a driver publishing new capacity', async () => {
    mirror = new ClusterMirror(new KubeHttp(context), { clock: systemClock });
    await mirror.start();
    await mirror.synced;
    const capacities = () =>
      (mirror?.model().cluster.csiStorageCapacities ?? []).map((c) => `${c.metadata.name} ${c.maximumVolumeSize ?? '-'}`);
    assert.deepEqual(
      mirror.model().cluster.csiDrivers?.map((d) => d.metadata.name),
      ['csi.example'],
    );
    assert.deepEqual(capacities(), ['fast-zone-a 20Gi']);
    server.create(capacity('fast-zone-b', '80Gi'));
    await eventually(() => capacities().length === 2, 'the new CSIStorageCapacity');
    assert.deepEqual(capacities(), ['fast-zone-a 20Gi', 'fast-zone-b 80Gi']);
  });

  it('holds the DRA kinds, and follows a claim whose status a scheduler wrote (what the editor’s live source shows)', async () => {
    const [claim] = server.create(gpuClaim('one-gpu', 'shop'), gpuClass());
    mirror = new ClusterMirror(new KubeHttp(context), { clock: systemClock });
    await mirror.start();
    await mirror.synced;
    assert.deepEqual(
      mirror.model().cluster.deviceClasses?.map((c) => c.metadata.name),
      ['gpu'],
    );
    const allocated = () => mirror?.model().cluster.resourceClaims?.[0]?.status?.allocation?.devices?.results?.[0]?.device;
    assert.equal(allocated(), undefined);
    const result = { request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' };
    server.update({ ...claim!, status: { allocation: { devices: { results: [result] } } } });
    await eventually(() => allocated() !== undefined, 'the claim allocated');
    assert.equal(allocated(), 'gpu-0');
  });
});
