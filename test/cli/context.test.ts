import assert from 'node:assert/strict';
import { KubeHttp, PLANNER_CRDS, applyCrdInstall, planCrdInstall } from '../../src/kube';
import { connectPlanner } from '../../src/rpc';
import { startTestApiServer, type KubeObject, type TestApiServer } from '../kube/apiserver';
import { contextOn, namespace, node, pod } from '../kube/support';
import { cli, servePlanner } from './run-cli';

const member = (name: string, cpu: string): KubeObject =>
  pod(name, { namespace: 'shop', cpu, schedulerName: 'podset-planner-scheduler', labels: { 'planner.ciena.io/pod-set': 'cart' } });

/** A small cluster: three nodes, a ReplicaSet's pods (one running), a pod set with its trigger, a pod too big for any node. */
async function seed(server: TestApiServer): Promise<void> {
  server.create(namespace('shop'), node('n1'), node('n2'), node('n3'));
  server.create(
    pod('web-5f7c-aaaaa', {
      namespace: 'shop',
      nodeName: 'n1',
      cpu: '1',
      labels: { app: 'web' },
      owner: { kind: 'ReplicaSet', name: 'web-5f7c' },
    }),
    pod('web-5f7c-bbbbb', { namespace: 'shop', cpu: '1', labels: { app: 'web' }, owner: { kind: 'ReplicaSet', name: 'web-5f7c' } }),
    pod('huge', { namespace: 'shop', cpu: '10' }),
    member('cart-0', '2'),
    member('cart-1', '2'),
    member('cart-2', '3'),
  );
  const http = new KubeHttp(await contextOn(server));
  const steps = await planCrdInstall(http);
  assert.ok(steps.ok && (await applyCrdInstall(http, steps.value)).ok);
  server.create({
    apiVersion: 'planner.ciena.io/v1alpha1',
    kind: 'ScheduleTrigger',
    metadata: { name: 'cart', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'cart' } },
    spec: { state: 'Planning' },
  });
}

describe('cli with a kube context as the source (--context, --kubeconfig)', () => {
  let server: TestApiServer;
  let kubeconfig: string;

  beforeEach(async () => {
    server = await startTestApiServer();
    await seed(server);
    kubeconfig = await server.writeKubeconfig({ contexts: [{ name: 'lab' }, { name: 'other' }] });
    server.counters.reset();
  });
  afterEach(() => server.close());

  const ctx = () => ['--context', 'lab', '--kubeconfig', kubeconfig];

  it('schedule reads the cluster: pods by their real names, the ReplicaSet not expanded again, nothing written', async () => {
    const { code, stdout, stderr } = await cli(['schedule', ...ctx(), '--no-history']);
    assert.equal(code, 1, stderr);
    assert.match(stdout, /^shop\/web-5f7c-bbbbb +n\d/m);
    assert.match(stdout, /shop\/huge: 0\/3 nodes are available: 3 Insufficient cpu\./);
    assert.ok(!/web-5f7c-[^ab]/.test(stdout), stdout);
    assert.equal(server.counters.writes.length, 0);
  });

  it('KUBECONFIG is read when --kubeconfig is not given', async () => {
    const { code, stderr } = await cli(['schedule', '--context', 'other', '--no-history'], {}, { KUBECONFIG: kubeconfig });
    assert.equal(code, 1, stderr);
  });

  it('--kubeconfig alone uses its current context', async () => {
    const { code, stderr } = await cli(['schedule', '--kubeconfig', kubeconfig, '--no-history', '--json']);
    assert.equal(code, 1, stderr);
  });

  it('schedule from the context and from its snapshot print the same', async () => {
    const files: Record<string, string> = {};
    const fromContext = await cli(['schedule', ...ctx(), '--no-history'], files);
    const snap = await cli(['snapshot', ...ctx(), '-o', 'snap'], files);
    assert.equal(snap.code, 0, snap.stderr);
    assert.match(snap.stdout, /^Wrote \d+ objects of context lab in \d+ files under \/work\/snap\.$/m);
    const fromFiles = await cli(['schedule', '/work/snap', '--no-history'], files);
    assert.equal(fromFiles.stderr, fromContext.stderr);
    assert.equal(fromFiles.stdout, fromContext.stdout);
    assert.equal(fromFiles.code, fromContext.code);
  });

  it('plan --context plans a pod set through its ScheduleTrigger, the same as from the snapshot', async () => {
    const files: Record<string, string> = {};
    const live = await cli(['plan', ...ctx(), '--pod-set', 'cart', '--planner', 'optimize'], files);
    assert.equal(live.code, 0, live.stderr);
    assert.match(live.stdout, /Pod set shop\/cart: 3 of 3 pods placed .*ScheduleTrigger shop\/cart\)/);
    assert.equal((await cli(['snapshot', ...ctx(), '-o', 'snap'], files)).code, 0);
    const offline = await cli(['plan', '/work/snap', '--pod-set', 'cart', '--planner', 'optimize'], files);
    assert.equal(offline.stdout, live.stdout);
  });

  it('explain --context explains a live pod by its real name, the same as from the snapshot', async () => {
    const files: Record<string, string> = {};
    const live = await cli(['explain', ...ctx(), 'shop/huge'], files);
    assert.equal(live.code, 1, live.stderr);
    assert.match(live.stdout, /0\/3 nodes are available: 3 Insufficient cpu\./);
    assert.equal((await cli(['snapshot', ...ctx(), '-o', 'snap'], files)).code, 0);
    const offline = await cli(['explain', '/work/snap', 'shop/huge'], files);
    assert.equal(offline.stdout, live.stdout);
    assert.equal(server.counters.writes.length, 0);
  });

  it('snapshot writes one file per kind (per namespace for namespaced kinds), -n keeps one namespace', async () => {
    const files: Record<string, string> = {};
    assert.equal((await cli(['snapshot', ...ctx(), '-n', 'shop', '-o', 'snap'], files)).code, 0);
    assert.deepEqual(Object.keys(files).sort(), [
      '/work/snap/namespaces.yaml',
      '/work/snap/nodes.yaml',
      '/work/snap/shop/pods.yaml',
      '/work/snap/shop/scheduletriggers.yaml',
    ]);
    assert.match(files['/work/snap/shop/pods.yaml'] ?? '', /^# Podplan snapshot of kube context lab\n---\napiVersion: v1\nkind: Pod\n/);
    assert.ok(!Object.values(files).some((t) => t.includes('managedFields')));
    files['/work/snap/old/pods.yaml'] = 'kind: Pod\n';
    const again = await cli(['snapshot', ...ctx(), '-n', 'shop', '-o', 'snap'], files);
    assert.equal(again.code, 0);
    assert.equal(
      again.stderr,
      'warning: /work/snap holds other YAML files, which commands reading it will read too: /work/snap/old/pods.yaml\n',
    );
  });

  it('serve-planner --context answers for the live pods by their real names, and logs each request', async () => {
    const { address, run, stop } = servePlanner(ctx());
    const connected = connectPlanner(await address, { deadlineMs: 10_000 });
    assert.ok(connected.ok);
    try {
      const first = await connected.value.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: '', eligibleNodes: [] });
      assert.ok(first.ok);
      assert.deepEqual(Object.keys(first.value).sort(), ['cart-0', 'cart-1', 'cart-2']);
      server.create(member('cart-3', '1'));
      let later = await connected.value.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: '', eligibleNodes: [] });
      for (let i = 0; i < 100 && later.ok && !('cart-3' in later.value); i++) {
        await new Promise((r) => setTimeout(r, 20));
        later = await connected.value.buildSchedulePlan({ namespace: 'shop', podSet: 'cart', scheduledPod: '', eligibleNodes: [] });
      }
      assert.ok(later.ok && 'cart-3' in later.value, 'a pod created while serving is planned');
    } finally {
      connected.value.close();
      stop('SIGINT');
    }
    const { code, stdout, stderr } = await run;
    assert.equal(code, 0);
    assert.match(
      stdout,
      /^serving the planner API on 127\.0\.0\.1:\d+ \(context lab at https:\/\/127\.0\.0\.1:\d+; pod sets: shop\/cart\)$/m,
    );
    assert.match(stderr, /^\S+ BuildSchedulePlan shop\/cart: 3 pods placed$/m);
    assert.match(stderr, /^\S+ BuildSchedulePlan shop\/cart: 4 pods placed$/m);
    assert.deepEqual(
      server.counters.writes.map((w) => `${w.verb} ${w.name}`),
      ['create cart-3'],
      'only the test wrote',
    );
  });

  it('crds prints both CRDs; install-crds --dry-run writes nothing, then applies, then has nothing to do', async () => {
    const printed = await cli(['crds']);
    assert.equal(printed.code, 0);
    assert.equal(printed.stdout.split(/^---$/m).length - 1, PLANNER_CRDS.length);
    const fresh = await startTestApiServer();
    try {
      const config = await fresh.writeKubeconfig({ contexts: [{ name: 'fresh' }] });
      const dry = await cli(['install-crds', '--context', 'fresh', '--kubeconfig', config, '--dry-run']);
      assert.equal(dry.code, 0, dry.stderr);
      assert.match(
        dry.stdout,
        /^Would apply to context fresh \(https:\/\/127\.0\.0\.1:\d+\):\n {2}create {4}customresourcedefinition\/scheduletriggers\.planner\.ciena\.io\n {2}create {4}customresourcedefinition\/scheduleplans\.planner\.ciena\.io\n$/,
      );
      assert.equal(fresh.counters.writes.length, 0);
      const applied = await cli(['install-crds', '--context', 'fresh', '--kubeconfig', config]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /Done: 2 CRDs written\./);
      const again = await cli(['install-crds', '--context', 'fresh', '--kubeconfig', config]);
      assert.match(again.stdout, /unchanged customresourcedefinition\/scheduletriggers\.planner\.ciena\.io\n.*\nNothing to do\.\n$/);
    } finally {
      await fresh.close();
    }
  });

  describe('bad input: exit 2 with one line', () => {
    const table: Array<[what: string, args: () => string[], expected: RegExp]> = [
      [
        'paths and --context together',
        () => ['schedule', 'x.yaml', '--context', 'lab', '--kubeconfig', kubeconfig],
        /give paths or --context\/--kubeconfig, not both/,
      ],
      [
        'an unknown context',
        () => ['plan', '--context', 'nope', '--kubeconfig', kubeconfig, '--pod-set', 'cart'],
        /no context "nope" in the kubeconfig .*; contexts: lab, other/,
      ],
      ['snapshot without -o', () => ['snapshot', '--context', 'lab', '--kubeconfig', kubeconfig], /-o DIR is required/],
      ['install-crds without a context', () => ['install-crds'], /--context NAME is required/],
    ];
    for (const [what, args, expected] of table) {
      it(what, async () => {
        const { code, stderr } = await cli(args());
        assert.equal(code, 2);
        assert.match(stderr, expected);
      });
    }
  });
});
