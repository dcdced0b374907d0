import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADMISSION_VERDICTS, type ManifestErrorCode } from '../../src/manifests';
import { validate } from '../../src/server/service';
import { uriOf, workspaceOf } from '../server/service/fixtures';
import { openTestStore, useTempDir, value } from '../store/helpers';
import { cli } from './run-cli';

/** The example workspace as the in-memory file table the CLI harness reads. */
function exampleFiles(): Record<string, string> {
  const dir = 'examples/cluster';
  return Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => [path.join(dir, f), readFileSync(path.join(dir, f), 'utf8')]),
  );
}

const TWO_NODES = `
apiVersion: v1
kind: Node
metadata: { name: n1, labels: { kubernetes.io/hostname: n1 } }
status: { allocatable: { cpu: "2", memory: 8Gi, pods: "110" } }
---
apiVersion: v1
kind: Node
metadata: { name: n2, labels: { kubernetes.io/hostname: n2 } }
status: { allocatable: { cpu: "4", memory: 8Gi, pods: "110" } }
`;

const pod = (name: string, cpu: string) => `---
apiVersion: v1
kind: Pod
metadata: { name: ${name} }
spec:
  containers:
    - name: main
      resources: { requests: { cpu: "${cpu}" } }
`;

describe('cli schedule', () => {
  it('schedules the bundled example and explains the two pods that cannot be placed (exit 1)', async () => {
    const { code, stdout } = await cli(['schedule', 'examples/cluster'], exampleFiles());
    assert.equal(code, 1);
    assert.match(stdout, /^POD\s+NODE\s+SCORE$/m);
    const notHelpful = ' preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.';
    assert.ok(
      stdout.includes(
        `  ml/trainer: 0/6 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu, 4 Insufficient memory, 5 Insufficient nvidia.com/gpu.${notHelpful}\n`,
      ),
      stdout,
    );
    assert.match(stdout, /^ {2}analytics\/warehouse-loader: 0\/6 nodes are available: .*5 Insufficient cpu\. preemption: /m);
    assert.match(stdout, /^13 of 15 pending pods placed\.$/m);
  });

  it("shows the example's preemption: the preemptor's node with its victims, and the victims as preempted", async () => {
    const { stdout } = await cli(['schedule', 'examples/cluster'], exampleFiles());
    assert.match(stdout, /^data\/ingest\s+node-b1 \(preempts data\/batch-3, data\/batch-4\)\s+-$/m);
    assert.match(stdout, /^ {2}data\/batch-3 on node-b1: preempted by data\/ingest$/m);
    assert.match(stdout, /^ {2}data\/batch-4 on node-b1: preempted by data\/ingest$/m);
    const { stdout: json } = await cli(['schedule', '--json', '--no-history', 'examples/cluster'], exampleFiles());
    const lines = json
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; pod: string; node?: string | null; victims?: string[] });
    const ingest = lines.find((l) => l.type === 'outcome' && l.pod === 'data/ingest');
    assert.deepEqual(ingest, { ...ingest, node: 'node-b1', victims: ['data/batch-3', 'data/batch-4'] });
    assert.deepEqual(
      lines.filter((l) => l.type === 'preempted').map(({ type: _type, ...rest }) => rest),
      [
        { pod: 'data/batch-3', node: 'node-b1', by: 'data/ingest' },
        { pod: 'data/batch-4', node: 'node-b1', by: 'data/ingest' },
      ],
    );
  });

  it('places every pod and exits 0 when all fit', async () => {
    const { code, stdout } = await cli(['schedule', 'c.yaml'], { 'c.yaml': TWO_NODES + pod('a', '1') + pod('b', '1') });
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^default\/a\s+n2\s+\d+$/m);
    assert.match(stdout, /2 of 2 pending pods placed\./);
  });

  it('prints one JSON object per line with --json: each outcome with a compact diagnosis, then a summary', async () => {
    const { code, stdout } = await cli(['schedule', '--json', 'c.yaml'], { 'c.yaml': TWO_NODES + pod('huge', '64') + pod('small', '1') });
    assert.equal(code, 1);
    const lines = stdout
      .trimEnd()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            pod?: string;
            node?: string | null;
            message?: string;
            diagnosis?: { nodesTotal: number; rejections?: unknown; reasons: Array<{ reason: string; nodes: number }> };
          },
      );
    assert.deepEqual(
      lines.map((o) => [o.type, o.pod, o.node, o.message]),
      [
        [
          'outcome',
          'default/huge',
          null,
          '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
        ],
        ['outcome', 'default/small', 'n2', 'placed on n2'],
        ['summary', undefined, undefined, undefined],
      ],
    );
    assert.deepEqual(
      lines[0]?.diagnosis?.reasons.map((r) => [r.reason, r.nodes]),
      [['Insufficient cpu', 2]],
    );
    assert.equal(lines[0]?.diagnosis?.rejections, undefined, 'per-node rejections only with --detail');
  });

  it('--json --detail keeps every rejected node in the diagnosis', async () => {
    const { stdout } = await cli(['schedule', '--json', '--detail', 'c.yaml', '--no-history'], { 'c.yaml': TWO_NODES + pod('huge', '64') });
    const first = JSON.parse(stdout.split('\n')[0] as string) as { diagnosis: { rejections: Array<{ node: string }> } };
    assert.deepEqual(
      first.diagnosis.rejections.map((r) => r.node),
      ['n1', 'n2'],
    );
  });

  describe('bad input gives located errors and exit 2', () => {
    const table: Array<[what: string, files: Record<string, string>, args: string[], expected: RegExp]> = [
      [
        'broken YAML',
        { 'c.yaml': TWO_NODES + '---\nkind: Pod\nmetadata: { name: [\n' },
        ['c.yaml'],
        /^c\.yaml:\d+:\d+: error yaml-syntax/m,
      ],
      [
        'a malformed quantity',
        { 'c.yaml': TWO_NODES + pod('a', 'lots') },
        ['c.yaml'],
        /^c\.yaml:18:37: error bad-quantity: spec\.containers\[0\]\.resources\.requests\.cpu: "lots" is not a quantity/m,
      ],
      ['a missing path', {}, ['nowhere'], /^nowhere: ENOENT/m],
      [
        'a bad profile weight',
        {
          'c.yaml': TWO_NODES,
          'p.yaml':
            'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - plugins:\n      score:\n        enabled:\n          - name: NodeAffinity\n            weight: 1000\n',
        },
        ['c.yaml', '--profile', 'p.yaml'],
        /^p\.yaml:8:21: error profile\/bad-weight: profile default-scheduler: score weight for NodeAffinity must be between 1 and 100$/m,
      ],
      [
        "DynamicResources' bindingTimeout under 1 s (upstream ValidateDynamicResourcesArgs), at its value",
        {
          'c.yaml': TWO_NODES,
          'p.yaml':
            'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - pluginConfig:\n      - name: DynamicResources\n        args:\n          bindingTimeout: 500ms\n',
        },
        ['c.yaml', '--profile', 'p.yaml'],
        /^p\.yaml:7:27: error profile\/bad-args: profile default-scheduler: plugin DynamicResources: bindingTimeout: Invalid value: "500ms": must be at least 1 second$/m,
      ],
      ['no paths', {}, [], /no paths given/],
      ['a bad seed', { 'c.yaml': TWO_NODES }, ['c.yaml', '--seed', 'x'], /--seed must be a whole number/],
    ];
    it('every error of a profile in one run, each with its code', async () => {
      const profile = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - plugins:
      score:
        enabled:
          - name: NodeAffinity
            weight: 1000
          - name: NoSuchPlugin
    pluginConfig:
      - name: NodeResourcesFit
        args: { scoringStrategy: { type: Mostallocated } }
      - name: PodTopologySpread
        args: { defaultingType: Sometimes }
`;
      const { code, stderr } = await cli(['schedule', 'c.yaml', '--profile', 'p.yaml', '--no-history'], {
        'c.yaml': TWO_NODES,
        'p.yaml': profile,
      });
      assert.equal(code, 2);
      assert.deepEqual(
        stderr
          .trimEnd()
          .split('\n')
          .map((l) => /^p\.yaml:\d+:\d+: error (\S+): /.exec(l)?.[1]),
        ['profile/bad-weight', 'profile/unknown-plugin', 'profile/bad-args', 'profile/bad-args'],
      );
      assert.doesNotMatch(stderr, /NodeResourcesFit: NodeResourcesFit:/);
    });

    for (const [what, files, args, expected] of table) {
      it(what, async () => {
        const { code, stderr } = await cli(['schedule', ...args], files);
        assert.equal(code, 2, stderr);
        assert.match(stderr, expected);
      });
    }
  });

  describe('the plan history', () => {
    const dir = useTempDir();
    const files = { 'c.yaml': TWO_NODES + pod('a', '1') + pod('huge', '64') };

    it('records the run and its outcome as a plan of every pending pod, which podplan show reads', async () => {
      const db = path.join(dir.path, 'recorded.db');
      const { code, stderr } = await cli(['schedule', 'c.yaml', '--db', db], files);
      assert.equal(code, 1);
      assert.equal(stderr, `Recorded as plan 1 in ${db} (podplan show 1).\n`);
      const shown = await cli(['show', '1', '--db', db]);
      assert.match(shown.stdout, /^Plan 1: every pending pod \(podplan schedule\), draft$/m);
      assert.match(shown.stdout, /^default\/a\s+n2\s+\d+$/m);
      assert.match(
        shown.stdout,
        /^ {2}default\/huge: 0\/2 nodes are available: 2 Insufficient cpu\. preemption: 0\/2 nodes are available: 2 Preemption is not helpful for scheduling\.\n {6}2 {2}Insufficient cpu$/m,
      );
      const store = await openTestStore(db);
      try {
        const [run] = value(store.runs()).items;
        assert.deepEqual(
          [run?.source.kind, run?.source.name, run?.kind, run?.outcome, run?.message],
          ['workspace', '/work/c.yaml', 'preview', 'succeeded', '1 of 2 pending pods placed'],
        );
        assert.equal(
          value(store.diagnosis(1, 'default/huge'))?.message,
          '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.',
        );
      } finally {
        store.close();
      }
    });

    it("keeps the pods preemption evicted with the run: podplan show lists them under the example's preemptor", async () => {
      const db = path.join(dir.path, 'preempted.db');
      await cli(['schedule', 'examples/cluster', '--db', db], exampleFiles());
      const shown = (await cli(['show', '1', '--db', db])).stdout;
      assert.match(shown, /^ {2}13 placed, 2 not placed, 2 evicted$/m);
      assert.match(shown, /^data\/ingest\s+node-b1 \(preempts data\/batch-3, data\/batch-4\)/m);
      assert.match(
        shown,
        /\nPreempted:\n {2}data\/batch-3 on node-b1: preempted by data\/ingest\n {2}data\/batch-4 on node-b1: preempted by data\/ingest\n/,
      );
    });

    it('two runs of the same snapshot compare with podplan diff', async () => {
      const db = path.join(dir.path, 'twice.db');
      await cli(['schedule', 'c.yaml', '--db', db], files);
      await cli(['schedule', 'c.yaml', '--db', db, '--seed', '2'], files);
      assert.match((await cli(['diff', '1', '2', '--db', db])).stdout, /Unchanged: 1 on the same node, 1 still not placed\.$/m);
    });

    it('records nothing with --no-history', async () => {
      const db = path.join(dir.path, 'none.db');
      const { code, stderr } = await cli(['schedule', 'c.yaml', '--no-history'], files, { PODPLAN_DB: db });
      assert.equal(code, 1);
      assert.equal(stderr, '');
      assert.equal(existsSync(db), false);
    });

    it('refuses --no-history with --db: they contradict each other', async () => {
      const db = path.join(dir.path, 'none.db');
      const { code, stderr } = await cli(['schedule', 'c.yaml', '--db', db, '--no-history'], files);
      assert.equal(code, 2);
      assert.equal(stderr, 'podplan schedule: --no-history and --db cannot be used together: --db names the history to record in\n');
      assert.equal(existsSync(db), false);
    });

    it('goes on without it, in one line on stderr, when the history cannot be opened', async () => {
      const db = path.join(dir.path, 'notes.txt');
      writeFileSync(db, 'not a database\n'.repeat(100));
      const { code, stdout, stderr } = await cli(['schedule', 'c.yaml', '--db', db], files);
      assert.equal(code, 1);
      assert.match(stdout, /1 of 2 pending pods placed\./);
      assert.equal(stderr, `podplan schedule: plan history is off: ${db}: file is not a database\n`);
    });
  });

  it('documents itself with --help', async () => {
    const { code, stdout } = await cli(['schedule', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /Usage: podplan schedule <paths…>/);
  });
});

describe('cli schedule on real-world YAML (test/fixtures/real-world, each file citing its source)', () => {
  const fixture = (name: string) => path.join('test/fixtures/real-world', name);
  const files = (...names: string[]) => Object.fromEntries(names.map((n) => [fixture(n), readFileSync(fixture(n), 'utf8')]));

  it("kubernetes/examples CockroachDB StatefulSet: each replica mounts its claim datadir-cockroachdb-<ordinal>, provisioned by kind's default WaitForFirstConsumer class", async () => {
    const { code, stdout, stderr } = await cli(
      ['schedule', ...['cockroachdb-statefulset.yaml', 'kind-nodes.yaml'].map(fixture), '--no-history'],
      files('cockroachdb-statefulset.yaml', 'kind-nodes.yaml'),
    );
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /3 of 3 pending pods placed/);
    assert.doesNotMatch(stdout + stderr, /not found/);
    // Spread by the template's preferred anti-affinity: one replica per node.
    const nodes = [...stdout.matchAll(/^default\/cockroachdb-\d\*? +(\S+)/gm)].map((m) => m[1]);
    assert.equal(new Set(nodes).size, 3, stdout);
  });

  it('kubernetes/website web.yaml without a default StorageClass: the claims www-web-<ordinal> stay unbound, as upstream says', async () => {
    const nodesOnly = readFileSync(fixture('kind-nodes.yaml'), 'utf8').split(/^---$/m).slice(1).join('---');
    const { code, stdout } = await cli(['schedule', fixture('kubernetes-website-web.yaml'), 'nodes.yaml', '--no-history'], {
      ...files('kubernetes-website-web.yaml'),
      'nodes.yaml': nodesOnly,
    });
    assert.equal(code, 1);
    assert.match(stdout, /default\/web-0\*: 0\/3 nodes are available: pod has unbound immediate PersistentVolumeClaims\./);
  });

  it("kubernetes/website web.yaml with the documentation's local volumes (WaitForFirstConsumer): replicas go only where a local volume is", async () => {
    const nodesOnly = readFileSync(fixture('kind-nodes.yaml'), 'utf8').split(/^---$/m).slice(1).join('---');
    const { code, stdout, stderr } = await cli(
      ['schedule', fixture('kubernetes-website-web.yaml'), fixture('local-volumes.yaml'), 'nodes.yaml', '--no-history'],
      {
        ...files('kubernetes-website-web.yaml', 'local-volumes.yaml'),
        'nodes.yaml': nodesOnly,
      },
    );
    assert.equal(code, 0, stdout + stderr);
    const nodes = [...stdout.matchAll(/^default\/web-\d\*? +(\S+)/gm)].map((m) => m[1]).sort();
    assert.deepEqual(nodes, ['kind-worker', 'kind-worker2']);
  });

  it('kubernetes/website cpu-request-limit.yaml, six of its pod on a 1.5-CPU node: equal priority is first come, first served (file order)', async () => {
    const { code, stdout } = await cli(['schedule', fixture('cpu-demo-six.yaml'), '--no-history'], files('cpu-demo-six.yaml'));
    assert.equal(code, 1);
    const placed = [...stdout.matchAll(/^cpu-example\/(cpu-demo-\d) +node-1/gm)].map((m) => m[1]);
    assert.deepEqual(placed, ['cpu-demo-1', 'cpu-demo-2', 'cpu-demo-3']);
  });

  it('kubernetes/website controllers/replication.yaml with one of its pods running: the ReplicationController is a workload, two replicas made up', async () => {
    const { code, stdout, stderr } = await cli(
      ['schedule', fixture('replication-controller.yaml'), '--no-history'],
      files('replication-controller.yaml'),
    );
    assert.equal(code, 0, stdout + stderr);
    assert.equal(stderr, '');
    assert.deepEqual(
      [...stdout.matchAll(/^(default\/\S+) +node-1/gm)].map((m) => m[1]),
      ['default/nginx-0*', 'default/nginx-1*'],
    );
  });

  it('Argo Rollouts getting-started canary Rollout and its Service: no pods made up, and a note on stderr naming the kinds read but not scheduled', async () => {
    const { code, stdout, stderr } = await cli(
      ['schedule', fixture('argo-rollouts-canary.yaml'), '--no-history'],
      files('argo-rollouts-canary.yaml'),
    );
    assert.equal(code, 0);
    assert.match(stdout, /^0 of 0 pending pods placed\.$/m);
    assert.equal(
      stderr,
      'note: read but not scheduled: 1 Rollout (argoproj.io/v1alpha1), 1 Service (v1) (pods are made only for Pods, Deployments, ReplicaSets, StatefulSets, Jobs, DaemonSets and ReplicationControllers)\n',
    );
  });

  it('kubernetes/website memory-defaults: the LimitRange gives default-mem-demo a 256Mi request, default-mem-demo-2 keeps its 1Gi limit as request: both do not fit 1200Mi', async () => {
    const { code, stdout, stderr } = await cli(
      ['schedule', fixture('memory-defaults.yaml'), '--no-history'],
      files('memory-defaults.yaml'),
    );
    assert.equal(code, 1, stdout + stderr);
    assert.match(stdout, /^default-mem-example\/default-mem-demo-2 +node-1/m);
    assert.match(stdout, /^ {2}default-mem-example\/default-mem-demo: 0\/1 nodes are available: 1 Insufficient memory\./m);
    const explained = await cli(
      ['explain', fixture('memory-defaults.yaml'), 'default-mem-example/default-mem-demo', '--node', 'node-1'],
      files('memory-defaults.yaml'),
    );
    assert.match(explained.stdout, /lacks: memory short by 80Mi/, explained.stdout);
  });

  it('kubernetes/website quota-mem-cpu: quota-mem-cpu-demo-2 is refused as the page shows, with a located warning, and left out', async () => {
    const { code, stdout, stderr } = await cli(['schedule', fixture('quota-mem-cpu.yaml'), '--no-history'], files('quota-mem-cpu.yaml'));
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /^quota-mem-cpu-example\/quota-mem-cpu-demo +node-1/m);
    assert.doesNotMatch(stdout, /quota-mem-cpu-demo-2/);
    assert.equal(
      stderr,
      `${fixture('quota-mem-cpu.yaml')}:40:9: warning refused: metadata.name: pods "quota-mem-cpu-demo-2" is forbidden: exceeded quota: mem-cpu-demo, requested: requests.memory=700Mi, used: requests.memory=600Mi, limited: requests.memory=1Gi (ResourceQuota admission): quota-mem-cpu-example/quota-mem-cpu-demo-2 left out\n`,
    );
  });

  it("kubernetes/website Limit Storage Consumption with web.yaml's StatefulSet at 3 replicas of 2Gi: the third claim passes storagequota, so its controller creates no pod web-2", async () => {
    const names = ['limit-storage-consumption.yaml', 'kind-nodes.yaml'];
    const { code, stdout, stderr } = await cli(['schedule', ...names.map(fixture), '--no-history'], files(...names));
    assert.equal(code, 0, stdout + stderr);
    assert.deepEqual(
      [...stdout.matchAll(/^default\/(web-\d)\* +kind-worker/gm)].map((m) => m[1]),
      ['web-0', 'web-1'],
    );
    assert.match(stdout, /^2 of 2 pending pods placed\.$/m);
    const at = fixture('limit-storage-consumption.yaml');
    const refusal =
      'persistentvolumeclaims "www-web-2" is forbidden: exceeded quota: storagequota, requested: requests.storage=2Gi, used: requests.storage=4Gi, limited: requests.storage=5Gi';
    assert.equal(
      stderr,
      [
        `${at}:54:13: warning refused: spec.volumeClaimTemplates[0].metadata.name: ${refusal} (ResourceQuota admission): default/www-web-2 left out`,
        `${at}:53:3: warning not-created: spec.volumeClaimTemplates: Create Pod web-2 in StatefulSet web failed error: failed to create PVC www-web-2: ${refusal}: pod default/web-2 left out`,
        '',
      ].join('\n'),
    );
  });

  it("kubernetes/website pv-claim.yaml and pv-pod.yaml (Configure a Pod to Use a PersistentVolume) under Limit Storage Consumption's storagelimits: the 3Gi claim is refused, so task-pv-pod's claim is not found", async () => {
    // The LimitRange and ResourceQuota of limit-storage-consumption.yaml, then the task's claim and pod as published.
    const limits = readFileSync(fixture('limit-storage-consumption.yaml'), 'utf8').split(/^---$/m).slice(0, 2).join('---');
    const task = [
      'apiVersion: v1',
      'kind: PersistentVolumeClaim',
      'metadata:',
      '  name: task-pv-claim',
      'spec:',
      '  storageClassName: manual',
      '  accessModes:',
      '    - ReadWriteOnce',
      '  resources:',
      '    requests:',
      '      storage: 3Gi',
      '---',
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: task-pv-pod',
      'spec:',
      '  volumes:',
      '    - name: task-pv-storage',
      '      persistentVolumeClaim:',
      '        claimName: task-pv-claim',
      '  containers:',
      '    - name: task-pv-container',
      '      image: nginx',
      '',
    ].join('\n');
    const { code, stdout, stderr } = await cli(['schedule', 'task.yaml', fixture('kind-nodes.yaml'), '--no-history'], {
      'task.yaml': `${limits}---\n${task}`,
      ...files('kind-nodes.yaml'),
    });
    assert.equal(code, 1, stdout + stderr);
    assert.match(stdout, /^ {2}default\/task-pv-pod: 0\/3 nodes are available: persistentvolumeclaim "task-pv-claim" not found\./m);
    assert.match(
      stderr,
      /^task\.yaml:\d+:\d+: warning refused: metadata\.name: persistentvolumeclaims "task-pv-claim" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 3Gi \(LimitRanger admission\): default\/task-pv-claim left out$/m,
    );
  });

  it('kubernetes/website quota-objects.yaml (Configure Quotas for API Objects): the entries on Services are not applied, each said so at its place on stderr', async () => {
    // The page's quota as published, in the page's namespace.
    const quota = [
      'apiVersion: v1',
      'kind: ResourceQuota',
      'metadata:',
      '  name: object-quota-demo',
      '  namespace: quota-object-example',
      'spec:',
      '  hard:',
      '    persistentvolumeclaims: "1"',
      '    services.loadbalancers: "2"',
      '    services.nodeports: "0"',
      '',
    ].join('\n');
    const { code, stderr } = await cli(['schedule', 'quota-objects.yaml', '--no-history'], { 'quota-objects.yaml': quota });
    assert.equal(code, 0, stderr);
    assert.equal(
      stderr,
      [
        'quota-objects.yaml:9:29: warning not-applied: spec.hard["services.loadbalancers"]: ResourceQuota quota-object-example/object-quota-demo: services.loadbalancers is not applied: it counts services, which do not affect placement',
        'quota-objects.yaml:10:25: warning not-applied: spec.hard["services.nodeports"]: ResourceQuota quota-object-example/object-quota-demo: services.nodeports is not applied: it counts services, which do not affect placement',
        '',
      ].join('\n'),
    );
  });

  it('kubernetes/website label syntax, broken three ways (a space in a value, two slashes in a key, a template value starting with -): located errors, exit 2', async () => {
    const { code, stdout, stderr } = await cli(['schedule', fixture('invalid-labels.yaml'), '--no-history'], files('invalid-labels.yaml'));
    assert.equal(code, 2);
    assert.equal(stdout, '');
    const at = fixture('invalid-labels.yaml');
    assert.deepEqual(
      stderr
        .trimEnd()
        .split('\n')
        .map((l) => l.split(': ').slice(0, 3).join(': ')),
      [
        `${at}:13:14: error invalid-label: metadata.labels.release`,
        `${at}:26:5: error invalid-label: metadata.labels["example.com/team/owner"]`,
        `${at}:45:18: error invalid-label: spec.template.metadata.labels.version`,
        `error: nothing is planned while 3 pods of the files do not read (pod default/label-demo at ${at}:9:9; pod default/label-demo-2 at ${at}:24:9; the pods of Deployment default/web at ${at}:35:9): fix their errors first`,
      ],
    );
  });

  it('the same six pods as a dump lists them (by name) with creationTimestamps: the earliest created go first', async () => {
    // The order of creation reversed: cpu-demo-6 first, as in an `oc get pods -o yaml` of pods created from 6 down to 1.
    const text = readFileSync(fixture('cpu-demo-six.yaml'), 'utf8').replace(
      /name: cpu-demo-(\d)\n/g,
      (_all, n: string) => `name: cpu-demo-${n}\n  creationTimestamp: "2026-01-01T00:00:0${7 - Number(n)}Z"\n`,
    );
    const { stdout } = await cli(['schedule', 'dump.yaml', '--no-history'], { 'dump.yaml': text });
    const placed = [...stdout.matchAll(/^cpu-example\/(cpu-demo-\d) +node-1/gm)].map((m) => m[1]);
    assert.deepEqual(placed, ['cpu-demo-4', 'cpu-demo-5', 'cpu-demo-6']);
  });
});

describe('cli schedule: nothing dropped silently (real-world dumps)', () => {
  const dump = readFileSync('test/fixtures/real-world/simple-pod-dump.yaml', 'utf8');
  const nodes = readFileSync('test/fixtures/real-world/kind-nodes.yaml', 'utf8');

  it('kubernetes/website simple-pod.yaml as kubectl get -o yaml dumps it, copied to 100 pending pods keeping its uid: a located error for each of the 99 duplicates, exit 2', async () => {
    const pending = dump.replace(/^ {2}nodeName: kind-worker\n/m, '').replace(/^status:\n {2}phase: Running\n/m, '');
    const copies = Array.from({ length: 100 }, (_, i) => pending.replace('name: nginx\n', `name: nginx-${i}\n`)).join('---\n');
    const { code, stdout, stderr } = await cli(['schedule', 'dump.yaml', 'nodes.yaml', '--no-history'], {
      'dump.yaml': copies,
      'nodes.yaml': nodes,
    });
    assert.equal(code, 2);
    assert.equal(stdout, '');
    const lines = stderr.trimEnd().split('\n');
    assert.equal(lines.length, 99, stderr);
    assert.match(
      lines[0]!,
      /^dump\.yaml:\d+:\d+: error duplicate-uid: metadata\.uid: pod default\/nginx-1 has uid "5b8a1c1e-0f6f-4b57-9d43-2a3f4b0c9e11", which pod default\/nginx-0 already has at dump\.yaml:\d+:\d+/,
    );
  });
});

describe("cli schedule and the editor: admission's verdicts the same, at the same places, on every document (manifests ADMISSION_VERDICTS)", () => {
  const realWorld = (name: string) => readFileSync(path.join('test/fixtures/real-world', name), 'utf8');
  // The LimitRange and ResourceQuota of Limit Storage Consumption (kubernetes/website), then what a case adds.
  const storageLimits = realWorld('limit-storage-consumption.yaml').split(/^---$/m).slice(0, 2).join('---');
  const deployment = (extra: string) =>
    `---\napiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 2\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec:\n${extra}      containers: [{ name: main, resources: { requests: { cpu: "2" }, limits: { cpu: "2" } } }]\n`;
  const table: Array<[name: string, files: Record<string, string>, codes: readonly ManifestErrorCode[]]> = [
    ['kubernetes/website quota-mem-cpu.yaml: a pod past the quota', { 'quota.yaml': realWorld('quota-mem-cpu.yaml') }, ['refused']],
    [
      "kubernetes/website Limit Storage Consumption with web.yaml's StatefulSet: a claim refused, its replica not created",
      { 'storage.yaml': realWorld('limit-storage-consumption.yaml'), 'nodes.yaml': realWorld('kind-nodes.yaml') },
      ['refused', 'not-created'],
    ],
    [
      'LimitRanger: the replicas of a Deployment past the max, a pod naming no PriorityClass that exists',
      {
        'web.yaml':
          'apiVersion: v1\nkind: LimitRange\nmetadata: { name: cpu }\nspec:\n  limits: [{ type: Container, max: { cpu: "1" } }]\n' +
          deployment('') +
          '---\napiVersion: v1\nkind: Pod\nmetadata: { name: lone }\nspec:\n  priorityClassName: nope\n  containers: [{ name: main, resources: { limits: { cpu: 500m } } }]\n',
      },
      ['refused', 'refused', 'refused'],
    ],
    [
      'kubernetes/website pv-claim.yaml over Limit Storage Consumption: the 3Gi claim refused by storagelimits',
      {
        'claim.yaml': `${storageLimits}---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: task-pv-claim\nspec:\n  storageClassName: manual\n  accessModes:\n    - ReadWriteOnce\n  resources:\n    requests:\n      storage: 3Gi\n`,
      },
      ['refused'],
    ],
    [
      'a quota of Services: not applied, said at its entry',
      { 'quota.yaml': 'apiVersion: v1\nkind: ResourceQuota\nmetadata: { name: q }\nspec:\n  hard: { count/services: "2", pods: "9" }\n' },
      ['not-applied'],
    ],
    [
      "ResourceClaims past a quota of GPUs: the files' own claim, and the one the ResourceClaim controller would make from a template for a pod",
      {
        'gpus.yaml': [
          'apiVersion: v1\nkind: ResourceQuota\nmetadata: { name: gpus }\nspec:\n  hard: { gpu.example.com.deviceclass.resource.k8s.io/devices: "2", count/resourceclaims.resource.k8s.io: "9" }\n',
          'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: { name: pair }\nspec:\n  devices:\n    requests: [{ name: g, exactly: { deviceClassName: gpu.example.com, count: 2 } }]\n',
          'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: { name: more }\nspec:\n  devices:\n    requests: [{ name: g, exactly: { deviceClassName: gpu.example.com } }]\n',
          'apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: { name: one }\nspec:\n  spec:\n    devices:\n      requests: [{ name: g, exactly: { deviceClassName: gpu.example.com } }]\n',
          'apiVersion: v1\nkind: Pod\nmetadata: { name: trainer }\nspec:\n  resourceClaims: [{ name: gpu, resourceClaimTemplateName: one }]\n  containers: [{ name: main }]\n',
        ].join('---\n'),
      },
      ['refused', 'refused'],
    ],
    ['nothing refused: nothing said', { 'web.yaml': deployment('') }, []],
  ];
  for (const [name, files, codes] of table) {
    it(name, async () => {
      const { stderr } = await cli(['schedule', ...Object.keys(files), '--no-history'], files);
      const verdict = /^\S+:\d+:\d+: warning (\S+): /;
      const fromCli = stderr.split('\n').filter((l) => ADMISSION_VERDICTS.has((verdict.exec(l)?.[1] ?? '') as ManifestErrorCode));
      const analysis = workspaceOf(files).analysis();
      const fromEditor = Object.keys(files).flatMap((f) =>
        validate(uriOf(f), analysis)
          .filter((d) => ADMISSION_VERDICTS.has(d.code as ManifestErrorCode))
          .map(
            (d) =>
              `${f}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity === 2 ? 'warning' : 'other'} ${d.code}: ${d.message}`,
          ),
      );
      assert.deepEqual([...fromEditor].sort(), [...fromCli].sort());
      assert.deepEqual(fromCli.map((l) => verdict.exec(l)?.[1]).sort(), [...codes].sort(), stderr);
    });
  }
});
