import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeviceFailure } from '../../src/engine/api/device-failures';
import { deviceFailureText } from '../../src/engine/explain/devices';
import { noHistory } from '../../src/server/history';
import { openHistory } from '../../src/server/store-history';
import { explainPodRequest, previewPlan } from '../../src/server/service';
import { explainInPlan, explainPod } from '../../src/server/service/planning';
import { workspaceOf } from '../server/service/fixtures';
import { cli } from './run-cli';
import { runPodplan } from './run-cli-process';

describe('cli explain (child process)', () => {
  it('explains an unplaceable pod: the upstream message, the funnel, reasons by plugin and the closest nodes (exit 1)', async () => {
    const { code, stdout } = await runPodplan(['explain', 'examples/cluster', 'ml/trainer']);
    assert.equal(code, 1);
    assert.match(
      stdout,
      /^Decision: not placed: 0\/6 nodes are available: .*5 Insufficient nvidia\.com\/gpu\. preemption: 0\/6 nodes are available: 6 Preemption is not helpful for scheduling\.$/m,
    );
    assert.match(stdout, /^ {2}nodes in the snapshot\s+6$/m);
    assert.match(stdout, /^ {2}TaintToleration\s+5$/m);
    assert.match(stdout, /^ {2}NodeResourcesFit\s+0$/m);
    assert.match(stdout, /^ {2}5 × Insufficient nvidia\.com\/gpu \[NodeResourcesFit, Filter\]: /m);
    assert.match(
      stdout,
      /^Closest nodes \(fewest failing filters, a lone taint before a lone shortfall, then the smallest shortfall\):\n {2}gpu-c2: 1 failing filter\n {4}TaintToleration \(Filter\)/m,
    );
    assert.match(stdout, /node-b2: 1 failing filter; nvidia\.com\/gpu short by 1$/m);
  });

  it('explains a placed pod with every score plugin raw/normalized×weight=weighted, and one node in full with --node', async () => {
    const { code, stdout } = await runPodplan(['explain', 'examples/cluster', 'data/postgres-1', '--node', 'node-a1']);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^Pod data\/postgres-1 \(a name made up/m);
    assert.match(stdout, /^Decision: placed on node-a2$/m);
    assert.match(
      stdout,
      /^ {2}#\s+NODE\s+TOTAL\s+TaintToleration\s+NodeResourcesFit\s+VolumeBinding\s+PodTopologySpread\s+DynamicResources\s+NodeResourcesBalancedAllocation\s+ImageLocality$/m,
    );
    assert.match(
      stdout,
      /^ {2}1\s+node-a2\s+637\s+0\/100×3=300\s+62\/62×1=62\s+0\/0×1=0\s+6\/100×2=200\s+0\/0×2=0\s+75\/75×1=75\s+0\/0×1=0$/m,
    );
    assert.match(stdout, /^Node node-a1: feasible \(rank 2\)\n {2}every Filter plugin passes it\n/m);
  });

  it('says when a pod had one feasible node, and gives a rejected node its every failing filter', async () => {
    const { code, stdout } = await runPodplan(['explain', 'examples/cluster', 'monitoring/node-exporter-node-a1', '--node', 'node-a2']);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^Not scored: the only feasible node, which kube-scheduler takes without scoring\.$/m);
    assert.match(
      stdout,
      /^Node node-a2: rejected\n {2}rejected by NodeAffinity at PreFilter: node\(s\) didn't satisfy plugin\(s\) \[NodeAffinity\]\n/m,
    );
    const spread = await runPodplan(['explain', 'examples/cluster', 'shop/web-1', '--node', 'node-b1']);
    assert.match(
      spread.stdout,
      /^Node node-b1: rejected\n {2}rejected by PodTopologySpread at Filter: node\(s\) didn't match pod topology spread constraints\n {2}fails PodTopologySpread \(Filter\)/m,
    );
  });

  it('prints the same report as JSON with --json', async () => {
    const { code, stdout } = await runPodplan(['explain', 'examples/cluster', 'warehouse-loader', '--json']);
    assert.equal(code, 1);
    const report = JSON.parse(stdout) as {
      pod: string;
      placed: boolean;
      funnel: Array<{ step: string; nodes: number }>;
      rejected: Array<{ reason: string; count: number; more: number }>;
      closest: Array<{ node: string }>;
    };
    assert.equal(report.pod, 'analytics/warehouse-loader');
    assert.equal(report.placed, false);
    assert.deepEqual(report.funnel.at(-1), { step: 'selected', stage: 'Selected', nodes: 0 });
    assert.deepEqual(
      report.rejected.map((r) => [r.reason, r.count]),
      [
        ['Insufficient cpu', 5],
        ['Insufficient memory', 3],
        ['node(s) had untolerated taint(s)', 1],
      ],
    );
    assert.equal(report.closest.length, 3);
  });

  describe('ranks the closest nodes as the editor does (engine/explain/report closestNodes), on the same cluster', () => {
    // One pending pod, so the cycle podplan explain reads (after podplan schedule's run) sees the cluster the editor's does.
    const node = (name: string, cpu: string, extra = '') =>
      `apiVersion: v1\nkind: Node\nmetadata: { name: ${name}, labels: { kubernetes.io/hostname: ${name}, zone: z } }\nspec:${extra || ' {}'}\nstatus: { allocatable: { cpu: "${cpu}", memory: 16Gi, pods: "110" } }\n`;
    const taint = '\n  taints: [{ key: dedicated, value: gpu, effect: NoSchedule }]';
    const pod = (cpu: string, extra = '') =>
      `apiVersion: v1\nkind: Pod\nmetadata: { name: big, namespace: default }\nspec:\n${extra}  containers: [{ name: main, resources: { requests: { cpu: "${cpu}" } } }]\n`;
    const table: Array<[name: string, files: Record<string, string>]> = [
      [
        'a lone taint before a lone shortfall',
        { 'c.yaml': [node('tainted', '8', taint), node('half', '3'), node('small', '1')].join('---\n') + '---\n' + pod('4') },
      ],
      [
        'fewest failing filters, then the smallest shortfall',
        {
          'c.yaml':
            [node('tainted-small', '1', taint), node('half', '3'), node('small', '1'), node('tiny', '500m')].join('---\n') +
            '---\n' +
            pod('4'),
        },
      ],
      [
        'shortfalls of cpu against a selector',
        {
          'c.yaml':
            [node('a', '2'), node('b', '3'), node('c', '8')].join('---\n') + '---\n' + pod('4', '  nodeSelector: { zone: other }\n'),
        },
      ],
    ];
    for (const [name, files] of table) {
      it(name, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'podplan-explain-'));
        for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
        const { stdout } = await runPodplan(['explain', dir, 'big', '--json']);
        rmSync(dir, { recursive: true, force: true });
        const cliOrder = (JSON.parse(stdout) as { closest: Array<{ node: string }> }).closest.map((c) => c.node);
        const analysis = workspaceOf(files).analysis();
        const located = analysis.pod('default', 'big');
        assert.ok(located);
        const matrix = explainPod(located, analysis).matrix;
        assert.ok(cliOrder.length > 0);
        assert.equal(matrix.closest?.node, cliOrder[0]);
        assert.deepEqual(
          matrix.rows
            .filter((r) => r.verdict === 'rejected' && r.stage !== 'PreFilter')
            .slice(0, cliOrder.length)
            .map((r) => r.node),
          cliOrder,
        );
      });
    }
  });

  it('explains a pod of a pod set at its planned node', async () => {
    const { code, stdout } = await runPodplan(['explain', 'examples/cluster', 'analytics/etl-0']);
    assert.equal(code, 0, stdout);
    assert.match(stdout, /^analytics\/etl-0 is in pod set nightly-batch: planned with its set by the \w+ planner/m);
  });

  describe('an object of the files that does not read refuses it in both, in the same words (manifests unreadablePods every-pod)', () => {
    const node = (name: string, cpu: string) =>
      `---\napiVersion: v1\nkind: Node\nmetadata: { name: ${name} }\nstatus: { allocatable: { cpu: "${cpu}", memory: 16Gi, pods: "110" } }\n`;
    const pod = (name: string, cpu: string, extra = '') =>
      `---\napiVersion: v1\nkind: Pod\nmetadata: { name: ${name} }\nspec:${extra}\n  containers: [{ name: main, resources: { requests: { cpu: "${cpu}" } } }]\n`;
    const table: Array<[name: string, files: Record<string, string>, refusal: string | undefined]> = [
      [
        'another pending pod that does not read',
        { 'c.yaml': node('n1', '4') + pod('web', '1') + pod('bad', 'two') },
        'nothing is planned while a pod of the files does not read (pod default/bad at c.yaml:15:19): fix its errors first',
      ],
      [
        'a node that does not read',
        { 'c.yaml': node('n1', '4') + node('n2', 'four') + pod('web', '1') },
        'nothing is planned while an object of the files does not read (node n2 at c.yaml:9:19): fix its errors first',
      ],
      ['every object reads: explained', { 'c.yaml': node('n1', '4') + pod('web', '1') }, undefined],
    ];
    for (const [name, files, refusal] of table) {
      it(name, async () => {
        const { code, stdout, stderr } = await cli(['explain', 'c.yaml', 'web', '--json'], files);
        const editor = await explainPodRequest({ pod: { name: 'web' } }, workspaceOf(files).analysis(), noHistory('not kept'));
        if (refusal) {
          assert.equal(code, 2, stderr);
          assert.equal(stderr.trim().split('\n').at(-1), `error: ${refusal}`);
          assert.deepEqual(editor, { ok: false, error: refusal });
        } else {
          assert.equal(code, 0, stderr);
          assert.ok(editor.ok, editor.ok ? '' : editor.error);
          assert.equal((JSON.parse(stdout) as { node?: string }).node, 'n1');
          assert.equal(editor.value.chosenNode, 'n1');
        }
      });
    }
  });

  // A stored plan's pod is judged on the cluster the history kept with that plan (schema 8), with the
  // plan's other pods on their nodes, under the pod-set profile kept with it (schema 9): the files or
  // their profile changing afterwards changes nothing, in podplan explain --plan as in the editor's
  // explain of a stored plan (explainInPlan with a historyId).
  describe('--plan: a pod of a stored plan, on the cluster that plan was made on (test/fixtures/dra/plan)', () => {
    let dir: string;
    let db: string;
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'podplan-explain-plan-'));
      db = join(dir, 'history.db');
      for (const f of ['cluster.yaml', 'gang.yaml']) copyFileSync(join('test/fixtures/dra/plan', f), join(dir, f));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    /** c1 given two GPUs of its own: room for the fifth pod now. */
    const c1Gpus = `---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: c1-gpus}
spec:
  driver: gpu.example.com
  nodeName: c1
  pool: {name: c1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
`;
    /** A pod-set profile without DynamicResources: no node's device requests are judged under it. */
    const noDra = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: podset-planner-scheduler
    plugins:
      multiPoint:
        disabled: [{name: DynamicResources}]
`;
    type Report = { placed: boolean; plan?: number; devices: Array<{ node: string; devices: DeviceFailure[] }> };
    const lines = (r: Report) => r.devices.map((n) => ({ node: n.node, lines: n.devices.map(deviceFailureText) }));

    it('judges the left-out pod as the plan left the cluster after the files change; the editor says the same', async () => {
      const planned = await runPodplan(['plan', dir, '--pod-set', 'default/train', '--db', db]);
      assert.equal(planned.code, 1, planned.stderr);
      const id = /Recorded as plan (\d+)/.exec(planned.stderr)?.[1];
      assert.ok(id, planned.stderr);
      const before = await runPodplan(['explain', dir, 'default/train-4', '--plan', id, '--db', db, '-o', 'json']);
      assert.equal(before.code, 1, before.stderr);
      writeFileSync(join(dir, 'cluster.yaml'), `${readFileSync(join(dir, 'cluster.yaml'), 'utf8')}${c1Gpus}`);
      const now = await runPodplan(['explain', dir, 'default/train-4', '-o', 'json']);
      assert.equal(now.code, 0, 'on the files as they are now, the planner places it (on c1)');
      writeFileSync(join(dir, 'profile.yaml'), noDra);
      const stored = await runPodplan(['explain', dir, 'default/train-4', '--plan', id, '--db', db, '-o', 'json']);
      assert.equal(stored.code, 1, stored.stderr);
      assert.equal(stored.stdout, before.stdout, 'the files and their profile changing change nothing');
      const noPaths = await runPodplan(['explain', 'default/train-4', '--plan', id, '--db', db, '-o', 'json']);
      assert.equal(noPaths.stdout, before.stdout, 'no paths are read');
      const profiled = await runPodplan([
        'explain',
        dir,
        'default/train-4',
        '--plan',
        id,
        '--db',
        db,
        '--profile',
        join(dir, 'profile.yaml'),
      ]);
      assert.equal(profiled.code, 2);
      assert.match(
        profiled.stderr,
        /^podplan explain: --profile does not apply with --plan: a stored plan is judged with the pod-set profile it was made with$/m,
      );
      const report = JSON.parse(stored.stdout) as Report;
      assert.equal(report.plan, Number(id));
      const taken = "0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan";
      assert.deepEqual(
        lines(report).map((n) => [n.node, n.lines.map((l) => l.slice(l.indexOf('): ') + 3))]),
        [
          ['g1', [taken]],
          ['g2', [taken]],
          ['c1', ['the node has no devices']],
        ],
      );
      const text = await runPodplan(['explain', dir, 'train-4', '--plan', id, '--db', db]);
      assert.match(
        text.stdout,
        new RegExp(
          `^default/train-4 in plan ${id} \\(pod set default/train, planner greedy, made \\S+\\): judged on the cluster that plan was made on, with its other pods on their planned nodes, under the profile it was made with\\.$`,
          'm',
        ),
      );
      // The editor, on the changed workspace, explains the stored plan's pod the same way.
      const history = await openHistory(db, ['file:///w'], () => undefined);
      try {
        const analysis = workspaceOf({
          'cluster.yaml': readFileSync(join(dir, 'cluster.yaml'), 'utf8'),
          'gang.yaml': readFileSync(join(dir, 'gang.yaml'), 'utf8'),
          'profile.yaml': noDra,
        }).analysis();
        const pod = analysis.pod('default', 'train-4');
        assert.ok(pod);
        const editor = await explainInPlan(pod, analysis, { podSet: 'train', historyId: Number(id) }, history);
        assert.ok(editor);
        assert.deepEqual(editor.devices, lines(report));
        assert.equal(
          editor.judgedOn,
          `Judged on the cluster plan #${id} was made on, as it left it (its other pods on their nodes), with the profile it was made with.`,
        );
      } finally {
        history.close();
      }
    });

    it('a plan recorded before the history kept its cluster (a schema-7 file): refused, saying so; the editor judges no node', async () => {
      const old = join(dir, 'v7.db');
      const Database = (await import('better-sqlite3')).default;
      const sqlite = new Database(old);
      sqlite.exec(readFileSync('test/fixtures/store/history-v7.sql', 'utf8'));
      sqlite.close();
      const run = await runPodplan(['explain', dir, 'default/train-4', '--plan', '1', '--db', old]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /^podplan explain: plan 1 \(pod set default\/web\) has no pod default\/train-4$/m);
      const web = `apiVersion: v1\nkind: Pod\nmetadata: {name: web-2}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: "9"}}}]\n`;
      writeFileSync(join(dir, 'web.yaml'), web);
      const refused = await runPodplan(['explain', dir, 'web-2', '--plan', '1', '--db', old]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        /^podplan explain: plan 1 was recorded before the plan history kept the cluster a plan is made on \(history schema version 8\): its pods cannot be judged as it left the cluster, and judging them on today's files would be another plan's answer \(podplan show 1 prints where each pod went and why; podplan explain without --plan explains default\/web-2 on the files as they are\)$/m,
      );
      const history = await openHistory(old, ['file:///w'], () => undefined);
      try {
        const analysis = workspaceOf({ 'cluster.yaml': readFileSync(join(dir, 'cluster.yaml'), 'utf8'), 'web.yaml': web }).analysis();
        const pod = analysis.pod('default', 'web-2');
        assert.ok(pod);
        const editor = await explainInPlan(pod, analysis, { podSet: 'web', historyId: 1 }, history);
        assert.ok(editor);
        assert.equal(editor.message, '0/2 nodes are available: 2 Insufficient cpu.', "the planner's kept cycle");
        assert.equal(editor.devices, undefined);
        // The closest node comes from the kept cycle alone: n1 is no node of today's files.
        assert.equal(editor.matrix.closest?.node, 'n1');
        assert.match(editor.judgedOn ?? '', /^Plan #1 was recorded before the plan history kept the cluster a plan is made on: /);
      } finally {
        history.close();
      }
    });

    it('a plan kept with its cluster before the history kept its profile (a schema-8 file): refused, saying so; the editor judges no node', async () => {
      const old = join(dir, 'v8.db');
      const Database = (await import('better-sqlite3')).default;
      const sqlite = new Database(old);
      sqlite.exec(readFileSync('test/fixtures/store/history-v8.sql', 'utf8'));
      sqlite.close();
      const refused = await runPodplan(['explain', 'default/train-4', '--plan', '2', '--db', old]);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(
        refused.stderr,
        /^podplan explain: plan 2 was recorded before the plan history kept the pod-set profile a plan is made with \(history schema version 9\): its pods cannot be judged as it judged them, and judging them with today's profile would be another plan's answer \(podplan show 2 prints where each pod went and why; podplan explain without --plan explains default\/train-4 on the files as they are\)$/m,
      );
      const history = await openHistory(old, ['file:///w'], () => undefined);
      try {
        const analysis = workspaceOf({
          'cluster.yaml': readFileSync('test/fixtures/dra/plan/cluster.yaml', 'utf8'),
          'gang.yaml': readFileSync('test/fixtures/dra/plan/gang.yaml', 'utf8'),
        }).analysis();
        const pod = analysis.pod('default', 'train-4');
        assert.ok(pod);
        const editor = await explainInPlan(pod, analysis, { podSet: 'train', historyId: 2 }, history);
        assert.ok(editor);
        assert.equal(editor.cycle, 'planner', "the planner's kept cycle");
        assert.equal(editor.devices, undefined);
        assert.match(editor.judgedOn ?? '', /^Plan #2 was recorded before the plan history kept the profile a plan is made with: /);
      } finally {
        history.close();
      }
    });
  });

  // A set planned after the sets its trigger depends on was made on the cluster with their pods
  // placed: the history keeps those placements with the plan (schema 10), so a stored plan's pod is
  // judged where the planner judged it, as explain judges it at planning time. jobs/second depends on
  // jobs/first, whose pods take 3 of each node's 4 CPUs: second-1 (2 CPUs) fits no node there, and
  // every node on the nodes alone.
  describe('--plan: a set planned after the set it depends on (test/fixtures/workspaces/depends-on)', () => {
    const fixture = 'test/fixtures/workspaces/depends-on';
    let dir: string;
    let db: string;
    let id: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'podplan-explain-depends-'));
      db = join(dir, 'history.db');
      const planned = await runPodplan(['plan', fixture, '--pod-set', 'jobs/second', '--db', db]);
      assert.equal(planned.code, 1, planned.stderr);
      assert.match(planned.stdout, /^ {2}jobs\/second-1: 0\/3 nodes are available: 3 Insufficient cpu\.$/m);
      id = /Recorded as plan (\d+)/.exec(planned.stderr)?.[1] ?? '';
      assert.ok(id, planned.stderr);
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    type Report = {
      placed: boolean;
      plan?: number;
      closest: Array<{ node: string }>;
      detail: { failures: Array<{ plugin: string; reasons: string[] }> };
    };
    const explained = async (args: string[]) => {
      const run = await runPodplan(['explain', ...args, '-o', 'json']);
      const { plan: _, ...report } = JSON.parse(run.stdout) as Report;
      return { code: run.code, report };
    };

    for (const [pod, code] of [
      ['jobs/second-1', 1],
      ['jobs/second-0', 0],
    ] as const) {
      it(`${pod}: the same verdicts from the history as when planned, node by node`, async () => {
        for (const node of ['n1', 'n2', 'n3']) {
          const now = await explained([fixture, pod, '--node', node]);
          const stored = await explained([pod, '--plan', id, '--db', db, '--node', node]);
          assert.equal(now.code, code);
          assert.deepEqual(stored, now, node);
          // Judged beside first's pods: the left-out pod fails every node for CPU, as its cycle said.
          if (!now.report.placed)
            assert.deepEqual(
              now.report.detail.failures.map((f) => [f.plugin, ...f.reasons]),
              [['NodeResourcesFit', 'Insufficient cpu']],
              node,
            );
        }
      });
    }

    it('the left-out pod lacks CPU on every node, beside the pods of the set planned first; the editor says the same', async () => {
      const { report } = await explained(['jobs/second-1', '--plan', id, '--db', db]);
      assert.deepEqual(
        report.closest.map((c) => c.node),
        ['n2', 'n3', 'n1'],
        'every node short of CPU, n1 (where second-0 went) most',
      );
      const text = await runPodplan(['explain', 'jobs/second-1', '--plan', id, '--db', db, '--node', 'n2']);
      assert.match(
        text.stdout,
        new RegExp(
          `^jobs/second-1 in plan ${id} \\(pod set jobs/second, planner greedy, made \\S+\\): judged on the cluster that plan was made on \\(with the 3 pods the sets planned before it placed on their nodes\\), with its other pods on their planned nodes, under the profile it was made with\\.$`,
          'm',
        ),
      );
      assert.match(text.stdout, /^ {2}fails NodeResourcesFit \(Filter\): Insufficient cpu\n {2}lacks: cpu short by 1$/m);
      const history = await openHistory(db, ['file:///w'], () => undefined);
      try {
        const analysis = workspaceOf({
          'cluster.yaml': readFileSync(join(fixture, 'cluster.yaml'), 'utf8'),
          'podsets.yaml': readFileSync(join(fixture, 'podsets.yaml'), 'utf8'),
        }).analysis();
        const pod = analysis.pod('jobs', 'second-1');
        assert.ok(pod);
        const stored = await explainInPlan(pod, analysis, { podSet: 'second', historyId: Number(id) }, history);
        const preview = await explainInPlan(pod, analysis, { podSet: 'second' }, history);
        assert.ok(stored && preview);
        assert.equal(stored.message, '0/3 nodes are available: 3 Insufficient cpu.');
        assert.deepEqual(stored.matrix.closest, { node: 'n2', why: 'fails only NodeResourcesFit: Insufficient cpu (short by 1 cpu)' });
        assert.deepEqual(preview.matrix.closest, stored.matrix.closest, 'the preview, planned now, says the same');
        assert.equal(
          stored.judgedOn,
          `Judged on the cluster plan #${id} was made on (with the 3 pods the sets planned before it placed on their nodes), as it left it (its other pods on their nodes), with the profile it was made with.`,
        );
      } finally {
        history.close();
      }
    });

    it('a plan recorded before the history kept those pods (a schema-9 file): judged without them, saying so; the editor too', async () => {
      const old = join(dir, 'v9.db');
      const Database = (await import('better-sqlite3')).default;
      const sqlite = new Database(old);
      sqlite.exec(readFileSync('test/fixtures/store/history-v9.sql', 'utf8'));
      sqlite.close();
      const text = await runPodplan(['explain', 'jobs/second-1', '--plan', '3', '--db', old]);
      assert.equal(text.code, 1, text.stderr);
      assert.match(
        text.stdout,
        /^jobs\/second-1 in plan 3 \(pod set jobs\/second, planner greedy, made \S+\): judged on the cluster that plan was made on, with its other pods on their planned nodes, under the profile it was made with\. The plan was recorded before the history kept the pods the sets planned before it placed \(history schema version 10\): if ScheduleTrigger second depends on other sets, their pods are missing here\.$/m,
      );
      const history = await openHistory(old, ['file:///w'], () => undefined);
      try {
        const analysis = workspaceOf({
          'cluster.yaml': readFileSync(join(fixture, 'cluster.yaml'), 'utf8'),
          'podsets.yaml': readFileSync(join(fixture, 'podsets.yaml'), 'utf8'),
        }).analysis();
        const pod = analysis.pod('jobs', 'second-1');
        assert.ok(pod);
        const editor = await explainInPlan(pod, analysis, { podSet: 'second', historyId: 3 }, history);
        assert.match(
          editor?.judgedOn ?? '',
          /The plan was recorded before the history kept the pods the sets planned before it placed \(history schema version 10\): if ScheduleTrigger second depends on other sets, their pods are missing here\.$/,
        );
      } finally {
        history.close();
      }
    });
  });

  describe('a set that depends on a SchedulePlan already written (test/fixtures/workspaces/depends-on-written)', () => {
    const paths = ['test/fixtures/workspaces/depends-on/cluster.yaml', 'test/fixtures/workspaces/depends-on-written'];
    const files = () => ({
      'cluster.yaml': readFileSync(paths[0] as string, 'utf8'),
      'podsets.yaml': readFileSync(join(paths[1] as string, 'podsets.yaml'), 'utf8'),
    });
    let dir: string;
    let db: string;
    let id: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'podplan-explain-written-'));
      db = join(dir, 'history.db');
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('podplan plan places second beside the written plan’s pods on their nodes, as the editor’s preview does', async () => {
      const planned = await runPodplan(['plan', ...paths, '--pod-set', 'jobs/second', '--db', db, '-o', 'json']);
      assert.equal(planned.code, 1, planned.stderr);
      const json = JSON.parse(planned.stdout) as {
        assignments: Array<{ pod: string; node: string }>;
        unplaced: Array<{ pod: string; message: string }>;
      };
      // Beside first's pods: second-0 finds a pod of first to sit beside, second-1 no node with 2 CPUs left.
      assert.deepEqual(
        json.unplaced.map((u) => [u.pod, u.message]),
        [['second-1', '0/3 nodes are available: 3 Insufficient cpu.']],
      );
      assert.deepEqual(
        json.assignments.map((a) => a.pod),
        ['second-0'],
      );
      id = /Recorded as plan (\d+)/.exec(planned.stderr)?.[1] ?? '';
      assert.ok(id, planned.stderr);
      const analysis = workspaceOf(files()).analysis();
      const preview = await previewPlan({ podSet: { namespace: 'jobs', name: 'second' } }, analysis, noHistory('not kept'));
      assert.ok(preview.ok, preview.ok ? '' : preview.error);
      assert.deepEqual(
        preview.value.assignments.map((a) => [a.pod, a.node]),
        json.assignments.map((a) => [a.pod, a.node]),
      );
      assert.deepEqual(
        preview.value.nodes.map((n) => [n.node, n.before]),
        [
          ['n1', ['jobs/first-2']],
          ['n2', ['jobs/first-0']],
          ['n3', ['jobs/first-1']],
        ],
        'the node map shows the written plan’s pods placed before',
      );
    });

    it('explain --plan judges it on the cluster it was made on: the written plan’s 3 pods on their nodes', async () => {
      const text = await runPodplan(['explain', 'jobs/second-1', '--plan', id, '--db', db, '--node', 'n2']);
      assert.equal(text.code, 1, text.stderr);
      assert.match(
        text.stdout,
        new RegExp(
          `^jobs/second-1 in plan ${id} \\(pod set jobs/second, planner greedy, made \\S+\\): judged on the cluster that plan was made on \\(with the 3 pods the sets planned before it placed on their nodes\\)`,
          'm',
        ),
      );
      assert.match(text.stdout, /^ {2}fails NodeResourcesFit \(Filter\): Insufficient cpu\n {2}lacks: cpu short by 1$/m);
      const now = await runPodplan(['explain', ...paths, 'jobs/second-1', '--node', 'n2', '-o', 'json']);
      const stored = await runPodplan(['explain', 'jobs/second-1', '--plan', id, '--db', db, '--node', 'n2', '-o', 'json']);
      const { plan: _a, ...fromFiles } = JSON.parse(now.stdout) as Record<string, unknown>;
      const { plan: _b, ...fromHistory } = JSON.parse(stored.stdout) as Record<string, unknown>;
      assert.deepEqual(fromHistory, fromFiles, 'the files explained now and the history say the same');
    });
  });

  describe('refuses what it cannot explain (exit 2)', () => {
    const table: Array<[what: string, args: string[], expected: RegExp]> = [
      ['no pod given', ['examples/cluster'], /paths and a pod are needed/],
      ['a pod not in the files', ['examples/cluster', 'nope'], /^podplan explain: no pod nope in the files$/m],
      [
        'a node not in the files',
        ['examples/cluster', 'ml/trainer', '--node', 'nowhere'],
        /^podplan explain: no node nowhere in the files$/m,
      ],
    ];
    for (const [what, args, expected] of table) {
      it(what, async () => {
        const { code, stderr } = await runPodplan(['explain', ...args]);
        assert.equal(code, 2, stderr);
        assert.match(stderr, expected);
      });
    }
  });
});
