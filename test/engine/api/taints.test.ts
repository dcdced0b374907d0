import assert from 'node:assert/strict';
import { findUntoleratedTaint, isDoNotScheduleTaint, toleratesTaint } from '../../../src/engine/api/taints';
import type { Taint, Toleration } from '../../../src/engine/api/types';

describe('engine/api/taints', () => {
  describe('toleratesTaint', () => {
    const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    const table: Array<[Toleration, boolean]> = [
      [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, true],
      [{ key: 'dedicated', value: 'gpu' }, true],
      [{ key: 'dedicated', value: 'cpu' }, false],
      [{ key: 'dedicated', operator: 'Exists' }, true],
      [{ key: 'other', operator: 'Exists' }, false],
      [{ operator: 'Exists' }, true],
      [{ operator: 'Exists', effect: 'NoExecute' }, false],
      [{ key: 'dedicated', operator: 'Exists', effect: 'PreferNoSchedule' }, false],
    ];
    for (const [toleration, tolerates] of table)
      it(`${JSON.stringify(toleration)} → ${tolerates}`, () => assert.equal(toleratesTaint(toleration, taint), tolerates));
  });

  it('findUntoleratedTaint returns the first hard taint not tolerated', () => {
    const taints: Taint[] = [
      { key: 'soft', effect: 'PreferNoSchedule' },
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoExecute' },
    ];
    assert.deepEqual(findUntoleratedTaint(taints, [{ key: 'a', operator: 'Exists' }], isDoNotScheduleTaint), {
      key: 'b',
      effect: 'NoExecute',
    });
    assert.equal(findUntoleratedTaint(taints, [{ operator: 'Exists' }], isDoNotScheduleTaint), undefined);
    assert.equal(findUntoleratedTaint(undefined, undefined, isDoNotScheduleTaint), undefined);
  });
});
