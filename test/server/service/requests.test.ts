import assert from 'node:assert/strict';
import { planSize, takesLong } from '../../../src/server/service';
import { docs, node, pod, trigger, workspaceOf } from './fixtures';

describe('server/service/requests: how much a preview or Schedule Now has to plan, for its progress notification', () => {
  const analysis = workspaceOf({ 'a.yaml': docs(trigger('s'), node('n1'), node('n2'), node('n3'), pod('a', 's'), pod('b', 's'), pod('c', 't')) }).analysis();

  const cases: ReadonlyArray<[what: string, params: object, size: unknown]> = [
    ['a trigger’s pod set', { trigger: { name: 's' } }, { podSet: 's', pods: 2, nodes: 3 }],
    ['a pod set by name', { podSet: { name: 't' } }, { podSet: 't', pods: 1, nodes: 3 }],
    ['a trigger that is not there: nothing to plan', { trigger: { name: 'nope' } }, undefined],
    ['a pod set without pods: nothing to plan', { podSet: { name: 'empty' } }, undefined],
  ];
  for (const [what, params, size] of cases) it(what, () => assert.deepEqual(planSize(params, analysis), size));

  it('a plan takes long from 100,000 pod × node pairs on', () => {
    assert.equal(takesLong({ podSet: 's', pods: 199, nodes: 500 }), false);
    assert.equal(takesLong({ podSet: 's', pods: 200, nodes: 500 }), true);
  });
});
