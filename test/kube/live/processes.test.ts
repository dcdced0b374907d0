// `podplan run` as real processes of the built CLI (bin/podplan.js → dist/cli.cjs; `npm run build`
// first): two copies elect one leader through the Lease and bind each pod once; SIGTERM lets the
// bindings in flight finish before the process exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { node, pod, podsOf, runArgs, startCluster, type Cluster } from './cluster';

const BIN = path.resolve('bin/podplan.js');

interface Child {
  readonly exited: Promise<{ code: number | null; stdout: string; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
  /** Resolves when stdout has matched `pattern`. */
  waitFor(pattern: RegExp): Promise<void>;
}

function podplan(args: readonly string[]): Child {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    for (const w of waiters.filter((x) => x.pattern.test(stdout))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return {
    exited,
    kill: (signal) => void child.kill(signal),
    waitFor: (pattern) => (pattern.test(stdout) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pattern, resolve }))),
  };
}

describe('kube/live: podplan run processes', function () {
  this.timeout(120_000);
  let cluster: Cluster | undefined;
  before(function () {
    assert.ok(existsSync(path.resolve('dist/cli.cjs')), 'dist/cli.cjs is built (npm run build)');
  });
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('two copies at once: one leads, each pod is bound exactly once', async () => {
    cluster = await startCluster([
      ...Array.from({ length: 50 }, (_, i) => node(`node-${i}`)),
      ...Array.from({ length: 300 }, (_, i) => pod(`web-${i}`)),
    ]);
    const copies = [
      podplan([...runArgs(cluster, '--once', '--identity', 'copy-a')]),
      podplan([...runArgs(cluster, '--once', '--identity', 'copy-b')]),
    ];
    const results = await Promise.all(copies.map((c) => c.exited));
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const leaders = results.filter((r) => /leads; scheduling/.test(r.stderr));
    assert.ok(leaders.length >= 1, 'a copy led');
    const bound = results.reduce((n, r) => n + (r.stdout.match(/^bound /gm) ?? []).length, 0);
    assert.equal(bound, 300, 'the copies bound 300 pods between them');
    for (const [key, p] of podsOf(cluster.server)) {
      assert.ok(p.spec.nodeName, `${key} is bound`);
      assert.equal(cluster.server.counters.bindings.get(key), 1, `${key} is bound exactly once`);
    }
    const lease = cluster.server.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }, 'kube-system', 'podplan-scheduler') as
      { spec?: { holderIdentity?: string } } | undefined;
    assert.equal(lease?.spec?.holderIdentity, '', 'the last leader released the Lease');
  });

  it('SIGTERM: the bindings in flight finish, then it exits', async () => {
    cluster = await startCluster([
      ...Array.from({ length: 20 }, (_, i) => node(`node-${i}`)),
      ...Array.from({ length: 400 }, (_, i) => pod(`web-${i}`)),
    ]);
    cluster.server.setFaults({ latencyMs: 50 });
    const copy = podplan(runArgs(cluster));
    await copy.waitFor(/^bound /m);
    copy.kill('SIGTERM');
    const result = await copy.exited;
    assert.match(result.stderr, /SIGTERM: finishing the bindings in flight/);
    const reported = new Set((result.stdout.match(/^bound \S+/gm) ?? []).map((line) => line.slice('bound '.length)));
    const bound = [...podsOf(cluster.server)].filter(([, p]) => p.spec.nodeName).map(([key]) => key);
    assert.ok(bound.length < 400, 'it stopped before binding everything');
    assert.deepEqual(new Set(bound), reported, 'every binding it posted was answered and reported before it exited');
    for (const key of bound) assert.equal(cluster.server.counters.bindings.get(key), 1);
  });
});
