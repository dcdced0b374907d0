// The editor's plan history on a real SQLite file (src/server/store-history.ts): a plan that
// preempts keeps its evicted pods, the opened plan shows them, and comparing it with a plan that
// does not preempt says which running pods only one of them evicts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Result } from '../../src/engine/api/result';
import type { History } from '../../src/server/history';
import { planPodSet, planView } from '../../src/server/service/planning';
import { openHistory } from '../../src/server/store-history';
import { useTempDir } from '../store/helpers';
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
    return { analysis, id: value(history.savePreview(made, 'sha256:p')) };
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
});
