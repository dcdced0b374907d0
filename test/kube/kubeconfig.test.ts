import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { KubeHttp, kubeconfigFiles, listContexts, loadKubeconfig, openContext } from '../../src/kube';
import { startTestApiServer, type TestApiServer } from './apiserver';
import { contextOn, node, tempDir, writeConfig } from './support';

describe('kube/kubeconfig (loading as kubectl does, choosing a context)', () => {
  describe('which files', () => {
    const env = (KUBECONFIG?: string) => (KUBECONFIG === undefined ? {} : { KUBECONFIG });
    const table: Array<[what: string, options: { kubeconfig?: string; KUBECONFIG?: string }, files: string[], explicit: boolean]> = [
      ['--kubeconfig wins over KUBECONFIG', { kubeconfig: 'mine.yaml', KUBECONFIG: '/a:/b' }, ['/work/mine.yaml'], true],
      ['every KUBECONFIG file, in order, once each', { KUBECONFIG: '/a::/b:/a' }, ['/a', '/b'], false],
      ['~/.kube/config without either', {}, ['/home/u/.kube/config'], false],
    ];
    for (const [what, o, files, explicit] of table) {
      it(what, () => {
        assert.deepEqual(
          kubeconfigFiles({
            ...(o.kubeconfig ? { kubeconfig: o.kubeconfig } : {}),
            env: env(o.KUBECONFIG),
            homedir: '/home/u',
            cwd: '/work',
            platform: 'linux',
          }),
          { files, explicit },
        );
      });
    }
  });

  describe('merging KUBECONFIG files', () => {
    const dir = tempDir();
    const first = writeConfig(dir, 'first', {
      clusters: [{ name: 'shared', server: 'https://first.example:6443' }],
      users: [{ name: 'alice', token: 'first-token-1234' }],
      contexts: [{ name: 'dev', cluster: 'shared', user: 'alice', namespace: 'team-a' }],
      current: 'dev',
    });
    const second = writeConfig(dir, 'second', {
      clusters: [
        { name: 'shared', server: 'https://second.example:6443' },
        { name: 'prod-cluster', server: 'https://prod.example:6443' },
      ],
      users: [
        { name: 'alice', token: 'second-token-5678' },
        { name: 'bob', token: 'bob-token-abcdef' },
      ],
      contexts: [
        { name: 'dev', cluster: 'prod-cluster', user: 'bob' },
        { name: 'prod', cluster: 'prod-cluster', user: 'bob' },
      ],
      current: 'prod',
    });
    const load = (KUBECONFIG: string) => loadKubeconfig({ env: { KUBECONFIG }, homedir: dir, cwd: dir });

    it('the first file to name a cluster, user or context wins; the first current-context wins', () => {
      const loaded = load(`${first}:${second}`);
      assert.ok(loaded.ok);
      assert.deepEqual(listContexts(loaded.value), [
        { name: 'dev', cluster: 'shared', user: 'alice', namespace: 'team-a', server: 'https://first.example:6443', current: true },
        { name: 'prod', cluster: 'prod-cluster', user: 'bob', server: 'https://prod.example:6443', current: false },
      ]);
    });

    it('files that do not exist are skipped, as kubectl does', () => {
      const loaded = load(`${join(dir, 'missing')}:${second}`);
      assert.ok(loaded.ok);
      assert.deepEqual(loaded.value.files, [second]);
      assert.equal(loaded.value.config.getCurrentContext(), 'prod');
    });

    it('picks --context, else the current context, and keeps the loaded kubeconfig as it was', () => {
      const opened = openContext({ env: { KUBECONFIG: `${first}:${second}` }, homedir: dir, cwd: dir, context: 'prod' });
      assert.ok(opened.ok);
      assert.equal(opened.value.context, 'prod');
      assert.equal(opened.value.server, 'https://prod.example:6443');
      assert.equal(opened.value.namespace, 'default');
      const current = openContext({ env: { KUBECONFIG: `${first}:${second}` }, homedir: dir, cwd: dir });
      assert.ok(current.ok);
      assert.deepEqual([current.value.context, current.value.namespace], ['dev', 'team-a']);
    });

    it('reads ~/.kube/config when nothing else is given', () => {
      const home = tempDir();
      mkdirSync(join(home, '.kube'));
      writeConfig(join(home, '.kube'), 'config', {
        clusters: [{ name: 'c', server: 'https://home.example' }],
        users: [{ name: 'u' }],
        contexts: [{ name: 'home', cluster: 'c', user: 'u' }],
        current: 'home',
      });
      const opened = openContext({ env: {}, homedir: home, cwd: home });
      assert.ok(opened.ok);
      assert.equal(opened.value.context, 'home');
    });
  });

  describe('errors are one line, and never show a credential', () => {
    const dir = tempDir();
    const config = writeConfig(dir, 'config', {
      clusters: [{ name: 'c', server: 'https://user:pa55word-in-url@cluster.example' }],
      users: [{ name: 'u', token: 'very-secret-token-0001' }],
      contexts: [
        { name: 'ok', cluster: 'c', user: 'u' },
        { name: 'no-user', cluster: 'c', user: 'ghost' },
      ],
    });
    const broken = join(dir, 'broken');
    writeFileSync(broken, 'users:\n- name: u\n  user: {token: very-secret-token-0001\n');
    const table: Array<[what: string, options: { kubeconfig: string; context?: string }, message: RegExp]> = [
      ['a missing --kubeconfig file', { kubeconfig: join(dir, 'nope') }, /kubeconfig .*nope: no such file/],
      ['a file that does not parse', { kubeconfig: broken }, /kubeconfig .*broken: /],
      ['no current context', { kubeconfig: config }, /has no current context; pick one with --context \(contexts: ok, no-user\)/],
      ['an unknown context', { kubeconfig: config, context: 'prod' }, /no context "prod" in the kubeconfig .*; contexts: ok, no-user/],
      [
        'a context whose user is not defined',
        { kubeconfig: config, context: 'no-user' },
        /context "no-user" names user "ghost", which the kubeconfig does not define/,
      ],
    ];
    for (const [what, o, message] of table) {
      it(what, () => {
        const opened = openContext({ ...o, env: {}, homedir: dir, cwd: dir });
        assert.ok(!opened.ok);
        assert.match(opened.error, message);
        assert.ok(!opened.error.includes('very-secret-token-0001'), opened.error);
        assert.ok(!opened.error.includes('\n'), opened.error);
      });
    }

    it('a server URL is shown without user:password', () => {
      const opened = openContext({ kubeconfig: config, context: 'ok', env: {}, homedir: dir, cwd: dir });
      assert.ok(opened.ok);
      assert.equal(opened.value.server, 'https://cluster.example');
    });
  });

  describe('against the test API server (https, real client-node)', () => {
    let server: TestApiServer;
    before(async () => {
      server = await startTestApiServer();
      server.create(node('n1'));
    });
    after(() => server.close());

    for (const user of ['token', 'cert', 'both'] as const) {
      it(`a ${user} kubeconfig reads the cluster`, async () => {
        const listed = await new KubeHttp(await contextOn(server, { user })).request<{ items: Array<{ metadata: { name: string } }> }>(
          '/api/v1/nodes',
        );
        assert.ok(listed.ok);
        assert.deepEqual(
          listed.value.items.map((i) => i.metadata.name),
          ['n1'],
        );
      });
    }

    it('several files through KUBECONFIG, each context to its own user', async () => {
      const a = await server.writeKubeconfig({ prefix: 'a-', user: 'token', contexts: [{ name: 'with-token' }] });
      const b = await server.writeKubeconfig({ prefix: 'b-', user: 'cert', contexts: [{ name: 'with-cert' }] });
      for (const context of ['with-token', 'with-cert']) {
        const opened = openContext({ env: { KUBECONFIG: `${a}:${b}` }, homedir: tempDir(), cwd: '/', context });
        assert.ok(opened.ok);
        const listed = await new KubeHttp(opened.value).request('/api/v1/nodes');
        assert.ok(listed.ok, context);
      }
    });

    it('an exec plugin user: its token authenticates and is redacted from then on', async () => {
      const dir = tempDir();
      const plugin = join(dir, 'plugin.cjs');
      const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: server.token } };
      writeFileSync(plugin, `process.stdout.write(${JSON.stringify(JSON.stringify(credential))});\n`);
      const base = parse(server.kubeconfig({ user: 'token' })) as { users: Array<{ user: Record<string, unknown> }> };
      base.users[0]!.user = {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: [plugin], interactiveMode: 'Never' },
      };
      const file = join(dir, 'config');
      writeFileSync(file, stringify(base));
      const opened = openContext({ kubeconfig: file, env: {}, homedir: dir, cwd: dir });
      assert.ok(opened.ok);
      assert.equal(opened.value.redactor.redact(server.token), server.token, 'not known before the plugin ran');
      const listed = await new KubeHttp(opened.value).request('/api/v1/nodes');
      assert.ok(listed.ok);
      assert.equal(opened.value.redactor.redact(`token ${server.token}`), 'token <redacted>');
    });

    it('a refused token is an unauthorized value whose message does not hold the token', async () => {
      const wrong = 'wrong-token-000000000000';
      const file = join(tempDir(), 'config');
      writeFileSync(file, server.kubeconfig({ user: 'token' }).replace(server.token, wrong));
      const opened = openContext({ kubeconfig: file, env: {}, homedir: tempDir(), cwd: '/' });
      assert.ok(opened.ok);
      const listed = await new KubeHttp(opened.value).request('/api/v1/nodes');
      assert.deepEqual(listed, {
        ok: false,
        error: { kind: 'unauthorized', status: 401, message: 'Unauthorized', reason: 'Unauthorized' },
      });
    });
  });
});
