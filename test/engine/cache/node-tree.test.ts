import assert from 'node:assert/strict';
import { NodeTree, zoneKey } from '../../../src/engine/cache/node-tree';
import { makeNode } from '../../builders';

describe('engine/cache/node-tree', () => {
  describe('zoneKey: region and zone labels, the beta ones first', () => {
    const table: Array<[labels: Record<string, string>, key: string]> = [
      [{}, ''],
      [{ 'topology.kubernetes.io/zone': 'a' }, ':\0:a'],
      [{ 'topology.kubernetes.io/region': 'eu', 'topology.kubernetes.io/zone': 'a' }, 'eu:\0:a'],
      [{ 'failure-domain.beta.kubernetes.io/zone': 'old', 'topology.kubernetes.io/zone': 'new' }, ':\0:old'],
      [{ 'failure-domain.beta.kubernetes.io/region': 'us', 'topology.kubernetes.io/region': 'eu' }, 'us:\0:'],
    ];
    for (const [labels, key] of table) {
      it(JSON.stringify(labels), () => assert.equal(zoneKey(makeNode('n').labels(labels).obj), key));
    }
  });

  describe('lists nodes round-robin across zones, zones in the order first seen', () => {
    // Each op is "+name@zone" or "-name@zone".
    const table: Array<[what: string, ops: string[], list: string[]]> = [
      ['no nodes', [], []],
      ['one zone keeps the order added', ['+n1@a', '+n2@a', '+n3@a'], ['n1', 'n2', 'n3']],
      ['zones take turns', ['+a1@a', '+a2@a', '+a3@a', '+b1@b', '+c1@c', '+c2@c'], ['a1', 'b1', 'c1', 'a2', 'c2', 'a3']],
      ['a removed node leaves its place', ['+a1@a', '+a2@a', '+b1@b', '-a1@a'], ['a2', 'b1']],
      ['a zone emptied and seen again comes last', ['+a1@a', '+b1@b', '-a1@a', '+a2@a'], ['b1', 'a2']],
      ['removing a node the tree does not hold changes nothing', ['+a1@a', '-a1@b', '-x@a'], ['a1']],
    ];
    for (const [what, ops, list] of table) {
      it(what, () => {
        const tree = new NodeTree();
        for (const op of ops) {
          const [name = '', zone = ''] = op.slice(1).split('@');
          if (op.startsWith('+')) tree.add(name, zone);
          else tree.remove(name, zone);
        }
        assert.deepEqual(tree.list(), list);
        assert.equal(tree.size, list.length);
      });
    }
  });
});
