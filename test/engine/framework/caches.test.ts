import assert from 'node:assert/strict';
import { BoundedMap, keyPerPod, LruCache, WeakCache } from '../../../src/engine/framework/caches';
import { makePod } from '../../builders';

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

  it('BoundedMap keeps values until it is full, then starts over', () => {
    const map = new BoundedMap<string>(2);
    const made: string[] = [];
    const get = (key: string) => map.get(key, (k) => (made.push(k), k.toUpperCase()));
    assert.deepEqual([get('a'), get('b'), get('a')], ['A', 'B', 'A']);
    assert.deepEqual(made, ['a', 'b'], 'a known key is not made again');
    get('c');
    get('a');
    assert.deepEqual(made, ['a', 'b', 'c', 'a'], 'c found it full: a was dropped with b');
  });

  it('WeakCache and keyPerPod make a value once per object', () => {
    const cache = new WeakCache<object, number>();
    let made = 0;
    const a = {};
    assert.deepEqual([cache.get(a, () => ++made), cache.get(a, () => ++made), cache.get({}, () => ++made)], [1, 1, 2]);
    let built = 0;
    const key = keyPerPod((pod) => (built++, pod.spec.tolerations ?? []));
    const pod = makePod('p').info.pod;
    assert.deepEqual([key(pod), key(pod), built], ['[]', '[]', 1]);
  });
});
