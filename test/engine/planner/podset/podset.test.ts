import assert from 'node:assert/strict';
import { POD_SET_LABEL } from '../../../../src/engine/planner/plan';
import { podSetOf, podSetsIn, resolvePodSet } from '../../../../src/engine/planner/podset/podset';
import { makePod } from '../../../builders';
import { setPod } from '../fixtures';

describe('engine/planner/podset/podset', () => {
  describe('a pod belongs to a pod set by its label and the pod-set scheduler', () => {
    const table = [
      {
        name: 'label and schedulerName podset-planner-scheduler',
        pod: setPod('a', 'web', 'shop'),
        set: { namespace: 'shop', name: 'web' },
      },
      {
        name: 'the label but another scheduler: its own scheduler places it',
        pod: makePod('b').labels({ [POD_SET_LABEL]: 'web' }),
        set: undefined,
      },
      { name: 'the scheduler but no label', pod: makePod('c').scheduler('podset-planner-scheduler'), set: undefined },
      { name: 'an empty label', pod: setPod('d', ''), set: undefined },
    ];
    for (const { name, pod, set } of table) it(name, () => assert.deepEqual(podSetOf(pod.obj), set));

    it('the scheduler name is configurable', () => {
      assert.deepEqual(
        podSetOf(
          makePod('e')
            .labels({ [POD_SET_LABEL]: 'web' })
            .scheduler('pallet').obj,
          'pallet',
        ),
        { namespace: 'default', name: 'web' },
      );
    });
  });

  it('resolves a set in its namespace, by name, split into pending and bound members', () => {
    const pods = [
      setPod('web-2').obj,
      setPod('web-1').node('n1').obj,
      setPod('web-0').obj,
      setPod('web-0', 'web', 'other').obj,
      setPod('db-0', 'db').obj,
    ];
    const set = resolvePodSet(pods, { namespace: 'default', name: 'web' });
    assert.deepEqual(
      set.pods.map((p) => p.metadata.name),
      ['web-0', 'web-1', 'web-2'],
    );
    assert.deepEqual(
      set.pending.map((p) => p.metadata.name),
      ['web-0', 'web-2'],
    );
    assert.deepEqual(
      set.bound.map((p) => p.metadata.name),
      ['web-1'],
    );
  });

  it('a set nobody names has no pods', () => {
    assert.deepEqual(resolvePodSet([setPod('web-0').obj], { namespace: 'default', name: 'cache' }).pods, []);
  });

  it('lists the sets the pods name, in order of first appearance', () => {
    const pods = [setPod('a', 'db').obj, setPod('b', 'web').obj, setPod('c', 'db').obj, makePod('d').obj];
    assert.deepEqual(podSetsIn(pods), [
      { namespace: 'default', name: 'db' },
      { namespace: 'default', name: 'web' },
    ]);
  });
});
