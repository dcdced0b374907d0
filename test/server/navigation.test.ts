// Hover, go to definition, find references, document symbols and code lenses over stdio, on the
// cluster workspace's files as they are on disk.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  CodeLensRequest,
  DefinitionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  ReferencesRequest,
  type DocumentSymbol,
  type Location,
  type MarkupContent,
  type Position,
} from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { startLspSession, type LspSession } from './lsp-client';

describe('server hover, navigation, symbols and lenses (over stdio, on the cluster workspace)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession('test/fixtures/workspaces/cluster', { historyDatabase: false })));
  after(async () => session.shutdown());

  /** The position of the `nth` occurrence of `needle` in a workspace file, `into` characters in. */
  function at(file: string, needle: string, nth = 1, into = 1): { uri: string; position: Position } {
    const uri = session.uri(file);
    const text = readFileSync(fileURLToPath(uri), 'utf8');
    let offset = -1;
    for (let i = 0; i < nth; i++) offset = text.indexOf(needle, offset + 1);
    assert.ok(offset >= 0, `${needle} not in ${file}`);
    return { uri, position: TextDocument.create(uri, 'yaml', 0, text).positionAt(offset + into) };
  }
  async function hover(file: string, needle: string, nth = 1, into = 1): Promise<string> {
    const { uri, position } = at(file, needle, nth, into);
    const h = await session.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
    return (h?.contents as MarkupContent | undefined)?.value ?? '';
  }
  const where = (locations: Location[] | null | undefined) =>
    (locations ?? [])
      .map((l) => `${l.uri.slice(l.uri.lastIndexOf('/') + 1)}:${l.range.start.line + 1}:${l.range.start.character + 1}`)
      .sort();

  describe('hover', () => {
    it('a node of a plan: allocatable, requested by bound pods, planned by the workspace’s plans', async () => {
      const text = await hover('plan.yaml', 'node-1');
      assert.match(text, /^\*\*Node node-1\*\*/);
      assert.match(text, /\| allocatable \| 4 \| 16Gi \| 110 \|/);
      assert.match(text, /\| requested \(bound pods\) \| 500m \| 1Gi \| 1 \|/);
      assert.match(text, /\| planned \(SchedulePlans\) \| 1 \| 2Gi \| 1 \|/);
      assert.match(text, /\| free after plans \| 2500m \| 13Gi \| 108 \|/);
      assert.match(text, /Planned here by nightly-559897b958: batch-0/);
    });

    it('a tainted node says so', async () =>
      assert.match(await hover('nodes.yaml', 'gpu-1'), /\*\*Node gpu-1\*\* \(taint nvidia.com\/gpu=present:NoSchedule\)/));

    it('a pod of a plan: requests, its workload, pod set and trigger, planned node', async () => {
      const text = await hover('plan.yaml', 'batch-2');
      assert.match(text, /\*\*Pod jobs\/batch-2\*\* \(from Job batch\)/);
      assert.match(text, /- requests: cpu 1, memory 2Gi/);
      assert.match(text, /- scheduler: podset-planner-scheduler/);
      assert.match(text, /- pod set: nightly \(trigger nightly: Planning\)/);
      assert.match(text, /- planned node: node-3 \(SchedulePlan nightly-559897b958\)/);
    });

    it('a quiet time in words', async () => {
      assert.match(await hover('podsets.yaml', '1h30m'), /\*\*Quiet time\*\* `1h30m`: 1 hour 30 minutes/);
      assert.match(await hover('podsets.yaml', '2m0s'), /no new pod for 2 minutes/);
    });

    it('a pod set: its pods, trigger and plan', async () => {
      const text = await hover('podsets.yaml', 'pod-set: nightly', 1, 10);
      assert.match(text, /\*\*Pod set jobs\/nightly\*\*/);
      assert.match(text, /- pods: 4 \(4 for the planner to place\): batch-0, batch-1, batch-2, report/);
      assert.match(text, /- trigger: nightly \(Planning\)/);
      assert.match(text, /- plan: nightly-559897b958 \(4 entries\)/);
    });

    it('a field of our kinds: its docs from the schema, with its values', async () => {
      const text = await hover('podsets.yaml', 'state:');
      assert.match(text, /^\*\*state\*\* _string_/);
      assert.match(text, /Planning holds the pods of the set/);
      assert.match(text, /Values: `Planning`, `Schedule`/);
    });

    it('nothing on objects outside our concern', async () => assert.equal(await hover('workloads.yaml', 'replicas: 2'), ''));
  });

  describe('go to definition', () => {
    const definition = async (file: string, needle: string, nth = 1, into = 2) => {
      const { uri, position } = at(file, needle, nth, into);
      return where((await session.connection.sendRequest(DefinitionRequest.type, { textDocument: { uri }, position })) as Location[]);
    };
    it('from a plan entry’s pod to the workload that makes it, or to the pod', async () => {
      assert.deepEqual(await definition('plan.yaml', 'batch-0'), ['workloads.yaml:5:9']);
      assert.deepEqual(await definition('plan.yaml', 'report'), ['workloads.yaml:26:9']);
    });
    it('from a plan entry’s node to the node', async () => assert.deepEqual(await definition('plan.yaml', 'node-3'), ['nodes.yaml:21:9']));
    it('from a dependsOn entry to the trigger it names', async () =>
      assert.deepEqual(await definition('podsets.yaml', 'name: nightly', 2, 8), ['podsets.yaml:4:9']));
    it('from a pod’s pod-set label to its trigger; from the trigger’s to its plan', async () => {
      assert.deepEqual(await definition('workloads.yaml', 'pod-set: nightly', 2, 10), ['podsets.yaml:4:9']);
      assert.deepEqual(await definition('podsets.yaml', 'pod-set: nightly', 1, 10), ['plan.yaml:4:9']);
    });
  });

  it('find references of a pod set: the trigger, the plan, the pod template and the pods labelled with it', async () => {
    const { uri, position } = at('plan.yaml', 'pod-set: nightly', 1, 12);
    const refs = (includeDeclaration: boolean) =>
      session.connection.sendRequest(ReferencesRequest.type, { textDocument: { uri }, position, context: { includeDeclaration } });
    assert.deepEqual(where(await refs(true)), ['plan.yaml:7:31', 'podsets.yaml:7:31', 'workloads.yaml:13:35', 'workloads.yaml:29:31']);
    assert.deepEqual(where(await refs(false)), ['plan.yaml:7:31', 'workloads.yaml:13:35', 'workloads.yaml:29:31']);
  });

  it('document symbols: each object by kind and name, a plan’s entries beneath it', async () => {
    const symbols = (await session.connection.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri: session.uri('plan.yaml') },
    })) as DocumentSymbol[];
    assert.deepEqual(
      symbols.map((s) => [s.name, s.detail, s.children?.map((c) => c.name)]),
      [
        [
          'jobs/nightly-559897b958',
          'SchedulePlan · nightly · 4 entries',
          ['batch-0 → node-1', 'batch-1 → node-2', 'batch-2 → node-3', 'report → node-3'],
        ],
      ],
    );
    const workloads = (await session.connection.sendRequest(DocumentSymbolRequest.type, {
      textDocument: { uri: session.uri('workloads.yaml') },
    })) as DocumentSymbol[];
    assert.deepEqual(
      workloads.map((s) => `${s.name} (${s.detail})`),
      [
        'jobs/batch (Job · 3 replicas)',
        'jobs/report (Pod)',
        'jobs/summary (Pod)',
        'jobs/giant (Pod)',
        'kube-system/metrics (Pod)',
        'shop/web (Deployment · 2 replicas)',
      ],
    );
  });

  it('code lenses on each trigger: its pods, Preview plan, Schedule now', async () => {
    const lenses =
      (await session.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: session.uri('podsets.yaml') } })) ?? [];
    assert.deepEqual(
      lenses.map((l) => [l.range.start.line + 1, l.command?.title, l.command?.command]),
      [
        [2, '4 pods in nightly', 'podplan.showPodSet'],
        [2, 'Preview plan', 'podplan.previewPlan'],
        [2, 'Schedule now', 'podplan.scheduleNow'],
        [13, '2 pods in reports', 'podplan.showPodSet'],
        [13, 'Preview plan', 'podplan.previewPlan'],
        [13, 'Schedule now', 'podplan.scheduleNow'],
      ],
    );
    assert.deepEqual(lenses[1]?.command?.arguments, [
      { uri: session.uri('podsets.yaml'), trigger: { namespace: 'jobs', name: 'nightly' }, podSet: 'nightly' },
    ]);
  });
});
