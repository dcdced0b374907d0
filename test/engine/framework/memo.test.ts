import assert from 'node:assert/strict';
import { NodeAggregate, NodeMemo } from '../../../src/engine/framework/memo';
import { type NodeInfo, type NodeInfoLister } from '../../../src/engine/framework/node-info';
import { Snapshot } from '../../../src/engine/framework/snapshot';
import { makeNode, makePod, nodeInfoOf } from '../../builders';

const podCount = (node: NodeInfo): number => node.pods.length;

describe('engine/framework/memo', () => {
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
      const nodes = [
        nodeInfoOf(makeNode('n1'), makePod('a')),
        nodeInfoOf(makeNode('n2')),
        nodeInfoOf(makeNode('n3'), makePod('b'), makePod('c')),
      ];
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

    it("over a snapshot's list, looks only at the positions the snapshot changed since the last update", () => {
      const sources = [nodeInfoOf(makeNode('n1'), makePod('a')), nodeInfoOf(makeNode('n2')), nodeInfoOf(makeNode('n3'))];
      const snapshot = new Snapshot([]);
      snapshot.update(sources);
      // The snapshot, with the positions it reports as changed written down.
      const looked: number[] = [];
      const lister: NodeInfoLister = {
        list: () => snapshot.list(),
        get: (name) => snapshot.get(name),
        havePodsWithAffinity: () => snapshot.havePodsWithAffinity(),
        havePodsWithRequiredAntiAffinity: () => snapshot.havePodsWithRequiredAntiAffinity(),
        imageNumNodes: (image) => snapshot.imageNumNodes(image),
        changeMark: () => snapshot.changeMark(),
        changedSince: (mark) => {
          const changed = snapshot.changedSince(mark);
          looked.push(...(changed ?? []));
          return changed;
        },
      };
      const { result, aggregate } = pods();
      aggregate.update(snapshot.list(), lister);
      assert.deepEqual(result, { total: 1, computed: 3 }, 'the first update computes every node');
      aggregate.update(snapshot.list(), lister);
      assert.deepEqual([result, looked], [{ total: 1, computed: 3 }, []], 'nothing changed: no node looked at');
      sources[2]?.addPod(makePod('b').info);
      snapshot.update(sources, [sources[2] as NodeInfo]);
      aggregate.update(snapshot.list(), lister);
      assert.deepEqual([result, looked], [{ total: 2, computed: 4 }, [2]], 'n3 changed: only n3 looked at');
      snapshot.get('n1')?.addPod(makePod('what-if').info);
      aggregate.update(snapshot.list(), lister);
      assert.deepEqual([result, looked], [{ total: 3, computed: 5 }, [2, 0]], 'a what-if pod on the copy of n1');
      snapshot.update([...sources].reverse());
      aggregate.update(snapshot.list(), lister);
      assert.deepEqual([result.total, looked], [2, [2, 0]], 'reordered (and the what-if undone): every node compared');
    });
  });
});
