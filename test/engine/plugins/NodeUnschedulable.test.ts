import assert from 'node:assert/strict';
import type { Toleration } from '../../../src/engine/api/types';
import { Code } from '../../../src/engine/framework/status';
import type { QueueingHint } from '../../../src/engine/framework/events';
import {
  factory,
  isSchedulableAfterNodeChange,
  isSchedulableAfterTargetPodTolerationChange,
} from '../../../src/engine/plugins/NodeUnschedulable';
import { makeNode, makePod, nodeInfoOf, type NodeBuilder } from '../../builders';
import { argsError, build, runFilter, type Verdict } from './harness';

describe('engine/plugins/NodeUnschedulable', () => {
  const plugin = build(factory);
  const cordoned = nodeInfoOf(makeNode('cordoned').unschedulable());
  const open = nodeInfoOf(makeNode('open'));
  const rejected: Verdict = { code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) were unschedulable'] };

  it('a node that is not cordoned takes any pod', () => {
    assert.deepEqual(runFilter(plugin, makePod('p').info, [open]).filter, ['ok']);
  });

  describe('a cordoned node takes only pods tolerating node.kubernetes.io/unschedulable:NoSchedule', () => {
    const key = 'node.kubernetes.io/unschedulable';
    const table: Array<[why: string, tolerations: Toleration[], verdict: Verdict]> = [
      ['no tolerations', [], rejected],
      ['Exists on the key with NoSchedule', [{ key, operator: 'Exists', effect: 'NoSchedule' }], 'ok'],
      ['Exists on the key, any effect', [{ key, operator: 'Exists' }], 'ok'],
      ['Exists with no key tolerates everything', [{ operator: 'Exists' }], 'ok'],
      ['Equal with an empty value (the implied taint has none)', [{ key, operator: 'Equal', value: '' }], 'ok'],
      ['Equal with a value', [{ key, operator: 'Equal', value: 'true' }], rejected],
      ['the key with NoExecute only', [{ key, operator: 'Exists', effect: 'NoExecute' }], rejected],
      ['another key', [{ key: 'dedicated', operator: 'Exists' }], rejected],
    ];
    for (const [why, tolerations, expected] of table) {
      it(why, () => {
        const pod = makePod('p');
        for (const t of tolerations) pod.tolerate(t);
        assert.deepEqual(runFilter(plugin, pod.info, [cordoned]).filter, [expected]);
      });
    }
  });

  it('takes no args', () => assert.equal(argsError(factory, [1]), 'NodeUnschedulable: args: Invalid value: [1]: must be an object'));
});

// upstream nodeunschedulable/node_unschedulable_test.go TestIsSchedulableAfterNodeChange and
// TestIsSchedulableAfterPodTolerationChange (the rows giving the hint an object of another kind are
// left out: the queue hands it nodes and pods only).
describe('NodeUnschedulable queueing hints', () => {
  const pod = makePod('p').obj;
  const notReady = (n: NodeBuilder) => n.taint('node.kubernetes.io/not-ready', undefined, 'NoExecute');
  const nodes: Array<[name: string, oldObj: unknown, newObj: unknown, hint: QueueingHint]> = [
    ['skip-queue-on-unschedulable-node-added', undefined, makeNode('n').unschedulable().obj, 'QueueSkip'],
    ['queue-on-schedulable-node-added', undefined, makeNode('n').obj, 'Queue'],
    [
      'skip-unrelated-change-unschedulable-true',
      makeNode('n').unschedulable().obj,
      notReady(makeNode('n').unschedulable()).obj,
      'QueueSkip',
    ],
    ['skip-unrelated-change-unschedulable-false', makeNode('n').obj, notReady(makeNode('n')).obj, 'QueueSkip'],
    ['queue-on-unschedulable-field-change', makeNode('n').unschedulable().obj, makeNode('n').obj, 'Queue'],
  ];
  for (const [name, oldObj, newObj, hint] of nodes) {
    it(`isSchedulableAfterNodeChange: ${name}`, () => assert.equal(isSchedulableAfterNodeChange(pod, oldObj, newObj), hint));
  }
  const pods: Array<[name: string, newObj: unknown, hint: QueueingHint]> = [
    [
      'queue-when-the-unsched-pod-gets-toleration',
      makePod('p').tolerate({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }).obj,
      'Queue',
    ],
    [
      'skip-when-the-unsched-pod-gets-unrelated-toleration',
      makePod('p').tolerate({ key: 'unrelated-key', operator: 'Exists' }).obj,
      'QueueSkip',
    ],
  ];
  for (const [name, newObj, hint] of pods) {
    it(`isSchedulableAfterTargetPodTolerationChange: ${name}`, () =>
      assert.equal(isSchedulableAfterTargetPodTolerationChange(pod, makePod('p').obj, newObj), hint));
  }
});
