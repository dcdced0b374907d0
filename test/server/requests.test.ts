// Podplan's own requests (src/protocol/requests.ts) over stdio on the cluster workspace, with the
// plan history in memory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Result } from '../../src/engine/api/result';
import {
  ComparePlansRequest,
  ExplainPodRequest,
  ListHistoryRequest,
  OpenPlanRequest,
  PreviewPlanRequest,
  ScheduleNowRequest,
  WorkspaceSummaryRequest,
  type HistoryPage,
  type ScheduleNowResult,
  type WorkspaceSummary,
} from '../../src/protocol/requests';
import type { PlanDiffView, PlanView, PodExplanationView } from '../../src/protocol/webview';
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

  it('podplan/previewPlan: an unplaced pod comes with its stage, plugin, reasons and upstream message', async () => {
    const plan = value(await preview({ podSet: { namespace: 'jobs', name: 'reports' } }));
    assert.deepEqual(plan.assignments.map((a) => a.pod), ['summary']);
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
    assert.deepEqual(await preview({ trigger: { namespace: 'jobs', name: 'ghost' } }), { ok: false, error: 'no ScheduleTrigger jobs/ghost in the workspace' });
    assert.deepEqual(await preview({ podSet: { namespace: 'jobs', name: 'nobody' } }), { ok: false, error: 'pod set jobs/nobody has no pods in the workspace' });
    assert.deepEqual(await preview({}), { ok: false, error: 'previewPlan needs a trigger or a pod set' });
  });

  it('podplan/explainPod: every node’s verdict and the upstream message', async () => {
    const giant = value(await request<object, Result<PodExplanationView>>(ExplainPodRequest.method, { pod: { namespace: 'jobs', name: 'giant' } }));
    // A single cycle as the scheduler runs it: the 1.35 default profile's PostFilter part follows.
    assert.equal(giant.message, '0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu. no new claims to deallocate, preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.');
    assert.deepEqual(giant.nodes, { total: 4, evaluated: 4, feasible: 0 });
    assert.deepEqual(giant.rejections.map((r) => [r.plugin, r.reason, r.nodes.length]), [
      ['NodeResourcesFit', 'Insufficient cpu', 3],
      ['TaintToleration', 'node(s) had untolerated taint(s)', 1],
    ]);
    assert.deepEqual(giant.requests, [
      { resource: 'cpu', unit: 'millicores', amount: 64000 },
      { resource: 'memory', unit: 'bytes', amount: 1024 ** 3 },
    ]);
    const batch = value(await request<object, Result<PodExplanationView>>(ExplainPodRequest.method, { pod: { namespace: 'jobs', name: 'batch-0' } }));
    assert.equal(batch.plannedNode, 'node-1');
    assert.equal(batch.podSet, 'nightly');
    assert.ok(batch.chosenNode && batch.scores[0]?.node === batch.chosenNode);
    assert.deepEqual(await request(ExplainPodRequest.method, { pod: { name: 'nobody' } }), { ok: false, error: 'no pod default/nobody in the workspace' });
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
          { namespace: 'jobs', name: 'nightly', pods: 4, pending: 4, trigger: 'nightly', state: 'Planning', plan: 'nightly-559897b958' },
          { namespace: 'jobs', name: 'reports', pods: 2, pending: 2, trigger: 'reports', state: 'Planning' },
        ],
        problems: { errors: 0, warnings: 0 },
        history: { available: true },
      },
    );
  });

  it('podplan/listHistory, openPlan, comparePlans: previews kept, read back, compared', async () => {
    const first = value(await preview({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    // A bigger report: the next preview places it elsewhere or not at all.
    const workloads = session.uri('workloads.yaml');
    await session.edit(workloads, diskText(workloads).replace('requests: { cpu: 1500m, memory: 1Gi }', 'requests: { cpu: "7", memory: 1Gi }'));
    const second = value(await preview({ trigger: { namespace: 'jobs', name: 'nightly' } }));
    await session.close(workloads);
    const page = value(await request<object, Result<HistoryPage>>(ListHistoryRequest.method, { podSet: 'nightly', namespace: 'jobs', limit: 2 }));
    assert.deepEqual(page.entries.map((e) => e.id), [second.historyId, first.historyId]);
    assert.deepEqual(page.entries.map((e) => [e.podSet, e.planner, e.status, e.placed]), [
      ['nightly', 'greedy', 'draft', second.assignments.length],
      ['nightly', 'greedy', 'draft', 4],
    ]);
    assert.ok(page.next !== undefined, 'an earlier preview is on the next page');
    const opened = value(await request<object, Result<PlanView>>(OpenPlanRequest.method, { id: first.historyId }));
    assert.deepEqual(opened.assignments.map((a) => [a.pod, a.node]), first.assignments.map((a) => [a.pod, a.node]));
    assert.equal(opened.historyId, first.historyId);
    const diff = value(await request<object, Result<PlanDiffView>>(ComparePlansRequest.method, { from: first.historyId, to: second.historyId }));
    const report = first.assignments.find((a) => a.pod === 'report');
    const moved = diff.moved.map((m) => m.pod);
    const unplaced = diff.becameUnplaced.map((m) => m.pod);
    assert.ok(moved.includes('report') || unplaced.includes('report'), `report stayed on ${report?.node}: ${JSON.stringify(diff)}`);
    assert.deepEqual(await request(OpenPlanRequest.method, { id: 99999 }), { ok: false, error: 'history: plan 99999 is not in the history' });
  });

  it('podplan/scheduleNow: the trigger set to Schedule and its plan rewritten; applied, the workspace stays clean', async () => {
    const result = value(await request<object, Result<ScheduleNowResult>>(ScheduleNowRequest.method, { trigger: { namespace: 'jobs', name: 'nightly' } }));
    const changed = applyWorkspaceEdit(result.edit, diskText);
    assert.deepEqual([...changed.keys()].sort(), [session.uri('plan.yaml'), session.uri('podsets.yaml')]);
    try {
      for (const [uri, text] of changed) await session.edit(uri, text);
      assert.match(changed.get(session.uri('podsets.yaml')) ?? '', /name: nightly\n[^]*?state: Schedule/);
      const plan = changed.get(session.uri('plan.yaml')) ?? '';
      for (const a of result.plan.assignments) assert.match(plan, new RegExp(`- pod: ${a.pod}\\n\\s+node: ${a.node}`));
      assert.deepEqual(session.diagnostics(session.uri('plan.yaml')), []);
      assert.deepEqual(session.diagnostics(session.uri('podsets.yaml')), []);
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
      const plan = value((await none.connection.sendRequest(PreviewPlanRequest.method, { trigger: { namespace: 'jobs', name: 'nightly' } })) as Result<PlanView>);
      assert.equal(plan.historyId, undefined, 'the preview is made all the same');
      const summary = (await none.connection.sendRequest(WorkspaceSummaryRequest.method)) as WorkspaceSummary;
      assert.deepEqual(summary.history, { available: false, reason: expected.error });
    } finally {
      await none.shutdown();
    }
  });
});
