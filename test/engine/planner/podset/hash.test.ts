import assert from 'node:assert/strict';
import type { Node, Pod } from '../../../../src/engine/api/types';
import { snapshotHash } from '../../../../src/engine/planner/podset/hash';
import { makeNode, makePod } from '../../../builders';

const n1 = makeNode('n1').obj;
const n2 = makeNode('n2').obj;
const a = makePod('a').req({ cpu: '1' }).obj;
const b = makePod('b').node('n1').obj;

describe('engine/planner/podset/hash', () => {
  it('is 64 bits, written fnv64:<16 hex digits>', () => assert.match(snapshotHash([n1], [a]), /^fnv64:[0-9a-f]{16}$/));

  it('the same nodes and pods hash the same, whatever their order or the order of their fields', () => {
    const reordered: Node = {
      status: n1.status!,
      spec: n1.spec!,
      metadata: { labels: n1.metadata.labels!, uid: n1.metadata.uid!, name: 'n1' },
    };
    assert.equal(snapshotHash([n1, n2], [a, b]), snapshotHash([n2, reordered], [b, a]));
  });

  it('is the hash plans were always stored with (the history compares new plans with stored ones)', () => {
    assert.equal(snapshotHash([n1, makeNode('n2').taint('dedicated', 'gpu').obj], [a, b]), 'fnv64:4f9459ca3c1a5d38');
    assert.equal(snapshotHash([], []), 'fnv64:0cd59d9e3a2607df');
  });

  describe('any change shows', () => {
    const base = snapshotHash([n1, n2], [a, b]);
    const table: Array<[string, Node[], Pod[]]> = [
      ['a node less', [n1], [a, b]],
      ['a pod less', [n1, n2], [a]],
      ['a request changed', [n1, n2], [makePod('a').req({ cpu: '2' }).obj, b]],
      ['a pod bound elsewhere', [n1, n2], [a, makePod('b').node('n2').obj]],
      ['a node tainted', [makeNode('n1').taint('dedicated', 'gpu').obj, n2], [a, b]],
    ];
    for (const [what, nodes, pods] of table) it(what, () => assert.notEqual(snapshotHash(nodes, pods), base));
  });
});
