// What ships: `npm pack` of a copy of this tree (its tracked and untracked files, as a clean clone
// with the work in progress), installed globally into an empty prefix as a user installs it, and
// the installed `podplan` run on the example cluster and on a kube context of the test API server.
// The package carries its bundles (dist/), HiGHS and better-sqlite3's addon: it has no dependency
// to fetch and no install script for npm 11's install-script policy to hold back.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Result } from '../../src/engine/api/result';
import { PlanBoundRequest, PreviewPlanRequest } from '../../src/protocol/requests';
import type { PlanBoundView, PlanView } from '../../src/protocol/webview';
import { startTestApiServer, type TestApiServer } from '../kube/apiserver';
import { namespace, node, pod, tempDir } from '../kube/support';
import { startLspSession } from '../server/lsp-client';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Node 22 from the npm registry's `node` package, kept under .cache/ (shared with test/store/driver.test.ts). */
const NODE22_PREFIX = join(ROOT, '.cache/node22');
const NODE22 = join(NODE22_PREFIX, 'node_modules', 'node', 'bin', 'node');

/** The environment of a child without this test run's own npm and Node settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== 'NODE_OPTIONS' && k !== 'INIT_CWD') env[k] = v;
  return { ...env, ...extra };
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

interface PackedFile {
  readonly path: string;
}

describe('the package npm pack makes, installed as users install it', function () {
  this.timeout(600_000);
  const dir = tempDir('podplan-pack-');
  const prefix = join(dir, 'prefix');
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  const podplan = join(prefix, 'bin', 'podplan');
  let files: string[] = [];
  let server: TestApiServer;
  let env: NodeJS.ProcessEnv;

  const tree = join(dir, 'tree');

  before(async () => {
    // A copy of the tree as git sees it (ignored files, dist/ among them, left out), with the
    // project's node_modules linked for the build tools: prepack must build what ships.
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).split('\0');
    for (const file of listed) if (file !== '' && existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(tree, file));
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    mkdirSync(join(dir, 'out'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', join(dir, 'out')], {
      cwd: tree,
      env: cleanEnv({ npm_config_cache: join(dir, 'npm-cache') }),
    });
    assert.equal(packed.code, 0, packed.stderr);
    const json = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m))) as Array<{ filename: string; files: PackedFile[] }>;
    const tarball = join(dir, 'out', json[0]!.filename);
    files = json[0]!.files.map((f) => f.path);

    // Offline: the package must need nothing from the registry.
    const installed = await run('npm', ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: dir,
      env: cleanEnv({ npm_config_cache: join(dir, 'npm-cache') }),
    });
    assert.equal(installed.code, 0, installed.stderr);
    assert.doesNotMatch(installed.stderr, /install-scripts|allowScripts/, installed.stderr);

    cpSync(join(ROOT, 'examples/cluster'), join(work, 'cluster'), { recursive: true });
    mkdirSync(home, { recursive: true });
    env = cleanEnv({ HOME: home, XDG_DATA_HOME: join(home, 'data'), PODPLAN_DB: join(home, 'history.db'), NO_COLOR: '1' });

    server = await startTestApiServer();
    server.create(
      namespace('shop'),
      node('n1'),
      node('n2'),
      pod('web-a', { namespace: 'shop', nodeName: 'n1', cpu: '1' }),
      pod('web-b', { namespace: 'shop', cpu: '1' }),
      pod('huge', { namespace: 'shop', cpu: '10' }),
    );
  });
  after(() => server?.close());

  const podplanIn = (args: readonly string[], node?: string) =>
    node === undefined ? run(podplan, args, { cwd: work, env }) : run(node, [podplan, ...args], { cwd: work, env });

  it('holds the CLI, the extension, their bundles, HiGHS and the SQLite addon, and no test, source or source map', () => {
    for (const needed of [
      'bin/podplan.js',
      'dist/cli.cjs',
      'dist/extension.cjs',
      'dist/server.cjs',
      'dist/webview.js',
      'dist/node_modules/highs/build/highs.mjs',
      'dist/node_modules/highs/build/highs.wasm',
      'package.json',
      'README.md',
      'LICENSE',
    ]) {
      assert.ok(files.includes(needed), `${needed} is not in the package: ${files.join(', ')}`);
    }
    assert.ok(
      files.some((f) => /^dist\/native\/better_sqlite3-.*\.node$/.test(f)),
      files.join(', '),
    );
    assert.deepEqual(
      files.filter((f) => /^(test|src|bench|scripts)\/|\.test\.|\.map$|\.ts$/.test(f)),
      [],
    );
  });

  it('declares no dependency and no install script (the bundles carry what they need)', () => {
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib/node_modules/podplan/package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    assert.equal(manifest.dependencies, undefined);
    assert.deepEqual(
      Object.keys(manifest.scripts ?? {}).filter((s) => /^(pre|post)?install$/.test(s)),
      [],
    );
  });

  it("schedule: the example cluster's pending pods, placed and explained", async () => {
    const r = await podplanIn(['schedule', 'cluster']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^shop\/web-0\*? +node-/m);
    assert.match(r.stdout, /ml\/trainer: 0\/6 nodes are available/);
    assert.match(r.stderr, /^Recorded as plan 1 in /m);
  });

  it('plan --planner exact: the solver loads from the package and proves the small set optimal', async () => {
    const r = await podplanIn(['plan', 'cluster', '--pod-set', 'nightly-batch', '--planner', 'exact']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /could not be loaded/);
    assert.match(r.stdout, /6 of 6 pods placed/);
    assert.match(r.stdout, /^Bound \(HiGHS \d+\.\d+\.\d+\): proven optimal\.$/m);
  });

  it("explain: one pod's placement", async () => {
    const r = await podplanIn(['explain', 'cluster', 'ml/trainer']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /Insufficient nvidia\.com\/gpu/);
  });

  it('history: the plans recorded by the installed CLI, with SQLite from the package', async () => {
    const r = await podplanIn(['history']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /nightly-batch/);
    assert.doesNotMatch(r.stderr, /no SQLite driver/);
  });

  it('--context: reads the cluster of a kube context (the test API server) and writes nothing', async () => {
    const kubeconfig = await server.writeKubeconfig({ contexts: [{ name: 'lab' }] });
    server.counters.reset();
    const r = await podplanIn(['schedule', '--context', 'lab', '--kubeconfig', kubeconfig, '--no-history']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^shop\/web-b +n[12]/m);
    assert.match(r.stdout, /shop\/huge: 0\/2 nodes are available: 2 Insufficient cpu\./);
    assert.equal(server.counters.writes.length, 0);
  });

  describe('under Node 22 (node:sqlite, no better-sqlite3 addon for its ABI in the package)', () => {
    before(() => {
      if (!existsSync(NODE22)) {
        execFileSync('npm', ['install', '--prefix', NODE22_PREFIX, '--no-save', '--no-audit', '--no-fund', 'node@22'], {
          stdio: 'ignore',
          timeout: 240_000,
        });
      }
    });

    it('plans with the solver and keeps the plan in the same history', async () => {
      const planned = await podplanIn(['plan', 'cluster', '--pod-set', 'nightly-batch', '--planner', 'exact'], NODE22);
      assert.equal(planned.code, 0, planned.stderr);
      assert.match(planned.stdout, /proven optimal/);
      const shown = await podplanIn(['history'], NODE22);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(shown.stdout.match(/^\d+ +\S+ +nightly-batch /gm)?.length, 2, shown.stdout);
    });
  });
});

describe('the .vsix vsce packages, its language server run from the unpacked package', function () {
  this.timeout(600_000);
  const dir = tempDir('podplan-vsix-');
  const tree = join(dir, 'tree');
  const unpacked = join(dir, 'unpacked');

  before(async () => {
    // As above, a copy of the tree: vscode:prepublish builds dist/ for the package.
    const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: ROOT,
      encoding: 'utf8',
    }).split('\0');
    for (const file of listed) if (file !== '' && existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(tree, file));
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    const vsix = join(dir, 'podplan.vsix');
    const packed = await run('npm', ['run', '--silent', 'package', '--', '--out', vsix], { cwd: tree, env: cleanEnv({}) });
    assert.equal(packed.code, 0, packed.stderr + packed.stdout);
    execFileSync('unzip', ['-q', vsix, '-d', unpacked]);
  });

  it("previews a pod set with the solver's bound: HiGHS loads from the package", async () => {
    const session = await startLspSession(join(ROOT, 'examples/cluster'), {}, {}, join(unpacked, 'extension/dist/server.cjs'));
    try {
      const preview = (await session.connection.sendRequest(PreviewPlanRequest.method, {
        podSet: { namespace: 'analytics', name: 'nightly-batch' },
      })) as Result<PlanView>;
      if (!preview.ok) assert.fail(preview.error);
      // Answered before its bound, which is proven when asked for, as the editor asks.
      const token = preview.value.boundPending;
      assert.ok(token, `a bound is coming: ${session.stderr()}`);
      const proven = (await session.connection.sendRequest(PlanBoundRequest.method, { token })) as Result<{ bound?: PlanBoundView }>;
      if (!proven.ok) assert.fail(proven.error);
      assert.match(proven.value.bound?.solver ?? `no bound: ${session.stderr()}`, /^HiGHS \d+\.\d+\.\d+$/);
      assert.ok(proven.value.bound?.text, 'the bound is worded');
    } finally {
      await session.shutdown();
    }
  });
});
