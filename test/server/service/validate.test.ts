import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { madeUpClaimName } from '../../../src/engine/plugins/dynamicresources/claims';
import type { Diagnostic } from 'vscode-languageserver';
import { codeLenses, hover, symbols, validate } from '../../../src/server/service';
import { docs, node, pod, trigger, uriOf, workspaceOf } from './fixtures';

const deployment = (labels: string, cpu = '"1"', scheduler = 'podset-planner-scheduler') => `apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 3
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web${labels} } }
    spec:
      schedulerName: ${scheduler}
      containers: [{ name: main, resources: { requests: { cpu: ${cpu} } } }]
`;

const codes = (files: Record<string, string>, file: string) =>
  validate(uriOf(file), workspaceOf(files).analysis()).map((d) => [d.code, d.range.start.line]);

describe('server/service/validate: diagnostics for our kinds and the objects they reference only', () => {
  it('a workload outside any pod set is not ours to check, unless its pods do not read: they refuse every plan (unreadablePods)', () => {
    assert.deepEqual(codes({ 'w.yaml': deployment('', '"1"').replace('replicas: 3', 'replicaz: 3') }, 'w.yaml'), []);
    assert.deepEqual(codes({ 'w.yaml': deployment('', '"2 cores"') }, 'w.yaml'), [['bad-quantity', 10]]);
  });

  it('a Node that does not read is reported where it is written: it refuses every plan (unreadablePods)', () => {
    const bad = 'apiVersion: v1\nkind: Node\nmetadata: { name: n3 }\nstatus: { allocatable: { cpu: four } }\n';
    assert.deepEqual(codes({ 'n.yaml': bad }, 'n.yaml'), [['bad-quantity', 3]]);
  });

  it('a workload of a pod set is: its bad quantity is reported where it is written', () => {
    assert.deepEqual(codes({ 'w.yaml': deployment(', planner.ciena.io/pod-set: web', '"2 cores"') }, 'w.yaml'), [['bad-quantity', 10]]);
  });

  it('a pod set’s workload with a misspelt field, and an invalid name, get the CLI’s codes', () => {
    const misspelt = deployment(', planner.ciena.io/pod-set: web')
      .replace('replicas: 3', 'replicaz: 3')
      .replace('name: web }', 'name: Web_1 }');
    assert.deepEqual(codes({ 'w.yaml': misspelt }, 'w.yaml'), [
      ['invalid-name', 2],
      ['unknown-field', 4],
    ]);
  });

  it('admission’s verdicts are reported wherever they are: a pod of no pod set that a quota refuses, a quota entry not applied', () => {
    const quota = 'apiVersion: v1\nkind: ResourceQuota\nmetadata: { name: q }\nspec:\n  hard: { pods: "1", configmaps: "3" }\n';
    const plain = (name: string) => `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name} }\nspec:\n  containers: [{ name: main }]\n`;
    assert.deepEqual(codes({ 'q.yaml': docs(quota, plain('a'), plain('b')) }, 'q.yaml'), [
      ['not-applied', 4],
      ['refused', 14],
    ]);
  });

  it('a misspelt kind is reported wherever it is: its object is left out of every preview', () => {
    assert.deepEqual(codes({ 'n.yaml': 'apiVersion: v1\nkind: Nodee\nmetadata: { name: n1 }\n' }, 'n.yaml'), [['unknown-kind', 1]]);
  });

  it('YAML syntax errors are reported in documents of our kinds only', () => {
    const broken = (kind: string) => `kind: ${kind}\nmetadata: { name: [x\n`;
    const ours = codes({ 'a.yaml': broken('ScheduleTrigger') }, 'a.yaml');
    assert.ok(ours.length > 0 && ours.every(([code]) => code === 'yaml-syntax'), JSON.stringify(ours));
    assert.deepEqual(codes({ 'a.yaml': broken('Pod') }, 'a.yaml'), []);
  });

  it('a pod set’s scheduler name is checked once a trigger or plan names the set, once per workload', () => {
    const web = deployment(', planner.ciena.io/pod-set: web', '"1"', 'default-scheduler');
    assert.deepEqual(codes({ 'w.yaml': web }, 'w.yaml'), []);
    assert.deepEqual(codes({ 'w.yaml': web, 't.yaml': docs(trigger('web'), node('n1')) }, 'w.yaml'), [['pod-set/scheduler-name', 9]]);
  });

  it('gives LSP diagnostics: 0-based ranges, a stable code, the source, a severity', () => {
    const [d] = validate(uriOf('t.yaml'), workspaceOf({ 't.yaml': trigger('lonely') }).analysis());
    assert.deepEqual(d, {
      range: { start: { line: 5, character: 30 }, end: { line: 5, character: 36 } },
      code: 'pod-set/empty',
      severity: 2,
      source: 'podplan',
      message:
        "no pod in namespace default has the label planner.ciena.io/pod-set: lonely, so this trigger holds nothing: label the pods (or their workload's pod template) with it, or fix the name",
    });
  });

  it('a pod of a checked set that no node can run is marked at the pod with upstream’s message; once per workload template', () => {
    const cluster = docs(
      trigger('s'),
      trigger('web'),
      node('n1', '2'),
      node('n2', '2'),
      pod('fits', 's', '1'),
      pod('big', 's', '4'),
      pod('bound', 'web', '4', '  nodeName: n1\n'),
    );
    const ws = workspaceOf({ 'c.yaml': cluster, 'w.yaml': deployment(', planner.ciena.io/pod-set: web', '"3"') });
    const at = (text: string, d: Diagnostic) => text.split('\n')[d.range.start.line]?.slice(d.range.start.character, d.range.end.character);
    assert.deepEqual(
      validate(uriOf('c.yaml'), ws.analysis())
        .filter((d) => d.code === 'pod-set/unplaceable')
        .map((d) => [at(cluster, d), d.message]),
      [
        [
          'big',
          'pod big cannot be placed on any node of the workspace: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling; the planner will leave it unplaced until a node fits (lower the requests or add a node)',
        ],
      ],
    );
    assert.deepEqual(
      validate(uriOf('w.yaml'), ws.analysis()).map((d) => [
        d.code,
        at(deployment(', planner.ciena.io/pod-set: web', '"3"'), d),
        String(d.message).split(':')[0],
      ]),
      [['pod-set/unplaceable', 'web', 'the pods of Deployment web cannot be placed on any node of the workspace']],
    );
  });

  it('a misspelt state is reported at the state; the trigger keeps its outline, lenses, hover and dependsOn check', () => {
    const typo = `${trigger('s', 'Planing')}  dependsOn: [{ name: missing }]\n`;
    const ws = workspaceOf({ 't.yaml': docs(typo, node('n1')) });
    const analysis = ws.analysis();
    assert.deepEqual(
      validate(uriOf('t.yaml'), analysis).map((d) => [d.code, d.range.start.line]),
      [
        ['pod-set/empty', 5],
        ['schema/enum', 7],
        ['depends-on/unresolved', 8],
      ],
    );
    assert.deepEqual(
      symbols(uriOf('t.yaml'), analysis).map((s) => s.name),
      ['default/s', 'n1'],
    );
    assert.ok(codeLenses(uriOf('t.yaml'), analysis).length > 0);
    assert.ok(hover(uriOf('t.yaml'), { line: 3, character: 4 }, analysis));
  });

  it('a SchedulePlan whose third one-GPU pod goes to a node with two GPUs: one diagnostic, at that entry’s node, in upstream’s DRA words and the device detail podplan explain gives', () => {
    const dir = 'test/fixtures/dra/plan';
    const files = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(`${dir}/${f}`, 'utf8')]));
    const analysis = workspaceOf(files).analysis();
    const diagnostics = ['cluster.yaml', 'gang.yaml', 'plan.yaml'].flatMap((f) => validate(uriOf(f), analysis));
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.range.start.line]),
      [['plan/node-overcommitted', 14]],
    );
    const claim = madeUpClaimName(analysis.pod('default', 'train-2')!.value, 'gpu');
    assert.equal(
      diagnostics[0]?.message,
      `node g1 is over-committed by this plan: cannot allocate all claims (DynamicResources) once the 2 pods planned there before this one are placed (train-0, train-1) — claim default/${claim}, request gpu (1 × gpu.example.com): 0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan; move this pod to another node (the quick fix picks the best one)`,
    );
  });

  describe('a SchedulePlan of a set that depends on a written plan: checked beside that plan’s pods (test/fixtures/workspaces/depends-on-written)', () => {
    const written = 'test/fixtures/workspaces/depends-on-written/podsets.yaml';
    const secondPlan = `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: second-plan
  namespace: jobs
  labels: { planner.ciena.io/pod-set: second }
spec:
  plan:
    - pod: second-0
      node: n1
    - pod: second-1
      node: n2
`;
    const files = (podsets: string) => ({
      'cluster.yaml': readFileSync('test/fixtures/workspaces/depends-on/cluster.yaml', 'utf8'),
      'podsets.yaml': podsets,
      'second.yaml': secondPlan,
    });
    const table: Array<[string, string, Array<[string | number | undefined, number]>, string]> = [
      [
        'it depends on first’s plan: second-0 finds first-2 on n1, second-1 finds n2 full beside first-0',
        readFileSync(written, 'utf8'),
        [['plan/node-infeasible', 11]],
        'pod second-1 cannot run on node n2: Insufficient cpu (NodeResourcesFit), beside the 1 pod the plans its set depends on put there (jobs/first-0); choose a node where it fits (the quick fix picks the best one)',
      ],
      [
        'it does not: judged on the nodes alone, second-0 has no pod of first to sit beside',
        readFileSync(written, 'utf8').replace(/ {2}dependsOn:\n {4}- kind: SchedulePlan\n {6}name: first-869556756f\n/, ''),
        [['plan/node-infeasible', 9]],
        'pod second-0 cannot run on node n1: ',
      ],
    ];
    for (const [name, podsets, expect, message] of table) {
      it(name, () => {
        const analysis = workspaceOf(files(podsets)).analysis();
        const diagnostics = validate(uriOf('second.yaml'), analysis);
        assert.deepEqual(
          diagnostics.map((d) => [d.code, d.range.start.line]),
          expect,
        );
        const text = String(diagnostics[0]?.message);
        assert.ok(text.startsWith(message), text);
      });
    }
  });

  it('a file the workspace does not hold has no diagnostics', () =>
    assert.deepEqual(validate('file:///elsewhere.yaml', workspaceOf({}).analysis()), []));
});
