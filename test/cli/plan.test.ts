import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { schedulePlanName } from '../../src/engine/planner/podset/name';
import { readFile } from '../../src/manifests';
import { openStore } from '../../src/store/store';
import { useTempDir, value } from '../store/helpers';
import { noHistory } from '../../src/server/history';
import { previewPlan, validate } from '../../src/server/service';
import { uriOf, workspaceOf } from '../server/service/fixtures';
import { cli } from './run-cli';

const NODES = `
apiVersion: v1
kind: Node
metadata: { name: n1, labels: { kubernetes.io/hostname: n1 } }
status: { allocatable: { cpu: "4", memory: 8Gi, pods: "110" } }
---
apiVersion: v1
kind: Node
metadata: { name: n2, labels: { kubernetes.io/hostname: n2 } }
status: { allocatable: { cpu: "4", memory: 8Gi, pods: "110" } }
`;

const member = (name: string, cpu: string, set = 'batch') => `---
apiVersion: v1
kind: Pod
metadata: { name: ${name}, labels: { planner.ciena.io/pod-set: ${set} } }
spec:
  schedulerName: podset-planner-scheduler
  containers:
    - name: main
      resources: { requests: { cpu: "${cpu}" } }
`;

const trigger = (set: string, extra = '', quietTime = '2m0s') => `---
apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata:
  name: ${set}
  labels:
    planner.ciena.io/pod-set: ${set}
    planner.ciena.io/quiet-time: ${quietTime}
spec:
  state: Planning${extra}
`;

/** Two 2-cpu pods and a 4-cpu pod on two 4-cpu nodes: pod by pod, the first two take a node each. */
const FRAGMENTED = { 'c.yaml': NODES + member('a', '2') + member('b', '2') + member('c', '4') + trigger('batch') };

describe('cli plan', () => {
  it('prints the plan as a pod → node table and each pod left out with its reason (exit 1)', async () => {
    const { code, stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'batch'], FRAGMENTED);
    assert.equal(code, 1);
    assert.equal(
      stdout,
      `POD         NODE
default/a   n1
default/b   n2
default/c   <none>

Pod set default/batch: 2 of 3 pods placed on 2 nodes (planner greedy, objective pack, profile default-scheduler, ScheduleTrigger default/batch).
Bound (HiGHS 1.15.1): places 2; no plan places more than 3 (within 33.3% of the best possible).

Not placed:
  default/c: 0/2 nodes are available: 2 Insufficient cpu.
`,
    );
  });

  it('--planner optimize plans the set as a whole and places every pod (exit 0)', async () => {
    const { code, stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--planner', 'optimize'], FRAGMENTED);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^Pod set default\/batch: 3 of 3 pods placed on 2 nodes \(planner optimize, /m);
    assert.doesNotMatch(stdout, /Not placed/);
  });

  it("--yaml --status writes the SchedulePlan manifest with Podplan's status, which reads back", async () => {
    const { code, stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--planner', 'optimize', '--yaml', '--status'], FRAGMENTED);
    assert.equal(code, 0);
    const model = readFile({ name: 'plan.yaml', text: stdout });
    assert.deepEqual(model.errors, []);
    const [written] = model.plans;
    assert.equal(written?.value.name, schedulePlanName('default', 'batch'));
    assert.deepEqual(written?.value.plan.map((e) => e.pod).sort(), ['a', 'b', 'c']);
    assert.deepEqual(
      [written?.value.status?.planner, written?.value.status?.placed, written?.value.status?.trigger],
      ['optimize', 3, 'batch'],
    );
  });

  it('--json prints the plan with its status and the diagnoses', async () => {
    const { code, stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--json'], FRAGMENTED);
    assert.equal(code, 1);
    const json = JSON.parse(stdout) as {
      status: { placed: number; unplaced: number; reasons: unknown[]; planner: string };
      unplaced: Array<{ pod: string; diagnosis: { nodesTotal: number } }>;
    };
    assert.deepEqual([json.status.placed, json.status.unplaced, json.status.planner], [2, 1, 'greedy']);
    assert.deepEqual(json.status.reasons, [{ pod: 'c', message: '0/2 nodes are available: 2 Insufficient cpu.' }]);
    assert.deepEqual(
      json.unplaced.map((u) => [u.pod, u.diagnosis.nodesTotal]),
      [['c', 2]],
    );
  });

  describe('plans a pod set as the editor’s preview does (engine/planner/plan-all planOnePodSet)', () => {
    const table: Array<[name: string, files: Record<string, string>, podSet: string]> = [
      ['a set with a trigger', FRAGMENTED, 'batch'],
      [
        'a set whose trigger depends on another: the dependency planned and assumed first',
        {
          'c.yaml':
            NODES + member('db', '4', 'db') + trigger('db') + member('app', '4', 'app') + trigger('app', '\n  dependsOn:\n    - name: db'),
        },
        'app',
      ],
      ['a set without a trigger', { 'c.yaml': NODES + member('a', '3', 'loose') + member('b', '3', 'loose') }, 'loose'],
    ];
    for (const [name, files, podSet] of table) {
      it(name, async () => {
        const { stdout } = await cli(['plan', 'c.yaml', '--pod-set', podSet, '--json'], files);
        const fromCli = (JSON.parse(stdout) as { assignments: Array<{ pod: string; node: string }> }).assignments.map(
          (a) => `${a.pod}→${a.node}`,
        );
        const analysis = workspaceOf(files).analysis();
        const preview = await previewPlan({ podSet: { namespace: 'default', name: podSet } }, analysis, noHistory('not kept'));
        assert.ok(preview.ok, preview.ok ? '' : preview.error);
        assert.ok(fromCli.length > 0);
        assert.deepEqual(
          preview.value.assignments.map((a) => `${a.pod}→${a.node}`),
          fromCli,
        );
      });
    }
  });

  it('plans what the set’s trigger depends on first, assuming its pods placed', async () => {
    const files = {
      'c.yaml':
        NODES + member('db', '4', 'db') + trigger('db') + member('app', '4', 'app') + trigger('app', '\n  dependsOn:\n    - name: db'),
    };
    const { code, stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'app'], files);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^default\/app\s+n2$/m, 'db took n1');
  });

  it('a trigger that cannot be planned says why (exit 1)', async () => {
    const files = { 'c.yaml': NODES + member('app', '1', 'app') + trigger('app', '\n  dependsOn:\n    - name: db') };
    const { code, stdout, stderr } = await cli(['plan', 'c.yaml', '--pod-set', 'app'], files);
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.equal(stderr, 'ScheduleTrigger default/app: dependency not found: ScheduleTrigger/default/db\n');
  });

  it('a pod set without a trigger is planned on the cluster as it is', async () => {
    const { code, stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--planner', 'optimize'], {
      'c.yaml': NODES + member('a', '1'),
    });
    assert.equal(code, 0);
    assert.match(
      stdout,
      /^Pod set default\/batch: 1 of 1 pods placed on 1 node \(planner optimize, objective pack, profile default-scheduler\)\.$/m,
    );
    assert.match(stdout, /^Bound \(HiGHS [0-9.]+\): proven optimal\.$/m);
  });

  it('plans the bundled example’s pod set with its pod-set profile', async () => {
    const dir = 'examples/cluster';
    const files = Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [path.join(dir, f), readFileSync(path.join(dir, f), 'utf8')]),
    );
    const { code, stdout } = await cli(['plan', dir, '--pod-set', 'nightly-batch', '--planner', 'optimize'], files);
    assert.equal(code, 0, stdout);
    assert.match(
      stdout,
      /^Pod set analytics\/nightly-batch: 6 of 6 pods placed on \d nodes \(planner optimize, objective pack, profile podset-planner-scheduler, ScheduleTrigger analytics\/nightly-batch\)\.$/m,
    );
  });

  describe('a pod of the files that does not read: its located error in both, and the plans it is part of refused in both (manifests unreadablePods)', () => {
    const loose = (extra = '') => `---
apiVersion: v1
kind: Pod
metadata: { name: loose }
spec:${extra}
  containers:
    - name: main
      resources: { requests: { cpu: "2 cores" } }
`;
    const quantity = (at: string, text: string) =>
      `${at}: error bad-quantity: spec.containers[0].resources.requests.cpu: "${text}" is not a quantity (examples: 100m, 0.5, 1Gi, 500Mi, 1e3)`;
    const table: Array<[name: string, files: Record<string, string>, error: string, refusal: string | undefined]> = [
      [
        'a member of the set: the set is not planned',
        { 'c.yaml': NODES + member('a', '2') + member('b', 'two') + trigger('batch') },
        quantity('c.yaml:28:37', 'two'),
        'nothing is planned while a pod of the files does not read (pod default/b at c.yaml:23:19): fix its errors first',
      ],
      [
        'a member of a set the trigger depends on (planned first): the set is not planned',
        {
          'c.yaml':
            NODES + member('b', 'two', 'db') + trigger('db') + member('a', '1') + trigger('batch', '\n  dependsOn:\n    - name: db'),
        },
        quantity('c.yaml:19:37', 'two'),
        'nothing is planned while a pod of the files does not read (pod default/b at c.yaml:14:19): fix its errors first',
      ],
      [
        'a bound pod: nothing is planned, its node’s use is not known',
        { 'c.yaml': NODES + member('a', '2') + trigger('batch') + loose('\n  nodeName: n1') },
        quantity('c.yaml:38:37', '2 cores'),
        'nothing is planned while a pod of the files does not read (pod default/loose at c.yaml:33:19): fix its errors first',
      ],
      [
        'a node that does not read: nothing is planned, its room is not known',
        {
          'c.yaml':
            NODES +
            member('a', '2') +
            trigger('batch') +
            '---\napiVersion: v1\nkind: Node\nmetadata: { name: n3 }\nstatus: { allocatable: { cpu: four } }\n',
        },
        'c.yaml:34:31: error bad-quantity: status.allocatable.cpu: "four" is not a quantity (examples: 100m, 0.5, 1Gi, 500Mi, 1e3)',
        'nothing is planned while an object of the files does not read (node n3 at c.yaml:33:19): fix its errors first',
      ],
      [
        'a pending pod of no set: the set is planned without it, its error reported all the same',
        { 'c.yaml': NODES + member('a', '2') + trigger('batch') + loose() },
        quantity('c.yaml:37:37', '2 cores'),
        undefined,
      ],
    ];
    for (const [name, files, error, refusal] of table) {
      it(name, async () => {
        const { code, stdout, stderr } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--json', '--no-history'], files);
        const analysis = workspaceOf(files).analysis();
        const preview = await previewPlan({ podSet: { namespace: 'default', name: 'batch' } }, analysis, noHistory('not kept'));
        if (refusal) {
          assert.equal(code, 2, stderr);
          assert.deepEqual(stderr.trim().split('\n'), [error, `podplan plan: ${refusal}`]);
          assert.deepEqual(preview, { ok: false, error: refusal });
        } else {
          assert.equal(code, 0, stderr);
          assert.deepEqual(stderr.trim().split('\n'), [error]);
          assert.ok(preview.ok, preview.ok ? '' : preview.error);
          const fromCli = (JSON.parse(stdout) as { assignments: Array<{ pod: string; node: string }> }).assignments;
          assert.deepEqual(
            preview.value.assignments.map((a) => `${a.pod}→${a.node}`),
            fromCli.map((a) => `${a.pod}→${a.node}`),
          );
        }
        // The editor marks the pod's field where the CLI's line points (LSP positions count from 0), whatever pod it is.
        const [, line, column] = /^c\.yaml:(\d+):(\d+): error bad-quantity/.exec(error) ?? [];
        const marked = validate(uriOf('c.yaml'), analysis).filter((d) => d.code === 'bad-quantity');
        assert.deepEqual(
          marked.map((d) => [d.range.start.line + 1, d.range.start.character + 1, d.severity]),
          [[Number(line), Number(column), 1]],
        );
      });
    }
  });

  describe('bad input gives clear, located errors and exit 2', () => {
    const table: Array<[what: string, files: Record<string, string>, args: string[], expected: RegExp]> = [
      [
        'a quiet time that does not parse',
        { 'c.yaml': NODES + member('a', '1') + trigger('batch', '', 'soon') },
        ['c.yaml', '--pod-set', 'batch'],
        /^c\.yaml:27:34: error quiet-time\/not-duration: ScheduleTrigger default\/batch: label planner\.ciena\.io\/quiet-time: the quiet time "soon" is not a Go duration \(time: invalid duration "soon"\): write one such as 2m0s/m,
      ],
      [
        'an unknown state',
        { 'c.yaml': NODES + member('a', '1') + trigger('batch').replace('state: Planning', 'state: Later') },
        ['c.yaml', '--pod-set', 'batch'],
        /^c\.yaml:29:10: error bad-value: spec\.state: "Later" is not one of Planning, Schedule$/m,
      ],
      [
        'a pod set with no pods',
        FRAGMENTED,
        ['c.yaml', '--pod-set', 'nope'],
        /^podplan plan: no pod set nope in the files \(pod sets: default\/batch\)$/m,
      ],
      [
        'a pod set whose trigger holds no pods (workloads at 0 replicas)',
        { 'c.yaml': NODES + trigger('empty') },
        ['c.yaml', '--pod-set', 'empty'],
        /^podplan plan: pod set default\/empty has no pending pods in the files \(its ScheduleTrigger empty has nothing to plan; are its workloads at 0 replicas\?\)$/m,
      ],
      ['--status without --yaml', FRAGMENTED, ['c.yaml', '--pod-set', 'batch', '--status'], /^podplan plan: --status goes with -o yaml/m],
      ['no --pod-set', FRAGMENTED, ['c.yaml'], /^podplan plan: --pod-set is required \(pod sets in the files: default\/batch\)$/m],
      [
        'an unknown planner',
        FRAGMENTED,
        ['c.yaml', '--pod-set', 'batch', '--planner', 'best'],
        /--planner must be one of greedy, optimize, exact, pallet, not "best"/,
      ],
      [
        '--yaml with --json',
        FRAGMENTED,
        ['c.yaml', '--pod-set', 'batch', '--yaml', '--json'],
        /^podplan plan: --json and --yaml ask for different outputs: give one$/m,
      ],
      ['no paths', {}, ['--pod-set', 'batch'], /no paths given/],
    ];
    for (const [what, files, args, expected] of table) {
      it(what, async () => {
        const { code, stderr } = await cli(['plan', ...args], files);
        assert.equal(code, 2, stderr);
        assert.match(stderr, expected);
      });
    }
  });

  it('documents itself with --help', async () => {
    const { code, stdout } = await cli(['plan', '--help']);
    assert.equal(code, 0);
    assert.match(stdout, /Usage: podplan plan <paths…> --pod-set NAME/);
  });

  describe('the plan history', () => {
    const dir = useTempDir();

    it('records the plan, which history, show, diff and export read', async () => {
      const db = path.join(dir.path, 'plans.db');
      const first = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--db', db], FRAGMENTED);
      assert.equal(first.code, 1);
      assert.match(first.stderr, /^Recorded as plan 1 in .*plans\.db \(podplan show 1\)\.$/m);
      await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--planner', 'optimize', '--db', db], FRAGMENTED);
      const listed = await cli(['history', '--db', db]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^1 +\S+ +batch +default +batch +greedy /m);
      const shown = await cli(['show', '1', '--db', db]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /0\/2 nodes are available: 2 Insufficient cpu\./);
      assert.equal((await cli(['diff', '1', '2', '--db', db])).code, 0);
      const exported = await cli(['export', '2', '--db', db]);
      assert.match(exported.stdout, /^kind: SchedulePlan$/m);
    });

    it('records every run as a plan of its own (no plan is reused), each with the cluster and pod-set profile it was made with', async () => {
      const db = path.join(dir.path, 'basis.db');
      const slice = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: nics}
spec:
  driver: nic.example.com
  allNodes: true
  pool: {name: nics, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}]
`;
      for (const files of [FRAGMENTED, FRAGMENTED, { ...FRAGMENTED, 'slice.yaml': slice }]) {
        const paths = 'slice.yaml' in files ? ['c.yaml', 'slice.yaml'] : ['c.yaml'];
        const run = await cli(['plan', ...paths, '--pod-set', 'batch', '--db', db], files);
        assert.match(run.stderr, /^Recorded as plan \d+ in /m);
      }
      const store = value(await openStore(db));
      try {
        const plans = value(store.history({ podSet: 'batch' })).items;
        assert.equal(plans.length, 3);
        const [latest, same, first] = plans;
        assert.equal(same?.basis, first?.basis, 'the same files: the same basis, kept once');
        assert.notEqual(latest?.basis, first?.basis, 'a ResourceSlice more: another basis');
        assert.equal(latest?.snapshotHash, first?.snapshotHash, 'nodes and pods are the same');
        const basis = value(store.planBasis(latest!.id));
        assert.deepEqual(
          basis?.cluster.resourceSlices?.map((s) => s.metadata.name),
          ['nics'],
        );
        assert.equal(basis?.profile?.schedulerName, latest?.profile, 'the profile the plan was made with');
      } finally {
        store.close();
      }
    });

    it('records nothing with --no-history, and refuses it with --db', async () => {
      const db = path.join(dir.path, 'none.db');
      const quiet = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--no-history'], FRAGMENTED, { PODPLAN_DB: db });
      assert.equal(quiet.stderr, '');
      assert.equal(existsSync(db), false);
      const both = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--no-history', '--db', db], FRAGMENTED);
      assert.equal(both.code, 2);
      assert.match(both.stderr, /--no-history and --db cannot be used together/);
    });
  });

  describe('preemption: off unless the profile allows it (PodSetPlanner args allowPreemption)', () => {
    // n1 full with a pod of priority 0, n2 with one of 50: the set's pod (priority 100) would evict the one of 0.
    const full = `${NODES}---
apiVersion: v1
kind: Pod
metadata: { name: filler-1, namespace: batch }
spec: { nodeName: n1, containers: [{ name: c, resources: { requests: { cpu: "4" } } }] }
---
apiVersion: v1
kind: Pod
metadata: { name: filler-2, namespace: batch }
spec: { nodeName: n2, priority: 50, containers: [{ name: c, resources: { requests: { cpu: "3" } } }] }
${member('urgent', '2').replace('  schedulerName:', '  priority: 100\n  schedulerName:')}`;
    const allowing = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: podset-planner-scheduler
    pluginConfig:
      - name: PodSetPlanner
        args: { allowPreemption: true }
`;
    const table: Array<[name: string, files: Record<string, string>, args: string[], code: number, expected: RegExp[]]> = [
      [
        'off: the pod is left out, the reason says where preemption would make room',
        { 'c.yaml': full },
        [],
        1,
        [
          /^default\/urgent\s+<none>$/m,
          /^ {2}default\/urgent: 0\/2 nodes are available: 2 Insufficient cpu\. preemption: evicting batch\/filler-1 from node n1 would make room; plans do not preempt unless the profile allows it \(PodSetPlanner args: allowPreemption: true\)\.$/m,
        ],
      ],
      [
        'on: placed after evicting, the victims listed',
        { 'c.yaml': full, 'p.yaml': allowing },
        ['--profile', 'p.yaml'],
        0,
        [
          /^default\/urgent\s+n1 \(preempts batch\/filler-1\)$/m,
          /^Preempted \(the profile lets plans preempt: PodSetPlanner allowPreemption\):\n {2}batch\/filler-1 on n1: preempted by default\/urgent$/m,
        ],
      ],
      [
        'a value that is not true or false is an error at its line',
        { 'c.yaml': full, 'p.yaml': allowing.replace('true', '"yes"') },
        ['--profile', 'p.yaml'],
        2,
        [/^p\.yaml:7:\d+: .*allowPreemption: Invalid value: "yes": must be true or false/m],
      ],
    ];
    for (const [name, files, args, code, expected] of table) {
      it(name, async () => {
        const run = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--no-history', ...args], files);
        assert.equal(run.code, code, run.stdout + run.stderr);
        for (const line of expected) assert.match(run.stdout + run.stderr, line);
      });
    }

    it('reads priorities as admission gives them: a PriorityClass named by the set’s pod', async () => {
      const urgentClass = 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: urgent }\nvalue: 100\n';
      const byClass = full.replace('  priority: 100\n', '  priorityClassName: urgent\n');
      assert.notEqual(byClass, full);
      const run = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--no-history', '--profile', 'p.yaml'], {
        'c.yaml': `${urgentClass}---\n${byClass}`,
        'p.yaml': allowing,
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /^default\/urgent\s+n1 \(preempts batch\/filler-1\)$/m);
    });

    describe('the plan history keeps what a plan evicts', () => {
      const dir = useTempDir();

      it('podplan plan records the victims; show lists them, diff against the plan made without preemption shows them, export writes them', async () => {
        const db = path.join(dir.path, 'preempting.db');
        assert.equal((await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--db', db], { 'c.yaml': full })).code, 1);
        assert.equal(
          (await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--db', db, '--profile', 'p.yaml'], { 'c.yaml': full, 'p.yaml': allowing }))
            .code,
          0,
        );
        assert.match((await cli(['history', '--db', db])).stdout, /^2 .* 1 +0 +1 +workspace /m);
        const shown = (await cli(['show', '2', '--db', db])).stdout;
        assert.match(shown, /^ {2}1 placed, 0 not placed, 1 evicted$/m);
        assert.match(shown, /^urgent\s+n1 \(preempts batch\/filler-1\)/m);
        assert.match(shown, /\nPreempted:\n {2}batch\/filler-1 on n1: preempted by default\/urgent\n/);
        const diff = (await cli(['diff', '1', '2', '--db', db])).stdout;
        assert.match(
          diff,
          /\nNewly placed \(1\):\n {2}urgent: on n1, was: 0\/2 nodes are available: 2 Insufficient cpu\. preemption: evicting batch\/filler-1 from node n1 would make room;/,
        );
        assert.match(diff, /\nEvicted only by plan 2 \(1\):\n {2}batch\/filler-1 on n1: preempted by default\/urgent\n/);
        const exported = readFile({ name: 'plan.yaml', text: (await cli(['export', '2', '--db', db])).stdout });
        assert.deepEqual(exported.plans[0]?.value.status?.victims, [{ pod: 'batch/filler-1', node: 'n1', by: 'urgent' }]);
      });
    });

    it('--json lists the victims', async () => {
      const { stdout } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--no-history', '--profile', 'p.yaml', '--json'], {
        'c.yaml': full,
        'p.yaml': allowing,
      });
      assert.deepEqual((JSON.parse(stdout) as { victims: unknown }).victims, [{ pod: 'batch/filler-1', node: 'n1', by: 'urgent' }]);
    });
  });

  it("reads Pallet's PodSetPlanner args, reporting those that mean nothing to Podplan as ignored", async () => {
    const profile = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: podset-planner-scheduler
    pluginConfig:
      - name: PodSetPlanner
        args:
          debug: true
          callTimeout: 1m
          updatePeriod: 30s
`;
    const { code, stderr } = await cli(['plan', 'c.yaml', '--pod-set', 'batch', '--profile', 'p.yaml', '--no-history'], {
      ...FRAGMENTED,
      'p.yaml': profile,
    });
    assert.equal(code, 1, stderr);
    assert.deepEqual(stderr.trimEnd().split('\n'), [
      "p.yaml:8:18: warning: PodSetPlanner arg debug is Pallet's own setting and means nothing to Podplan; ignored",
      "p.yaml:9:24: warning: PodSetPlanner arg callTimeout is Pallet's own setting and means nothing to Podplan; ignored",
      "p.yaml:10:25: warning: PodSetPlanner arg updatePeriod is Pallet's own setting and means nothing to Podplan; ignored",
    ]);
  });
});

describe('cli plan: names made up for workload replicas (Pallet matches plans to pods by name)', () => {
  const files = () =>
    Object.fromEntries(
      readdirSync('examples/cluster')
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [path.join('examples/cluster', f), readFileSync(path.join('examples/cluster', f), 'utf8')]),
    );

  it('marks them in the table (*) and in --json (madeUp), and takes the set as namespace/name as the lists print it', async () => {
    const table = await cli(['plan', 'examples/cluster', '--pod-set', 'analytics/nightly-batch', '--no-history'], files());
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^analytics\/etl-0\* +node-/m);
    assert.match(table.stdout, /^\* a name made up for a workload's replica that has no pod in the files$/m);
    const json = JSON.parse(
      (await cli(['plan', 'examples/cluster', '--pod-set', 'nightly-batch', '--json', '--no-history'], files())).stdout,
    ) as { assignments: Array<{ pod: string; madeUp?: boolean }> };
    assert.ok(json.assignments.length > 0 && json.assignments.every((a) => a.madeUp === true));
  });

  it('Argo Rollouts getting-started canary Rollout beside the example: the plan is made, and the note on stderr names the kinds read but not scheduled, as schedule says it', async () => {
    const argo = 'test/fixtures/real-world/argo-rollouts-canary.yaml';
    const planned = await cli(['plan', 'examples/cluster', argo, '--pod-set', 'analytics/nightly-batch', '--no-history'], {
      ...files(),
      [argo]: readFileSync(argo, 'utf8'),
    });
    assert.equal(planned.code, 0, planned.stderr);
    assert.match(
      planned.stderr,
      /^note: read but not scheduled: 1 Rollout \(argoproj\.io\/v1alpha1\), 1 Service \(v1\) \(pods are made only for Pods, .*\)$/m,
    );
  });

  it('--yaml refuses to write a SchedulePlan naming them (exit 2, the pods named) unless --made-up-names', async () => {
    const refused = await cli(['plan', 'examples/cluster', '--pod-set', 'nightly-batch', '--yaml', '--no-history'], files());
    assert.equal(refused.code, 2);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /made up for workload replicas .*analytics\/etl-0.*--made-up-names/);
    const written = await cli(
      ['plan', 'examples/cluster', '--pod-set', 'nightly-batch', '--yaml', '--made-up-names', '--no-history'],
      files(),
    );
    assert.equal(written.code, 0, written.stderr);
    assert.match(written.stdout, /^kind: SchedulePlan$/m);
  });
});
