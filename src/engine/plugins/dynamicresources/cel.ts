// CEL for device selectors, as upstream's k8s.io/dynamic-resource-allocation/cel evaluates them: the
// variable `device` with `driver`, `allowMultipleAllocations`, `attributes` and `capacity` (maps by
// domain, then by attribute; an attribute without a domain is the driver's; a domain the device has
// nothing in is an empty map), evaluated with @bufbuild/cel (a maintained CEL implementation that
// passes the CEL conformance suite) and these Kubernetes CEL extensions: the strings extension, the
// `semver` library (semver(), isSemver(), compareTo, isGreaterThan, isLessThan, major, minor,
// patch; version attributes are semvers) and the `quantity` library (quantity(), isQuantity(),
// compareTo, isGreaterThan, isLessThan, sign(q), isInteger, asInteger, asApproximateFloat, add, sub;
// capacities are quantities), the `lists` library (isSorted, sum, min, max, indexOf, lastIndexOf,
// includes) and the `sets` extension (sets.contains, sets.equivalent, sets.intersects), both in
// cel-lists.ts, and the `ip` library (ip(), isIP(), ip.isCanonical(), string(ip), family,
// isUnspecified, isLoopback, isLinkLocalMulticast, isLinkLocalUnicast, isGlobalUnicast) and the
// `cidr` library (cidr(), isCIDR(), string(cidr), containsIP, containsCIDR, ip, masked,
// prefixLength), both in cel-ip.ts, the `regex` library (find, findAll, with re2js: cel-regex.ts),
// the `url` library (url(), isURL(), getScheme, getHost, getHostname, getPort, getEscapedPath,
// getQuery, as Go's net/url: cel-url.ts), the `format` library (format.named, format.<name>() for
// its 13 named formats, validate, with the Kubernetes validators' words: cel-format.ts) and cel-go's
// optional functions as the base environment enables them (optional.of, optional.ofNonZeroValue,
// optional.none, value, hasValue, or, orValue, first, last, optional.unwrap, unwrapOpt, over an
// opaque message: cel-optional.ts),
// cel-go's `lists` extension at ListsVersion(3) (slice, flatten, sort, sortBy, lists.range, reverse,
// distinct: cel-ext-lists.ts), and cel-go's macros `cel.bind`, `sortBy`, `optMap`, `optFlatMap`
// and the two-variable comprehensions (all, exists, existsOne/exists_one, transformList,
// transformMap, transformMapEntry with two variables), expanded on the parsed expression
// (cel-macros.ts, which also makes or/orValue short-circuit as cel-go's do), and CEL's optional
// syntax (`a.?f`, `a[?k]`, `[?e]`, `{?k: v}`) with selects, indexes and presence tests on optionals
// (cel-optional-syntax.ts). A constant pattern that does not compile is a compile error, as
// upstream (`invalid matches argument`; for find and findAll `program instantiation failed: error
// parsing regexp: …`). The allocator's runtime cost limit is counted by cel-runtime-cost.ts for a
// selector estimated near it. A
// call of a function the environment does not declare is a compile error, as cel-go's checker
// reports it; so are, through the cost model's checker (cel-cost.ts, one home for the types), an
// undeclared identifier, a call no overload takes and a range that is neither list nor map (where
// the operands' types are known), a list or map literal of mixed types (the homogeneous-literal
// validator), a string.format clause its argument does not take, and a selector whose output is
// not a bool (the DRA compiler's check), in upstream's words, each at the line and column cel-go
// gives it, in the order kube-apiserver's message lists them; what the checker cannot type shows
// at evaluation. newSelectorError adds what kube-apiserver
// refuses in a new expression only (`includes`, not in 1.36's environment).
// selectorCost estimates a selector's cost as kube-apiserver does before it accepts one
// (cel-cost.ts; each library's declarations and costs beside the library).
import {
  celEnv,
  celFunc,
  celMethod,
  CelScalar,
  isCelError,
  isCelList,
  objectType,
  parse,
  plan,
  type CelEnv,
  type CelFunc,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { Device } from '../../api/dra';
import { parseQuantity } from '../../api/quantity';
import {
  CEL_SELECTOR_EXPRESSION_MAX_COST,
  celTypeName,
  CIDR_T,
  COST,
  costModel,
  est,
  fixed,
  IP_T,
  MAX_UINT64,
  member,
  overload,
  QUANTITY_T,
  SEMVER_T,
  T,
  type AstNode,
  type CallCoster,
  type CelCostLibrary,
  type CelT,
  type CostExpr,
  type CheckerError,
  type CostModel,
  type Estimate,
} from './cel-cost';
import { DRA_STRUCT_FIELDS, DRA_VARIABLES, draEstimateSize } from './cel-cost-dra';
import { stdCost } from './cel-cost-std';
import { extListFuncs, extListsCost } from './cel-ext-lists';
import { FORMAT_T_NAME, formatCost, formatFuncs, formatRegistry } from './cel-format';
import { ipCost, ipFuncs, ipRegistry } from './cel-ip';
import { listFuncs, listsCost } from './cel-lists';
import { equalityFuncs, setMembership } from './cel-equality';
import { stdErrorFuncs } from './cel-std-errors';
import { expandMacros, macroFuncs, macrosCost, type MacroNode, type MacroShape } from './cel-macros';
import { optionalCost, optionalFuncs, optionalRegistry, optionalSyntaxFuncs } from './cel-optional';
import { applyOptionalSyntax, optionalForEvaluation, scanOptionalSyntax } from './cel-optional-syntax';
import { celGoSyntaxErrors } from './cel-syntax';
import { constantRegexError, invalidMatchesLiterals, regexCost, regexFuncs } from './cel-regex';
import { CONVERSIONS, exprChildren, qualifiedName } from './cel-ast';
import { actualCost, COST_LIMIT_EXCEEDED, type ActualCost, type CostTracking } from './cel-runtime-cost';
import { urlCost, urlFuncs, urlRegistry } from './cel-url';

const STRING = 9;
const INT64 = 3;
const OPTIONAL = 1;

// The two Kubernetes CEL types as messages, so values carry their type and methods resolve on it.
const registry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: 'podplan/k8s_cel.proto',
    package: 'kubernetes',
    syntax: 'proto3',
    messageType: [
      // A quantity: the exact value numerator/denominator, reduced (so == compares values).
      {
        name: 'Quantity',
        field: [
          { name: 'numerator', number: 1, type: STRING, label: OPTIONAL },
          { name: 'denominator', number: 2, type: STRING, label: OPTIONAL },
        ],
      },
      {
        name: 'Semver',
        field: [
          { name: 'major', number: 1, type: INT64, label: OPTIONAL },
          { name: 'minor', number: 2, type: INT64, label: OPTIONAL },
          { name: 'patch', number: 3, type: INT64, label: OPTIONAL },
          { name: 'pre', number: 4, type: STRING, label: OPTIONAL },
        ],
      },
    ],
  }),
  () => undefined,
);

const QuantityDesc = registry.getMessage('kubernetes.Quantity') as DescMessage;
const SemverDesc = registry.getMessage('kubernetes.Semver') as DescMessage;
const QUANTITY = objectType(QuantityDesc);
const SEMVER = objectType(SemverDesc);

interface Rational {
  readonly n: bigint;
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

function quantityMessage(r: Rational): ReflectMessage {
  const g = gcd(r.n, r.d);
  return reflect(QuantityDesc, create(QuantityDesc, { numerator: String(r.n / g), denominator: String(r.d / g) }));
}

function rationalOf(m: unknown): Rational {
  const msg = m as ReflectMessage;
  return {
    n: BigInt(msg.get(QuantityDesc.field['numerator']!) as string),
    d: BigInt(msg.get(QuantityDesc.field['denominator']!) as string),
  };
}

function parseRational(text: string): Rational | undefined {
  const q = parseQuantity(text);
  return q.ok ? { n: q.value.numerator, d: q.value.denominator } : undefined;
}

function isInt64(r: Rational): boolean {
  return r.d === 1n && r.n >= -(1n << 63n) && r.n < 1n << 63n;
}

function compareRational(a: Rational, b: Rational): bigint {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1n : l > r ? 1n : 0n;
}

interface Version {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: string;
}

const SEMVER_RE =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

function parseVersion(text: string): Version | undefined {
  const m = SEMVER_RE.exec(text);
  if (!m) return undefined;
  const v = { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!), pre: m[4] ?? '' };
  // blang/semver parses each number (a numeric prerelease identifier too) as a uint64.
  const numbers = [
    v.major,
    v.minor,
    v.patch,
    ...v.pre
      .split('.')
      .filter((p) => /^[0-9]+$/.test(p))
      .map(BigInt),
  ];
  return numbers.some((n) => n > MAX_UINT64) ? undefined : v;
}

const SEMVER_NUMBER = /^[0-9]*$/;
const SEMVER_ALPHANUM = /^[0-9A-Za-z-]*$/;

/** Go's %q of a string (the ASCII cases blang/semver's messages meet). */
const goQuote = (s: string): string => JSON.stringify(s);

/** strconv.ParseUint(s, 10, 64)'s error, of digits only. */
function parseUintError(s: string): string | undefined {
  if (s === '') return 'strconv.ParseUint: parsing "": invalid syntax';
  return BigInt(s) > MAX_UINT64 ? `strconv.ParseUint: parsing ${goQuote(s)}: value out of range` : undefined;
}

/** Why github.com/blang/semver/v4's Parse refuses a version (semver()'s runtime error), in its words. */
function semverParseError(s: string): string {
  if (s === '') return 'Version string empty';
  const dot = s.indexOf('.');
  const dot2 = dot < 0 ? -1 : s.indexOf('.', dot + 1);
  if (dot2 < 0) return 'No Major.Minor.Patch elements found';
  const numbers: Array<[string, string, string]> = [
    [s.slice(0, dot), 'major', 'Major'],
    [s.slice(dot + 1, dot2), 'minor', 'Minor'],
  ];
  let patch = s.slice(dot2 + 1);
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patch.indexOf('+');
  if (plus >= 0) [build, patch] = [patch.slice(plus + 1).split('.'), patch.slice(0, plus)];
  const minus = patch.indexOf('-');
  if (minus >= 0) [pre, patch] = [patch.slice(minus + 1).split('.'), patch.slice(0, minus)];
  numbers.push([patch, 'patch', 'Patch']);
  for (const [text, lower, upper] of numbers) {
    if (!SEMVER_NUMBER.test(text)) return `Invalid character(s) found in ${lower} number ${goQuote(text)}`;
    if (text.length > 1 && text.startsWith('0')) return `${upper} number must not contain leading zeroes ${goQuote(text)}`;
    const e = parseUintError(text);
    if (e !== undefined) return e;
  }
  for (const p of pre) {
    if (p === '') return 'Prerelease is empty';
    if (SEMVER_NUMBER.test(p)) {
      if (p.length > 1 && p.startsWith('0')) return `Numeric PreRelease version must not contain leading zeroes ${goQuote(p)}`;
      const e = parseUintError(p);
      if (e !== undefined) return e;
    } else if (!SEMVER_ALPHANUM.test(p)) return `Invalid character(s) found in prerelease ${goQuote(p)}`;
  }
  for (const b of build) {
    if (b === '') return 'Build meta data is empty';
    if (!SEMVER_ALPHANUM.test(b)) return `Invalid character(s) found in build meta data ${goQuote(b)}`;
  }
  return 'invalid semver';
}

function semverMessage(v: Version): ReflectMessage {
  return reflect(SemverDesc, create(SemverDesc, { major: v.major, minor: v.minor, patch: v.patch, pre: v.pre }));
}

function versionOf(m: unknown): Version {
  const msg = m as ReflectMessage;
  const f = SemverDesc.field;
  return {
    major: msg.get(f['major']!) as bigint,
    minor: msg.get(f['minor']!) as bigint,
    patch: msg.get(f['patch']!) as bigint,
    pre: msg.get(f['pre']!) as string,
  };
}

/** semver 2.0.0 precedence (build metadata ignored). */
function compareVersions(a: Version, b: Version): bigint {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1n : 1n;
  if (a.pre === b.pre) return 0n;
  if (a.pre === '') return 1n;
  if (b.pre === '') return -1n;
  const pa = a.pre.split('.');
  const pb = b.pre.split('.');
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1n;
    if (y === undefined) return 1n;
    if (x === y) continue;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) return BigInt(x) < BigInt(y) ? -1n : 1n;
    if (nx) return -1n;
    if (ny) return 1n;
    return x < y ? -1n : 1n;
  }
  return 0n;
}

class CelEvalError extends Error {}

const funcs = [
  ...strings,
  ...listFuncs,
  ...ipFuncs,
  ...regexFuncs,
  ...extListFuncs,
  ...macroFuncs,
  ...urlFuncs,
  ...optionalFuncs,
  ...optionalSyntaxFuncs,
  ...formatFuncs,
  ...equalityFuncs,
  ...stdErrorFuncs,
  celFunc('quantity', [CelScalar.STRING], QUANTITY, (s: string) => {
    const r = parseRational(s);
    if (!r) throw new CelEvalError(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
    return quantityMessage(r);
  }),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseRational(s) !== undefined),
  celMethod('compareTo', QUANTITY, [QUANTITY], CelScalar.INT, function (o) {
    return compareRational(rationalOf(this), rationalOf(o));
  }),
  celMethod('isGreaterThan', QUANTITY, [QUANTITY], CelScalar.BOOL, function (o) {
    return compareRational(rationalOf(this), rationalOf(o)) > 0n;
  }),
  celMethod('isLessThan', QUANTITY, [QUANTITY], CelScalar.BOOL, function (o) {
    return compareRational(rationalOf(this), rationalOf(o)) < 0n;
  }),
  // A global function, as quantity.go declares it (lines 162-164): sign(q), not q.sign().
  celFunc('sign', [QUANTITY], CelScalar.INT, (q) => {
    const r = rationalOf(q);
    return r.n > 0n ? 1n : r.n < 0n ? -1n : 0n;
  }),
  // resource.Quantity's AsInt64: an integer within int64's range (isInteger is whether it succeeds).
  celMethod('isInteger', QUANTITY, [], CelScalar.BOOL, function () {
    return isInt64(rationalOf(this));
  }),
  celMethod('asInteger', QUANTITY, [], CelScalar.INT, function () {
    const r = rationalOf(this);
    if (!isInt64(r)) throw new CelEvalError('cannot convert value to integer');
    return r.n;
  }),
  celMethod('asApproximateFloat', QUANTITY, [], CelScalar.DOUBLE, function () {
    const r = rationalOf(this);
    return Number(r.n) / Number(r.d);
  }),
  celMethod('add', QUANTITY, [QUANTITY], QUANTITY, function (o) {
    const a = rationalOf(this);
    const b = rationalOf(o);
    return quantityMessage({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
  }),
  celMethod('add', QUANTITY, [CelScalar.INT], QUANTITY, function (o) {
    const a = rationalOf(this);
    return quantityMessage({ n: a.n + o * a.d, d: a.d });
  }),
  celMethod('sub', QUANTITY, [QUANTITY], QUANTITY, function (o) {
    const a = rationalOf(this);
    const b = rationalOf(o);
    return quantityMessage({ n: a.n * b.d - b.n * a.d, d: a.d * b.d });
  }),
  celMethod('sub', QUANTITY, [CelScalar.INT], QUANTITY, function (o) {
    const a = rationalOf(this);
    return quantityMessage({ n: a.n - o * a.d, d: a.d });
  }),
  celFunc('semver', [CelScalar.STRING], SEMVER, (s: string) => {
    const v = parseVersion(s);
    if (!v) throw new CelEvalError(semverParseError(s));
    return semverMessage(v);
  }),
  celFunc('isSemver', [CelScalar.STRING], CelScalar.BOOL, (s: string) => parseVersion(s) !== undefined),
  celMethod('compareTo', SEMVER, [SEMVER], CelScalar.INT, function (o) {
    return compareVersions(versionOf(this), versionOf(o));
  }),
  celMethod('isGreaterThan', SEMVER, [SEMVER], CelScalar.BOOL, function (o) {
    return compareVersions(versionOf(this), versionOf(o)) > 0n;
  }),
  celMethod('isLessThan', SEMVER, [SEMVER], CelScalar.BOOL, function (o) {
    return compareVersions(versionOf(this), versionOf(o)) < 0n;
  }),
  celMethod('major', SEMVER, [], CelScalar.INT, function () {
    return versionOf(this).major;
  }),
  celMethod('minor', SEMVER, [], CelScalar.INT, function () {
    return versionOf(this).minor;
  }),
  celMethod('patch', SEMVER, [], CelScalar.INT, function () {
    return versionOf(this).patch;
  }),
];

const unit: CallCoster = () => ({ cost: fixed(1n) });
const traverseArg: CallCoster = (ctx, _fn, _id, _target, args) =>
  args[0] ? { cost: est.factor(ctx.size(args[0]), COST.stringTraversalFactor) } : undefined;

/** The quantity and semver libraries' share of the cost model (library/cost.go: parsing traverses the string, the rest costs 1). */
export const quantitySemverCost: CelCostLibrary = {
  decls: [
    overload('quantity', 'string_to_quantity', [T.string], QUANTITY_T),
    overload('isQuantity', 'is_quantity_string', [T.string], T.bool),
    overload('sign', 'quantity_sign', [QUANTITY_T], T.int),
    member('isInteger', 'quantity_is_integer', [QUANTITY_T], T.bool),
    member('asInteger', 'quantity_get_int', [QUANTITY_T], T.int),
    member('asApproximateFloat', 'quantity_get_float', [QUANTITY_T], T.double),
    member('isGreaterThan', 'quantity_is_greater_than', [QUANTITY_T, QUANTITY_T], T.bool),
    member('isLessThan', 'quantity_is_less_than', [QUANTITY_T, QUANTITY_T], T.bool),
    member('compareTo', 'quantity_compare_to', [QUANTITY_T, QUANTITY_T], T.int),
    member('add', 'quantity_add', [QUANTITY_T, QUANTITY_T], QUANTITY_T),
    member('add', 'quantity_add_int', [QUANTITY_T, T.int], QUANTITY_T),
    member('sub', 'quantity_sub', [QUANTITY_T, QUANTITY_T], QUANTITY_T),
    member('sub', 'quantity_sub_int', [QUANTITY_T, T.int], QUANTITY_T),
    overload('semver', 'string_to_semver', [T.string], SEMVER_T),
    overload('isSemver', 'is_semver_string', [T.string], T.bool),
    // SemverVersion(1)'s normalizing forms; Podplan's runtime does not offer them yet (an evaluation error).
    overload('semver', 'string_bool_to_semver', [T.string, T.bool], SEMVER_T),
    overload('isSemver', 'is_semver_string_bool', [T.string, T.bool], T.bool),
    member('isGreaterThan', 'semver_is_greater_than', [SEMVER_T, SEMVER_T], T.bool),
    member('isLessThan', 'semver_is_less_than', [SEMVER_T, SEMVER_T], T.bool),
    member('compareTo', 'semver_compare_to', [SEMVER_T, SEMVER_T], T.int),
    member('major', 'semver_major', [SEMVER_T], T.int),
    member('minor', 'semver_minor', [SEMVER_T], T.int),
    member('patch', 'semver_patch', [SEMVER_T], T.int),
  ],
  byFunction: Object.fromEntries([
    ...['quantity', 'isQuantity', 'semver', 'isSemver'].map((f) => [f, traverseArg] as const),
    ...[
      'sign',
      'asInteger',
      'isInteger',
      'asApproximateFloat',
      'isGreaterThan',
      'isLessThan',
      'compareTo',
      'add',
      'sub',
      'major',
      'minor',
      'patch',
    ].map((f) => [f, unit] as const),
  ]),
};

function sameNamed(a: CelT, b: CelT, name: string): boolean {
  return (a.k === 'struct' || a.k === 'opaque') && a.k === b.k && a.name === name && b.name === name;
}

/** apiservercel.MaxFormatSize. */
const MAX_FORMAT_SIZE = 64n;

/**
 * library/cost.go's `_==_` (lines 508-536): constant for two values of one of Kubernetes' types (IP,
 * CIDR, Quantity, Semver), a format's name's traversal for two formats.
 */
export const equalityCost: CelCostLibrary = {
  decls: [],
  byFunction: {
    '_==_': (_ctx, _fn, _id, _target, args) => {
      const [l, r] = args;
      if (!l || !r) return undefined;
      for (const t of [IP_T, CIDR_T, QUANTITY_T, SEMVER_T])
        if (sameNamed(l.type, r.type, (t as { name: string }).name)) return { cost: fixed(1n) };
      // A format: up to MaxFormatSize (64) at the string traversal factor (lines 525-526).
      if (sameNamed(l.type, r.type, FORMAT_T_NAME))
        return { cost: est.factor({ min: 1n, max: MAX_FORMAT_SIZE }, COST.stringTraversalFactor) };
      return undefined;
    },
  },
};

const targetTraversal: CallCoster = (ctx, _fn, _id, target) => {
  if (!target) return undefined;
  const sz = ctx.size(target);
  return { cost: est.factor(sz, COST.stringTraversalFactor), resultSize: sz };
};

/** The strings extension's share of the cost model: its overloads (cel-go ext/strings.go) and library/cost.go's entries. */
export const stringsCost: CelCostLibrary = {
  decls: [
    member('charAt', 'string_char_at_int', [T.string, T.int], T.string),
    member('indexOf', 'string_index_of_string', [T.string, T.string], T.int),
    member('indexOf', 'string_index_of_string_int', [T.string, T.string, T.int], T.int),
    member('lastIndexOf', 'string_last_index_of_string', [T.string, T.string], T.int),
    member('lastIndexOf', 'string_last_index_of_string_int', [T.string, T.string, T.int], T.int),
    member('lowerAscii', 'string_lower_ascii', [T.string], T.string),
    member('upperAscii', 'string_upper_ascii', [T.string], T.string),
    member('replace', 'string_replace_string_string', [T.string, T.string, T.string], T.string),
    member('replace', 'string_replace_string_string_int', [T.string, T.string, T.string, T.int], T.string),
    member('split', 'string_split_string', [T.string, T.string], T.list(T.string)),
    member('split', 'string_split_string_int', [T.string, T.string, T.int], T.list(T.string)),
    member('substring', 'string_substring_int', [T.string, T.int], T.string),
    member('substring', 'string_substring_int_int', [T.string, T.int, T.int], T.string),
    member('trim', 'string_trim', [T.string], T.string),
    member('join', 'list_join', [T.list(T.string)], T.string),
    member('join', 'list_join_string', [T.list(T.string), T.string], T.string),
    overload('strings.quote', 'strings_quote', [T.string], T.string),
    member('format', 'string_format', [T.string, T.list(T.dyn)], T.string),
  ],
  byFunction: {
    lowerAscii: targetTraversal,
    upperAscii: targetTraversal,
    substring: targetTraversal,
    trim: targetTraversal,
    replace: (ctx, _fn, _id, target, args) => {
      if (!target || args.length < 2) return undefined;
      const sz = ctx.size(target);
      const from = ctx.size(args[0]!);
      const to = ctx.size(args[1]!);
      let countMax: bigint;
      let countMin: bigint;
      let keptMax = 0n;
      let keptMin = 0n;
      if (from.min === 0n) {
        countMax = sz.max < MAX_UINT64 ? sz.max + 1n : sz.max;
        keptMax = sz.max;
      } else if (to.max <= from.min) {
        countMax = 0n;
        keptMax = sz.max;
      } else {
        countMax = BigInt(Math.ceil(Number(sz.max) / Number(from.min)));
      }
      if (from.max === 0n) {
        countMin = sz.min < MAX_UINT64 ? sz.min + 1n : sz.min;
        keptMin = sz.min;
      } else if (from.max <= to.min) {
        countMin = 0n;
        keptMin = sz.min;
      } else {
        countMin = BigInt(Math.ceil(Number(sz.min) / Number(from.max)));
      }
      const size = est.add(est.mul({ min: countMin, max: countMax }, to), { min: keptMin, max: keptMax });
      return { cost: est.factor(sz, 2 * COST.stringTraversalFactor), resultSize: size };
    },
    split: (ctx, _fn, _id, target, args) => {
      if (!target) return undefined;
      const sz = ctx.size(target);
      let max = sz.max;
      const limit = args[1]?.expr?.exprKind;
      if (limit?.case === 'constExpr' && limit.value.constantKind.case === 'int64Value')
        max = BigInt.asUintN(64, limit.value.constantKind.value as bigint);
      return { cost: est.factor(sz, 2 * COST.stringTraversalFactor), resultSize: { min: 0n, max } };
    },
    join: (ctx, _fn, _id, target, args) => {
      if (!target) return undefined;
      let sz: Estimate = { min: 0n, max: 0n };
      const list = ctx.size(target);
      if (target.type.k === 'list') {
        const el: AstNode = {
          path: target.path && [...target.path, '@items'],
          type: target.type.e,
          expr: undefined,
          computedSize: undefined,
        };
        sz = est.mul(list, ctx.size(el));
      }
      if (args[0]) {
        const sep = ctx.size(args[0]);
        sz = est.add(sz, est.mul(sep, { min: list.min > 0n ? list.min - 1n : 0n, max: list.max > 0n ? list.max - 1n : 0n }));
      }
      return { cost: est.factor(sz, COST.stringTraversalFactor), resultSize: sz };
    },
  },
};

const AUTHORIZER_T = T.struct('kubernetes.authorization.Authorizer');
const PATH_CHECK_T = T.struct('kubernetes.authorization.PathCheck');
const GROUP_CHECK_T = T.struct('kubernetes.authorization.GroupCheck');
const RESOURCE_CHECK_T = T.struct('kubernetes.authorization.ResourceCheck');
const DECISION_T = T.struct('kubernetes.authorization.Decision');

/**
 * Kubernetes' authz and authz selectors libraries, which the base environment declares for every
 * expression (k8s.io/apiserver v0.37.2 pkg/cel/library/authz.go lines 249-355): DRA's environment
 * has no `authorizer` to call them on, so Podplan declares them for the checker only (a call on a
 * value of another type is refused in cel-go's words; on a dyn one it compiles and fails when
 * evaluated, where upstream would find no authorizer either). Their costs are cel-go's default.
 */
export const authzCost: CelCostLibrary = {
  decls: [
    member('path', 'authorizer_path', [AUTHORIZER_T, T.string], PATH_CHECK_T),
    member('group', 'authorizer_group', [AUTHORIZER_T, T.string], GROUP_CHECK_T),
    member('serviceAccount', 'authorizer_serviceaccount', [AUTHORIZER_T, T.string, T.string], AUTHORIZER_T),
    member('resource', 'groupcheck_resource', [GROUP_CHECK_T, T.string], RESOURCE_CHECK_T),
    member('subresource', 'resourcecheck_subresource', [RESOURCE_CHECK_T, T.string], RESOURCE_CHECK_T),
    member('namespace', 'resourcecheck_namespace', [RESOURCE_CHECK_T, T.string], RESOURCE_CHECK_T),
    member('name', 'resourcecheck_name', [RESOURCE_CHECK_T, T.string], RESOURCE_CHECK_T),
    member('check', 'pathcheck_check', [PATH_CHECK_T, T.string], DECISION_T),
    member('check', 'resourcecheck_check', [RESOURCE_CHECK_T, T.string], DECISION_T),
    member('errored', 'decision_errored', [DECISION_T], T.bool),
    member('error', 'decision_error', [DECISION_T], T.string),
    member('allowed', 'decision_allowed', [DECISION_T], T.bool),
    member('reason', 'decision_reason', [DECISION_T], T.string),
    member('fieldSelector', 'authorizer_fieldselector', [RESOURCE_CHECK_T, T.string], RESOURCE_CHECK_T),
    member('labelSelector', 'authorizer_labelselector', [RESOURCE_CHECK_T, T.string], RESOURCE_CHECK_T),
  ],
};

/** The functions upstream's environment declares that Podplan's does not evaluate (authzCost's). */
const DECLARED_NOT_EVALUATED: ReadonlySet<string> = new Set(authzCost.decls.map((d) => d.fn));

/** The functions the selector environment evaluates (the CelEnv's), for the check that each has a cost-model declaration. */
export const SELECTOR_FUNCS: readonly CelFunc[] = funcs;

/** The cost model's libraries: each one's declarations and cost entries. */
export const SELECTOR_COST_LIBRARIES: readonly CelCostLibrary[] = [
  stdCost,
  stringsCost,
  quantitySemverCost,
  equalityCost,
  listsCost,
  ipCost,
  regexCost,
  urlCost,
  extListsCost,
  macrosCost,
  optionalCost,
  formatCost,
  authzCost,
];

let model: CostModel | undefined;

/** The DRA selector environment's cost model: its variable, its libraries' declarations and costs. */
function theCostModel(): CostModel {
  model ??= costModel({
    variables: DRA_VARIABLES,
    structFields: DRA_STRUCT_FIELDS,
    libraries: SELECTOR_COST_LIBRARIES,
    estimateSize: draEstimateSize,
  });
  return model;
}

/**
 * A selector's estimated cost (the maximum, as kube-apiserver compares it with the limit) and whether
 * kube-apiserver's validation refuses it for it; undefined when it does not parse.
 */
export function selectorCost(expression: string): SelectorCost | undefined {
  if (costs.has(expression)) return costs.get(expression);
  const result = estimateSelector(expression);
  if (costs.size >= MAX_CACHED) costs.clear();
  costs.set(expression, result);
  return result;
}

type SelectorCost = { readonly cost: bigint; readonly exceeds: boolean };
type ParsedExpr = ReturnType<typeof parse>;
const costs = new Map<string, SelectorCost | undefined>();

function estimateSelector(expression: string): SelectorCost | undefined {
  const parsed = parseSelector(expression, 'cel-go');
  if (!parsed.ok) return undefined;
  const cost = theCostModel().estimate(parsed.expr.expr as unknown as CostExpr).max;
  return { cost, exceeds: cost > CEL_SELECTOR_EXPRESSION_MAX_COST };
}

/**
 * What the cost model's checker refuses that cel-go's checker and the DRA compiler refuse, in their
 * words: an identifier nothing declares (cel-go checker.go, `undeclared reference to 'x' (in
 * container '')`) and a selector whose output is not a bool (k8s.io/dynamic-resource-allocation
 * v0.37.2 cel/compile.go validateOutputType, lines 818-827: bool or the attribute type, the unknown
 * type google.protobuf.Any). Only an output type this checker knows exactly is refused.
 */
function checkerError(expression: string): string | undefined {
  const parsed = parseSelector(expression, 'cel-go');
  if (!parsed.ok) return undefined;
  const checked = theCostModel().check(parsed.expr.expr as unknown as CostExpr);
  // The checker's errors (functions and identifiers nothing declares, calls no overload takes), all of
  // them; only when there are none do the validators run (cel/env.go Check).
  const errors = [...undeclaredFunctions(parsed.expr.expr as unknown as ExprNode, theEnv()), ...checked.undeclared];
  if (errors.length > 0) return inCelGoOrder(expression, parsed.expr, errors);
  if (checked.panics) return VALIDATOR_PANIC;
  const validators = [...checked.mismatches, ...invalidMatchesLiterals(parsed.expr.expr as unknown as ExprNode)];
  if (validators.length > 0) return inCelGoOrder(expression, parsed.expr, validators);
  const t = checked.type;
  // dyn is refused too, but this checker's dyn is often a type it did not work out: only dyn(x) is sure.
  const root = parsed.expr.expr?.exprKind;
  // So is a type variable nothing bound (optional.none().value(), [].first().value()).
  if (checked.free) return 'must evaluate to bool or the unknown type, not dyn';
  if (root?.case === 'callExpr' && root.value.function === 'dyn' && root.value.target === undefined && root.value.args.length === 1) {
    return 'must evaluate to bool or the unknown type, not dyn';
  }
  if (t.k === 'bool' || t.k === 'any' || t.k === 'dyn') return undefined;
  const typeName = celTypeName(t);
  return typeName === undefined ? undefined : `must evaluate to bool or the unknown type, not ${typeName}`;
}

/**
 * What cel-go's homogeneous-literal validator does on an optional element or entry typed dyn or any:
 * it panics (cel/validator.go line 329), and kube-apiserver drops the request unanswered
 * (test/real/cel.test.ts). Podplan refuses the selector with the panic's words.
 */
export const VALIDATOR_PANIC = 'runtime error: index out of range [0] with length 0';

/** Operators cel-go positions at their token, @bufbuild/cel at the end of what precedes it (spaces before it). */
const BINARY = new Set([
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '_==_',
  '_!=_',
  '_<_',
  '_<=_',
  '_>_',
  '_>=_',
  '@in',
  '_&&_',
  '_||_',
  '!_',
  '-_',
]);

/**
 * Errors as kube-apiserver's message shows them: each at where cel-go places its node (its parser's
 * position: an operator's token, a call's `(`, a conditional's `?`), `<input>:line:column: words`,
 * one a line, sorted by place (cel/env.go's issues, sorted by location).
 */
function inCelGoOrder(expression: string, parsed: ReturnType<typeof parse>, errors: readonly CheckerError[]): string {
  const text = scanOptionalSyntax(expression).text;
  const positions = (parsed.sourceInfo?.positions ?? {}) as Record<string, number>;
  const nodes = nodesById(parsed.expr as unknown as ExprNode);
  const offset = (id: bigint): number => {
    const at = positions[String(id)];
    if (at === undefined) return Number.MAX_SAFE_INTEGER;
    const k = nodes.get(id)?.exprKind;
    // A presence test: @bufbuild/cel places has() at its name, cel-go at its `(`.
    if (k?.case === 'selectExpr' && (k.value as { testOnly: boolean }).testOnly) return findTopLevel(text, at, '(');
    if (k?.case !== 'callExpr') return at;
    const c = k.value as { function: string; target?: ExprNode };
    if (c.function === '_?._' || c.function === '_[_]' || c.function === '_[?_]') return at;
    // A member call, or what a macro made of one (cel-go gives the expansion the call's place): its `(`.
    if (text[at] === '.') return findTopLevel(text, at, '(');
    if (BINARY.has(c.function)) return skipSpace(text, at);
    if (c.function === '_?_:_') return findTopLevel(text, at, '?');
    if (c.function.startsWith('_') || c.function.startsWith('!') || c.function.startsWith('-') || c.function.startsWith('@')) return at;
    // A call: cel-go at its `(` (a member call's too; @bufbuild/cel at the name or the `.`).
    return findTopLevel(text, at, '(');
  };
  return [...errors]
    .map((e, i) => ({ e, i, at: offset(e.at) }))
    .sort((a, b) => a.at - b.at || a.i - b.i)
    .map(({ e, at }) => (at === Number.MAX_SAFE_INTEGER ? e.message : `${inputLocation(expression, at)}: ${e.message}`))
    .join('\n');
}

/** cel-go's `<input>:line:column` of an offset (both from 1, the column in characters). */
export function inputLocation(text: string, offset: number): string {
  const before = [...text.slice(0, offset)];
  const line = before.filter((c) => c === '\n').length + 1;
  const lastNewline = before.lastIndexOf('\n');
  return `<input>:${line}:${before.length - lastNewline}`;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** The first `ch` at or after `at` outside strings and brackets opened after `at`. */
function findTopLevel(text: string, at: number, ch: string): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const q = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += q.length;
      while (i < text.length && !text.startsWith(q, i)) i += text[i] === '\\' ? 2 : 1;
      i += q.length - 1;
      continue;
    }
    if (depth === 0 && c === ch) return i;
    if (c === '(' || c === '[' || c === '{') depth++;
    if (c === ')' || c === ']' || c === '}') depth--;
  }
  return at;
}

/** kube-apiserver's words for a selector whose estimated cost exceeds the limit (a field.Forbidden). */
export const TOO_COMPLEX = 'Forbidden: too complex, exceeds cost limit';

let env: CelEnv | undefined;

function theEnv(): CelEnv {
  env ??= celEnv({ registry: createFileRegistry(registry, ipRegistry, urlRegistry, optionalRegistry, formatRegistry), funcs });
  return env;
}

/** A compiled selector: evaluate it on a device, or the reason it does not compile. */
export type CompiledSelector =
  | { readonly ok: true; readonly matches: (device: Device, driver: string) => { ok: true; value: boolean } | { ok: false; error: string } }
  | { readonly ok: false; readonly error: string };

const compiled = new Map<string, CompiledSelector>();
const MAX_CACHED = 4096;

/** Compiles (once per expression) a device selector. */
export function compileSelector(expression: string): CompiledSelector {
  const hit = compiled.get(expression);
  if (hit) return hit;
  const result = compile(expression);
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(expression, result);
  return result;
}

/** The parts of a parsed CEL expression (cel.expr.Expr) the function check walks. */
interface ExprNode {
  readonly id: bigint;
  readonly exprKind:
    | {
        readonly case: 'callExpr';
        readonly value: { readonly function: string; readonly target?: ExprNode; readonly args: readonly ExprNode[] };
      }
    | { readonly case: 'selectExpr'; readonly value: { readonly operand?: ExprNode; readonly field: string } }
    | { readonly case: 'identExpr'; readonly value: { readonly name: string } }
    | { readonly case: 'listExpr'; readonly value: { readonly elements: readonly ExprNode[] } }
    | {
        readonly case: 'structExpr';
        readonly value: {
          readonly entries: readonly { readonly value?: ExprNode; readonly keyKind: { readonly case: string; readonly value?: unknown } }[];
        };
      }
    | { readonly case: 'comprehensionExpr'; readonly value: Record<string, unknown> }
    | { readonly case: string | undefined; readonly value?: unknown };
}

/** Calls the planner handles itself rather than through a function. */
const SPECIAL_CALLS = new Set(['_[_]', '_[?_]', '_?._', '_?_:_', '_&&_', '_||_', '@not_strictly_false', '__not_strictly_false__']);

/**
 * The calls of functions the environment does not declare, as cel-go's checker reports them
 * (`undeclared reference to 'f' (in container '')`, at the call): compile errors, not runtime ones.
 */
function undeclaredFunctions(
  e: ExprNode | undefined,
  env: CelEnv,
  withheld: ReadonlySet<string> = NONE,
  out: CheckerError[] = [],
): CheckerError[] {
  if (!e) return out;
  let children: (ExprNode | undefined)[] = exprChildren(e);
  const k = e.exprKind;
  if (k.case === 'callExpr') {
    const call = k.value as { function: string; target?: ExprNode; args: readonly ExprNode[] };
    const q = qualifiedName(call.target);
    const qualified = q !== undefined && env.funcs.find(`${q}.${call.function}`) !== undefined;
    const declared = env.funcs.find(call.function) !== undefined || DECLARED_NOT_EVALUATED.has(call.function);
    if (!qualified && !SPECIAL_CALLS.has(call.function) && (withheld.has(call.function) || !declared)) {
      out.push({ at: e.id, message: `undeclared reference to '${call.function}' (in container '')` });
    }
    // A qualified function's target is its name, not an operand.
    if (qualified) children = [...call.args];
  }
  for (const child of children) undeclaredFunctions(child, env, withheld, out);
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The functions kube-apiserver 1.37 does not offer a new expression: it validates one it is asked to
 * create or change in the environment of its compatibility version, 1.36 (k8s.io/apiserver v0.37.2
 * pkg/cel/environment/base.go DefaultCompatibilityVersion, lines 49-55, and the NewExpressions
 * environment k8s.io/dynamic-resource-allocation's validation asks for), and Kubernetes' lists
 * library at version 1 (`includes`) arrives with 1.37 (base.go lines 182-187). A stored expression
 * (what the scheduler evaluates) has them.
 */
const NOT_IN_NEW_EXPRESSIONS: ReadonlySet<string> = new Set(['includes']);

/**
 * Why kube-apiserver refuses a selector that compiles (compileSelector) when an object is created
 * with it: it calls a function new expressions do not have yet; undefined when it accepts it.
 */
export function newSelectorError(expression: string): string | undefined {
  // Asked on every check of a document (each edit in the editor): parsed once per expression.
  if (newErrors.has(expression)) return newErrors.get(expression);
  const parsed = parseSelector(expression, 'cel-go');
  const found = parsed.ok ? undeclaredFunctions(parsed.expr.expr as unknown as ExprNode, theEnv(), NOT_IN_NEW_EXPRESSIONS) : [];
  const error = parsed.ok && found.length > 0 ? inCelGoOrder(expression, parsed.expr, found) : undefined;
  if (newErrors.size >= MAX_CACHED) newErrors.clear();
  newErrors.set(expression, error);
  return error;
}

const newErrors = new Map<string, string | undefined>();

/**
 * A selector parsed with cel-go's macros expanded (cel.bind, sortBy, two-variable comprehensions):
 * the tree both the cost estimate and the program are made from, or why it does not parse.
 */
function parseSelector(
  expression: string,
  shape: MacroShape = 'evaluate',
): { ok: true; expr: ReturnType<typeof parse> } | { ok: false; error: string } {
  // What cel-go refuses to parse, in its words (cel-syntax.ts); @bufbuild/cel's words only for what
  // cel-go parses and @bufbuild/cel does not.
  const refused = celGoSyntaxErrors(expression);
  if (refused !== undefined) return { ok: false, error: refused };
  let parsed;
  // The optional syntax's `?`s blanked (positions kept), then given back to the tree.
  const syntax = scanOptionalSyntax(expression);
  try {
    parsed = parse(syntax.text);
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  let id = FIRST_MACRO_ID;
  const nextId = () => id++;
  if (syntax.any) {
    const info = parsed.sourceInfo;
    const syntaxError = applyOptionalSyntax(parsed.expr, info?.positions ?? {}, syntax.marks, nextId, info?.macroCalls);
    if (syntaxError !== undefined) {
      const at = syntaxError.at === undefined ? '' : `${inputLocation(expression, syntaxError.at)}: `;
      return { ok: false, error: `${at}${syntaxError.error}` };
    }
  }
  const macroError = expandMacros(parsed.expr as unknown as MacroNode, nextId, shape);
  if (macroError !== undefined) {
    const at = parsed.sourceInfo?.positions[String(macroError.at)];
    return { ok: false, error: at === undefined ? macroError.error : `${inputLocation(expression, at)}: ${macroError.error}` };
  }
  if (shape === 'evaluate') optionalForEvaluation(parsed.expr as unknown as MacroNode, evaluationTypes(expression, parsed.expr), nextId);
  return { ok: true, expr: parsed };
}

/** The first id the macro expansions hand out; the parser's nodes (the user's) have smaller ones. */
const FIRST_MACRO_ID = 1n << 40n;
/** The first id of the nodes the program's set membership tests add (cel-equality.ts), past the macros'. */
const SET_MEMBERSHIP_FIRST_ID = 1n << 50n;

/**
 * The checker's types for the tree to evaluate: the user's nodes as cel-go's expansion types them
 * (the checker reads that shape whole: a two-variable comprehension's variables typed from their
 * range, where the evaluated shape binds them from pairs), the rest as the evaluated shape's.
 */
function evaluationTypes(expression: string, evaluated: ParsedExpr['expr']): ReadonlyMap<bigint, CelT> {
  const types = new Map(theCostModel().types(evaluated as unknown as CostExpr));
  const celGo = parseSelector(expression, 'cel-go');
  if (celGo.ok) {
    for (const [id, t] of theCostModel().types(celGo.expr.expr as unknown as CostExpr)) if (id < FIRST_MACRO_ID) types.set(id, t);
  }
  return types;
}

/** What the words of a runtime error need of the tree evaluated, looked up by a node's id. */
interface ErrorContext {
  /** The checker's type of the node. */
  type(id: bigint): CelT | undefined;
  /** The node. */
  node(id: bigint): ExprNode | undefined;
  /** The node's value on the device, where it reads nothing but `device` (undefined otherwise). */
  value(id: bigint): unknown;
}

/** Functions whose call no overload takes is cel-go's bare `no such overload` (the string functions' specialized plans). */
const BARE_NO_SUCH_OVERLOAD = new Set(['contains', 'startsWith', 'endsWith', '@in']);
/** The regex functions, bare with a constant pattern (decRegexOptimizer's plans), `matches` named otherwise. */
const REGEX_CALLS = new Set(['matches', 'find', 'findAll']);

/** cel-go's words for a call no overload takes at evaluation (an operand typed dyn). */
function noSuchOverloadWords(fn: string, signature: string, node: ExprNode | undefined): string {
  if (/^(?:_[^a-zA-Z]+_|-_|!_)$/.test(fn) || BARE_NO_SUCH_OVERLOAD.has(fn)) return 'no such overload';
  if (fn === 'size') return 'no such overload: size';
  if (REGEX_CALLS.has(fn)) {
    const pattern = node?.exprKind.case === 'callExpr' ? (node.exprKind.value as { args: readonly ExprNode[] }).args[0] : undefined;
    const constant = pattern?.exprKind.case === 'constExpr';
    if (constant) return 'no such overload';
    if (fn === 'matches') return 'no such overload: matches';
  }
  // @bufbuild/cel's `recv.(a, b)` or `(a, b)`: cel-go's noSuchOverload lists the receiver first,
  // each value's type by its runtime name (`list`, `map`, `optional_type`); the lists extension's
  // flatten names a receiver that is not a list with its type in full.
  const m = /^(?:(.*)\.)?\((.*)\)$/s.exec(signature);
  if (!m) return 'no such overload';
  if (fn === 'flatten' && m[1] !== undefined) return `no such overload: ${m[1]}.flatten()`;
  const types = [m[1], ...splitTypes(m[2]!)].filter((t) => t !== undefined && t !== '').map((t) => celGoTypeName(t!));
  return `no such overload: ${fn}(${types.join(', ')})`;
}

/** A signature's types, split at its top-level commas (`map(dyn, dyn), int`). */
function splitTypes(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(list.slice(start).trim());
  return out;
}

/** A value's type as cel-go's runtime names it (a list's and a map's without parameters). */
function celGoTypeName(bufbuild: string): string {
  if (bufbuild.startsWith('list(')) return 'list';
  if (bufbuild.startsWith('map(')) return 'map';
  if (bufbuild === 'podplan.Optional') return 'optional_type';
  return bufbuild;
}

/**
 * @bufbuild/cel's words for a runtime error where only its message and node id tell what failed
 * (its dispatch and its attribute access, access.js) in cel-go's, which the allocator's `CEL
 * runtime error: …` shows a user: a call no overload takes (noSuchOverloadWords), a missing map
 * key (a device without the attribute a selector reads) `no such key: <key>` (types.ValOrErr), a
 * list index out of range `index out of bounds: <i>`. A numeric index's failure reads the same in
 * @bufbuild/cel for a map and a list (the id is the operand's): the operand's type from the checker
 * tells them apart, or where it is typed dyn its value (an index into what is not a list is `no
 * such key`); where that value needs a comprehension's variables, the words stay @bufbuild/cel's.
 */
function celGoRuntimeWords(error: { readonly message: string; readonly exprId: bigint | undefined }, context: ErrorContext): string {
  const overload = /^found no matching overload for '(.*)' applied to '(.*)'$/s.exec(error.message);
  if (overload) return noSuchOverloadWords(overload[1]!, overload[2]!, error.exprId === undefined ? undefined : context.node(error.exprId));
  const missing = /^field not found: (.*)$/s.exec(error.message);
  if (missing) return `no such key: ${missing[1]}`;
  const index = /^index (.*) out of bounds \[0, -1\)$/s.exec(error.message);
  if (index && error.exprId !== undefined) {
    const kind = context.type(error.exprId)?.k;
    if (kind === 'map') return `no such key: ${index[1]}`;
    if (kind === 'list') return `index out of bounds: ${index[1]}`;
    const value = context.value(error.exprId);
    if (value !== undefined) return isCelList(value) ? `index out of bounds: ${index[1]}` : `no such key: ${index[1]}`;
  }
  return error.message;
}

/** The nodes of a tree by id. */
function nodesById(e: ExprNode): ReadonlyMap<bigint, ExprNode> {
  const out = new Map<bigint, ExprNode>();
  const walk = (n: ExprNode | undefined): void => {
    if (!n) return;
    out.set(n.id, n);
    for (const child of exprChildren(n)) walk(child);
  };
  walk(e);
  return out;
}

/**
 * The error of a type conversion of a constant, which cel-go's planner evaluates while it builds
 * the program (interpreter decOptimize, maybeOptimizeConstUnary: `program instantiation failed:
 * …`, a compile error): a conversion call whose one argument is a literal or such a conversion.
 */
function constantConversionError(parsed: ParsedExpr, e: ExprNode): string | undefined {
  const folded = new Set<ExprNode>();
  const walk = (n: ExprNode | undefined): string | undefined => {
    if (!n) return undefined;
    for (const child of exprChildren(n)) {
      const found = walk(child);
      if (found !== undefined) return found;
    }
    if (n.exprKind.case !== 'callExpr') return undefined;
    const call = n.exprKind.value as { readonly function: string; readonly target?: ExprNode; readonly args: readonly ExprNode[] };
    const arg = call.args[0];
    if (call.target || call.args.length !== 1 || !arg || !CONVERSIONS.has(call.function)) return undefined;
    if (arg.exprKind.case !== 'constExpr' && !folded.has(arg)) return undefined;
    const out = (plan(theEnv(), { ...parsed, expr: n } as never) as unknown as (ctx: Record<string, unknown>) => unknown)({});
    if (isCelError(out)) return out.message;
    folded.add(n);
    return undefined;
  };
  return walk(e);
}

function compile(expression: string): CompiledSelector {
  let program: (ctx: Record<string, unknown>) => unknown;
  let errorContext: (device: unknown) => ErrorContext = () => ({ type: () => undefined, node: () => undefined, value: () => undefined });
  try {
    const expanded = parseSelector(expression);
    if (!expanded.ok) return expanded;
    const parsed = expanded.expr;
    const typeError = checkerError(expression);
    if (typeError !== undefined) return { ok: false, error: typeError };
    const badRegex = constantRegexError(parsed.expr as unknown as ExprNode);
    if (badRegex !== undefined) return { ok: false, error: badRegex };
    const badConversion = constantConversionError(parsed, parsed.expr as unknown as ExprNode);
    if (badConversion !== undefined) return { ok: false, error: `program instantiation failed: ${badConversion}` };
    // The tree evaluated (parsed again: the same ids, without the set membership rewrite) and its
    // checker's types, for an error's words only.
    let tree: { types: ReadonlyMap<bigint, CelT>; nodes: ReadonlyMap<bigint, ExprNode> } | undefined;
    const evaluatedTree = (): NonNullable<typeof tree> => {
      const again = parseSelector(expression);
      if (!again.ok) return { types: new Map(), nodes: new Map() };
      return { types: evaluationTypes(expression, again.expr.expr), nodes: nodesById(again.expr.expr as unknown as ExprNode) };
    };
    errorContext = (device) => ({
      type: (id) => (tree ??= evaluatedTree()).types.get(id),
      node: (id) => (tree ??= evaluatedTree()).nodes.get(id),
      value: (id) => {
        const node = (tree ??= evaluatedTree()).nodes.get(id);
        if (!node) return undefined;
        try {
          const out = (plan(theEnv(), { ...parsed, expr: node } as never) as unknown as (ctx: Record<string, unknown>) => unknown)({
            device,
          });
          return isCelError(out) ? undefined : out;
        } catch {
          return undefined;
        }
      },
    });
    let setKeyId = SET_MEMBERSHIP_FIRST_ID;
    setMembership(parsed.expr as unknown as MacroNode, () => setKeyId++);
    program = plan(theEnv(), parsed) as unknown as (ctx: Record<string, unknown>) => unknown;
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  type Verdict = { ok: true; value: boolean } | { ok: false; error: string };
  // What counting the actual cost needs; a selector it cannot be made for (a throw: none is known)
  // is evaluated without the runtime limit, as one whose tree the walk does not cover.
  let tracking: CostTracking | undefined;
  try {
    tracking = costTracking(expression);
  } catch {
    tracking = undefined;
  }
  const run = (device: Device, driver: string): Verdict => {
    // The runtime cost limit (cel-runtime-cost.ts): cel-go stops past it, whatever the value. A
    // walk that gives up (undefined) or throws leaves the selector to be evaluated without it.
    let counted: ActualCost;
    try {
      counted = tracking && actualCost(tracking, deviceValue(device, driver), LIMIT);
    } catch {
      counted = undefined;
    }
    if (counted?.exceeded) return { ok: false, error: COST_LIMIT_EXCEEDED };
    let out: unknown;
    try {
      out = program({ device: deviceValue(device, driver) });
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    if (isCelError(out)) {
      // cel-go's words for the error; @bufbuild/cel's own should finding them throw.
      try {
        return { ok: false, error: celGoRuntimeWords(out, errorContext(deviceValue(device, driver))) };
      } catch {
        return { ok: false, error: out.message };
      }
    }
    if (typeof out !== 'boolean') return { ok: false, error: `CEL result of type ${typeof out} could not be converted to bool` };
    return { ok: true, value: out };
  };
  // A selector's verdict depends only on the device (and its driver): kept per device object.
  const verdicts = new WeakMap<Device, Map<string, Verdict>>();
  const matches = (device: Device, driver: string): Verdict => {
    let byDriver = verdicts.get(device);
    if (!byDriver) verdicts.set(device, (byDriver = new Map()));
    let verdict = byDriver.get(driver);
    if (!verdict) byDriver.set(driver, (verdict = run(device, driver)));
    return verdict;
  };
  return { ok: true, matches };
}

const LIMIT = Number(CEL_SELECTOR_EXPRESSION_MAX_COST);

/**
 * What counting a selector's actual cost needs (cel-runtime-cost.ts), for a selector whose actual
 * cost may pass the limit: an estimate over half of it. The actual cost passes the estimate only by
 * the 1 of each attribute cel-go makes of a call's or literal's result (`s.split(",")[0]`), and
 * that result is estimated at 1 at least, so the actual cost stays under twice the estimate.
 */
function costTracking(expression: string, always = false): CostTracking | undefined {
  const estimate = selectorCost(expression);
  if (!estimate || (!always && estimate.cost * 2n <= CEL_SELECTOR_EXPRESSION_MAX_COST)) return undefined;
  const parsed = parseSelector(expression, 'cel-go');
  if (!parsed.ok) return undefined;
  const expr = parsed.expr.expr as unknown as CostExpr;
  return { env: theEnv(), expr, ...theCostModel().references(expr) };
}

/** A selector's actual cost on a device, counted up to the limit (whatever its estimate); undefined where the count does not cover it. */
export function selectorActualCost(expression: string, device: Device, driver: string): ActualCost {
  const tracking = costTracking(expression, true);
  return tracking && actualCost(tracking, deviceValue(device, driver), LIMIT);
}

const values = new WeakMap<Device, Map<string, unknown>>();

/** The `device` variable: domain → attribute → value; a domain not present reads as an empty map. */
function deviceValue(device: Device, driver: string): unknown {
  let byDriver = values.get(device);
  if (!byDriver) values.set(device, (byDriver = new Map()));
  const hit = byDriver.get(driver);
  if (hit) return hit;
  const attributes = new DefaultMap();
  for (const [name, a] of Object.entries(device.attributes ?? {})) {
    const [domain, id] = qualified(name, driver);
    const value =
      a.int !== undefined
        ? BigInt(a.int)
        : a.bool !== undefined
          ? a.bool
          : a.string !== undefined
            ? a.string
            : a.version !== undefined
              ? versionValue(a.version)
              : undefined;
    if (value !== undefined) attributes.inner(domain).set(id, value);
  }
  const capacity = new DefaultMap();
  for (const [name, c] of Object.entries(device.capacity ?? {})) {
    const [domain, id] = qualified(name, driver);
    const r = parseRational(c.value);
    if (r) capacity.inner(domain).set(id, quantityMessage(r));
  }
  const value = new Map<string, unknown>([
    ['driver', driver],
    ['allowMultipleAllocations', device.allowMultipleAllocations ?? false],
    ['attributes', attributes.toMap()],
    ['capacity', capacity.toMap()],
  ]);
  byDriver.set(driver, value);
  return value;
}

function versionValue(text: string): unknown {
  const v = parseVersion(text);
  return v ? semverMessage(v) : text;
}

function qualified(name: string, driver: string): [string, string] {
  const slash = name.indexOf('/');
  return slash < 0 ? [driver, name] : [name.slice(0, slash), name.slice(slash + 1)];
}

/** Upstream's map with a default: a lookup of an unknown domain yields an empty map. */
class DefaultMap {
  private readonly domains = new Map<string, Map<string, unknown>>();

  inner(domain: string): Map<string, unknown> {
    let m = this.domains.get(domain);
    if (!m) this.domains.set(domain, (m = new Map()));
    return m;
  }

  toMap(): Map<string, unknown> {
    return new Proxy(this.domains as Map<string, unknown>, {
      get(target, prop) {
        if (prop === 'get') return (k: string) => target.get(k) ?? EMPTY;
        if (prop === 'has') return () => true;
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
  }
}

const EMPTY = new Map<string, unknown>();
