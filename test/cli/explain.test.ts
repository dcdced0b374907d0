import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noHistory } from '../../src/server/history';
import { explainPodRequest } from '../../src/server/service';
import { explainPod } from '../../src/server/service/planning';
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
