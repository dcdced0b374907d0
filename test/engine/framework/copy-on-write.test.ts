import assert from 'node:assert/strict';
import { CopyOnWriteCluster } from '../../../src/engine/framework/copy-on-write';
import { makeNode, makePod, snapshotOf } from '../../builders';

describe('engine/framework/copy-on-write: the cluster as a plan leaves it, copying only the nodes it changes', () => {
  const snapshot = snapshotOf([makeNode('n1'), makeNode('n2')]);
  const index = new Map(snapshot.list().map((n, i) => [n.name, i]));
  const a = makePod('a').req({ cpu: '1' }).info;
  const b = makePod('b').req({ cpu: '1' }).info;

  it('a pod put on a node changes a copy of that node; the snapshot and the other nodes are shared', () => {
    const whatIf = new CopyOnWriteCluster(snapshot, index);
    assert.ok(whatIf.addPod('n1', a));
    assert.equal(whatIf.get('n1')?.pods.length, 1);
    assert.equal(snapshot.get('n1')?.pods.length, 0);
    assert.equal(whatIf.get('n2'), snapshot.get('n2'));
    assert.equal(whatIf.addPod('n9', a), false);
  });

  it('a copy goes its own way from where the original was', () => {
    const first = new CopyOnWriteCluster(snapshot, index);
    first.addPod('n1', a);
    const second = first.copy();
    second.addPod('n1', b);
    second.removePod('n1', a);
    assert.deepEqual(
      first.get('n1')?.pods.map((p) => p.key),
      ['default/a'],
    );
    assert.deepEqual(
      second.get('n1')?.pods.map((p) => p.key),
      ['default/b'],
    );
  });
});
