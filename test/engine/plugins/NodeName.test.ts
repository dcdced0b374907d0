import assert from 'node:assert/strict';
import { Code } from '../../../src/engine/framework/status';
import { ERR_REASON, factory } from '../../../src/engine/plugins/NodeName';
import { makeNode, makePod, nodeInfoOf } from '../../builders';
import { argsError, build, runFilter } from './harness';

describe('engine/plugins/NodeName', () => {
  const plugin = build(factory);
  const nodes = [nodeInfoOf(makeNode('n1')), nodeInfoOf(makeNode('n2'))];
  const rejected = { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match the requested node name"] };

  it('uses upstream reason text', () => assert.equal(ERR_REASON, rejected.reasons[0]));

  it('a pod without spec.nodeName fits every node', () => {
    assert.deepEqual(runFilter(plugin, makePod('p').info, nodes).filter, ['ok', 'ok']);
  });

  it('a pod naming a node fits only that node, unresolvably elsewhere', () => {
    assert.deepEqual(runFilter(plugin, makePod('p').node('n2').info, nodes).filter, [rejected, 'ok']);
  });

  it('takes no args', () => assert.equal(argsError(factory, { nodeName: 'n1' }), 'NodeName: unknown field "nodeName"'));
});
