// The editor's plan history on a real SQLite file (src/server/store-history.ts): a plan that
// preempts keeps its evicted pods, the opened plan shows them, and comparing it with a plan that
// does not preempt says which running pods only one of them evicts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from '../../src/engine/api/result';
import type { History } from '../../src/server/history';
import { ManualClock } from '../../src/engine/api/clock';
import { explainInPlan, planPodSet, planView, previewPodSet } from '../../src/server/service/planning';
import { openHistory } from '../../src/server/store-history';
import { cli } from '../cli/run-cli';
import { openTestStore, useTempDir } from '../store/helpers';
import { docs, node, pod, workspaceOf } from './service/fixtures';

function value<T>(result: Result<T>): T {
  if (!result.ok) assert.fail(result.error);
  return result.value;
}

/** A running pod of priority 10 on n1, and set s's pod that needs its room (priority 100). */
const CLUSTER = docs(
  node('n1', '2'),
  'apiVersion: v1\nkind: Pod\nmetadata: { name: filler }\nspec:\n  nodeName: n1\n  priority: 10\n  containers: [{ name: main, resources: { requests: { cpu: "2" } } }]\n',
  pod('a', 's', '2', '  priority: 100\n'),
);
const PREEMPTING =
  'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: podset-planner-scheduler\n    pluginConfig:\n      - name: PodSetPlanner\n        args: { allowPreemption: true }\n';

describe('server/store-history (the editor’s plan history on src/store)', () => {
  const dir = useTempDir();
  let history: History;

  before(async () => {
    history = await openHistory(join(dir.path, 'history.db'), ['file:///w'], () => undefined);
  });
  after(() => history.close());

  /** Plans set s as the editor previews it, and keeps the preview. */
  function preview(files: Record<string, string>) {
    const analysis = workspaceOf(files).analysis();
    const made = value(planPodSet(analysis, { namespace: 'default', podSet: 's' }));
    return { analysis, id: value(history.savePreview(made, 'sha256:p', analysis.model.generated, { cluster: analysis.model.cluster })) };
  }

  it('keeps what a plan evicts: listed with its count, shown when opened, compared with a plan that evicts nothing', () => {
    const plain = preview({ 'cluster.yaml': CLUSTER });
    const preempting = preview({ 'cluster.yaml': CLUSTER, 'profile.yaml': PREEMPTING });
    assert.deepEqual(
      value(history.list({})).entries.map((e) => [e.id, e.placed, e.unplaced, e.evicted]),
      [
        [preempting.id, 1, 0, 1],
        [plain.id, 0, 1, undefined],
      ],
    );
    const opened = value(history.open(preempting.id, (plan, id) => planView(plan, preempting.analysis, id)));
    assert.deepEqual([opened.historyId, opened.victims], [preempting.id, [{ pod: 'default/filler', node: 'n1', by: 'a' }]]);
    const diff = value(history.compare(plain.id, preempting.id));
    assert.deepEqual(
      [diff.becamePlaced.map((p) => [p.pod, p.node]), diff.newlyEvicted, diff.noLongerEvicted, diff.stillEvicted],
      [[['a', 'n1']], [{ pod: 'default/filler', node: 'n1', by: 'a' }], [], 0],
    );
    const back = value(history.compare(preempting.id, plain.id));
    assert.deepEqual([back.newlyEvicted, back.noLongerEvicted], [[], [{ pod: 'default/filler', node: 'n1', by: 'a' }]]);
  });

  it("marks the names made up for a Deployment's replicas as `podplan plan` does (store/recording.ts madeUpPods), so show and export know them", async () => {
    const deployment =
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 2\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web, planner.ciena.io/pod-set: s } }\n    spec:\n      schedulerName: podset-planner-scheduler\n      containers: [{ name: main, resources: { requests: { cpu: "1" } } }]\n';
    const files = { 'cluster.yaml': docs(node('n1', '4'), deployment, pod('a', 's', '1')) };
    const editor = preview(files);
    const db = join(dir.path, 'history.db');
    const planned = await cli(['plan', 'cluster.yaml', '--pod-set', 's', '--db', db], files);
    const cliId = Number(/Recorded as plan (\d+)/.exec(planned.stderr)?.[1]);
    assert.ok(cliId > editor.id, planned.stderr);
    const store = await openTestStore(db);
    try {
      const marks = (id: number) => {
        const summary = store.summary(id);
        if (!summary.ok) assert.fail(summary.error.message);
        return summary.value.madeUp;
      };
      const fromCli = marks(cliId);
      assert.equal(fromCli?.length, 2, 'the two replicas, not pod a');
      assert.deepEqual(marks(editor.id), fromCli);
    } finally {
      store.close();
    }
    const shown = await cli(['show', String(editor.id), '--db', db]);
    assert.match(shown.stdout, /\* a name made up for a workload's replica/);
  });

  // A set planned after the set its trigger depends on was made on the cluster with that set's pods
  // placed (Plan.placedBefore): the preview keeps them, and a draft is reused only for the same.
  it('keeps with a dependent set’s preview the pods the set it depends on placed; reuses a draft only when they are the same', async () => {
    const fixture = 'test/fixtures/workspaces/depends-on';
    const analysis = workspaceOf({
      'cluster.yaml': readFileSync(join(fixture, 'cluster.yaml'), 'utf8'),
      'podsets.yaml': readFileSync(join(fixture, 'podsets.yaml'), 'utf8'),
    }).analysis();
    const made = value(await previewPodSet(analysis, { namespace: 'jobs', name: 'second' }));
    assert.deepEqual(made.placedBefore?.map((p) => `${p.namespace}/${p.pod}`).sort(), ['jobs/first-0', 'jobs/first-1', 'jobs/first-2']);
    const keep = (plan: typeof made) =>
      value(history.savePreview(plan, 'sha256:p', analysis.model.generated, { cluster: analysis.model.cluster }));
    const id = keep(made);
    assert.deepEqual(value(history.planned(id)).basis?.placedBefore, made.placedBefore);
    assert.equal(keep(made), id, 'the same preview again: the same draft');
    const [first, ...rest] = made.placedBefore ?? [];
    assert.ok(first);
    const elsewhere = keep({ ...made, placedBefore: [{ ...first, node: first.node === 'n1' ? 'n2' : 'n1' }, ...rest] });
    assert.notEqual(elsewhere, id, 'a pod placed before it on another node: another plan');
  });

  it('the stored plan’s node map shows the pods placed before it: a set planned beside a written plan it depends on (depends-on-written)', async () => {
    const analysis = workspaceOf({
      'cluster.yaml': readFileSync('test/fixtures/workspaces/depends-on/cluster.yaml', 'utf8'),
      'podsets.yaml': readFileSync('test/fixtures/workspaces/depends-on-written/podsets.yaml', 'utf8'),
    }).analysis();
    const made = value(await previewPodSet(analysis, { namespace: 'jobs', name: 'second' }));
    const id = value(history.savePreview(made, 'sha256:w', analysis.model.generated, { cluster: analysis.model.cluster }));
    const view = value(history.open(id, (plan, stored) => planView(plan, analysis, stored)));
    const cpu = (n: (typeof view.nodes)[number]) => n.resources.find((r) => r.resource === 'cpu');
    const second0 = view.assignments.find((a) => a.pod === 'second-0')?.node;
    assert.ok(second0);
    assert.deepEqual(
      view.nodes.map((n) => [n.node, n.before, cpu(n)?.before, cpu(n)?.planned]),
      [
        ['n1', ['jobs/first-2'], 3000, second0 === 'n1' ? 1000 : 0],
        ['n2', ['jobs/first-0'], 3000, second0 === 'n2' ? 1000 : 0],
        ['n3', ['jobs/first-1'], 3000, second0 === 'n3' ? 1000 : 0],
      ],
      'the written plan of first: first-2 on n1, first-0 on n2, first-1 on n3, 3 CPUs each',
    );
  });

  it('a live scheduler’s plan is kept without its cluster: the editor’s explain of it says that is why no node is judged', async () => {
    const analysis = workspaceOf({ 'cluster.yaml': CLUSTER }).analysis();
    const made = value(planPodSet(analysis, { namespace: 'default', podSet: 's' }));
    const live = value(
      history.record({ kind: 'kube-context', name: 'test', server: 'https://127.0.0.1:6443' }, 'live', {
        clock: new ManualClock(0),
        onError: (m) => assert.fail(m),
      }),
    );
    const id = live.savePlan(made);
    live.finish('succeeded', 'stopped');
    assert.ok(id !== undefined);
    assert.equal(value(history.planned(id)).live, true);
    const pod = analysis.pod('default', 'a');
    assert.ok(pod);
    const editor = await explainInPlan(pod, analysis, { podSet: 's', historyId: id }, history);
    assert.equal(
      editor?.judgedOn,
      `Plan #${id} was made by a live scheduler on the cluster as it was at that moment, which the history does not keep with a live scheduler’s plans: the planner’s cycle is shown, but no node’s verdict is judged, since today’s workspace may not be the cluster that plan saw.`,
    );
  });
});
