import assert from 'node:assert/strict';
import {
  durationInWords,
  formatGoDurationNanos,
  parseGoDuration,
  parseGoDurationNanos,
} from '../../../../src/engine/planner/podset/duration';

const S = 1_000_000_000n;

describe('engine/planner/podset/duration (Go time.Duration text)', () => {
  describe('parses what time.ParseDuration accepts, to the nanosecond', () => {
    const cases: Array<[string, bigint]> = [
      ['0', 0n],
      ['2m0s', 120n * S],
      ['1h30m', 5400n * S],
      ['300ms', 300_000_000n],
      ['1.5h', 5400n * S],
      ['.5s', S / 2n],
      ['5.s', 5n * S],
      ['1h1m1s1ms1us1ns', 3661n * S + 1_001_001n],
      ['3µs', 3000n],
      ['3μs', 3000n],
      ['-1.5m', -90n * S],
      ['+10s', 10n * S],
      ['0.000000001s', 1n],
      ['9223372036854775807ns', (1n << 63n) - 1n],
      ['-9223372036854775808ns', -(1n << 63n)],
      ['1.00000000000000000000000000001s', S],
    ];
    for (const [text, nanos] of cases)
      it(`${text} → ${nanos} ns`, () => assert.deepEqual(parseGoDurationNanos(text), { ok: true, value: nanos }));
  });

  describe("refuses with Go's messages", () => {
    const cases: Array<[string, string]> = [
      ['', 'time: invalid duration ""'],
      ['2', 'time: missing unit in duration "2"'],
      ['2 m', 'time: unknown unit " m" in duration "2 m"'],
      ['1d', 'time: unknown unit "d" in duration "1d"'],
      ['2min', 'time: unknown unit "min" in duration "2min"'],
      ['.s', 'time: invalid duration ".s"'],
      ['-', 'time: invalid duration "-"'],
      ['m', 'time: invalid duration "m"'],
      ['1h30', 'time: missing unit in duration "1h30"'],
      ['9223372036854775808ns', 'time: invalid duration "9223372036854775808ns"'],
      ['3000000h', 'time: invalid duration "3000000h"'],
    ];
    for (const [text, message] of cases)
      it(JSON.stringify(text), () => assert.deepEqual(parseGoDurationNanos(text), { ok: false, error: message }));
  });

  it('gives milliseconds for the engine clock', () => {
    assert.deepEqual(parseGoDuration('2m0s'), { ok: true, value: 120_000 });
    assert.deepEqual(parseGoDuration('1500us'), { ok: true, value: 1.5 });
  });

  describe('formats as Duration.String()', () => {
    const cases: Array<[bigint, string, string?]> = [
      [0n, '0s'],
      [1n, '1ns'],
      [1100n, '1.1µs', '1.1us'],
      [2_200_000n, '2.2ms'],
      [S + S / 2n, '1.5s'],
      [120n * S, '2m0s'],
      [5400n * S, '1h30m0s'],
      [-(90n * S), '-1m30s'],
      [(1n << 63n) - 1n, '2562047h47m16.854775807s'],
    ];
    for (const [nanos, go, ascii] of cases) {
      it(`${nanos} ns → ${go}`, () => {
        assert.equal(formatGoDurationNanos(nanos), go);
        assert.equal(formatGoDurationNanos(nanos, { ascii: true }), ascii ?? go);
      });
    }
  });

  describe('reads a duration out in words', () => {
    const cases: Array<[bigint, string]> = [
      [120n * S, '2 minutes'],
      [5400n * S, '1 hour 30 minutes'],
      [3661n * S, '1 hour 1 minute 1 second'],
      [S + S / 2n, '1.5 seconds'],
      [300_000_000n, '300 milliseconds'],
      [1500n, '1.5 microseconds'],
      [1n, '1 nanosecond'],
      [0n, 'no time at all'],
      [-(30n * S), 'minus 30 seconds'],
    ];
    for (const [nanos, words] of cases) it(words, () => assert.equal(durationInWords(nanos), words));
  });
});
