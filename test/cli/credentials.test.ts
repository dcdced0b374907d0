// A kubeconfig holding a bearer token and a client key goes through every command that reads a
// cluster, on success and on failure paths, and neither is found anywhere Podplan writes: stdout,
// stderr, snapshot files, the plan history database and its WAL.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectPlanner } from '../../src/rpc';
import { startTestApiServer, type TestApiServer } from '../kube/apiserver';
import { namespace, node, pod, tempDir } from '../kube/support';
import { cli, servePlanner } from './run-cli';

describe('cli: credentials are found nowhere', () => {
  let server: TestApiServer;

  before(async () => {
    server = await startTestApiServer();
    server.create(namespace('shop'), node('n1'), node('n2'));
    server.create(
      pod('a', { namespace: 'shop', cpu: '1', schedulerName: 'podset-planner-scheduler', labels: { 'planner.ciena.io/pod-set': 'cart' } }),
      pod('big', { namespace: 'shop', cpu: '64' }),
    );
  });
  after(() => server.close());

  it('through schedule, plan, snapshot, serve-planner, crds, install-crds, and their failures', async () => {
    const dir = tempDir('podplan-credentials-');
    const kubeconfig = await server.writeKubeconfig({ user: 'both', contexts: [{ name: 'lab' }] });
    const text = readFileSync(kubeconfig, 'utf8');
    const secrets = [
      server.token,
      server.tls.clientKey,
      Buffer.from(server.tls.clientKey).toString('base64'),
      ...keyLines(server.tls.clientKey),
    ];
    assert.ok(secrets.every((s) => s.length >= 16));
    assert.ok(
      text.includes(server.token) && text.includes(Buffer.from(server.tls.clientKey).toString('base64')),
      'the kubeconfig holds both',
    );
    // A second kubeconfig that does not parse, holding the same token.
    const broken = join(dir, 'broken-kubeconfig');
    writeFileSync(broken, `users:\n- name: u\n  user: {token: ${server.token}\n`);

    const files: Record<string, string> = {};
    const db = join(dir, 'history.db');
    const ctx = ['--context', 'lab', '--kubeconfig', kubeconfig];
    const outputs: string[] = [];
    const run = async (argv: string[], env: Record<string, string> = {}) => {
      const r = await cli(argv, files, env);
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    assert.equal((await run(['schedule', ...ctx, '--db', db])).code, 1);
    assert.equal((await run(['plan', ...ctx, '--pod-set', 'cart', '--yaml'])).code, 0);
    assert.equal((await run(['snapshot', ...ctx, '-o', '/work/snap'])).code, 0);
    assert.equal((await run(['crds'])).code, 0);
    assert.equal((await run(['install-crds', ...ctx, '--dry-run'])).code, 0);
    assert.equal((await run(['install-crds', ...ctx])).code, 0);
    outputs.push(await servePlannerOnce(ctx, files));
    // failures: a kind forbidden, an unknown context, a kubeconfig that does not parse, a server gone
    server.setFaults({ forbiddenResources: ['pods'] });
    assert.equal((await run(['schedule', ...ctx, '--db', db])).code, 0);
    server.clearFaults();
    assert.equal((await run(['schedule', '--context', 'nope', '--kubeconfig', kubeconfig])).code, 2);
    assert.equal((await run(['schedule', '--context', 'lab'], { KUBECONFIG: broken })).code, 2);
    await server.close();
    assert.equal((await run(['snapshot', ...ctx, '-o', '/work/gone'])).code, 2);
    server = await startTestApiServer();

    const written = [
      ...outputs.map((o, i) => [`output ${i}`, o] as const),
      ...Object.entries(files),
      ...readdirSync(dir)
        .filter((f) => f.startsWith('history.db'))
        .map((f) => [f, readFileSync(join(dir, f)).toString('latin1')] as const),
    ];
    const history = written.find(([name]) => name === 'history.db')?.[1] ?? '';
    assert.ok(history.includes('kube-context') && history.includes('lab'), 'the runs are in the history, under the context by name');
    assert.ok(Object.keys(files).length > 0, 'the snapshot was written');
    for (const [where, content] of written) for (const s of secrets) assert.ok(!content.includes(s), `a credential is in ${where}`);
    // And what was said is still useful: the failures were reported.
    const all = outputs.join('\n');
    assert.match(all, /cannot list pods in context lab: pods is forbidden/);
    assert.match(all, /no context "nope"/);
    assert.match(all, /kubeconfig .*broken-kubeconfig: /);
    assert.match(all, /podplan snapshot: context lab \(https:\/\/127\.0\.0\.1:\d+\): listing \S+ failed: /);
  });
});

/** The base64 lines of a PEM key (each long enough to be telling on its own). */
function keyLines(pem: string): string[] {
  return pem.split('\n').filter((l) => l.length >= 16 && !l.startsWith('-----'));
}

async function servePlannerOnce(ctx: string[], files: Record<string, string>): Promise<string> {
  const { address, run: running, stop } = servePlanner(ctx, files);
  const connected = connectPlanner(await address, { deadlineMs: 10_000 });
  assert.ok(connected.ok);
  await connected.value.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: '', eligibleNodes: [] });
  await connected.value.buildSchedulePlan({ namespace: 'shop', podSet: 'none', scheduledPod: '', eligibleNodes: [] });
  connected.value.close();
  stop('SIGTERM');
  const r = await running;
  return `${r.stdout}\n${r.stderr}`;
}
