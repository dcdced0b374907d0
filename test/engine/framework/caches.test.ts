import assert from 'node:assert/strict';
import { LruCache } from '../../../src/engine/framework/caches';

describe('engine/framework/caches', () => {
  it('LruCache keeps the most recently used values', () => {
    const cache = new LruCache<string>(2);
    const made: string[] = [];
    const get = (key: string) => cache.get(key, () => (made.push(key), key.toUpperCase()));
    assert.equal(get('a'), 'A');
    get('b');
    get('a');
    get('c');
    assert.deepEqual(made, ['a', 'b', 'c']);
    get('a');
    get('b');
    assert.deepEqual(made, ['a', 'b', 'c', 'b'], 'b was the least recently used when c came');
  });
});
