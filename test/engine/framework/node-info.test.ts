import assert from 'node:assert/strict';
import { type NodeInfo } from '../../../src/engine/framework/node-info';
import { makeNode, makePod, nodeInfoOf } from '../../builders';

const inNamespace = (info: NodeInfo, namespace: string): string[] => info.podsInNamespace(namespace).map((p) => p.key);

describe('engine/framework/node-info', () => {
  describe('podsInNamespace: the node pods of one namespace, in the order of pods, after every change', () => {
    const table: Array<[what: string, change: (info: NodeInfo, other: NodeInfo) => void, ns: string, want: string[]]> = [
      ['as built', () => {}, 'a', ['a/p1', 'a/p3']],
      ['the default namespace', () => {}, 'default', ['default/p4']],
      ['a namespace with no pod there', () => {}, 'c', []],
      ['a pod added', (info) => info.addPod(makePod('p5', 'a').info), 'a', ['a/p1', 'a/p3', 'a/p5']],
      ['a pod removed', (info) => info.removePod(makePod('p1', 'a').info.id), 'a', ['a/p3']],
      ['refreshed from another copy', (info, other) => info.refreshFrom(other), 'a', ['a/p9']],
    ];
    for (const [what, change, ns, want] of table) {
      it(what, () => {
        const node = makeNode('n1');
        const info = nodeInfoOf(node, makePod('p1', 'a'), makePod('p2', 'b'), makePod('p3', 'a'), makePod('p4'));
        const other = nodeInfoOf(node.obj, makePod('p9', 'a'));
        // Asked once before the change, so a stale index would show.
        assert.deepEqual(inNamespace(info, 'a'), ['a/p1', 'a/p3']);
        change(info, other);
        assert.deepEqual(inNamespace(info, ns), want);
        assert.deepEqual(inNamespace(info.clone(), ns), want, 'a clone lists the same');
      });
    }
  });
});
