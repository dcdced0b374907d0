import assert from 'node:assert/strict';
import { nodeSelectorTermMatches, requiredNodeAffinity } from '../../../src/engine/api/node-affinity';
import { type NodeSelectorRequirement, type NodeSelectorTerm } from '../../../src/engine/api/types';
import { makeNode, makePod } from '../../builders';

describe('engine/api/node-affinity', () => {
  const node = makeNode('n1').labels({ zone: 'a', gpus: '4' }).obj;

  describe('a node selector term: requirements ANDed on labels and the node name', () => {
    const expr = (...matchExpressions: NodeSelectorRequirement[]): NodeSelectorTerm => ({ matchExpressions });
    const table: Array<[name: string, term: NodeSelectorTerm, want: boolean]> = [
      ['In', expr({ key: 'zone', operator: 'In', values: ['a', 'b'] }), true],
      ['NotIn', expr({ key: 'zone', operator: 'NotIn', values: ['a'] }), false],
      ['NotIn on a missing label', expr({ key: 'rack', operator: 'NotIn', values: ['r1'] }), true],
      ['Exists', expr({ key: 'gpus', operator: 'Exists' }), true],
      ['DoesNotExist', expr({ key: 'rack', operator: 'DoesNotExist' }), true],
      ['Gt compares integers', expr({ key: 'gpus', operator: 'Gt', values: ['3'] }), true],
      ['Lt compares integers', expr({ key: 'gpus', operator: 'Lt', values: ['4'] }), false],
      ['Gt on a label that is no integer', expr({ key: 'zone', operator: 'Gt', values: ['1'] }), false],
      ['Gt with two values is malformed', expr({ key: 'gpus', operator: 'Gt', values: ['1', '2'] }), false],
      ['In without values is malformed', expr({ key: 'zone', operator: 'In', values: [] }), false],
      ['all requirements must hold', expr({ key: 'zone', operator: 'In', values: ['a'] }, { key: 'gpus', operator: 'Lt', values: ['2'] }), false],
      ['matchFields on metadata.name', { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }, true],
      ['matchFields on another field', { matchFields: [{ key: 'spec.unschedulable', operator: 'In', values: ['n1'] }] }, false],
      ['an empty term matches no node', {}, false],
    ];
    for (const [name, term, want] of table) it(name, () => assert.equal(nodeSelectorTermMatches(term, node), want));
  });

  describe('a pod’s required node affinity: nodeSelector and any of its required terms', () => {
    const table: Array<[name: string, pod: ReturnType<typeof makePod>, want: boolean]> = [
      ['no constraints', makePod('p'), true],
      ['a matching nodeSelector', makePod('p').nodeSelector({ zone: 'a' }), true],
      ['a nodeSelector that differs', makePod('p').nodeSelector({ zone: 'b' }), false],
      ['one of two terms holds', makePod('p').requireNode({ key: 'zone', operator: 'In', values: ['b'] }).requireNode({ key: 'gpus', operator: 'Exists' }), true],
      ['the term holds but the nodeSelector does not', makePod('p').nodeSelector({ zone: 'b' }).requireNode({ key: 'gpus', operator: 'Exists' }), false],
    ];
    for (const [name, pod, want] of table) it(name, () => assert.equal(requiredNodeAffinity(pod.obj)(node), want));
  });
});
