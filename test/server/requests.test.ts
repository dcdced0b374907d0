// Podplan's own requests (src/protocol/requests.ts) over stdio on the cluster workspace, with the
// plan history in memory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Result } from '../../src/engine/api/result';
import {
  ClusterSummaryRequest,
  ComparePlansRequest,
  ExplainPodRequest,
  ListHistoryRequest,
  OpenPlanRequest,
  PreviewPlanRequest,
  RecordAppliedRequest,
  ScheduleNowRequest,
  WorkspaceSummaryRequest,
  type ClusterSummary,
  type HistoryPage,
  type ScheduleNowResult,
  type WorkspaceSummary,
} from '../../src/protocol/requests';
import type { HistoryEntryView, PlanDiffView, PlanView, PodExplanationView } from '../../src/protocol/webview';
import { WorkDoneProgress } from 'vscode-languageserver-protocol';
import { startLspSession, type LspSession } from './lsp-client';
import { applyWorkspaceEdit } from './text';

const WORKSPACE = 'test/fixtures/workspaces/cluster';

function value<T>(result: Result<T>): T {
  if (!result.ok) assert.fail(result.error);
  return result.value;
}

describe('server requests (over stdio, on the cluster workspace)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession(WORKSPACE)));
  after(async () => session.shutdown());

  const request = <P, R>(method: string, params?: P) => session.connection.sendRequest(method, params) as Promise<R>;
  const preview = (params: object) => request<object, Result<PlanView>>(PreviewPlanRequest.method, params);
  const diskText = (uri: string) => readFileSync(fileURLToPath(uri), 'utf8');

  it('podplan/previewPlan: every pod of a trigger’s set placed, with the use of each node', async () => {
    const plan = value(await preview({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    assert.equal(plan.podSet, 'nightly');
    assert.equal(plan.trigger, 'nightly');
    assert.equal(plan.planner, 'greedy');
    assert.equal(plan.profile, 'podset-planner-scheduler');
    assert.deepEqual(plan.assignments.map((a) => a.pod).sort(), ['batch-0', 'batch-1', 'batch-2', 'report']);
    assert.deepEqual(plan.unplaced, []);
    assert.ok(plan.historyId !== undefined, 'the preview is kept in the history');
    const used = plan.nodes.flatMap((n) => n.pods).sort();
    assert.deepEqual(used, ['batch-0', 'batch-1', 'batch-2', 'report']);
    for (const node of plan.nodes) {
      const cpu = node.resources.find((r) => r.resource === 'cpu');
      assert.ok(cpu && cpu.requested + cpu.planned <= cpu.allocatable, `${node.node} over-committed`);
    }
  });

  it('podplan/previewPlan: a client that passes a workDoneToken sees the plan begin and end ($/progress)', async () => {
    const seen: unknown[] = [];
    const listening = session.connection.onProgress(WorkDoneProgress.type, 'preview-1', (p) => void seen.push(p));
    value(await preview({ trigger: { namespace: 'jobs', name: 'nightly' }, workDoneToken: 'preview-1' }));
    await session.connection.sendRequest(WorkspaceSummaryRequest.method); // the notifications sent before the answer have arrived
    listening.dispose();
    assert.deepEqual(seen, [
      { kind: 'begin', title: 'Podplan: planning', cancellable: false, message: 'nightly: 4 pods on 4 nodes' },
      { kind: 'end' },
    ]);
  });

  it('podplan/previewPlan: an unplaced pod comes with its stage, plugin, reasons and upstream message', async () => {
    const plan = value(await preview({ podSet: { namespace: 'jobs', name: 'reports' } }));
    assert.deepEqual(
      plan.assignments.map((a) => a.pod),
      ['summary'],
    );
    assert.deepEqual(plan.unplaced, [
      {
        pod: 'giant',
        stage: 'Filter',
        reason: 'Insufficient cpu',
        message: '0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu.',
        reasons: [
          { reason: 'Insufficient cpu', nodes: 3 },
          { reason: 'node(s) had untolerated taint(s)', nodes: 1 },
        ],
      },
    ]);
  });

  it('podplan/previewPlan: what it cannot plan is an error result, not a failure', async () => {
    assert.deepEqual(await preview({ trigger: { namespace: 'jobs', name: 'ghost' } }), {
      ok: false,
      error: 'no ScheduleTrigger jobs/ghost in the workspace',
    });
    assert.deepEqual(await preview({ podSet: { namespace: 'jobs', name: 'nobody' } }), {
      ok: false,
      error: 'pod set jobs/nobody has no pods in the workspace',
    });
    assert.deepEqual(await preview({}), { ok: false, error: 'previewPlan needs a trigger or a pod set' });
  });

  it('podplan/explainPod: every node’s verdict and the upstream message', async () => {
    const giant = value(
      await request<object, Result<PodExplanationView>>(ExplainPodRequest.method, { pod: { namespace: 'jobs', name: 'giant' } }),
    );
    // A single cycle as the scheduler runs it: the 1.35 default profile's PostFilter part follows.
    assert.equal(
      giant.message,
      '0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.',
    );
    assert.deepEqual(giant.nodes, { total: 4, evaluated: 4, feasible: 0 });
    // Preemption was tried and no node could be helped (every node Unresolvable for it): nothing to evict anywhere.
    assert.deepEqual(giant.preemption, { victims: [], reportOnly: false, candidates: [], failures: [] });
    assert.deepEqual(
      giant.rejections.map((r) => [r.plugin, r.reason, r.nodes.length]),
      [
        ['NodeResourcesFit', 'Insufficient cpu', 3],
        ['TaintToleration', 'node(s) had untolerated taint(s)', 1],
      ],
    );
    assert.deepEqual(giant.requests, [
      { resource: 'cpu', unit: 'millicores', amount: 64000 },
      { resource: 'memory', unit: 'bytes', amount: 1024 ** 3 },
    ]);
    const batch = value(
      await request<object, Result<PodExplanationView>>(ExplainPodRequest.method, { pod: { namespace: 'jobs', name: 'batch-0' } }),
    );
    assert.equal(batch.plannedNode, 'node-1');
    assert.equal(batch.podSet, 'nightly');
    assert.ok(batch.chosenNode && batch.scores[0]?.node === batch.chosenNode);
    // A planned pod is explained about its planned node, on the cluster as its plan leaves it.
    assert.match(batch.verdict, /^node-1, the planned node, /);
    assert.equal(batch.matrix.rows.length, 4);
    assert.deepEqual(
      batch.funnel.steps.slice(0, 2).map((s) => [s.stage, s.entered]),
      [
        ['Sort', 4],
        ['PreFilter', 4],
      ],
    );
    assert.ok(giant.matrix.closest, 'an unplaced pod names its closest node');
    assert.deepEqual(await request(ExplainPodRequest.method, { pod: { name: 'nobody' } }), {
      ok: false,
      error: 'no pod nobody in the workspace',
    });
  });

  it('podplan/workspaceSummary: what the server has read', async () => {
    const summary = await request<undefined, WorkspaceSummary>(WorkspaceSummaryRequest.method);
    assert.deepEqual(
      { ...summary, folders: summary.folders.length },
      {
        folders: 1,
        files: 5,
        nodes: 4,
        pods: 9,
        workloads: 2,
        triggers: 2,
        plans: 1,
        profiles: ['default-scheduler', 'podset-planner-scheduler'],
        podSets: [
          {
            namespace: 'jobs',
            name: 'nightly',
            pods: 4,
            pending: 4,
            trigger: 'nightly',
            state: 'Planning',
            quietTime: '2m0s',
            plan: 'nightly-559897b958',
          },
          {
            namespace: 'jobs',
            name: 'reports',
            pods: 2,
            pending: 2,
            trigger: 'reports',
            state: 'Planning',
            quietTime: '1h30m',
            dependsOn: ['ScheduleTrigger nightly'],
            waitingOn: ['ScheduleTrigger nightly, which is not complete (it is still Planning)'],
          },
        ],
        problems: { errors: 0, warnings: 1 }, // giant fits no node (pod-set/unplaceable)
        history: { available: true, driver: 'better-sqlite3' },
      },
    );
  });

  it('podplan/clusterSummary: the workspace as the source, its nodes with their use, the pending pods', async () => {
    const cluster = await request<undefined, ClusterSummary>(ClusterSummaryRequest.method);
    assert.deepEqual(cluster.source, { kind: 'workspace', name: 'cluster' });
    assert.deepEqual(
      cluster.nodes.map((n) => n.name),
      ['node-1', 'node-2', 'node-3', 'gpu-1'],
    );
    for (const n of cluster.nodes) assert.ok(n.cpu.allocatable > 0 && n.memory.allocatable > 0, n.name);
    assert.deepEqual(
      cluster.pending
        .filter((p) => p.podSet === 'nightly')
        .map((p) => p.name)
        .sort(),
      ['batch-0', 'batch-1', 'batch-2', 'report'],
    );
    assert.ok(cluster.pending.every((p) => p.schedulerName.length > 0));
  });

  it('podplan/listHistory, openPlan, comparePlans: previews kept, read back, compared', async () => {
    const first = value(await preview({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    // A bigger report: the next preview places it elsewhere or not at all.
    const workloads = session.uri('workloads.yaml');
    await session.edit(
      workloads,
      diskText(workloads).replace('requests: { cpu: 1500m, memory: 1Gi }', 'requests: { cpu: "7", memory: 1Gi }'),
    );
    const second = value(await preview({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    await session.close(workloads);
    const page = value(
      await request<object, Result<HistoryPage>>(ListHistoryRequest.method, { podSet: 'nightly', namespace: 'jobs', limit: 2 }),
    );
    assert.deepEqual(
      page.entries.map((e) => e.id),
      [second.historyId, first.historyId],
    );
    assert.deepEqual(
      page.entries.map((e) => [e.podSet, e.planner, e.status, e.placed]),
      [
        ['nightly', 'greedy', 'draft', second.assignments.length],
        ['nightly', 'greedy', 'draft', 4],
      ],
    );
    const opened = value(await request<object, Result<PlanView>>(OpenPlanRequest.method, { id: first.historyId }));
    assert.deepEqual(
      opened.assignments.map((a) => [a.pod, a.node]),
      first.assignments.map((a) => [a.pod, a.node]),
    );
    assert.equal(opened.historyId, first.historyId);
    // Explain from the stored plan: the planner's cycle kept with it, about the node it gave the pod.
    const report = first.assignments.find((a) => a.pod === 'report');
    const inStored = value(
      await request<object, Result<PodExplanationView>>(ExplainPodRequest.method, {
        pod: { namespace: 'jobs', name: 'report' },
        inPlan: { podSet: 'nightly', historyId: first.historyId },
      }),
    );
    assert.deepEqual([inStored.plannedNode, inStored.plan], [report?.node, `plan #${first.historyId}`]);
    assert.match(inStored.verdict, new RegExp(`^${report?.node}, the planned node, is where the planner’s cycle put the pod`));
    const diff = value(
      await request<object, Result<PlanDiffView>>(ComparePlansRequest.method, { from: first.historyId, to: second.historyId }),
    );
    const moved = diff.moved.map((m) => m.pod);
    const unplaced = diff.becameUnplaced.map((m) => m.pod);
    assert.ok(moved.includes('report') || unplaced.includes('report'), `report stayed on ${report?.node}: ${JSON.stringify(diff)}`);
    for (const m of diff.moved) assert.match(m.reason, new RegExp(`^(${m.from} now rejects it at |${m.to} scores )`), JSON.stringify(m));
    assert.deepEqual(await request(OpenPlanRequest.method, { id: 99999 }), {
      ok: false,
      error: 'history: plan 99999 is not in the history',
    });
  });

  it('podplan/previewPlan: an identical consecutive preview is not stored again', async () => {
    const first = value(await preview({ podSet: { namespace: 'jobs', name: 'reports' } }));
    const again = value(await preview({ podSet: { namespace: 'jobs', name: 'reports' } }));
    assert.equal(again.historyId, first.historyId);
    const page = value(await request<object, Result<HistoryPage>>(ListHistoryRequest.method, { podSet: 'reports', namespace: 'jobs' }));
    assert.equal(page.entries.filter((e) => e.id === first.historyId).length, 1);
    assert.equal(new Set(page.entries.map((e) => e.id)).size, page.entries.length);
  });

  it('podplan/scheduleNow: refused with the reason while a dependency is not complete', async () => {
    assert.deepEqual(await request(ScheduleNowRequest.method, { trigger: { namespace: 'jobs', name: 'reports' } }), {
      ok: false,
      error:
        'reports cannot be scheduled yet: it depends on ScheduleTrigger nightly, which is not complete (it is still Planning). Schedule what it depends on first.',
    });
  });

  it('podplan/scheduleNow + recordApplied: names what it writes; applied, the history entry is applied and the workspace stays clean', async () => {
    const result = value(
      await request<object, Result<ScheduleNowResult>>(ScheduleNowRequest.method, { trigger: { namespace: 'jobs', name: 'nightly' } }),
    );
    assert.deepEqual(result.writes, [
      {
        uri: session.uri('podsets.yaml'),
        object: 'ScheduleTrigger jobs/nightly',
        created: false,
        fields: ['spec.state: Planning → Schedule'],
      },
      {
        uri: session.uri('plan.yaml'),
        object: 'SchedulePlan jobs/nightly-559897b958',
        created: false,
        fields: ['spec.plan: 4 pods to nodes', 'status: planner greedy'],
      },
    ]);
    const changed = applyWorkspaceEdit(result.edit, diskText);
    assert.deepEqual([...changed.keys()].sort(), [session.uri('plan.yaml'), session.uri('podsets.yaml')]);
    try {
      for (const [uri, text] of changed) await session.edit(uri, text);
      assert.match(changed.get(session.uri('podsets.yaml')) ?? '', /name: nightly\n[^]*?state: Schedule/);
      const plan = changed.get(session.uri('plan.yaml')) ?? '';
      for (const a of result.plan.assignments) assert.match(plan, new RegExp(`- pod: ${a.pod}\\n\\s+node: ${a.node}`));
      assert.deepEqual(session.diagnostics(session.uri('plan.yaml')), []);
      assert.deepEqual(session.diagnostics(session.uri('podsets.yaml')), []);

      const applied = value(await request<object, Result<HistoryEntryView>>(RecordAppliedRequest.method, { id: result.plan.historyId }));
      assert.deepEqual([applied.id, applied.podSet, applied.status], [result.plan.historyId, 'nightly', 'applied']);
      const page = value(
        await request<object, Result<HistoryPage>>(ListHistoryRequest.method, { podSet: 'nightly', namespace: 'jobs', limit: 1 }),
      );
      assert.deepEqual(
        page.entries.map((e) => [e.id, e.status]),
        [[result.plan.historyId, 'applied']],
      );

      // With nightly scheduled, reports may be scheduled: its plan leaves a pod out, which the client asks about.
      const reports = value(
        await request<object, Result<ScheduleNowResult>>(ScheduleNowRequest.method, { trigger: { namespace: 'jobs', name: 'reports' } }),
      );
      assert.deepEqual(
        reports.plan.unplaced.map((u) => u.pod),
        ['giant'],
      );
      assert.deepEqual(
        reports.writes.map((w) => [w.object, w.created, w.fields]),
        [
          ['ScheduleTrigger jobs/reports', false, ['spec.state: Planning → Schedule']],
          ['SchedulePlan jobs/reports', true, ['spec.plan: 1 pod to nodes', 'status: planner greedy, 1 unplaced with reasons']],
        ],
      );
    } finally {
      for (const uri of changed.keys()) await session.close(uri);
    }
  });

  it('without a history database every history request says why', async () => {
    const none = await startLspSession(WORKSPACE, { historyDatabase: false });
    try {
      const expected = { ok: false, error: 'history unavailable: turned off (historyDatabase: false)' };
      assert.deepEqual(await none.connection.sendRequest(ListHistoryRequest.method, {}), expected);
      assert.deepEqual(await none.connection.sendRequest(OpenPlanRequest.method, { id: 1 }), expected);
      assert.deepEqual(await none.connection.sendRequest(ComparePlansRequest.method, { from: 1, to: 2 }), expected);
      assert.deepEqual(await none.connection.sendRequest(RecordAppliedRequest.method, { id: 1 }), expected);
      const plan = value(
        (await none.connection.sendRequest(PreviewPlanRequest.method, {
          trigger: { namespace: 'jobs', name: 'nightly' },
        })) as Result<PlanView>,
      );
      assert.equal(plan.historyId, undefined, 'the preview is made all the same');
      const summary = (await none.connection.sendRequest(WorkspaceSummaryRequest.method)) as WorkspaceSummary;
      assert.deepEqual(
        summary.history,
        { available: false, reason: 'turned off (historyDatabase: false)' },
        'the reason alone: the summary says plan history is off',
      );
    } finally {
      await none.shutdown();
    }
  });
});

// A preview equal to the pod set's latest draft reuses that draft only when everything the plan was
// made from is the same: not only nodes and pods (the snapshot hash) but every object a plugin reads
// (here a ResourceSlice) and the pod-set profile, which the history keeps with the plan.
describe('server requests: a kept preview is reused only on the same plan input (over stdio, test/fixtures/dra/plan)', () => {
  let session: LspSession;
  before(async () => (session = await startLspSession('test/fixtures/dra/plan')));
  after(async () => session.shutdown());

  const request = <P, R>(method: string, params?: P) => session.connection.sendRequest(method, params) as Promise<R>;
  const preview = () => request<object, Result<PlanView>>(PreviewPlanRequest.method, { podSet: { namespace: 'default', name: 'train' } });
  const explainIn = (pod: string, historyId: number | undefined) =>
    request<object, Result<PodExplanationView>>(ExplainPodRequest.method, {
      pod: { namespace: 'default', name: pod },
      inPlan: { podSet: 'train', historyId },
    });
  const c1Lines = (e: PodExplanationView) => e.devices?.find((d) => d.node === 'c1')?.lines.map((l) => l.slice(l.indexOf('): ') + 3));

  it('a ResourceSlice changes with the same placements: preview again gives a new plan, judged on the new slices', async () => {
    const first = value(await preview());
    assert.ok(first.historyId !== undefined);
    const left = first.unplaced[0]?.pod;
    assert.ok(left !== undefined, 'four GPUs for five pods: one is left out');
    assert.deepEqual(c1Lines(value(await explainIn(left, first.historyId))), ['the node has no devices']);
    const cluster = session.uri('cluster.yaml');
    let secondId: number | undefined;
    // c1 gets a NIC, which no GPU request matches: the plan places the same pods on the same nodes.
    const nic = `---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: c1-nics}
spec:
  driver: nic.example.com
  nodeName: c1
  pool: {name: c1, generation: 1, resourceSliceCount: 1}
  devices: [{name: nic-0}]
`;
    try {
      await session.edit(cluster, `${readFileSync(fileURLToPath(cluster), 'utf8')}${nic}`);
      const second = value(await preview());
      assert.deepEqual(
        second.assignments.map((a) => [a.pod, a.node]),
        first.assignments.map((a) => [a.pod, a.node]),
      );
      assert.deepEqual(
        second.unplaced.map((u) => u.pod),
        [left],
      );
      assert.equal(second.snapshotHash, first.snapshotHash, 'nodes and pods are the same');
      assert.notEqual(second.historyId, first.historyId, 'a new plan: it was made on another cluster');
      secondId = second.historyId;
      const now = c1Lines(value(await explainIn(left, second.historyId)));
      assert.ok(now && now.length > 0 && !now.includes('the node has no devices'), JSON.stringify(now));
      assert.deepEqual(
        c1Lines(value(await explainIn(left, first.historyId))),
        ['the node has no devices'],
        'the first plan keeps its cluster',
      );
      // The same input again: the draft just kept is reused.
      assert.equal(value(await preview()).historyId, second.historyId);
    } finally {
      await session.close(cluster);
    }
    // Back to the files as they were: their input is the first plan's, but the latest draft is the
    // second's, so a new draft is kept (only the latest draft is ever reused).
    const third = value(await preview());
    assert.notEqual(third.historyId, secondId);
    assert.deepEqual(c1Lines(value(await explainIn(left, third.historyId))), ['the node has no devices']);
  });

  it('a ResourceSlice in a file of its own: explain judges on it at once (the engine is not kept for the same nodes and pods)', async () => {
    const explain = async () =>
      value(
        await request<object, Result<PodExplanationView>>(ExplainPodRequest.method, { pod: { namespace: 'default', name: 'train-0' } }),
      );
    const c1 = (e: PodExplanationView) => e.matrix.rows.find((r) => r.node === 'c1');
    assert.equal(c1(await explain())?.verdict, 'rejected', 'c1 has no GPU');
    const slice = session.uri('c1-gpus.yaml');
    const gpus = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: c1-gpus}
spec:
  driver: gpu.example.com
  nodeName: c1
  pool: {name: c1, generation: 1, resourceSliceCount: 1}
  devices: [{name: gpu-0}, {name: gpu-1}]
`;
    try {
      await session.edit(slice, gpus);
      assert.notEqual(c1(await explain())?.verdict, 'rejected', 'c1 has two GPUs now');
    } finally {
      await session.close(slice);
    }
    assert.equal(c1(await explain())?.verdict, 'rejected', 'closed without being saved: c1 has no GPU again');
  });
});
