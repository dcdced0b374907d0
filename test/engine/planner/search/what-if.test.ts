import assert from 'node:assert/strict';
import { WhatIf } from '../../../../src/engine/planner/search/what-if';
import { makeNode, snapshotOf } from '../../../builders';
import { setPod } from '../fixtures';

const node = (name: string) => makeNode(name).alloc({ cpu: '4', memory: '8Gi', pods: '110' });

describe('engine/planner/search/what-if (the planner’s scratch copy of the cluster)', () => {
  it('copies the cluster: placing a pod on the copy leaves the request’s snapshot as it was', () => {
    const base = snapshotOf([node('n1'), node('n2')], []);
    const whatIf = new WhatIf(base);
    whatIf.assume(setPod('a').req({ cpu: '1' }).info, whatIf.indexOf('n2') as number);
    assert.equal(whatIf.nodes[1]?.pods.length, 1);
    assert.equal(base.list()[1]?.pods.length, 0);
  });

  it('tells per-node consumers which nodes a placement or removal changed, so they refresh only those', () => {
    const whatIf = new WhatIf(snapshotOf([node('n1'), node('n2'), node('n3')], []));
    const pod = setPod('a').req({ cpu: '1' }).info;
    const mark = whatIf.snapshot.changeMark();
    const version = whatIf.version;
    whatIf.assume(pod, 2);
    assert.deepEqual(whatIf.snapshot.changedSince(mark), [2]);
    const placed = whatIf.snapshot.changeMark();
    whatIf.forget(pod, 2);
    assert.deepEqual(whatIf.snapshot.changedSince(placed), [2]);
    assert.equal(whatIf.version, version + 2, 'PreFilter states made before are stale');
  });
});
