// Go's time.Duration text: the quiet-time label of a ScheduleTrigger holds one ("2m0s", "1h30m",
// "300ms", "1.5h"). Parsing follows time.ParseDuration step for step (same grammar, same error
// texts, same int64 overflow bound) so a value Pallet's controller would refuse is refused here too;
// formatting follows Duration.String().

import { err, ok, type Result } from '../../api/result';

const NANOSECOND = 1n;
const MICROSECOND = 1000n * NANOSECOND;
const MILLISECOND = 1000n * MICROSECOND;
const SECOND = 1000n * MILLISECOND;
const MINUTE = 60n * SECOND;
const HOUR = 60n * MINUTE;

/** Go's unitMap: both micro signs (U+00B5, U+03BC) are accepted. */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', NANOSECOND],
  ['us', MICROSECOND],
  ['µs', MICROSECOND],
  ['μs', MICROSECOND],
  ['ms', MILLISECOND],
  ['s', SECOND],
  ['m', MINUTE],
  ['h', HOUR],
]);

/** 1 << 63: the magnitude bound of an int64 (a negative duration may reach it, a positive one not). */
const INT64_BOUND = 1n << 63n;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** The nanoseconds `text` stands for, as time.ParseDuration reads it: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`. */
export function parseGoDurationNanos(text: string): Result<bigint> {
  const quoted = JSON.stringify(text);
  const invalid = err(`time: invalid duration ${quoted}`);
  let s = text;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  // A bare zero is the one value allowed without a unit.
  if (s === '0') return ok(0n);
  if (s === '') return invalid;
  let total = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) return invalid;
    let i = 0;
    while (isDigit(s[i])) i++;
    const whole = s.slice(0, i);
    s = s.slice(i);
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      let j = 1;
      // As Go's leadingFraction: digits past what an int64 holds are read but ignored.
      for (let overflow = false; isDigit(s[j]); j++) {
        if (overflow) continue;
        const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
        if (f > (INT64_BOUND - 1n) / 10n || y > INT64_BOUND) overflow = true;
        else [f, scale] = [y, scale * 10];
      }
      post = j > 1;
      s = s.slice(j);
    }
    if (whole === '' && !post) return invalid;
    let u = 0;
    while (u < s.length && s[u] !== '.' && !isDigit(s[u])) u++;
    if (u === 0) return err(`time: missing unit in duration ${quoted}`);
    const unitName = s.slice(0, u);
    s = s.slice(u);
    const unit = UNITS.get(unitName);
    if (unit === undefined) return err(`time: unknown unit ${JSON.stringify(unitName)} in duration ${quoted}`);
    const v = whole === '' ? 0n : BigInt(whole);
    if (v > INT64_BOUND / unit) return invalid;
    // Go adds the fraction in floating point, truncated: the same arithmetic gives the same nanosecond.
    const part = v * unit + (f > 0n ? BigInt(Math.trunc(Number(f) * (Number(unit) / scale))) : 0n);
    if (part > INT64_BOUND) return invalid;
    total += part;
    if (total > INT64_BOUND) return invalid;
  }
  if (total === INT64_BOUND && !negative) return invalid;
  return ok(negative ? -total : total);
}

/** The duration in milliseconds (fractional below a millisecond), as the engine's clocks count. */
export function parseGoDuration(text: string): Result<number> {
  const nanos = parseGoDurationNanos(text);
  return nanos.ok ? ok(Number(nanos.value) / 1e6) : nanos;
}

/** The digits of `v / 10**precision` after the point, trailing zeros dropped ('' when none). */
function fraction(v: bigint, precision: number): { readonly digits: string; readonly rest: bigint } {
  const scale = 10n ** BigInt(precision);
  const digits = (v % scale).toString().padStart(precision, '0').replace(/0+$/, '');
  return { digits: digits === '' ? '' : `.${digits}`, rest: v / scale };
}

export interface FormatOptions {
  /** Write microseconds as "us", not Go's "µs" (a label value must be ASCII). */
  readonly ascii?: boolean;
}

/** Duration.String(): "2m0s", "1h30m0s", "1.5s", "300ms", "0s". */
export function formatGoDurationNanos(nanos: bigint, options: FormatOptions = {}): string {
  const negative = nanos < 0n;
  let u = negative ? -nanos : nanos;
  let out: string;
  if (u < SECOND) {
    if (u === 0n) return '0s';
    let unit: string;
    let precision: number;
    if (u < MICROSECOND) [unit, precision] = ['ns', 0];
    else if (u < MILLISECOND) [unit, precision] = [options.ascii ? 'us' : 'µs', 3];
    else [unit, precision] = ['ms', 6];
    const f = fraction(u, precision);
    out = `${f.rest}${f.digits}${unit}`;
  } else {
    const f = fraction(u, 9);
    u = f.rest;
    out = `${u % 60n}${f.digits}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return negative ? `-${out}` : out;
}

const plural = (n: bigint | string, word: string): string => `${n} ${word}${n === 1n || n === '1' ? '' : 's'}`;

/** A duration read out: "2 minutes", "1 hour 30 minutes", "1.5 seconds", "300 milliseconds". */
export function durationInWords(nanos: bigint): string {
  if (nanos < 0n) return `minus ${durationInWords(-nanos)}`;
  if (nanos === 0n) return 'no time at all';
  if (nanos < SECOND) {
    const [unit, word] =
      nanos < MICROSECOND ? [NANOSECOND, 'nanosecond'] : nanos < MILLISECOND ? [MICROSECOND, 'microsecond'] : [MILLISECOND, 'millisecond'];
    const precision = unit === NANOSECOND ? 0 : unit === MICROSECOND ? 3 : 6;
    const f = fraction(nanos, precision);
    return plural(`${f.rest}${f.digits}`, word);
  }
  const hours = nanos / HOUR;
  const minutes = (nanos % HOUR) / MINUTE;
  const seconds = fraction(nanos % MINUTE, 9);
  const parts: string[] = [];
  if (hours > 0n) parts.push(plural(hours, 'hour'));
  if (minutes > 0n) parts.push(plural(minutes, 'minute'));
  if (seconds.rest > 0n || seconds.digits !== '') parts.push(plural(`${seconds.rest}${seconds.digits}`, 'second'));
  return parts.join(' ');
}
