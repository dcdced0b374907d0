import assert from 'node:assert/strict';
import { LruCache, NodeAggregate, NodeMemo } from '../../../src/engine/framework/node-memo';
import { type NodeInfo } from '../../../src/engine/framework/node-info';
import { makeNode, makePod, nodeInfoOf } from '../../builders';

const podCount = (node: NodeInfo): number => node.pods.length;

describe('engine/framework/node-memo', () => {
  describe('NodeMemo', () => {
    it('computes once per node, key and generation', () => {
      const memo = new NodeMemo<number>();
      const node = nodeInfoOf(makeNode('n1'), makePod('a'));
      let computed = 0;
      const count = (n: NodeInfo, offset: number) => {
        computed++;
        return n.pods.length + offset;
      };
      assert.equal(memo.get(node, 'k', count, 0), 1);
      assert.equal(memo.get(node, 'k', count, 0), 1);
      assert.equal(computed, 1, 'same node, key and generation: remembered');
      assert.equal(memo.get(node, 'other', count, 10), 11);
      assert.equal(computed, 2, 'another key: computed');
      node.addPod(makePod('b').info);
      assert.equal(memo.get(node, 'k', count, 0), 2);
      assert.equal(computed, 3, 'a pod added (new generation): computed again');
      assert.equal(memo.get(node.clone(), 'k', count, 0), 2);
      assert.equal(computed, 4, 'another NodeInfo object: computed');
    });
  });

  describe('NodeAggregate', () => {
    /** The total pods over the nodes, with how many contributions were computed. */
    function pods() {
      const result = { total: 0, computed: 0 };
      const aggregate = new NodeAggregate<number>(
        (node) => {
          result.computed++;
          return podCount(node);
        },
        (count, sign) => (result.total += sign * count),
      );
      return { result, aggregate };
    }

    it('recomputes only the nodes that changed since the last update', () => {
      const nodes = [nodeInfoOf(makeNode('n1'), makePod('a')), nodeInfoOf(makeNode('n2')), nodeInfoOf(makeNode('n3'), makePod('b'), makePod('c'))];
      const { result, aggregate } = pods();
      aggregate.update(nodes);
      assert.deepEqual(result, { total: 3, computed: 3 });
      aggregate.update(nodes);
      assert.deepEqual(result, { total: 3, computed: 3 }, 'nothing changed');
      nodes[1]?.addPod(makePod('d').info);
      aggregate.update(nodes);
      assert.deepEqual(result, { total: 4, computed: 4 }, 'n2 changed');
    });

    it('follows nodes replaced, added and removed', () => {
      const nodes = [nodeInfoOf(makeNode('n1'), makePod('a')), nodeInfoOf(makeNode('n2'), makePod('b'))];
      const { result, aggregate } = pods();
      aggregate.update(nodes);
      aggregate.update([nodes[0] as NodeInfo, nodeInfoOf(makeNode('n2')), nodeInfoOf(makeNode('n3'), makePod('c'), makePod('d'))]);
      assert.equal(result.total, 3, 'n2 replaced by an empty copy, n3 added');
      aggregate.update([nodes[0] as NodeInfo]);
      assert.equal(result.total, 1, 'n2 and n3 gone');
    });
  });

  it('LruCache keeps the most recently used values', () => {
    const cache = new LruCache<string>(2);
    const made: string[] = [];
    const get = (key: string) => cache.get(key, () => (made.push(key), key.toUpperCase()));
    assert.equal(get('a'), 'A');
    get('b');
    get('a');
    get('c');
    assert.deepEqual(made, ['a', 'b', 'c']);
    get('a');
    get('b');
    assert.deepEqual(made, ['a', 'b', 'c', 'b'], 'b was the least recently used when c came');
  });
});
