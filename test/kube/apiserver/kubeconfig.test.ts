import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { delimiter } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { parse } from 'yaml';
import { startTestApiServer, type TestApiServer } from './index';
import { names, namespace, pod } from './client';

interface KubeconfigDoc {
  clusters: { name: string; cluster: Record<string, string> }[];
  users: { name: string; user: Record<string, unknown> }[];
  contexts: { name: string; context: Record<string, string> }[];
  'current-context': string;
}

describe('test/kube/apiserver: generated kubeconfigs', () => {
  let server: TestApiServer;

  beforeEach(async () => {
    server = await startTestApiServer();
    server.create(namespace('team'), pod('in-default'), pod('in-team', { namespace: 'team' }));
  });
  afterEach(() => server.close());

  it('puts the server CA in certificate-authority-data and the credentials each user kind names', () => {
    const doc = parse(
      server.kubeconfig({
        contexts: [
          { name: 't', user: 'token' },
          { name: 'c', user: 'cert' },
          { name: 'b', user: 'both' },
          { name: 'e', user: 'exec' },
        ],
      }),
    ) as KubeconfigDoc;
    const cluster = doc.clusters[0]?.cluster ?? {};
    assert.equal(Buffer.from(cluster['certificate-authority-data'] ?? '', 'base64').toString(), server.tls.caCert);
    assert.equal(cluster['insecure-skip-tls-verify'], undefined);
    assert.equal(cluster.server, server.url);
    assert.deepEqual(
      doc.users.map((u) => [u.name, Object.keys(u.user).sort()]),
      [
        ['test-token-user', ['token']],
        ['test-cert-user', ['client-certificate-data', 'client-key-data']],
        ['test-both-user', ['client-certificate-data', 'client-key-data', 'token']],
        ['test-exec-user', ['exec']],
      ],
    );
    assert.equal(doc['current-context'], 't');
  });

  it('an exec credential plugin user gets its token from the plugin, and is let in', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(server.kubeconfig({ user: 'exec' }));
    assert.equal(kc.getCurrentUser()?.token, undefined);
    assert.deepEqual(names(await kc.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: 'team' })), ['in-team']);
  });

  it('several contexts, each with its namespace and user, all reach the server', async () => {
    const kc = new k8s.KubeConfig();
    kc.loadFromString(
      server.kubeconfig({
        contexts: [
          { name: 'dev', namespace: 'default', user: 'token' },
          { name: 'team', namespace: 'team', user: 'cert' },
        ],
        currentContext: 'team',
      }),
    );
    assert.deepEqual(
      kc.getContexts().map((x) => [x.name, x.namespace]),
      [
        ['dev', 'default'],
        ['team', 'team'],
      ],
    );
    const seen: string[][] = [];
    for (const context of ['dev', 'team']) {
      kc.setCurrentContext(context);
      const ns = kc.getContextObject(context)?.namespace ?? '';
      seen.push(names(await kc.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: ns })));
    }
    assert.deepEqual(seen, [['in-default'], ['in-team']]);
  });

  it('files written with different prefixes merge through a KUBECONFIG list', async () => {
    const first = await server.writeKubeconfig({ prefix: 'a-', user: 'token' });
    const second = await server.writeKubeconfig({ prefix: 'b-', user: 'cert', namespace: 'team' });
    assert.match(await readFile(first, 'utf8'), /current-context: a-test/);
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = [first, second].join(delimiter);
    try {
      const kc = new k8s.KubeConfig();
      kc.loadFromDefault();
      assert.deepEqual(
        kc.getContexts().map((x) => x.name),
        ['a-test', 'b-test'],
      );
      kc.setCurrentContext('b-test');
      assert.deepEqual(names(await kc.makeApiClient(k8s.CoreV1Api).listNamespacedPod({ namespace: 'team' })), ['in-team']);
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });
});
