import assert from 'node:assert/strict';
import { parseDuration } from '../../../src/engine/planner/duration';

describe('engine/planner/duration', () => {
  describe('reads Go durations (time.ParseDuration) into milliseconds', () => {
    const table: Array<[text: string, ms: number]> = [
      ['2m0s', 120_000],
      ['1h30m', 5_400_000],
      ['300ms', 300],
      ['1.5h', 5_400_000],
      ['0', 0],
      ['-0', 0],
      ['45s', 45_000],
      ['.5s', 500],
      ['5.s', 5_000],
      ['+2s', 2_000],
      ['-1.5m', -90_000],
      ['1h2m3s4ms5us6ns', 3_723_004.005006],
      ['7µs', 0.007],
      ['7μs', 0.007],
      ['250us', 0.25],
      ['1000000ns', 1],
    ];
    for (const [text, ms] of table) it(`"${text}" → ${ms} ms`, () => assert.deepEqual(parseDuration(text), { ok: true, value: ms }));
  });

  describe('says what is wrong with a bad duration, as Go does', () => {
    const table: Array<[text: string, error: string]> = [
      ['', 'invalid duration ""'],
      ['abc', 'invalid duration "abc"'],
      ['5', 'missing unit in duration "5"'],
      ['2m5', 'missing unit in duration "2m5"'],
      ['5d', 'unknown unit "d" in duration "5d"'],
      ['5 s', 'unknown unit " s" in duration "5 s"'],
      ['.s', 'invalid duration ".s"'],
      ['-', 'invalid duration "-"'],
      ['1e3s', 'unknown unit "e" in duration "1e3s"'],
      ['3000000h', 'invalid duration "3000000h"'],
    ];
    for (const [text, error] of table) it(`"${text}": ${error}`, () => assert.deepEqual(parseDuration(text), { ok: false, error }));
  });
});
