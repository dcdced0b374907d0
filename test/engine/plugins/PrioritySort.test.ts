import assert from 'node:assert/strict';
import type { QueuedPodInfo } from '../../../src/engine/framework/interfaces';
import { factory, NAME } from '../../../src/engine/plugins/PrioritySort';
import { makePod } from '../../builders';
import { argsError, build } from './harness';

const queued = (name: string, priority: number | undefined, timestamp: number): QueuedPodInfo => {
  const pod = makePod(name);
  if (priority !== undefined) pod.priority(priority);
  return { info: pod.info, timestamp, attempts: 0 };
};

describe('engine/plugins/PrioritySort', () => {
  const sort = build(factory);

  it('is named as upstream', () => assert.equal(sort.name, 'PrioritySort'));

  describe('less(a, b): higher priority first, then earlier in the queue', () => {
    const table: Array<[why: string, a: QueuedPodInfo, b: QueuedPodInfo, less: boolean]> = [
      ['higher priority wins even when queued later', queued('a', 100, 20), queued('b', 10, 10), true],
      ['lower priority loses even when queued earlier', queued('a', 10, 10), queued('b', 100, 20), false],
      ['equal priority: earlier timestamp first', queued('a', 5, 10), queued('b', 5, 20), true],
      ['equal priority, later timestamp', queued('a', 5, 20), queued('b', 5, 10), false],
      ['no priority counts as 0, below a positive one', queued('a', undefined, 10), queued('b', 1, 20), false],
      ['no priority counts as 0, above a negative one', queued('a', undefined, 20), queued('b', -1, 10), true],
      ['same priority and time: neither is less', queued('a', 0, 10), queued('b', 0, 10), false],
    ];
    for (const [why, a, b, less] of table) it(why, () => assert.equal(sort.less(a, b), less));
  });

  it('takes no args', () => {
    assert.equal(build(factory, {}).name, NAME);
    assert.equal(argsError(factory, { foo: 1 }), 'PrioritySort: unknown field "foo"');
    assert.equal(argsError(factory, 'x'), 'PrioritySort: args: Invalid value: "x": must be an object');
  });
});
