import assert from 'node:assert/strict';
import { snapshotFiles } from '../../src/cli/commands/snapshot';
import { clusterModel, KubeHttp, readCluster } from '../../src/kube';
import { readSnapshot } from '../../src/manifests';
import { startTestApiServer, type TestApiServer } from '../kube/apiserver';
import { contextOn, namespace, node, pod, storageAndPolicy } from '../kube/support';

describe('cli snapshot (files that read back to the model of the context)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
    server.create(namespace('shop'), node('n1', '8', { zone: 'a' }), node('n2'), ...storageAndPolicy('shop'));
    server.create(
      pod('web-1', {
        namespace: 'shop',
        nodeName: 'n1',
        labels: { app: 'web', version: '1.10' },
        owner: { kind: 'ReplicaSet', name: 'web' },
        annotations: { note: 'yes: no', num: '0123' },
      }),
      pod('web-2', { namespace: 'shop', labels: { app: 'web' }, owner: { kind: 'ReplicaSet', name: 'web' } }),
      pod('lone', { namespace: 'default', cpu: '500m' }),
    );
  });
  after(() => server.close());

  it('the objects written, read back as YAML, make the same model as the context (timestamps, quoted numbers and all)', async () => {
    const read = await readCluster(new KubeHttp(await contextOn(server, { contexts: [{ name: 'lab' }] })));
    assert.ok(read.ok);
    const live = clusterModel(read.value);
    const files = [...snapshotFiles(read.value.objects, 'lab')]
      .map(([name, text]) => ({ name: `snap/${name}`, text }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const back = readSnapshot(files);
    assert.deepEqual([live.errors, back.errors], [[], []]);
    assert.deepEqual(back.cluster, live.cluster);
    assert.deepEqual(
      back.others.map((o) => o.value),
      live.others.map((o) => o.value),
    );
    assert.deepEqual(
      back.files.flatMap((f) => f.documents.map((d) => d.value)),
      read.value.objects.map((o) => o.object),
    );
  });
});
