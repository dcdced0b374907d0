import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import { seededRandom } from '../../../src/engine/api/random';

describe('engine/api/clock', () => {
  it('fires timers in due order, ties in the order they were set, only when time reaches them', () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.setTimer(50, () => fired.push('b'));
    clock.setTimer(10, () => fired.push('a'));
    clock.setTimer(50, () => fired.push('c'));
    clock.advance(20);
    assert.deepEqual(fired, ['a']);
    assert.equal(clock.now(), 1020);
    clock.advance(30);
    assert.deepEqual(fired, ['a', 'b', 'c']);
  });

  it('fires timers set by timers when they fall due within the same advance, at their due time', () => {
    const clock = new ManualClock();
    const seen: number[] = [];
    clock.setTimer(10, () => clock.setTimer(10, () => seen.push(clock.now())));
    clock.advance(100);
    assert.deepEqual(seen, [20]);
    assert.equal(clock.now(), 100);
  });

  it('never fires a cancelled timer', () => {
    const clock = new ManualClock();
    let fired = false;
    clock.setTimer(5, () => (fired = true)).cancel();
    clock.advance(10);
    assert.equal(fired, false);
    assert.equal(clock.pendingTimers, 0);
  });
});

describe('engine/api/random', () => {
  it('repeats the same sequence for the same seed and stays in range', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 100 }, () => a.int(7));
    assert.deepEqual(
      xs,
      Array.from({ length: 100 }, () => b.int(7)),
    );
    assert.ok(xs.every((x) => x >= 0 && x < 7));
    assert.ok(new Set(xs).size === 7);
  });
});
