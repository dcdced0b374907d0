import assert from 'node:assert/strict';
import { codeActions, planSize, takesLong, validate, workspaceSummary } from '../../../src/server/service';
import type { History } from '../../../src/server/history';
import { docs, node, plan, pod, trigger, uriOf, workspaceOf } from './fixtures';

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

describe('server/service/requests: the workspace summary follows the document', () => {
  const history = { unavailable: 'off' } as unknown as History;
  const summaryOf = (text: string) => workspaceSummary(workspaceOf({ 'a.yaml': text }).analysis(), [], { errors: 0, warnings: 0 }, history).podSets[0];

  it('a misspelt state is shown as written and invalid (read as Planning), and its diagnostic has a quick fix', () => {
    const text = docs(trigger('s', 'Planing'), node('n1'), pod('a', 's'));
    assert.deepEqual([summaryOf(text)?.state, summaryOf(text)?.invalidState], ['Planning', 'Planing']);
    const analysis = workspaceOf({ 'a.yaml': text }).analysis();
    const d = validate(uriOf('a.yaml'), analysis).find((x) => x.code === 'schema/enum');
    assert.ok(d, 'a diagnostic on the state');
    assert.deepEqual(codeActions(uriOf('a.yaml'), d.range, [d], analysis).filter((a) => a.kind === 'quickfix').map((a) => a.title), ['Change to Planning']);
    assert.equal(summaryOf(docs(trigger('s'), node('n1'), pod('a', 's')))?.invalidState, undefined);
  });

  it('a scheduled set’s pods in its plan are planned, not “to place”', () => {
    const scheduled = summaryOf(docs(trigger('s', 'Schedule'), plan('s', [['a', 'n1']]), node('n1'), pod('a', 's'), pod('b', 's')));
    assert.deepEqual([scheduled?.pending, scheduled?.planned], [1, 1]);
    const planning = summaryOf(docs(trigger('s'), plan('s', [['a', 'n1']]), node('n1'), pod('a', 's'), pod('b', 's')));
    assert.deepEqual([planning?.pending, planning?.planned], [2, undefined]);
  });
});
