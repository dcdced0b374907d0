// Kubeconfig credentials never reach the history: a source is stored by kind, name and server only,
// and the server URL loses any user info, query and fragment.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeServer } from '../../src/store/store';
import type { SourceRef } from '../../src/store/types';
import { openTestStore, useTempDir, value } from './helpers';
import { syntheticPlan } from './synthetic';

const SECRETS = {
  token: 'eyJhbGciOiJSUzI1NiJ9.TOKEN-7f3a9c',
  clientKey: 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t-KEY-51e2',
  clientCert: 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t-CERT-8d41',
  password: 'hunter2-PASSWORD-0b6e',
  urlPassword: 'url-PASSWORD-c9d2',
  urlToken: 'url-TOKEN-44aa',
};

// A kube context as the kube layer holds it: the context, its cluster and its user with credentials.
const kubeconfig = {
  clusters: [
    {
      name: 'prod',
      cluster: {
        server: `https://admin:${SECRETS.urlPassword}@10.0.0.1:6443/?token=${SECRETS.urlToken}#${SECRETS.urlToken}`,
        'certificate-authority-data': 'CA',
      },
    },
  ],
  users: [
    {
      name: 'admin',
      user: {
        token: SECRETS.token,
        'client-key-data': SECRETS.clientKey,
        'client-certificate-data': SECRETS.clientCert,
        username: 'admin',
        password: SECRETS.password,
      },
    },
  ],
  contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'admin' } }],
};

describe('store: no credential reaches the database', () => {
  const dir = useTempDir();

  it('cuts user info, query and fragment from a server URL', () => {
    const cases: Array<[string, string]> = [
      ['https://admin:secret@10.0.0.1:6443/?token=abc#x', 'https://10.0.0.1:6443/'],
      ['https://10.0.0.1:6443', 'https://10.0.0.1:6443'],
      ['user:pw@cluster.local:443/api', 'cluster.local:443/api'],
      ['examples/cluster', 'examples/cluster'],
    ];
    for (const [server, safe] of cases) assert.equal(safeServer(server), safe, server);
  });

  it("keeps none of a kubeconfig's secrets when its context, cluster and user are passed as the source of a run", async () => {
    const file = join(dir.path, 'history.db');
    const store = await openTestStore(file);
    // Everything the kube layer has at hand, spread into the source; only kind, name and server may be read.
    const context = { ...kubeconfig.contexts[0]!, ...kubeconfig.clusters[0]!.cluster, ...kubeconfig.users[0]!.user, kubeconfig };
    const source: SourceRef = { kind: 'kube-context', ...context };
    const run = value(store.startRun(source, 'live'));
    value(store.savePlan(run, syntheticPlan({ pods: 50, unplaced: 5, nodes: 10, trigger: 'web' }), { profileHash: 'p' }));
    value(store.finishRun(run, 'succeeded'));
    assert.equal(value(store.history({ source })).items.length, 1);
    assert.deepEqual(value(store.runs({ source })).items[0]!.source, {
      kind: 'kube-context',
      name: 'prod',
      server: 'https://10.0.0.1:6443/',
    });

    const search = (): string[] => {
      const files = [file, `${file}-wal`, `${file}-shm`].filter(existsSync);
      const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
      return Object.entries(SECRETS).flatMap(([name, secret]) => (bytes.includes(Buffer.from(secret)) ? [name] : []));
    };
    // While open the latest writes sit in the WAL; after close they are checkpointed into the file.
    assert.ok(existsSync(`${file}-wal`));
    assert.deepEqual(search(), []);
    store.close();
    assert.deepEqual(search(), []);
    // The search itself finds what is there.
    assert.ok(readFileSync(file).includes(Buffer.from('10.0.0.1:6443')));
  });
});
