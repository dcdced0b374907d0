// The words of the Podplan view container's trees, from the server's answers.
import assert from 'node:assert/strict';
import type { ClusterSummary, PodSetSummary, WorkspaceSummary } from '../../../src/protocol/requests';
import type { HistoryEntryView } from '../../../src/protocol/webview';
import { clusterNodes, isViewNode, planNodes, podSetNodes, shortDuration, type ViewNode } from '../../../src/extension/views/model';

function summary(...podSets: PodSetSummary[]): WorkspaceSummary {
  return {
    folders: [],
    files: 1,
    nodes: 0,
    pods: 0,
    workloads: 0,
    triggers: 0,
    plans: 0,
    profiles: [],
    podSets,
    problems: { errors: 0, warnings: 0 },
    history: { available: true },
  };
}

const set = (over: Partial<PodSetSummary>): PodSetSummary => ({
  namespace: 'analytics',
  name: 'nightly-batch',
  pods: 6,
  pending: 6,
  trigger: 'nightly-batch',
  state: 'Planning',
  ...over,
});

const entry = (id: number, over: Partial<HistoryEntryView> = {}): HistoryEntryView => ({
  id,
  podSet: 'nightly-batch',
  namespace: 'analytics',
  planner: 'greedy',
  profile: 'podset-planner-scheduler',
  status: 'draft',
  createdAt: Date.UTC(2026, 10, 24, 20, 0, id),
  placed: 6,
  unplaced: 0,
  ...over,
});

const described = (nodes: readonly ViewNode[] | undefined) => (nodes ?? []).map((n) => [n.label, n.description]);

describe('extension/views/model', () => {
  it('shows durations in whole seconds, hours and minutes', () => {
    for (const [ms, text] of [
      [0, '0s'],
      [400, '1s'],
      [90_000, '1m 30s'],
      [3_600_000, '1h'],
      [5_430_000, '1h 30m 30s'],
    ] as const)
      assert.equal(shortDuration(ms), text, String(ms));
  });

  it('gives each pod set its state, pods, quiet time left and dependencies marked complete or not', () => {
    const [batch, report] = podSetNodes(
      summary(
        set({ quietTime: '2m0s', quietTimeLeftMs: 75_000 }),
        set({
          name: 'nightly-report',
          trigger: 'nightly-report',
          pods: 1,
          pending: 1,
          quietTime: '30s',
          dependsOn: ['ScheduleTrigger nightly-batch'],
          waitingOn: ['ScheduleTrigger nightly-batch, which is not complete (it is still Planning)'],
        }),
      ),
      'reveal',
    );
    assert.equal(batch?.description, 'Planning · 6 to place');
    assert.equal(batch?.contextValue, 'podSet.trigger');
    assert.deepEqual(batch?.open, { command: 'reveal', args: ['ScheduleTrigger', 'nightly-batch', 'analytics'] });
    assert.deepEqual(batch?.args, {
      podSet: 'nightly-batch',
      namespace: 'analytics',
      trigger: { namespace: 'analytics', name: 'nightly-batch' },
    });
    assert.deepEqual(described(batch?.children), [
      ['State', 'Planning'],
      ['Pods', '6: 6 to place'],
      ['Quiet time', '1m 15s left of 2m0s'],
    ]);
    assert.equal(report?.contextValue, 'podSet.trigger.waiting');
    assert.deepEqual(described(report?.children), [
      ['State', 'Planning'],
      ['Pods', '1: 1 to place'],
      ['Quiet time', '30s after the last pod'],
      ['Depends on', 'nightly-batch: waiting'],
    ]);
    assert.match(report?.children?.[2]?.tooltip ?? '', /no pod in the workspace has an arrival time/);
    assert.match(report?.tooltip ?? '', /Waits on ScheduleTrigger nightly-batch, which is not complete/);
  });

  it('says when a set has no trigger and when the quiet time is over', () => {
    const [alone, due] = podSetNodes(
      summary(set({ name: 'loose', trigger: undefined, state: undefined }), set({ quietTime: '2m0s', quietTimeLeftMs: 0 })),
      'reveal',
    );
    assert.equal(alone?.contextValue, 'podSet');
    assert.equal(alone?.open, undefined);
    assert.deepEqual(described(alone?.children)[0], ['State', 'no ScheduleTrigger']);
    assert.deepEqual(described(due?.children)[2], ['Quiet time', '2m0s: over']);
  });

  it('follows the document: a misspelt state shows as invalid (with where to fix it); a scheduled set’s planned pods are not “to place”', () => {
    const [misspelt, scheduled] = podSetNodes(
      summary(
        set({ invalidState: 'Planing' }),
        set({ state: 'Schedule', plan: 'nightly-batch-6f8dbd46cc', pending: 0, planned: 6, quietTime: '2m0s' }),
      ),
      'reveal',
    );
    assert.equal(misspelt?.description, 'Planing (invalid) · 6 to place');
    assert.deepEqual([misspelt?.children?.[0]?.description, misspelt?.children?.[0]?.icon], ['Planing (invalid)', 'error']);
    assert.match(
      misspelt?.children?.[0]?.tooltip ?? '',
      /"Planing" is not a state .* read as Planning\. The quick fix on it \(Ctrl\+\.\) corrects it/,
    );
    assert.equal(scheduled?.description, 'Schedule · 6 planned');
    assert.deepEqual(described(scheduled?.children).slice(1, 3), [
      ['Pods', '6: 6 planned'],
      ['Quiet time', '2m0s (not counting)'],
    ]);
  });

  it('keeps every description short enough for the side bar (the details go to the tooltip)', () => {
    const nodes = podSetNodes(
      summary(
        set({ quietTime: '2m0s' }),
        set({
          name: 'nightly-report',
          trigger: 'nightly-report',
          quietTime: '30s',
          dependsOn: ['ScheduleTrigger nightly-batch'],
          waitingOn: ['ScheduleTrigger nightly-batch, which is not complete (it is still Planning)'],
        }),
      ),
      'reveal',
    );
    for (const n of [...nodes, ...nodes.flatMap((x) => x.children ?? [])])
      assert.ok(`${n.label} ${n.description ?? ''}`.length <= 36, `${n.label} ${n.description ?? ''}`);
  });

  it('groups the history by pod set, newest first, each plan comparable with the one before it', () => {
    const [set1, set2] = planNodes(
      [
        entry(3, { status: 'applied' }),
        entry(2, { podSet: 'nightly-report', unplaced: 1, placed: 0 }),
        entry(1, { status: 'superseded', evicted: 2 }),
      ],
      'open',
    );
    assert.equal(set1?.label, 'analytics/nightly-batch');
    assert.deepEqual(described(set1?.children), [
      ['#3 applied', '6 placed · 2026-11-24 20:00:03'],
      ['#1 superseded', '6 placed, 2 evicted · 2026-11-24 20:00:01'],
    ]);
    assert.deepEqual(
      set1?.children?.map((c) => [c.contextValue, c.args]),
      [
        ['plan.applied.comparable', { id: 3, from: 1, to: 3 }],
        ['plan.superseded', { id: 1 }],
      ],
    );
    assert.deepEqual(set1?.children?.[0]?.open, { command: 'open', args: [{ id: 3 }] });
    // The side bar cuts these rows: the tooltip says all the row says, and more.
    for (const row of [...(set1?.children ?? []), ...(set2?.children ?? [])]) {
      const [counts = '', made = ''] = (row.description ?? '').split(' · ');
      assert.ok(row.tooltip?.includes(counts) && row.tooltip.includes(`made ${made} UTC`), `${row.description} in ${row.tooltip}`);
    }
    assert.match(
      set1?.children?.[1]?.tooltip ?? '',
      /^Plan #1 of analytics\/nightly-batch \(superseded\), made 2026-11-24 20:00:01 UTC by \S+, profile \S+/,
    );
    assert.deepEqual(described(set2?.children), [['#2 draft', '0 placed, 1 not placed · 2026-11-24 20:00:02']]);
  });

  it('shows the cluster source, each node with its use, and the pending pods by scheduler', () => {
    const cluster: ClusterSummary = {
      source: { kind: 'workspace', name: 'cluster' },
      nodes: [
        {
          name: 'node-a1',
          pods: 2,
          unschedulable: false,
          cpu: { allocatable: 4000, requested: 1000 },
          memory: { allocatable: 8, requested: 4 },
          labels: { 'topology.kubernetes.io/zone': 'a' },
        },
      ],
      pending: [{ namespace: 'analytics', name: 'etl-0', schedulerName: 'podset-planner-scheduler', podSet: 'nightly-batch' }],
    };
    const [source, nodes, pending] = clusterNodes(cluster, 'reveal');
    assert.deepEqual([source?.label, source?.description], ['Source', 'workspace files: cluster']);
    assert.deepEqual(described(nodes?.children), [['node-a1', '2 pods · cpu 25% · memory 50%']]);
    assert.equal(nodes?.children?.[0]?.tooltip, 'topology.kubernetes.io/zone=a');
    assert.deepEqual(described(pending?.children), [['podset-planner-scheduler', '1 pod']]);
    assert.deepEqual(described(pending?.children?.[0]?.children), [['etl-0', 'analytics · nightly-batch']]);
  });

  it('for a cluster source, lists the kubeconfig contexts (each switches to itself) and how the scheduler does', () => {
    const view = clusterNodes(
      {
        source: { kind: 'cluster', name: 'prod' },
        nodes: [],
        pending: [],
        contexts: ['dev', 'prod'],
        scheduler: { running: true, context: 'prod', bound: 3, unplaced: 0, pending: 1, errors: ['lease: conflict'] },
      },
      'reveal',
      'select',
    );
    assert.deepEqual(
      view.map((n) => n.label),
      ['Source', 'Contexts', 'Scheduler', 'Nodes', 'Pending pods'],
    );
    const [source, contexts, scheduler] = view;
    assert.deepEqual([source?.description, source?.open], ['cluster: prod', { command: 'select', args: [] }]);
    assert.deepEqual(described(contexts?.children), [
      ['dev', undefined],
      ['prod', 'in use'],
    ]);
    assert.deepEqual(contexts?.children?.[0]?.open, { command: 'select', args: [{ context: 'dev' }] });
    assert.deepEqual([scheduler?.description, scheduler?.tooltip], ['running · 3 pods bound · 1 pending · 1 error', 'lease: conflict']);
  });

  it('tells a tree node passed by a context menu from other arguments', () => {
    assert.equal(isViewNode({ key: 'a', label: 'b', args: {} }), true);
    assert.equal(isViewNode({ trigger: { name: 'x' } }), false);
    assert.equal(isViewNode(undefined), false);
  });
});
