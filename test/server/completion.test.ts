// Completion over stdio on the cluster workspace: each case opens a new document (not on disk) with
// the text before and after the cursor (`|`) and reads the labels offered there.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CancellationTokenSource,
  CompletionRequest,
  LSPErrorCodes,
  ResponseError,
  WorkDoneProgress,
  type CompletionItem,
  type CompletionList,
} from 'vscode-languageserver-protocol';
import type { Result } from '../../src/engine/api/result';
import { PreviewPlanRequest } from '../../src/protocol/requests';
import type { PlanView } from '../../src/protocol/webview';
import { startLspSession, type LspSession } from './lsp-client';
import { applyEdits, cursor } from './text';

const TRIGGER = `apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata:
  name: draft
  namespace: jobs
`;

const PLAN = `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: draft-plan
  namespace: jobs
  labels:
    planner.ciena.io/pod-set: nightly
spec:
  plan:
`;

const CONFIG = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: draft
`;

describe('server completion (over stdio, on the cluster workspace)', () => {
  let session: LspSession;
  let n = 0;
  before(async () => (session = await startLspSession('test/fixtures/workspaces/cluster', { historyDatabase: false })));
  after(async () => session.shutdown());

  async function complete(marked: string): Promise<CompletionItem[]> {
    const { text, position } = cursor(marked);
    const uri = session.uri(`draft-${++n}.yaml`);
    await session.edit(uri, text);
    const result = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position })) as
      CompletionItem[] | CompletionList | null;
    await session.close(uri);
    return Array.isArray(result) ? result : (result?.items ?? []);
  }
  const labels = async (marked: string) => (await complete(marked)).map((i) => i.label);

  const cases: Array<[string, string, string[]]> = [
    [
      'a new document: our kinds as skeletons, then apiVersion and kind',
      '|',
      ['ScheduleTrigger', 'SchedulePlan', 'KubeSchedulerConfiguration', 'apiVersion', 'kind'],
    ],
    ['kind', 'apiVersion: planner.ciena.io/v1alpha1\nkind: |', ['ScheduleTrigger', 'SchedulePlan', 'KubeSchedulerConfiguration']],
    ['apiVersion of a trigger', 'kind: ScheduleTrigger\napiVersion: |', ['planner.ciena.io/v1alpha1']],
    ['the fields of a trigger not yet written', `${TRIGGER}|`, ['spec', 'status']],
    ['the fields of spec', `${TRIGGER}spec:\n  state: Planning\n  |`, ['dependsOn']],
    ['state values', `${TRIGGER}spec:\n  state: |`, ['Planning', 'Schedule']],
    ['planner label keys on a trigger', `${TRIGGER}  labels:\n    |`, ['planner.ciena.io/pod-set', 'planner.ciena.io/quiet-time']],
    [
      'the pod-set label key on a pod template',
      'kind: Job\nspec:\n  template:\n    metadata:\n      labels:\n        app: x\n        |',
      ['planner.ciena.io/pod-set'],
    ],
    ['pod-set names seen in the workspace', `${TRIGGER}  labels:\n    planner.ciena.io/pod-set: |`, ['nightly', 'reports']],
    ['quiet times', `${TRIGGER}  labels:\n    planner.ciena.io/quiet-time: |`, ['30s', '2m0s', '5m0s', '15m0s', '1h0m0s']],
    [
      'dependsOn names: the triggers of the namespace',
      `${TRIGGER}spec:\n  state: Planning\n  dependsOn:\n    - name: |`,
      ['nightly', 'reports'],
    ],
    [
      'dependsOn kinds',
      `${TRIGGER}spec:\n  state: Planning\n  dependsOn:\n    - name: nightly\n      kind: |`,
      ['ScheduleTrigger', 'SchedulePlan', 'PodSet'],
    ],
    [
      'the pods of the plan’s set, those not in the plan first',
      `${PLAN}    - pod: batch-1\n      node: node-1\n    - pod: |`,
      ['batch-0', 'batch-2', 'report', 'batch-1'],
    ],
    ['the fields of a plan entry', `${PLAN}    - pod: batch-1\n      |`, ['node']],
    [
      'extension points',
      `${CONFIG}    plugins:\n      |`,
      [
        'preEnqueue',
        'queueSort',
        'preFilter',
        'filter',
        'postFilter',
        'preScore',
        'score',
        'reserve',
        'permit',
        'preBind',
        'bind',
        'postBind',
        'multiPoint',
      ],
    ],
    [
      'the args of the plugin named',
      `${CONFIG}    pluginConfig:\n      - name: NodeResourcesFit\n        args:\n          |`,
      ['ignoredResources', 'ignoredResourceGroups', 'scoringStrategy'],
    ],
    [
      "DynamicResources' args",
      `${CONFIG}    pluginConfig:\n      - name: DynamicResources\n        args:\n          |`,
      ['bindingTimeout', 'filterTimeout'],
    ],
    [
      'values of an arg',
      `${CONFIG}    pluginConfig:\n      - name: NodeResourcesFit\n        args:\n          scoringStrategy:\n            type: |`,
      ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'],
    ],
    ['scheduler names on a pod', 'kind: Pod\nspec:\n  schedulerName: |', ['podset-planner-scheduler', 'default-scheduler']],
  ];
  for (const [what, marked, expected] of cases) {
    it(what, async () => assert.deepEqual(await labels(marked), expected));
  }

  it('deviceClassName in a ResourceClaimTemplate and a ResourceClaim: the workspace’s DeviceClasses, with their selectors', async () => {
    const classes = session.uri('device-classes.yaml');
    await session.edit(
      classes,
      `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
    - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: any-nic}
spec: {}
`,
    );
    const template = await complete(
      'apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: t}\nspec:\n  spec:\n    devices:\n      requests:\n        - name: gpu\n          exactly:\n            deviceClassName: |',
    );
    assert.deepEqual(
      template.map((i) => [i.label, i.detail, i.documentation]),
      [
        ['any-nic', 'DeviceClass', 'Every device'],
        ['gpu.example.com', 'DeviceClass', 'Devices where device.driver == "gpu.example.com"'],
      ],
    );
    assert.deepEqual(
      await labels(
        'apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: c}\nspec:\n  devices:\n    requests:\n      - name: gpu\n        firstAvailable:\n          - name: big\n            deviceClassName: |',
      ),
      ['any-nic', 'gpu.example.com'],
    );
    // Elsewhere deviceClassName is nobody's: a pod has none.
    assert.deepEqual(await labels('apiVersion: v1\nkind: ConfigMap\ndata:\n  deviceClassName: |'), []);
    await session.close(classes);
  });

  it('plugin names: every in-tree plugin and PodSetPlanner; "*" first among plugins to disable', async () => {
    const plugins = [
      'DefaultBinder',
      'DefaultPreemption',
      'DynamicResources',
      'ImageLocality',
      'InterPodAffinity',
      'NodeAffinity',
      'NodeDeclaredFeatures',
      'NodeName',
      'NodePorts',
      'NodeResourcesBalancedAllocation',
      'NodeResourcesFit',
      'NodeUnschedulable',
      'NodeVolumeLimits',
      'PodSetPlanner',
      'PodTopologySpread',
      'PrioritySort',
      'SchedulingGates',
      'TaintToleration',
      'VolumeBinding',
      'VolumeRestrictions',
      'VolumeZone',
    ];
    assert.deepEqual((await labels(`${CONFIG}    plugins:\n      score:\n        enabled:\n          - name: Node|`)).sort(), plugins);
    const [first, ...rest] = await labels(`${CONFIG}    plugins:\n      score:\n        disabled:\n          - name: |`);
    assert.equal(first, '*');
    assert.deepEqual(rest.sort(), plugins);
  });

  it('nodes for a plan entry come ranked by fit for its pod: feasible best first, the tainted node last with its reason', async () => {
    const items = await complete(`${PLAN}    - pod: report\n      node: |`);
    assert.deepEqual(items.map((i) => i.label).sort(), ['gpu-1', 'node-1', 'node-2', 'node-3']);
    const last = items[items.length - 1];
    assert.equal(last?.label, 'gpu-1');
    assert.match(String(last?.detail), /^✗ node\(s\) had untolerated taint\(s\)/);
    assert.equal(items[0]?.preselect, true);
    assert.match(String(items[0]?.detail), /^fits · score \d+ · best$/);
    const scores = items.slice(0, 3).map((i) => Number(/score (\d+)/.exec(String(i.detail))?.[1]));
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
    assert.deepEqual(
      items.map((i) => i.sortText),
      [...items.map((i) => i.sortText)].sort(),
    );
  });

  it('nodes are ranked on the cluster as the plan’s other entries leave it', async () => {
    // The planner's profile packs (MostAllocated): the node the plan fills is the best one left.
    const packed = `${PLAN}    - pod: batch-0\n      node: node-2\n    - pod: batch-1\n      node: node-2\n    - pod: batch-2\n      node: node-3\n    - pod: report\n      node: |`;
    assert.equal((await complete(packed))[0]?.label, 'node-2');
    const full = packed.replace('node-3', 'node-2');
    const left = await complete(full);
    assert.equal(left.find((i) => i.label === 'node-2')?.detail, '✗ Insufficient cpu');
    const giant = await complete(`${PLAN}    - pod: giant\n      node: |`);
    assert.ok(
      giant.every((i) => String(i.detail).startsWith('✗')),
      'giant fits nowhere',
    );
  });

  it('the edit replaces what was typed, and puts a space after a bare colon', async () => {
    const { text, position } = cursor(`${TRIGGER}spec:\n  state: Sch|`);
    const [planning] = await complete(`${TRIGGER}spec:\n  state: Sch|`);
    assert.ok(planning?.textEdit && 'range' in planning.textEdit);
    assert.equal(planning.textEdit.range.start.character, 9);
    assert.deepEqual(planning.textEdit.range.end, position);
    assert.equal(applyEdits(text, [planning.textEdit]).split('\n').at(-1), '  state: Planning');
    const [bare] = await complete(`${TRIGGER}spec:\n  state:|`);
    assert.equal(bare?.textEdit?.newText, ' Planning');
  });

  it('a key completion writes the key, and opens a mapping or list for fields that hold one', async () => {
    const items = await complete(`${TRIGGER}|`);
    assert.equal(items.find((i) => i.label === 'spec')?.textEdit?.newText, 'spec:\n  ');
    const spec = await complete(`${TRIGGER}spec:\n  state: Planning\n  |`);
    assert.equal(spec[0]?.textEdit?.newText, 'dependsOn:\n    - ');
  });
});

// Node completion in a SchedulePlan entry, on test/fixtures/dra/plan (g1 and g2 with two GPUs each,
// c1 without; one-GPU pods train-0…4): nodes are ranked on the cluster as the plan's other entries
// leave it, where the devices their pods' claims take are taken, as the planners count them.
describe('server completion of a plan entry’s node with devices (over stdio, on test/fixtures/dra/plan)', () => {
  let session: LspSession;
  let n = 0;
  before(async () => (session = await startLspSession('test/fixtures/dra/plan', { historyDatabase: false })));
  after(async () => session.shutdown());

  const DRAFT = `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: draft
  labels:
    planner.ciena.io/pod-set: train
spec:
  plan:
`;
  const CANNOT = '✗ cannot allocate all claims';
  /** The nodes that fit (best first when one is better), then the rejected ones by name with their reason. */
  const table: Array<[name: string, before: Array<[string, string]>, fits: string[], rejected: Array<[string, string]>]> = [
    ['nothing planned yet: either GPU node fits, the node without devices does not', [], ['g1', 'g2'], [['c1', CANNOT]]],
    [
      'two pods planned on g1 take its two GPUs: g2, with GPUs free, is the one that fits',
      [
        ['train-0', 'g1'],
        ['train-1', 'g1'],
      ],
      ['g2'],
      [
        ['c1', CANNOT],
        ['g1', CANNOT],
      ],
    ],
    [
      'every GPU planned: no node fits',
      [
        ['train-0', 'g1'],
        ['train-1', 'g1'],
        ['train-3', 'g2'],
        ['train-4', 'g2'],
      ],
      [],
      [
        ['c1', CANNOT],
        ['g1', CANNOT],
        ['g2', CANNOT],
      ],
    ],
  ];
  for (const [name, entries, fits, rejected] of table) {
    it(name, async () => {
      const { text, position } = cursor(
        `${DRAFT}${entries.map(([pod, node]) => `    - pod: ${pod}\n      node: ${node}\n`).join('')}    - pod: train-2\n      node: |`,
      );
      const uri = session.uri(`draft-${++n}.yaml`);
      await session.edit(uri, text);
      const result = (await session.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position })) as
        CompletionItem[] | CompletionList | null;
      await session.close(uri);
      const items = Array.isArray(result) ? result : (result?.items ?? []);
      const feasible = items.filter((i) => !String(i.detail).startsWith('✗'));
      assert.deepEqual(feasible.map((i) => String(i.label)).sort(), fits);
      if (fits.length > 0) assert.equal(items[0]?.preselect, true, 'the best node that fits comes first, preselected');
      assert.deepEqual(
        items.slice(feasible.length).map((i) => [i.label, i.detail]),
        rejected,
      );
    });
  }
});

// An editor asks for completion at each trigger character and cancels the question before. Asked
// while the server is busy (here with a preview of 200 pods on 1,500 nodes, its start seen by its
// progress), a cancelled completion is answered as cancelled, not computed (each stale answer
// ranked every node again, and the one the editor waited for came last), and the next one with the
// nodes ranked.
describe('server completion while the server is busy (over stdio)', function () {
  this.timeout(120_000);
  let dir: string;
  let session: LspSession;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'podplan-busy-'));
    const nodes = Array.from(
      { length: 1500 },
      (_, i) =>
        `apiVersion: v1\nkind: Node\nmetadata: { name: node-${i}, labels: { topology.kubernetes.io/zone: zone-${i % 3} } }\nstatus: { allocatable: { cpu: "4", memory: 16Gi, pods: "110" } }\n`,
    );
    writeFileSync(path.join(dir, 'nodes.yaml'), nodes.join('---\n'));
    const pods = Array.from(
      { length: 200 },
      (_, i) =>
        `apiVersion: v1\nkind: Pod\nmetadata: { name: batch-${i}, namespace: big, labels: { planner.ciena.io/pod-set: big } }\nspec:\n  schedulerName: podset-planner-scheduler\n  containers: [{ name: main, resources: { requests: { cpu: "1", memory: 1Gi } } }]\n`,
    );
    writeFileSync(
      path.join(dir, 'podset.yaml'),
      [
        `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata: { name: big, namespace: big, labels: { planner.ciena.io/pod-set: big } }\nspec: { state: Planning }\n`,
        ...pods,
      ].join('---\n'),
    );
    writeFileSync(
      path.join(dir, 'plan.yaml'),
      `${PLAN.replace(/jobs/g, 'big').replace('pod-set: nightly', 'pod-set: big')}    - pod: batch-0\n      node: \n`,
    );
    session = await startLspSession(dir, { historyDatabase: false });
  });
  after(async () => {
    await session.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a completion cancelled during a preview as cancelled, and the next one with the ranked nodes', async () => {
    const token = 'busy-preview';
    const begun = new Promise<void>((resolve) =>
      session.connection.onProgress(WorkDoneProgress.type, token, (p) => {
        if (p.kind === 'begin') resolve();
      }),
    );
    const preview = session.connection.sendRequest(PreviewPlanRequest.method, {
      podSet: { namespace: 'big', name: 'big' },
      workDoneToken: token,
    }) as Promise<Result<PlanView>>;
    await begun;
    // The server plans now: these wait in its queue, the first one cancelled before it is read.
    const params = { textDocument: { uri: session.uri('plan.yaml') }, position: { line: 10, character: 12 } };
    const cancel = new CancellationTokenSource();
    const stale = session.connection.sendRequest(CompletionRequest.type, params, cancel.token).then(
      (items) => `answered with ${JSON.stringify(items).slice(0, 80)}`,
      (e: unknown) => (e instanceof ResponseError ? e.code : String(e)),
    );
    cancel.cancel();
    const current = session.connection.sendRequest(CompletionRequest.type, params);
    assert.equal(await stale, LSPErrorCodes.RequestCancelled);
    const items = (await current) as CompletionItem[];
    assert.equal(items.length, 1500);
    assert.match(String(items[0]?.detail), /^fits · score \d+ · best$/);
    const planned = await preview;
    assert.ok(planned.ok && planned.value.assignments.length === 200, JSON.stringify(planned).slice(0, 200));
  });
});
