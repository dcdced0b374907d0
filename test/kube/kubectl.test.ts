// Fidelity of the test API server, checked with a client nobody here wrote: the system's kubectl
// gets, applies (client-side and server-side), patches, deletes, watches, creates through protobuf
// and authenticates against it exactly as it does against a real cluster.
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startTestApiServer, type KubeObject, type TestApiServer } from './apiserver/index';
import { node, pod, until } from './apiserver/client';

const KUBECTL = process.env.KUBECTL ?? 'kubectl';

/** Fails loudly when kubectl is missing: the test never skips. */
function requireKubectl(): string {
  const probe = spawnSync(KUBECTL, ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `kubectl is required by the kubectl fidelity test and was not found as "${KUBECTL}". ` +
        'Install it (Debian: `apt-get install -y kubernetes-client`; where another package already ships kubectl, use that one) or set KUBECTL to its path.',
    );
  }
  return (JSON.parse(probe.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
}

/** The minor version of a `v1.32.4`-like gitVersion. */
function minorOf(gitVersion: string): number {
  return Number(/^v\d+\.(\d+)/.exec(gitVersion)?.[1] ?? 0);
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const POD = { apiVersion: 'v1', kind: 'Pod' };
const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' };

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;

const podYaml = (image: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: main
    image: ${image}
`;

const widgetYaml = (spec: string): string => `apiVersion: example.com/v1
kind: Widget
metadata: {name: w1}
spec: ${spec}
`;

describe('test/kube/kubectl: the test API server as kubectl sees it', function () {
  this.timeout(60_000);
  let server: TestApiServer;
  let dir: string;
  let kubeconfig: string;
  let env: NodeJS.ProcessEnv;

  // kubectl 1.25+ asks the server for strict field validation; older ones (Debian's 1.20) do not
  let strictByDefault = true;

  before(() => {
    strictByDefault = minorOf(requireKubectl()) >= 25;
  });

  beforeEach(async () => {
    server = await startTestApiServer();
    dir = await mkdtemp(join(tmpdir(), 'podplan-kubectl-'));
    kubeconfig = await server.writeKubeconfig({ user: 'token' });
    // a private HOME: no user kubeconfig or discovery cache leaks in or out
    env = { PATH: process.env.PATH, HOME: dir, KUBECONFIG: kubeconfig };
  });
  afterEach(() => server.close());

  function kubectl(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
    return new Promise((resolve) => {
      execFile(KUBECTL, args, { env: options.env ?? env, encoding: 'utf8' }, (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }

  async function ok(args: string[]): Promise<string> {
    const run = await kubectl(args);
    assert.equal(run.code, 0, `kubectl ${args.join(' ')} failed: ${run.stderr}`);
    return run.stdout;
  }

  async function file(name: string, text: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  }

  it('get nodes -o json lists the nodes as a List', async () => {
    server.create(node('n1', { zone: 'a' }), node('n2', { zone: 'b' }));
    const list = JSON.parse(await ok(['get', 'nodes', '-o', 'json'])) as { kind: string; items: KubeObject[] };
    assert.equal(list.kind, 'List');
    assert.deepEqual(
      list.items.map((n) => [n.metadata?.name, n.metadata?.labels?.zone]),
      [
        ['n1', 'a'],
        ['n2', 'b'],
      ],
    );
    assert.equal(await ok(['get', 'nodes', '-l', 'zone=b', '-o', 'name']), 'node/n2\n');
  });

  it('apply -f creates a pod, leaves it unchanged, then configures it with a strategic merge patch', async () => {
    const path = await file('pod.yaml', podYaml('nginx:1'));
    assert.equal(await ok(['apply', '-f', path]), 'pod/web created\n');
    assert.equal(await ok(['apply', '-f', path]), 'pod/web unchanged\n');
    await file('pod.yaml', podYaml('nginx:2'));
    assert.equal(await ok(['apply', '-f', path]), 'pod/web configured\n');
    const stored = server.get(POD, 'default', 'web') as {
      spec: { containers: { image: string }[] };
      metadata: { annotations: Record<string, string> };
    };
    assert.equal(stored.spec.containers[0]?.image, 'nginx:2');
    assert.ok(stored.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']?.includes('nginx:2'));
    assert.equal(server.counters.request('patch', 'pods'), 1);
  });

  it('apply -f of a custom resource after its CRD; unknown fields are rejected (strict kubectl) or pruned with a warning', async () => {
    assert.equal(
      await ok(['apply', '-f', await file('crd.yaml', CRD)]),
      'customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n',
    );
    assert.equal(await ok(['apply', '-f', await file('w.yaml', widgetYaml('{size: 1}'))]), 'widget.example.com/w1 created\n');
    const bad = await kubectl(['apply', '-f', await file('bad.yaml', widgetYaml('{size: 2, shape: round}'))]);
    if (strictByDefault) {
      assert.notEqual(bad.code, 0);
      assert.match(
        bad.stderr,
        /Error from server \(BadRequest\): error when applying patch:[\s\S]*strict decoding error: unknown field "spec.shape"/,
      );
      assert.deepEqual(server.get(WIDGET, 'default', 'w1')?.spec, { size: 1 });
    } else {
      assert.equal(bad.code, 0, bad.stderr);
      assert.match(bad.stderr, /Warning: unknown field "spec.shape"/);
      assert.deepEqual(server.get(WIDGET, 'default', 'w1')?.spec, { size: 2 });
    }
  });

  it('apply --server-side creates and updates with kubectl as the field manager', async () => {
    await ok(['apply', '-f', await file('crd.yaml', CRD)]);
    const path = await file('w.yaml', widgetYaml('{size: 1}'));
    assert.equal(await ok(['apply', '--server-side', '-f', path]), 'widget.example.com/w1 serverside-applied\n');
    await file('w.yaml', widgetYaml('{size: 2}'));
    assert.equal(await ok(['apply', '--server-side', '-f', path]), 'widget.example.com/w1 serverside-applied\n');
    const stored = server.get(WIDGET, 'default', 'w1') as {
      spec: { size: number };
      metadata: { managedFields: { manager: string; operation: string }[] };
    };
    assert.equal(stored.spec.size, 2);
    assert.deepEqual(
      stored.metadata.managedFields.map((m) => [m.manager, m.operation]),
      [['kubectl', 'Apply']],
    );
    assert.equal(await ok(['apply', '--server-side', '-f', await file('pod.yaml', podYaml('nginx:1'))]), 'pod/web serverside-applied\n');
  });

  it('patch: strategic (the default) on a pod, merge and json on a custom resource, and 415 for strategic on it', async () => {
    server.create(pod('web', { labels: { app: 'web' } }));
    assert.equal(await ok(['patch', 'pod', 'web', '-p', '{"metadata":{"labels":{"tier":"front"}}}']), 'pod/web patched\n');
    assert.deepEqual(server.get(POD, 'default', 'web')?.metadata?.labels, { app: 'web', tier: 'front' });
    await ok(['apply', '-f', await file('crd.yaml', CRD)]);
    await ok(['apply', '-f', await file('w.yaml', widgetYaml('{size: 1}'))]);
    assert.equal(await ok(['patch', 'wd', 'w1', '--type=merge', '-p', '{"spec":{"size":2}}']), 'widget.example.com/w1 patched\n');
    assert.equal(
      await ok(['patch', 'wd', 'w1', '--type=json', '-p', '[{"op":"replace","path":"/spec/size","value":3}]']),
      'widget.example.com/w1 patched\n',
    );
    assert.deepEqual(server.get(WIDGET, 'default', 'w1')?.spec, { size: 3 });
    const strategic = await kubectl(['patch', 'wd', 'w1', '-p', '{"spec":{"size":4}}']);
    assert.notEqual(strategic.code, 0);
    assert.match(
      strategic.stderr,
      /the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml/,
    );
  });

  it('scale and cordon change the objects as on a cluster', async () => {
    server.create(node('n1'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } } },
    });
    assert.equal(await ok(['scale', 'deployment', 'web', '--replicas=3']), 'deployment.apps/web scaled\n');
    assert.equal((server.get({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'default', 'web')?.spec as { replicas: number }).replicas, 3);
    assert.equal(await ok(['cordon', 'n1']), 'node/n1 cordoned\n');
    assert.match(await ok(['get', 'nodes']), /n1 +Unknown,SchedulingDisabled +<none>/);
  });

  it('delete removes the object and says so', async () => {
    server.create(pod('web'));
    assert.equal(await ok(['delete', 'pod', 'web']), 'pod "web" deleted\n');
    assert.equal(server.get(POD, 'default', 'web'), undefined);
    const missing = await kubectl(['delete', 'pod', 'web']);
    assert.equal(missing.stderr, 'Error from server (NotFound): pods "web" not found\n');
  });

  it('get pods -w prints the pods there, then each change as it happens', async () => {
    server.create(pod('first'));
    const watcher = spawn(KUBECTL, ['get', 'pods', '-w', '-o', 'name'], { env });
    let out = '';
    watcher.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until(() => out.includes('pod/first'));
      await until(() => server.openWatches === 1);
      server.create(pod('second'));
      await until(() => out.includes('pod/second'));
    } finally {
      watcher.kill();
    }
    assert.deepEqual(out.trim().split('\n'), ['pod/first', 'pod/second']);
  });

  it('get and get -w print the columns of a real cluster', async () => {
    server.create(pod('first'));
    assert.match(await ok(['get', 'pods']), /^NAME {4}READY {3}STATUS {4}RESTARTS {3}AGE\nfirst {3}0\/1 {5}Pending {3}0 {10}\d+s\n$/);
    const watcher = spawn(KUBECTL, ['get', 'pods', '-w'], { env });
    let out = '';
    watcher.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until(() => out.includes('first') && server.openWatches === 1);
      server.create(pod('second'));
      await until(() => out.includes('second'));
    } finally {
      watcher.kill();
    }
    assert.deepEqual(
      out
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/).slice(0, 3).join(' ')),
      ['NAME READY STATUS', 'first 0/1 Pending', 'second 0/1 Pending'],
    );
  });

  it('create namespace and run (sent as protobuf) make the objects kubectl describes', async () => {
    assert.equal(await ok(['create', 'namespace', 'team']), 'namespace/team created\n');
    assert.deepEqual(server.get({ apiVersion: 'v1', kind: 'Namespace' }, undefined, 'team')?.metadata?.labels, {
      'kubernetes.io/metadata.name': 'team',
    });
    const args = [
      'run',
      'web',
      '-n',
      'team',
      '--image=nginx:1.27',
      '--labels=app=web',
      '--env=A=1',
      '--port=8080',
      '--restart=Never',
      '--',
      'sleep',
      '10',
    ];
    assert.equal(await ok(args), 'pod/web created\n');
    const wanted = JSON.parse(await ok([...args.slice(0, -3), '--dry-run=client', '-o', 'json', ...args.slice(-3)])) as KubeObject;
    const stored = server.get(POD, 'team', 'web') as KubeObject;
    assert.deepEqual(stored.metadata?.labels, wanted.metadata?.labels);
    assert.deepEqual((stored.spec as { containers: unknown }).containers, (wanted.spec as { containers: unknown }).containers);
  });

  it('authenticates with a client certificate or an exec plugin; a wrong token is Unauthorized', async () => {
    server.create(node('n1'));
    for (const user of ['cert', 'exec'] as const) {
      const config = await server.writeKubeconfig({ user });
      assert.equal((await kubectl(['get', 'nodes', '-o', 'name'], { env: { ...env, KUBECONFIG: config } })).stdout, 'node/n1\n', user);
    }
    const badConfig = await file('bad-kubeconfig', server.kubeconfig({ user: 'token' }).replace(server.token, 'wrong-token'));
    const refused = await kubectl(['get', 'nodes'], { env: { ...env, KUBECONFIG: badConfig } });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /error: You must be logged in to the server \(Unauthorized\)/);
  });

  it('several kubeconfig files through KUBECONFIG: contexts from all of them, each usable', async () => {
    server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }, pod('a'), pod('b', { namespace: 'team' }));
    const second = await server.writeKubeconfig({ prefix: 'other-', user: 'cert', namespace: 'team' });
    const both = { ...env, KUBECONFIG: [kubeconfig, second].join(delimiter) };
    const contexts = await kubectl(['config', 'get-contexts', '-o', 'name'], { env: both });
    assert.equal(contexts.stdout, 'other-test\ntest\n');
    assert.equal((await kubectl(['get', 'pods', '-o', 'name', '--context', 'other-test'], { env: both })).stdout, 'pod/b\n');
    assert.equal((await kubectl(['get', 'pods', '-o', 'name'], { env: both })).stdout, 'pod/a\n');
  });
});
