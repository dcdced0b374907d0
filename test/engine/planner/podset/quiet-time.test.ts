import assert from 'node:assert/strict';
import { formatGoDurationNanos } from '../../../../src/engine/planner/podset/duration';
import { looseDuration } from '../../../../src/engine/planner/podset/quiet-time';

describe('engine/planner/podset/quiet-time: durations as people write them', () => {
  const cases: Array<[string, string | undefined]> = [
    ['2 minutes', '2m0s'],
    ['2min', '2m0s'],
    ['90', '1m30s'],
    ['1h 30m', '1h30m0s'],
    ['1 hour, 30 minutes and 10 seconds', '1h30m10s'],
    ['1.5 hours', '1h30m0s'],
    ['PT2M30S', '2m30s'],
    ['P1D', '24h0m0s'],
    ['00:02:00', '2m0s'],
    ['1:30', '1m30s'],
    ['300 ms', '300ms'],
    ['2 Days', '48h0m0s'],
    ['soon', undefined],
    ['2 fortnights', undefined],
    ['', undefined],
    ['PT', undefined],
  ];
  for (const [text, go] of cases) {
    it(`${JSON.stringify(text)} → ${go ?? 'unreadable'}`, () => {
      const nanos = looseDuration(text);
      assert.equal(nanos === undefined ? undefined : formatGoDurationNanos(nanos), go);
    });
  }
});
