import assert from 'node:assert/strict';
import type { Toleration } from '../../../src/engine/api/types';
import { Code } from '../../../src/engine/framework/status';
import { factory } from '../../../src/engine/plugins/NodeUnschedulable';
import { makeNode, makePod, nodeInfoOf } from '../../builders';
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
