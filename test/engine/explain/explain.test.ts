import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/engine/api/random';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import { Framework } from '../../../src/engine/framework/runtime';
import { explain } from '../../../src/engine/explain/explain';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import { makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../builders';

function diagnose(pod: PodBuilder, nodes: NodeBuilder[]) {
  const registry = inTreeRegistry();
  assert.ok(registry.ok, 'registry builds');
  const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
  assert.ok(framework.ok, 'default profile builds');
  return framework.value.scheduleOne(new CycleState(), pod.info, snapshotOf(nodes)).diagnosis;
}

describe('engine/explain/explain', () => {
  it('says what kube-scheduler says for a mixed failure, and groups the nodes by reason', () => {
    const nodes = [
      makeNode('small-1').alloc({ cpu: '1', memory: '8Gi', pods: '110' }),
      makeNode('small-2').alloc({ cpu: '1', memory: '8Gi', pods: '110' }),
      makeNode('gpu-1').taint('dedicated', 'gpu'),
      makeNode('gpu-2').taint('dedicated', 'gpu'),
      makeNode('gpu-3').taint('dedicated', 'gpu'),
    ];
    const e = explain(diagnose(makePod('web').req({ cpu: '2' }), nodes));
    assert.equal(e.placed, false);
    assert.equal(
      e.message,
      '0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s). preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling.',
      // The small nodes' allocatable is below the request: no eviction helps (Unresolvable, as upstream fit.go).
    );
    assert.deepEqual(
      e.reasons.map((r) => [r.reason, r.plugin, r.stage, r.nodes]),
      [
        ['node(s) had untolerated taint(s)', 'TaintToleration', 'Filter', ['gpu-1', 'gpu-2', 'gpu-3']],
        ['Insufficient cpu', 'NodeResourcesFit', 'Filter', ['small-1', 'small-2']],
      ],
    );
  });

  it('says where a placed pod went, with the best scores and their breakdown', () => {
    const e = explain(
      diagnose(makePod('web').req({ cpu: '1' }), [makeNode('a'), makeNode('b').alloc({ cpu: '2', memory: '8Gi', pods: '110' })]),
    );
    assert.equal(e.placed, true);
    assert.equal(e.message, 'placed on a');
    assert.deepEqual(
      e.topScores.map((s) => s.node),
      ['a', 'b'],
    );
    assert.ok(
      e.topScores[0]?.plugins.some((p) => p.plugin === 'NodeResourcesFit'),
      'the breakdown names the plugins',
    );
  });
});
