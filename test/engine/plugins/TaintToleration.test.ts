import assert from 'node:assert/strict';
import type { Toleration } from '../../../src/engine/api/types';
import { Code } from '../../../src/engine/framework/status';
import type { QueueingHint } from '../../../src/engine/framework/events';
import {
  factory,
  isSchedulableAfterNodeChange,
  isSchedulableAfterTargetPodTolerationChange,
} from '../../../src/engine/plugins/TaintToleration';
import { makeNode, makePod, nodeInfoOf, type NodeBuilder } from '../../builders';
import { argsError, build, runFilter, runScore, type Verdict } from './harness';

// 1.35 prints one reason for every untolerated taint, without its key or value
// (pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go, TestTaintTolerationFilter).
const untolerated: Verdict = { code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) had untolerated taint(s)'] };

describe('engine/plugins/TaintToleration', () => {
  const plugin = build(factory);

  describe('Filter: NoSchedule and NoExecute taints must be tolerated; the reason does not name the taint', () => {
    const table: Array<[why: string, node: NodeBuilder, tolerations: Toleration[], verdict: Verdict]> = [
      ['no taints', makeNode('n'), [], 'ok'],
      ['NoSchedule, no tolerations', makeNode('n').taint('dedicated', 'gpu'), [], untolerated],
      ['NoExecute, no tolerations', makeNode('n').taint('dedicated', 'gpu', 'NoExecute'), [], untolerated],
      ['PreferNoSchedule never filters', makeNode('n').taint('dedicated', 'gpu', 'PreferNoSchedule'), [], 'ok'],
      ['a taint without value', makeNode('n').taint('maintenance', undefined), [], untolerated],
      ['Equal with the same value', makeNode('n').taint('dedicated', 'gpu'), [{ key: 'dedicated', operator: 'Equal', value: 'gpu' }], 'ok'],
      ['operator defaults to Equal', makeNode('n').taint('dedicated', 'gpu'), [{ key: 'dedicated', value: 'gpu' }], 'ok'],
      ['Equal with another value', makeNode('n').taint('dedicated', 'gpu'), [{ key: 'dedicated', value: 'cpu' }], untolerated],
      ['Exists on the key', makeNode('n').taint('dedicated', 'gpu'), [{ key: 'dedicated', operator: 'Exists' }], 'ok'],
      ['Exists with no key tolerates all', makeNode('n').taint('a', '1').taint('b', '2', 'NoExecute'), [{ operator: 'Exists' }], 'ok'],
      [
        'a toleration for another effect does not count',
        makeNode('n').taint('dedicated', 'gpu'),
        [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }],
        untolerated,
      ],
      ['first tolerated, second not', makeNode('n').taint('a', '1').taint('b', '2'), [{ key: 'a', operator: 'Exists' }], untolerated],
    ];
    for (const [why, node, tolerations, expected] of table) {
      it(why, () => {
        const pod = makePod('p');
        for (const t of tolerations) pod.tolerate(t);
        assert.deepEqual(runFilter(plugin, pod.info, [nodeInfoOf(node)]).filter, [expected]);
      });
    }
  });

  describe('Score: intolerable PreferNoSchedule taints counted, normalized reversed (fewest → 100)', () => {
    it('counts and reverses: 100 - 100 × count / max', () => {
      const pod = makePod('p')
        .tolerate({ key: 'tolerated', operator: 'Exists', effect: 'PreferNoSchedule' })
        .tolerate({ key: 'other-effect', operator: 'Exists', effect: 'NoSchedule' });
      const nodes = [
        makeNode('clean'), // 0 → 100 - 100×0/2 = 100
        makeNode('one').taint('x', '1', 'PreferNoSchedule'), // 1 → 100 - 100×1/2 = 50
        makeNode('two').taint('x', '1', 'PreferNoSchedule').taint('y', '2', 'PreferNoSchedule'), // 2 → 100 - 100 = 0
        makeNode('tolerated').taint('tolerated', 'v', 'PreferNoSchedule').taint('hard', 'v', 'NoSchedule'), // NoSchedule not counted → 0 → 100
        makeNode('wrong-effect').taint('other-effect', 'v', 'PreferNoSchedule'), // a NoSchedule toleration does not help → 1 → 50
      ].map((n) => nodeInfoOf(n));
      assert.deepEqual(runScore(plugin, pod.info, nodes), { preScore: 'ok', raw: [0, 1, 2, 0, 1], normalized: [100, 50, 0, 100, 50] });
    });

    it('truncates: counts 0, 1, 3 → 100, 100 - trunc(100/3) = 67, 0', () => {
      const nodes = [
        makeNode('a'),
        makeNode('b').taint('x', '', 'PreferNoSchedule'),
        makeNode('c').taint('x', '', 'PreferNoSchedule').taint('y', '', 'PreferNoSchedule').taint('z', '', 'PreferNoSchedule'),
      ];
      assert.deepEqual(
        runScore(
          plugin,
          makePod('p').info,
          nodes.map((n) => nodeInfoOf(n)),
        ).normalized,
        [100, 67, 0],
      );
    });

    it('no intolerable taints anywhere: every node scores 100', () => {
      assert.deepEqual(runScore(plugin, makePod('p').info, [nodeInfoOf(makeNode('a')), nodeInfoOf(makeNode('b'))]).normalized, [100, 100]);
    });
  });

  it('takes no args', () => assert.equal(argsError(factory, { x: 1 }), 'TaintToleration: unknown field "x"'));
});

// upstream tainttoleration/taint_toleration_test.go TestIsSchedulableAfterNodeChange (the rows giving
// the hint an object of another kind are left out: the queue hands it nodes only) and
// Test_isSchedulableAfterTargetPodTolerationChange (any toleration added queues).
describe('TaintToleration queueing hints', () => {
  const pod = makePod('pod1').tolerate({ key: 'dedicated', operator: 'Equal', value: 'user2', effect: 'NoSchedule' }).obj;
  const tainted = (...users: string[]) => users.reduce((n, u) => n.taint('dedicated', u), makeNode('nodeA')).obj;
  const table: Array<[name: string, oldObj: unknown, newObj: unknown, hint: QueueingHint]> = [
    ['skip-queue-on-untoleratedtaint-node-added', undefined, tainted('user1'), 'QueueSkip'],
    ['queue-on-toleratedtaint-node-added', undefined, tainted('user2'), 'Queue'],
    ['skip-unrelated-change', tainted('user1'), tainted('user1', 'user3'), 'QueueSkip'],
    ['queue-on-taint-change', tainted('user1'), tainted('user2'), 'Queue'],
  ];
  for (const [name, oldObj, newObj, hint] of table) {
    it(`isSchedulableAfterNodeChange: ${name}`, () => assert.equal(isSchedulableAfterNodeChange(pod, oldObj, newObj), hint));
  }
  it('isSchedulableAfterTargetPodTolerationChange: queues', () => assert.equal(isSchedulableAfterTargetPodTolerationChange(), 'Queue'));
});
