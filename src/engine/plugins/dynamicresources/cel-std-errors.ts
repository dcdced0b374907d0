// The standard functions and the strings extension where cel-go v0.29.2 answers a selector
// differently from @bufbuild/cel: the errors, in cel-go's words (the allocator shows them to a
// user as `CEL runtime error: …`), and the conversions it refuses or accepts otherwise. Each
// replaces @bufbuild/cel's overload of the same name and argument types (registered after it).
// - int, uint arithmetic (common/types/int.go, uint.go, overflow.go): an overflow is `integer
//   overflow` / `unsigned integer overflow`, a zero divisor `division by zero` / `modulus by zero`;
//   MinInt64 % -1 overflows too;
// - int(), uint() of a double or of the other integer type: `integer overflow` / `unsigned integer
//   overflow` out of range; of a string: strconv.ParseInt / ParseUint in base 10, or `type
//   conversion error from 'string' to 'int'` ('uint'); double() of a string: strconv.ParseFloat
//   (Go's literal syntax with `_` between digits, hexadecimal with a `p` exponent, inf, infinity,
//   nan; no blanks; out of range an error); duration() and timestamp() of a string that does not
//   parse: `type conversion error from 'string' to 'google.protobuf.Duration'` ('…Timestamp');
//   timestamp() of an int reads Unix seconds; string() of bytes that are not UTF-8: `invalid UTF-8 in bytes, cannot convert to string`;
// - charAt, indexOf, lastIndexOf and substring count runes (code points), as ext/strings.go does:
//   an index out of range is `index out of range: <i>`, an offset past the end of indexOf /
//   lastIndexOf is no match (or the offset itself for an empty substring), substring(start, end)
//   with start > end `invalid substring range. start: <s>, end: <e>`; replace with a negative
//   count replaces every occurrence (an empty one before each rune and at the end); split as Go's
//   strings.SplitN;
// - bool() of a string: strconv.ParseBool, or `type conversion error from 'string' to 'bool'`;
// - timestamp and duration arithmetic out of range: `timestamp overflow`, `integer overflow`; a
//   timestamp accessor's unknown time zone: `unknown time zone <tz>`;
// - string.format: a clause's argument of a kind it does not take is `error during formatting:
//   <the clause's words>, was given <type>` (FORMAT_CLAUSE_WORDS, the checker's too), a value inside
//   a list or map `%s` cannot format `error during formatting: no formatting function for <type>`;
// - <, <=, >, >= with a double NaN on either side: `NaN values cannot be ordered`.
import {
  celEnv,
  celFunc,
  celList,
  celMethod,
  CelScalar,
  celUint,
  isCelError,
  isCelList,
  isCelMap,
  isCelType,
  isCelUint,
  listType,
  objectType,
  type CelFunc,
  type CelList,
  type CelUint,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { create } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { DurationSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import { FORMAT_CLAUSE_WORDS } from './cel-cost';

const { INT, UINT, DOUBLE, STRING, BYTES } = CelScalar;
const DURATION = objectType(DurationSchema);
const TIMESTAMP = objectType(TimestampSchema);

const MAX_INT = 9223372036854775807n;
const MIN_INT = -9223372036854775808n;
const MAX_UINT = 18446744073709551615n;

const INT_OVERFLOW = 'integer overflow';
const UINT_OVERFLOW = 'unsigned integer overflow';

function int(v: bigint): bigint {
  if (v < MIN_INT || v > MAX_INT) throw new Error(INT_OVERFLOW);
  return v;
}

function uint(v: bigint): CelUint {
  if (v < 0n || v > MAX_UINT) throw new Error(UINT_OVERFLOW);
  return celUint(v);
}

function divisor(r: bigint, op: 'division' | 'modulus'): bigint {
  if (r === 0n) throw new Error(`${op} by zero`);
  return r;
}

/** overflow.go doubleToInt64Checked: NaN, ±Inf and what is not strictly inside the int64 range overflow. */
function doubleToInt(v: number): bigint {
  if (!Number.isFinite(v) || v <= Number(MIN_INT) || v >= Number(MAX_INT)) throw new Error(INT_OVERFLOW);
  return BigInt(Math.trunc(v));
}

/** overflow.go doubleToUint64Checked. */
function doubleToUint(v: number): CelUint {
  if (!Number.isFinite(v) || v < 0 || v >= Number(MAX_UINT)) throw new Error(UINT_OVERFLOW);
  return celUint(BigInt(Math.trunc(v)));
}

const conversionError = (to: string): Error => new Error(`type conversion error from 'string' to '${to}'`);

/** strconv.ParseInt(s, 10, 64). */
function parseGoInt(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s)) throw conversionError('int');
  const v = BigInt(s);
  if (v < MIN_INT || v > MAX_INT) throw conversionError('int');
  return v;
}

/** strconv.ParseUint(s, 10, 64): no sign. */
function parseGoUint(s: string): CelUint {
  if (!/^[0-9]+$/.test(s)) throw conversionError('uint');
  const v = BigInt(s);
  if (v > MAX_UINT) throw conversionError('uint');
  return celUint(v);
}

const DIGITS = String.raw`\d+(?:_\d+)*`;
const HEX = String.raw`[0-9a-fA-F]+(?:_[0-9a-fA-F]+)*`;
const DECIMAL_FLOAT = new RegExp(String.raw`^[+-]?(?:${DIGITS}(?:\.(?:${DIGITS})?)?|\.${DIGITS})(?:[eE][+-]?${DIGITS})?$`);
const HEX_FLOAT = new RegExp(String.raw`^([+-]?)0[xX]_?(?:(${HEX})(?:\.(${HEX})?)?|\.(${HEX}))[pP]([+-]?${DIGITS})$`);

/** strconv.ParseFloat(s, 64): Go's float literal syntax, inf/infinity/nan in any case; ±Inf by overflow is an error. */
function parseGoFloat(s: string): number {
  const special = /^([+-]?)inf(?:inity)?$/i.exec(s);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  let v: number;
  if (DECIMAL_FLOAT.test(s)) v = Number(s.replaceAll('_', ''));
  else {
    const hex = HEX_FLOAT.exec(s);
    if (!hex) throw conversionError('double');
    const whole = (hex[2] ?? '').replaceAll('_', '');
    const fraction = (hex[3] ?? hex[4] ?? '').replaceAll('_', '');
    const mantissa = Number(BigInt(`0x${whole || '0'}${fraction}`));
    v = mantissa * 2 ** (Number(hex[5]!.replaceAll('_', '')) - 4 * fraction.length);
    if (hex[1] === '-') v = -v;
  }
  if (!Number.isFinite(v)) throw conversionError('double');
  return v;
}

// @bufbuild/cel's own conversions (through its standard functions), for what they parse as cel-go does.
const std = celEnv().funcs;
function libraryConversion(name: string, to: string): (s: string) => unknown {
  const f = std.find(name);
  return (s: string) => {
    let out: unknown;
    try {
      out = f?.call(0, undefined, [s] as never);
    } catch {
      throw conversionError(to);
    }
    if (out === undefined || isCelError(out)) throw conversionError(to);
    return out;
  };
}
const parseDuration = libraryConversion('duration', 'google.protobuf.Duration');
const parseTimestamp = libraryConversion('timestamp', 'google.protobuf.Timestamp');

const utf8 = new TextDecoder('utf-8', { fatal: true });

const runes = (s: string): string[] => Array.from(s);
const outOfRange = (i: bigint): Error => new Error(`index out of range: ${i}`);

function charAt(this: string, index: bigint): string {
  const r = runes(this);
  if (index < 0n || index > BigInt(r.length)) throw outOfRange(index);
  return r[Number(index)] ?? '';
}

function indexOf(this: string, sub: string, offset = 0n): bigint {
  if (sub === '') return offset;
  if (offset < 0n) throw outOfRange(offset);
  const r = runes(this);
  const s = runes(sub);
  for (let i = Number(offset); i + s.length <= r.length; i++) if (s.every((c, k) => r[i + k] === c)) return BigInt(i);
  return -1n;
}

function lastIndexOf(this: string, sub: string, offset?: bigint): bigint {
  const r = runes(this);
  const s = runes(sub);
  if (sub === '') return offset ?? BigInt(r.length);
  if (offset === undefined && s.length > r.length) return -1n;
  const last = offset ?? BigInt(r.length - 1);
  if (last < 0n) throw outOfRange(last);
  if (s.length > r.length) return -1n;
  let off = Math.min(Number(last), r.length - 1, r.length - s.length);
  for (; off >= 0; off--) if (s.every((c, k) => r[off + k] === c)) return BigInt(off);
  return -1n;
}

function substring(this: string, start: bigint, end?: bigint): string {
  const r = runes(this);
  const n = BigInt(r.length);
  if (end !== undefined && start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > n) throw outOfRange(start);
  if (end !== undefined && (end < 0n || end > n)) throw outOfRange(end);
  return r.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** strconv.ParseBool. */
function parseGoBool(s: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  throw conversionError('bool');
}

/** strings.Replace: a negative count replaces every occurrence (Go's strings.Replace, as ext/strings.go calls it). */
function replace(this: string, from: string, to: string, n?: bigint): string {
  if (from === '' && (n === undefined || n < 0n)) n = BigInt(runes(this).length + 1);
  if (n === undefined || n < 0n) return this.split(from).join(to);
  let out = '';
  let rest = String(this);
  for (let i = 0n; i < n; i++) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    if (from === '') {
      // Go's strings.Replace with an empty old string: before each rune, up to n times.
      const [first = ''] = Array.from(rest);
      out += to + first;
      rest = rest.slice(first.length);
      if (first === '') break;
      continue;
    }
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
  }
  return out + rest;
}

/** strings.SplitN: at most n parts (the last the rest), all of them for a negative n, none for 0; an empty separator splits runes. */
function split(this: string, sep: string, n?: bigint): CelList {
  const parts = sep === '' ? runes(this) : this.split(sep);
  if (n === 0n) return celList([]);
  if (n === undefined || n < 0n || n >= BigInt(parts.length)) return celList(parts);
  const k = Number(n);
  return celList([...parts.slice(0, k - 1), parts.slice(k - 1).join(sep)]);
}

/** cel-go's Double.Compare and the mixed comparisons: a NaN on either side cannot be ordered. */
function ordered<A, B>(op: (a: number, b: number) => boolean, num: (a: A) => number, numB: (b: B) => number) {
  return (a: A, b: B): boolean => {
    const x = num(a);
    const y = numB(b);
    if (Number.isNaN(x) || Number.isNaN(y)) throw new Error('NaN values cannot be ordered');
    return op(x, y);
  };
}
const ORDERINGS: ReadonlyArray<[string, (a: number, b: number) => boolean]> = [
  ['_<_', (a, b) => a < b],
  ['_<=_', (a, b) => a <= b],
  ['_>_', (a, b) => a > b],
  ['_>=_', (a, b) => a >= b],
];
const asNumber = {
  double: (x: number) => x,
  int: (x: bigint) => Number(x),
  uint: (x: CelUint) => Number(x.value),
};
const MIXED: ReadonlyArray<
  [typeof DOUBLE | typeof INT | typeof UINT, typeof DOUBLE | typeof INT | typeof UINT, (a: never) => number, (b: never) => number]
> = [
  [DOUBLE, DOUBLE, asNumber.double as never, asNumber.double as never],
  [INT, DOUBLE, asNumber.int as never, asNumber.double as never],
  [DOUBLE, INT, asNumber.double as never, asNumber.int as never],
  [UINT, DOUBLE, asNumber.uint as never, asNumber.double as never],
  [DOUBLE, UINT, asNumber.double as never, asNumber.uint as never],
];

/** A value's type as cel-go names it at evaluation. */
function runtimeTypeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return 'bytes';
  if (isCelUint(v)) return 'uint';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  if (isCelType(v)) return 'type';
  if (isReflectMessage(v)) return v.desc.typeName === 'podplan.Optional' ? 'optional_type' : v.desc.typeName;
  return typeof v;
}

const WELL_KNOWN_FORMATTED = new Set(['google.protobuf.Duration', 'google.protobuf.Timestamp']);

/** Whether `%s` formats a value: the kinds the string clause takes (a message only as a duration or a timestamp). */
const stringFormatted = (v: unknown): boolean => !isReflectMessage(v) || WELL_KNOWN_FORMATTED.has(v.desc.typeName);

/** The first value inside a list or map `%s` has no formatting function for. */
function unformattable(v: unknown): unknown {
  const values: unknown[] = isCelList(v) ? [...v] : isCelMap(v) ? [...v.entries()].flat() : [];
  for (const x of values) {
    if (!stringFormatted(x)) return x;
    const inner = unformattable(x);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** cel-go's error for a format clause's argument of a kind the clause does not take, or undefined. */
function formatArgumentError(verb: string, v: unknown): string | undefined {
  const given = (words: string) => `error during formatting: ${words}, was given ${runtimeTypeName(v)}`;
  const integer = typeof v === 'bigint' || isCelUint(v);
  switch (verb) {
    case 's': {
      if (!stringFormatted(v)) return given(FORMAT_CLAUSE_WORDS.s);
      const bad = unformattable(v);
      return bad === undefined ? undefined : `error during formatting: no formatting function for ${runtimeTypeName(bad)}`;
    }
    case 'd':
      return integer ? undefined : given(FORMAT_CLAUSE_WORDS.d);
    case 'o':
      return integer ? undefined : given(FORMAT_CLAUSE_WORDS.o);
    case 'f':
    case 'e':
      return typeof v === 'number' || (typeof v === 'string' && ['NaN', 'Infinity', '-Infinity'].includes(v))
        ? undefined
        : given(FORMAT_CLAUSE_WORDS[verb]);
    case 'b':
      return integer || typeof v === 'boolean' ? undefined : given(FORMAT_CLAUSE_WORDS.b);
    case 'x':
    case 'X':
      return integer || typeof v === 'string' || v instanceof Uint8Array ? undefined : given(FORMAT_CLAUSE_WORDS.x);
    default:
      return undefined;
  }
}

const libraryFormat = celEnv({ funcs: strings }).funcs.find('format');

/** string.format: each clause's argument checked as cel-go does at evaluation, then @bufbuild/cel's formatting. */
function format(this: string, args: CelList): unknown {
  let index = 0;
  for (const m of this.matchAll(/%(?:\.[0-9]+)?(.)/gs)) {
    const verb = m[1]!;
    if (verb === '%') continue;
    if (index >= args.size) break;
    const error = formatArgumentError(verb, args.get(index++));
    if (error !== undefined) throw new Error(error);
  }
  const out = libraryFormat?.call(0, String(this) as never, [args] as never);
  if (isCelError(out)) throw new Error(out.message);
  return out;
}

/** The library's function `name` on these arguments (and target), its error in cel-go's words (`words`). */
function libraryCall(name: string, words: (message: string) => string, member = false) {
  const f = std.find(name);
  return function (this: unknown, ...args: unknown[]): unknown {
    let out: unknown;
    try {
      out = f?.call(0, (member ? this : undefined) as never, args as never);
    } catch (e) {
      throw new Error(words(e instanceof Error ? e.message : String(e)), { cause: e });
    }
    if (isCelError(out)) throw new Error(words(out.message));
    return out;
  };
}

/** cel-go's timestamp and duration arithmetic: `timestamp overflow`, a duration's `integer overflow`. */
const timeWords = (message: string): string =>
  message === 'timestamp out of range' ? 'timestamp overflow' : message === 'duration out of range' ? INT_OVERFLOW : message;

/** cel-go (Go's time.LoadLocation) names a time zone it does not know `unknown time zone <tz>`. */
const zoneWords = (message: string): string => message.replace(/^Invalid time zone specified: /, 'unknown time zone ');

const TIMESTAMP_ACCESSORS = [
  'getFullYear',
  'getMonth',
  'getDayOfYear',
  'getDayOfMonth',
  'getDate',
  'getDayOfWeek',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
];

type U = CelUint;

export const stdErrorFuncs: readonly CelFunc[] = [
  celFunc('_+_', [INT, INT], INT, (l: bigint, r: bigint) => int(l + r)),
  celFunc('_-_', [INT, INT], INT, (l: bigint, r: bigint) => int(l - r)),
  celFunc('_*_', [INT, INT], INT, (l: bigint, r: bigint) => int(l * r)),
  celFunc('_/_', [INT, INT], INT, (l: bigint, r: bigint) => int(l / divisor(r, 'division'))),
  celFunc('_%_', [INT, INT], INT, (l: bigint, r: bigint) => {
    if (divisor(r, 'modulus') === -1n && l === MIN_INT) throw new Error(INT_OVERFLOW);
    return l % r;
  }),
  celFunc('-_', [INT], INT, (x: bigint) => int(-x)),
  celFunc('_+_', [UINT, UINT], UINT, (l: U, r: U) => uint(l.value + r.value)),
  celFunc('_-_', [UINT, UINT], UINT, (l: U, r: U) => uint(l.value - r.value)),
  celFunc('_*_', [UINT, UINT], UINT, (l: U, r: U) => uint(l.value * r.value)),
  celFunc('_/_', [UINT, UINT], UINT, (l: U, r: U) => celUint(l.value / divisor(r.value, 'division'))),
  celFunc('_%_', [UINT, UINT], UINT, (l: U, r: U) => celUint(l.value % divisor(r.value, 'modulus'))),
  celFunc('int', [UINT], INT, (x: U) => int(x.value)),
  celFunc('int', [DOUBLE], INT, doubleToInt),
  celFunc('int', [STRING], INT, parseGoInt),
  celFunc('uint', [INT], UINT, uint),
  celFunc('uint', [DOUBLE], UINT, doubleToUint),
  celFunc('uint', [STRING], UINT, parseGoUint),
  celFunc('double', [STRING], DOUBLE, parseGoFloat),
  celFunc('duration', [STRING], DURATION, parseDuration as never),
  celFunc('timestamp', [STRING], TIMESTAMP, parseTimestamp as never),
  // cel-go's timestamp(int): Unix seconds (@bufbuild/cel's reads milliseconds), within years 1 to 9999.
  celFunc('timestamp', [INT], TIMESTAMP, ((seconds: bigint) => {
    if (seconds < -62135596800n || seconds > 253402300799n) throw new Error('timestamp overflow');
    return create(TimestampSchema, { seconds });
  }) as never),
  celFunc('string', [BYTES], STRING, (b: Uint8Array) => {
    try {
      return utf8.decode(b);
    } catch {
      throw new Error('invalid UTF-8 in bytes, cannot convert to string');
    }
  }),
  celFunc('bool', [STRING], CelScalar.BOOL, parseGoBool),
  celMethod('split', STRING, [STRING], listType(CelScalar.DYN), split as never),
  celMethod('split', STRING, [STRING, INT], listType(CelScalar.DYN), split as never),
  celMethod('replace', STRING, [STRING, STRING], STRING, replace),
  celMethod('replace', STRING, [STRING, STRING, INT], STRING, replace),
  ...ORDERINGS.flatMap(([name, op]) => MIXED.map(([l, r, nl, nr]) => celFunc(name, [l, r], CelScalar.BOOL, ordered(op, nl, nr) as never))),
  celFunc('_+_', [TIMESTAMP, DURATION], TIMESTAMP, libraryCall('_+_', timeWords) as never),
  celFunc('_+_', [DURATION, TIMESTAMP], TIMESTAMP, libraryCall('_+_', timeWords) as never),
  celFunc('_+_', [DURATION, DURATION], DURATION, libraryCall('_+_', timeWords) as never),
  celFunc('_-_', [TIMESTAMP, DURATION], TIMESTAMP, libraryCall('_-_', timeWords) as never),
  celFunc('_-_', [TIMESTAMP, TIMESTAMP], DURATION, libraryCall('_-_', timeWords) as never),
  celFunc('_-_', [DURATION, DURATION], DURATION, libraryCall('_-_', timeWords) as never),
  ...TIMESTAMP_ACCESSORS.map((name) => celMethod(name, TIMESTAMP, [STRING], INT, libraryCall(name, zoneWords, true) as never)),
  celMethod('format', STRING, [listType(CelScalar.DYN)], STRING, format as never),
  celMethod('charAt', STRING, [INT], STRING, charAt),
  celMethod('indexOf', STRING, [STRING], INT, indexOf),
  celMethod('indexOf', STRING, [STRING, INT], INT, indexOf),
  celMethod('lastIndexOf', STRING, [STRING], INT, lastIndexOf),
  celMethod('lastIndexOf', STRING, [STRING, INT], INT, lastIndexOf),
  celMethod('substring', STRING, [INT], STRING, substring),
  celMethod('substring', STRING, [INT, INT], STRING, substring),
];
