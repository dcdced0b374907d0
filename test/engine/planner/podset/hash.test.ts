import assert from 'node:assert/strict';
import type { Node, Pod } from '../../../../src/engine/api/types';
import { snapshotHash, writeAhead } from '../../../../src/engine/planner/podset/hash';
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

  it('the same objects asked again, right after or after others, hash as they did the first time', () => {
    const first = snapshotHash([n1, n2], [a, b]);
    assert.equal(snapshotHash([n1, n2], [a, b]), first);
    assert.notEqual(snapshotHash([n1], [a, b]), first);
    assert.notEqual(snapshotHash([n1, n2], [a]), first);
    assert.equal(snapshotHash([n2, n1], [b, a]), first);
    // A node where a pod was, and nothing else moved: the lists differ though the objects are the same.
    assert.notEqual(snapshotHash([], [n1 as unknown as Pod, n2 as unknown as Pod, a, b]), first);
  });

  it('texts written ahead, in steps, hash as texts written by the hash itself', () => {
    const nodes = [makeNode('w1').obj, makeNode('w2').taint('dedicated', 'gpu').obj];
    const pods = [makePod('w').req({ cpu: '1' }).obj, makePod('v').node('w1').obj];
    const objects = [...nodes, ...pods];
    assert.equal(writeAhead(objects, 0, 3), 3);
    assert.equal(writeAhead(objects, 3, 3), 4);
    assert.equal(writeAhead(objects, 4, 3), 4);
    assert.equal(snapshotHash([n1, makeNode('n2').taint('dedicated', 'gpu').obj], [a, b]), 'fnv64:4f9459ca3c1a5d38');
    assert.equal(
      snapshotHash(nodes, pods),
      snapshotHash(
        [makeNode('w1').obj, makeNode('w2').taint('dedicated', 'gpu').obj],
        [makePod('w').req({ cpu: '1' }).obj, makePod('v').node('w1').obj],
      ),
    );
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
