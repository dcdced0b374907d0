// server/session: the language server's state and transitions, in process (no connection): the
// folders read at start and every file's diagnostics published, an edit published for its version
// and a close back to the disk's text, previews planned with the HiGHS solver, answered before their bound, which is proven when asked for;
// on a kube context (test API server): the files checked against the cluster and back, and the
// editor's scheduler recording its run in the history.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver';
import { err, type Result } from '../../src/engine/api/result';
import type { MilpSolver } from '../../src/engine/planner/solver/solver';
import { systemClock } from '../../src/platform/clock';
import { highsSolver } from '../../src/platform/highs';
import type { InitializationOptions } from '../../src/protocol/initialization';
import { Session } from '../../src/server/session';
import { ALL_PENDING_PODS } from '../../src/store/store';
import { startTestApiServer, type TestApiServer } from '../kube/apiserver';
import { node, pod } from '../kube/live/cluster';
import { openTestStore, value as storeValue } from '../store/helpers';

const FIXTURE = 'test/fixtures/workspaces/cluster';

function value<T>(result: Result<T>): T {
  if (!result.ok) assert.fail(result.error);
  return result.value;
}

async function until(what: string, condition: () => boolean, limitMs = 30_000): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > limitMs) assert.fail(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('server/session: the server’s state, in process', function () {
  this.timeout(60_000);
  let dir: string;
  let session: Session;
  let published: Map<string, { diagnostics: Diagnostic[]; version: number | undefined }>;
  let generations: number[];
  let logged: string[];

  function start(init: InitializationOptions = {}, loadSolver?: () => Promise<Result<MilpSolver>>, kubeconfig?: string): Promise<void> {
    published = new Map();
    generations = [];
    logged = [];
    session = new Session(
      {
        clock: systemClock,
        kube: { env: kubeconfig ? { KUBECONFIG: kubeconfig } : {}, homedir: dir, cwd: dir },
        init: { debounceMs: 0, historyDatabase: join(dir, 'history.db'), ...init },
        folders: [pathToFileURL(join(dir, 'workspace')).toString()],
        ...(loadSolver ? { loadSolver } : {}),
      },
      {
        publishDiagnostics: (uri, diagnostics, version) => void published.set(uri, { diagnostics, version }),
        sourceChanged: (generation) => void generations.push(generation),
        log: (level, m) => void logged.push(`${level}: ${m}`),
      },
    );
    return session.start();
  }
  const uri = (file: string) => pathToFileURL(join(dir, 'workspace', file)).toString();
  /** Waits for the publication that follows what was just done. */
  const settled = async () => {
    const seen = generations.length;
    await until('diagnostics published', () => generations.length > seen);
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'podplan-session-'));
    cpSync(FIXTURE, join(dir, 'workspace'), { recursive: true });
  });
  afterEach(async () => {
    await session?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the folders at start and publishes every YAML file’s diagnostics once ready', async () => {
    await start();
    await session.ready;
    await until('first publication', () => generations.length > 0);
    assert.deepEqual([...published.keys()].sort(), ['nodes.yaml', 'plan.yaml', 'podsets.yaml', 'profile.yaml', 'workloads.yaml'].map(uri));
    assert.ok(
      [...published.values()].every((p) => p.version === undefined),
      'files read from disk carry no version',
    );
    assert.equal(session.workspaceSummary().files, 5);
    // What it read, as information (not an error).
    assert.ok(
      logged.some((m) => /^info: read 5 YAML files \(\d+ documents\) in \d+ ms$/.test(m)),
      logged.join('\n'),
    );
  });

  it('an edited buffer is published for its version and counted in the problems; closing it goes back to the disk’s text', async () => {
    await start();
    await session.ready;
    await settled();
    const plan = uri('plan.yaml');
    const text = readFileSync(join(dir, 'workspace', 'plan.yaml'), 'utf8');
    session.bufferChanged(plan, 'yaml', text.replace('node: node-1', 'node: node-9'), 7);
    await settled();
    assert.equal(published.get(plan)?.version, 7);
    assert.deepEqual(
      published.get(plan)?.diagnostics.map((d) => d.code),
      ['plan/unknown-node'],
    );
    assert.equal(session.problems().errors, 1);
    session.bufferClosed(plan);
    await settled();
    assert.deepEqual(published.get(plan)?.diagnostics, []);
    assert.equal(session.problems().errors, 0);
  });

  it('ignores documents that are not YAML', async () => {
    await start();
    await session.ready;
    session.bufferChanged('file:///notes.txt', 'plaintext', 'kind: Node', 1);
    assert.equal(session.fileAnalysis().file('file:///notes.txt'), undefined);
  });

  it('previews plan with the HiGHS solver: answered before the bound, which follows as podplan plan prints it and is kept with the plan', async () => {
    await start({}, highsSolver);
    await session.ready;
    const plan = value(await session.previewPlan({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    assert.equal(plan.bound, undefined, 'the plan is answered before its bound');
    const token = plan.boundPending;
    assert.ok(token, 'the plan says its bound is coming');
    const { bound } = value(session.planBound(token));
    assert.ok(bound, 'the solver proved a bound');
    assert.match(bound.solver, /^HiGHS /);
    assert.ok(bound.gap >= 0 && bound.gap <= 1);
    assert.match(
      bound.text,
      /^(proven optimal|uses \d+ nodes?; no plan uses fewer than \d+ \(within [\d.]+% of the best possible\)|places \d+; no plan places more than \d+ .*)$/,
    );
    // The history keeps it with the plan: the plan opened from there shows it.
    assert.ok(plan.historyId !== undefined);
    assert.deepEqual(value(session.openPlan(plan.historyId)).bound, bound);
    // Proven once: asked again, the token names nothing.
    assert.deepEqual(session.planBound(token), {
      ok: false,
      error: `no preview waits for its bound as ${token} (asked for already, or replaced by newer previews)`,
    });
  });

  it('keeps the bounds of the last four previews to prove: an older one is gone', async () => {
    await start({}, highsSolver);
    await session.ready;
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++)
      tokens.push(value(await session.previewPlan({ trigger: { namespace: 'jobs', name: 'nightly' } })).boundPending ?? '');
    assert.equal(new Set(tokens).size, 5);
    assert.equal(session.planBound(tokens[0] ?? '').ok, false);
    for (const token of tokens.slice(1)) assert.ok(value(session.planBound(token)).bound);
  });

  it('without the solver (its package missing), previews are made all the same, without a bound, and the log says why', async () => {
    await start({}, () => Promise.resolve(err('the MILP solver (npm package highs) could not be loaded: not installed')));
    await session.ready;
    const plan = value(await session.previewPlan({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    assert.equal(plan.bound, undefined);
    assert.equal(plan.boundPending, undefined, 'no bound is coming');
    assert.ok(plan.assignments.length > 0);
    // A warning (the user may install it), not an error: nothing failed in the server.
    assert.deepEqual(
      logged.filter((m) => m.includes('bound')),
      ['warning: plans have no bound: the MILP solver (npm package highs) could not be loaded: not installed'],
    );
  });

  describe('on a kube context', () => {
    let api: TestApiServer;
    beforeEach(async () => {
      api = await startTestApiServer();
      api.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
      api.create(
        node('n1', { cpu: '4', memory: '16Gi', pods: '110' }),
        pod('web-0', { namespace: 'shop' }),
        pod('web-1', { namespace: 'shop' }),
        pod('huge', { namespace: 'shop', cpu: '64' }),
      );
    });
    afterEach(async () => {
      await session?.shutdown();
      await api.close();
    });

    it('a picked context checks the files against the cluster, follows its changes, and the files’ own nodes are back with the workspace source', async () => {
      await start({}, undefined, await api.writeKubeconfig({ contexts: [{ name: 'live', namespace: 'shop' }] }));
      await session.ready;
      await settled();
      const plan = uri('plan.yaml');
      const unknownNodes = () =>
        (published.get(plan)?.diagnostics ?? [])
          .filter((d) => d.code === 'plan/unknown-node')
          .map((d) => (typeof d.message === 'string' ? d.message : d.message.value).split(':')[0]);
      assert.deepEqual(unknownNodes(), []);
      const source = value(await session.selectSource({ context: 'live' }));
      assert.deepEqual([source.kind, source.name], ['cluster', 'live']);
      await until('the plan checked against the cluster', () => unknownNodes().length > 0);
      assert.deepEqual(unknownNodes(), [
        'no node "node-1" in context live',
        'no node "node-2" in context live',
        'no node "node-3" in context live',
        'no node "node-3" in context live',
      ]);
      assert.equal(session.fileAnalysis().where, 'context live');
      assert.equal(session.analysis().file(plan), undefined, 'previews plan on the cluster itself');
      api.create(node('node-3'));
      await until('the new node is seen', () => unknownNodes().length === 2);
      assert.deepEqual(unknownNodes(), ['no node "node-1" in context live', 'no node "node-2" in context live']);
      value(await session.selectSource({}));
      await until('the files’ nodes again', () => unknownNodes().length === 0);
      assert.equal(session.fileAnalysis(), session.analysis());
    });

    it('Run Podplan as scheduler, started through the session, binds the pods and records the run and its decisions in the history file', async () => {
      await start({}, undefined, await api.writeKubeconfig({ contexts: [{ name: 'live', namespace: 'shop' }] }));
      await session.ready;
      value(await session.selectSource({ context: 'live' }));
      value(await session.scheduler({ action: 'start', trusted: true }));
      const boundTo = (name: string) =>
        (api.get({ apiVersion: 'v1', kind: 'Pod' }, 'shop', name) as { spec: { nodeName?: string } }).spec.nodeName;
      await until('the web pods are bound', () => boundTo('web-0') === 'n1' && boundTo('web-1') === 'n1');
      const stopped = value(await session.scheduler({ action: 'stop', trusted: true }));
      const store = await openTestStore(join(dir, 'history.db'));
      try {
        const runs = storeValue(store.runs()).items.filter((r) => r.kind === 'live');
        assert.deepEqual(
          runs.map((r) => [r.source.kind, r.source.name, r.outcome, r.message]),
          [['kube-context', 'live', 'succeeded', `${stopped.bound} pods bound, ${stopped.unplaced} not placed`]],
        );
        const plans = storeValue(store.history({ podSet: ALL_PENDING_PODS })).items.filter((p) => p.runId === runs[0]?.id);
        const stored = plans.map((p) => storeValue(store.loadPlan(p.id)));
        const placed = new Map(stored.flatMap((p) => p.assignments.map((a) => [a.pod, a.node] as const)));
        assert.equal(placed.get('shop/web-0'), 'n1');
        assert.equal(placed.get('shop/web-1'), 'n1');
        const unplaced = stored.flatMap((p) => p.unplaced);
        assert.match(unplaced.find((u) => u.pod === 'shop/huge')?.message ?? '', /0\/1 nodes are available: 1 Insufficient cpu/);
      } finally {
        store.close();
      }
    });
  });
});
