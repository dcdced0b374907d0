// The quiet time of a ScheduleTrigger (its label planner.ciena.io/quiet-time): what is wrong with
// one, checked in one place for podplan and the editor (a Go duration that must also be a label
// value), and reading what people write for a duration when it is not Go's syntax ("2 minutes",
// "90s ", "1h 30m", "PT2M", "00:02:00", "1 day"), so a code action can rewrite it into Go's. A bare
// number is read as seconds, as most tools default to.
import { labelValueError } from '../../api/field';
import { formatGoDurationNanos, parseGoDurationNanos } from './duration';

export type QuietTimeCode = 'quiet-time/not-duration' | 'quiet-time/not-label-value';

/** What is wrong with a quiet time, with the Go form to write when one can be read from it; undefined when it is fine. */
export function quietTimeProblem(text: string): { readonly code: QuietTimeCode; readonly message: string } | undefined {
  const parsed = parseGoDurationNanos(text);
  const rewrite = quietTimeRewrite(text);
  const instead = rewrite ? `; write ${rewrite}` : '';
  if (!parsed.ok) {
    return {
      code: 'quiet-time/not-duration',
      message: `the quiet time ${JSON.stringify(text)} is not a Go duration (${parsed.error})${instead || ': write one such as 2m0s, 1h30m or 300ms (units ns, us, ms, s, m, h)'}`,
    };
  }
  if (parsed.value < 0n)
    return {
      code: 'quiet-time/not-label-value',
      message: `the quiet time ${JSON.stringify(text)} is negative: a label value cannot start with "-", and a quiet time is a wait`,
    };
  const problem = labelValueError(text);
  if (problem)
    return {
      code: 'quiet-time/not-label-value',
      message: `the quiet time ${JSON.stringify(text)} is a Go duration but not a valid label value (${problem})${instead}`,
    };
  return undefined;
}

/** The Go form of a quiet time that is not one, or not a label value, when it can be read; undefined otherwise. */
export function quietTimeRewrite(text: string): string | undefined {
  const parsed = parseGoDurationNanos(text);
  if (parsed.ok && !labelValueError(text)) return undefined;
  const nanos = parsed.ok ? parsed.value : looseDuration(text);
  if (nanos === undefined || nanos < 0n) return undefined;
  const go = formatGoDurationNanos(nanos, { ascii: true });
  return go !== text && !labelValueError(go) ? go : undefined;
}

const NS_PER: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
  d: 86_400_000_000_000n,
};

/** Unit words, lower case, to Go's units (days have none in Go: they become hours). */
const UNIT_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/^(ns|nanos?|nanoseconds?)$/, 'ns'],
  [/^(us|µs|μs|micros?|microseconds?)$/, 'us'],
  [/^(ms|millis?|milliseconds?|msecs?)$/, 'ms'],
  [/^(s|secs?|seconds?)$/, 's'],
  [/^(m|mins?|minutes?)$/, 'm'],
  [/^(h|hrs?|hours?)$/, 'h'],
  [/^(d|days?)$/, 'd'],
];

/** Exact nanoseconds of `digits[.fraction] × unit`. */
function amount(number: string, unit: bigint): bigint {
  const [whole = '0', fraction = ''] = number.split('.');
  const scale = 10n ** BigInt(fraction.length);
  return ((BigInt(whole || '0') * scale + BigInt(fraction || '0')) * unit) / scale;
}

function unitOf(word: string): bigint | undefined {
  const lower = word.toLowerCase();
  for (const [pattern, unit] of UNIT_WORDS) if (pattern.test(lower)) return NS_PER[unit];
  return undefined;
}

const ISO = /^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;
const CLOCK = /^(?:(\d+):)?(\d{1,2}):(\d{2}(?:\.\d+)?)$/;
const NUMBER = /^\d+(?:\.\d+)?$|^\.\d+$/;
const TERM = /(\d+(?:\.\d+)?|\.\d+)\s*([a-zµμ]+)/giy;

/** The nanoseconds a loosely written duration stands for; undefined when it cannot be read. */
export function looseDuration(text: string): bigint | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (NUMBER.test(t)) return amount(t, NS_PER.s as bigint);
  const iso = ISO.exec(t);
  if (iso && t.length > 1 && !/T$/i.test(t)) {
    const [, d, h, m, s] = iso;
    return [
      d && amount(d, NS_PER.d as bigint),
      h && amount(h, NS_PER.h as bigint),
      m && amount(m, NS_PER.m as bigint),
      s && amount(s, NS_PER.s as bigint),
    ].reduce<bigint>((sum, x) => sum + (x || 0n), 0n);
  }
  const clock = CLOCK.exec(t);
  if (clock) {
    const [, h = '0', m = '0', s = '0'] = clock;
    return amount(h, NS_PER.h as bigint) + amount(m, NS_PER.m as bigint) + amount(s, NS_PER.s as bigint);
  }
  // Terms such as "1 hour, 30 minutes" or "1h 30m and 10s".
  const rest = t.replace(/,|\band\b/gi, ' ');
  let total = 0n;
  let matched = 0;
  let position = 0;
  TERM.lastIndex = 0;
  while (position < rest.length) {
    const space = /\s*/y;
    space.lastIndex = position;
    space.exec(rest);
    position = space.lastIndex;
    if (position >= rest.length) break;
    TERM.lastIndex = position;
    const m = TERM.exec(rest);
    if (!m) return undefined;
    const unit = unitOf(m[2] ?? '');
    if (unit === undefined) return undefined;
    total += amount(m[1] ?? '0', unit);
    matched++;
    position = TERM.lastIndex;
  }
  return matched > 0 ? total : undefined;
}
