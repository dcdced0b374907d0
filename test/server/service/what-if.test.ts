import assert from 'node:assert/strict';
import { podInfo } from '../../../src/engine/framework/node-info';
import { docs, node, pod, workspaceOf } from './fixtures';

describe('server/service/what-if: the cluster as a plan leaves it, copying only the nodes it changes', () => {
  const ws = workspaceOf({ 'c.yaml': docs(node('n1'), node('n2'), pod('a', 's'), pod('b', 's')) });
  const engine = ws.analysis().engine;
  const [a, b] = ws.model().pods.map((p) => {
    const info = podInfo(p.value);
    assert.ok(info.ok);
    return info.value;
  });

  it('a pod put on a node changes a copy of that node; the snapshot and the other nodes are shared', () => {
    const whatIf = engine.whatIf();
    assert.ok(whatIf.addPod('n1', a!));
    assert.equal(whatIf.get('n1')?.pods.length, 1);
    assert.equal(engine.snapshot.get('n1')?.pods.length, 0);
    assert.equal(whatIf.get('n2'), engine.snapshot.get('n2'));
    assert.equal(whatIf.addPod('n9', a!), false);
  });

  it('a copy goes its own way from where the original was', () => {
    const first = engine.whatIf();
    first.addPod('n1', a!);
    const second = first.copy();
    second.addPod('n1', b!);
    second.removePod('n1', a!);
    assert.deepEqual(first.get('n1')?.pods.map((p) => p.key), ['default/a']);
    assert.deepEqual(second.get('n1')?.pods.map((p) => p.key), ['default/b']);
  });
});
