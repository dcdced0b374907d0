import assert from 'node:assert/strict';
import { doNotScheduleTaint, findUntoleratedTaint, toleratesTaint } from '../../../src/engine/api/taints';
import { type Taint, type Toleration } from '../../../src/engine/api/types';

describe('engine/api/taints', () => {
  describe('a toleration tolerates a taint', () => {
    const taint: Taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
    const table: Array<[name: string, toleration: Toleration, want: boolean]> = [
      ['Equal with the same key, value and effect', { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' }, true],
      ['Equal is the default operator', { key: 'dedicated', value: 'gpu' }, true],
      ['another value', { key: 'dedicated', value: 'cpu' }, false],
      ['Exists with the key, any value', { key: 'dedicated', operator: 'Exists' }, true],
      ['Exists without a key: every taint', { operator: 'Exists' }, true],
      ['another effect', { key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }, false],
      ['another key', { key: 'team', operator: 'Exists' }, false],
    ];
    for (const [name, toleration, want] of table) it(name, () => assert.equal(toleratesTaint(toleration, taint), want));
  });

  it('finds the first untolerated taint among those the filter keeps', () => {
    const taints: Taint[] = [
      { key: 'soft', effect: 'PreferNoSchedule' },
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoExecute' },
    ];
    assert.deepEqual(findUntoleratedTaint(taints, [], doNotScheduleTaint), { key: 'a', effect: 'NoSchedule' });
    assert.deepEqual(findUntoleratedTaint(taints, [{ key: 'a', operator: 'Exists' }], doNotScheduleTaint), { key: 'b', effect: 'NoExecute' });
    assert.equal(findUntoleratedTaint(taints, [{ operator: 'Exists' }], doNotScheduleTaint), undefined);
    assert.equal(findUntoleratedTaint(undefined, undefined, doNotScheduleTaint), undefined);
  });
});
