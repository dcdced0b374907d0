// Go durations ("2m0s", "1h30m", "300ms", "1.5h"), as time.ParseDuration reads them, since a
// ScheduleTrigger's quiet time is written for Pallet, which parses it with Go. The grammar is
// [-+]?([0-9]*(\.[0-9]*)?unit)+ with units ns, us (or µs, μs), ms, s, m, h; "0" needs no unit.
import { err, ok, type Result } from '../api/result';

const NS_PER_MS = 1e6;

/** Nanoseconds per unit. */
const UNITS: ReadonlyMap<string, number> = new Map([
  ['ns', 1],
  ['us', 1e3],
  ['\u00b5s', 1e3], // µ, MICRO SIGN
  ['\u03bcs', 1e3], // μ, GREEK SMALL LETTER MU
  ['ms', 1e6],
  ['s', 1e9],
  ['m', 60e9],
  ['h', 3600e9],
]);

/** Go's limit: a duration is an int64 count of nanoseconds (about 292 years). */
const MAX_NS = 2 ** 63 - 1;

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** The duration `text` stands for, in milliseconds (fractions kept); errors say what Go's would. */
export function parseDuration(text: string): Result<number> {
  const invalid = err(`invalid duration ${JSON.stringify(text)}`);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    sign = s.startsWith('-') ? -1 : 1;
    s = s.slice(1);
  }
  if (s === '0') return ok(0);
  if (s === '') return invalid;
  let total = 0;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) return invalid;
    let i = 0;
    while (isDigit(s[i])) i++;
    const whole = s.slice(0, i);
    let fraction = '';
    if (s[i] === '.') {
      const start = ++i;
      while (isDigit(s[i])) i++;
      fraction = s.slice(start, i);
    }
    // "." alone, or a unit with no number before it.
    if (whole === '' && fraction === '') return invalid;
    const unitStart = i;
    while (i < s.length && s[i] !== '.' && !isDigit(s[i])) i++;
    if (i === unitStart) return err(`missing unit in duration ${JSON.stringify(text)}`);
    const unit = s.slice(unitStart, i);
    const scale = UNITS.get(unit);
    if (scale === undefined) return err(`unknown unit ${JSON.stringify(unit)} in duration ${JSON.stringify(text)}`);
    total += Number(`${whole || '0'}.${fraction || '0'}`) * scale;
    if (total > MAX_NS) return invalid;
    s = s.slice(i);
  }
  return ok((sign * total) / NS_PER_MS);
}
