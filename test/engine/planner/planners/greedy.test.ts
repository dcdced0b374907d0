import assert from 'node:assert/strict';
import { greedy } from '../../../../src/engine/planner/planners/greedy';
import { makeNode } from '../../../builders';
import { outcome, request, setPod } from '../fixtures';

const node = (name: string, cpu = '4') => makeNode(name).alloc({ cpu, memory: '16Gi', pods: '110' });

describe('engine/planner/planners/greedy', () => {
  it('runs the pipeline pod by pod, each placement assumed before the next (the default profile spreads)', () => {
    const result = greedy.plan(request([node('n1'), node('n2')], [setPod('a').req({ cpu: '3' }), setPod('b').req({ cpu: '3' })]));
    assert.deepEqual(outcome(result), { placed: { a: 'n1', b: 'n2' }, unplaced: [] });
  });

  it('in queue order: a higher priority pod is placed first, whatever the order given', () => {
    const result = greedy.plan(request([node('n1')], [setPod('low').req({ cpu: '3' }), setPod('high').req({ cpu: '3' }).priority(100)]));
    assert.deepEqual(outcome(result), { placed: { high: 'n1' }, unplaced: ['low'] });
    assert.deepEqual(
      result.placed.map((p) => p.diagnosis?.chosenNode),
      ['n1'],
    );
  });

  it('a pod left out carries the Diagnosis of its cycle and the upstream message', () => {
    const result = greedy.plan(request([node('n1', '2'), node('n2', '2').taint('dedicated', 'gpu')], [setPod('big').req({ cpu: '3' })]));
    const [left] = result.unplaced;
    assert.equal(left?.message, '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).');
    assert.equal(left?.diagnosis.message, left?.message);
    assert.deepEqual(
      left?.diagnosis.rejections.map((r) => [r.node, r.plugin]),
      [
        ['n1', 'NodeResourcesFit'],
        ['n2', 'TaintToleration'],
      ],
    );
  });

  it('keeps a pod to the nodes it is restricted to', () => {
    const eligible = new Map([['default/a', new Set(['n2'])]]);
    const result = greedy.plan(request([node('n1'), node('n2')], [setPod('a')], { eligible }));
    assert.deepEqual(outcome(result).placed, { a: 'n2' });
  });
});
