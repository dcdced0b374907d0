import assert from 'node:assert/strict';
import { closest, plural, shortList } from '../../../src/server/service/words';

describe('server/service/words', () => {
  it('counts nouns', () =>
    assert.deepEqual([plural(1, 'pod'), plural(3, 'pod'), plural(0, 'entry', 'entries')], ['1 pod', '3 pods', '0 entries']));
  it('keeps lists short', () => assert.equal(shortList(['a', 'b', 'c', 'd'], 2), 'a, b and 2 more'));
  it('suggests only near misses', () => {
    const nodes = ['node-1', 'node-2', 'big-1', 'worker'];
    assert.deepEqual(
      ['nod-1', 'BIG-1', 'wrker', 'gpu-9', 'x'].map((n) => closest(n, nodes)),
      ['node-1', 'big-1', 'worker', undefined, undefined],
    );
  });
});
