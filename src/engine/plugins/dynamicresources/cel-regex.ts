// Kubernetes' CEL `regex` library (k8s.io/apiserver/pkg/cel/library/regex.go, in the base
// environment since 1.0: pkg/cel/environment/base.go, `UnversionedLib(library.Regex)`), for device
// selectors: `'abc 123'.find('[0-9]+')` (the leftmost match, '' if none), `findAll(re)` and
// `findAll(re, limit)` (the successive non-overlapping matches, at most `limit` when it is not
// negative). Upstream uses Go's regexp (RE2 syntax, leftmost-first); re2js (a maintained JS port of
// RE2 through RE2J) has the same syntax, the same error words and reports match positions, which
// @bufbuild/cel's own RE2 cannot. findAll walks the matches as Go's FindAllString does: an empty
// match right after the previous match is skipped.
//
// A constant pattern is compiled when the program is built (upstream's FindRegexOptimization and
// FindAllRegexOptimization, through cel-go's OptimizeRegex): an invalid one is a compile error,
// `program instantiation failed: error parsing regexp: …`; a pattern computed at evaluation that is
// invalid is the runtime error `Illegal regex: error parsing regexp: …`. A constant pattern of
// `matches` that does not compile is the checker's `invalid matches argument` (cel-go's
// ValidateRegexLiterals, in the base environment since 1.29).
//
// `matches` too (cel-go's `matches(s, re)` and `s.matches(re)`) takes its patterns from the cache
// here, in place of @bufbuild/cel's own, which compiles the pattern on every call: true when the
// pattern matches anywhere in the string; a pattern that does not compile is the runtime error of
// Go's regexp, `error parsing regexp: …`, with no `Illegal regex` before it (cel-go's stdlib).
import { celFunc, celMethod, CelScalar, celList, listType, type CelFunc } from '@bufbuild/cel';
import { RE2JS } from 're2js';
import { exprChildren } from './cel-ast';
import { COST, est, fixed, member, T, type CallCoster, type CelCostLibrary } from './cel-cost';

const patterns = new Map<string, RE2JS | string>();
const MAX_CACHED = 1024;

/** The compiled pattern, or Go regexp's error text (`error parsing regexp: …`). */
function compilePattern(pattern: string): RE2JS | string {
  const hit = patterns.get(pattern);
  if (hit !== undefined) return hit;
  let out: RE2JS | string;
  try {
    out = RE2JS.compile(pattern);
  } catch (e) {
    out = e instanceof Error ? e.message : String(e);
  }
  if (patterns.size >= MAX_CACHED) patterns.clear();
  patterns.set(pattern, out);
  return out;
}

function regexOf(pattern: string): RE2JS {
  const re = compilePattern(pattern);
  if (typeof re === 'string') throw new Error(`Illegal regex: ${re}`);
  return re;
}

/** cel-go's `matches`: whether the pattern matches somewhere in `s`. */
function matches(s: string, pattern: string): boolean {
  const re = compilePattern(pattern);
  if (typeof re === 'string') throw new Error(re);
  return re.test(s);
}

/** Go's `FindAllString(s, n)`: n < 0 means all; n == 0 yields none. */
function findAll(re: RE2JS, s: string, n: bigint): string[] {
  const out: string[] = [];
  const m = re.matcher(s);
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0n || BigInt(out.length) < n) && pos <= s.length && m.find(pos)) {
    const start = m.start();
    const end = m.end();
    let accept = true;
    if (end === pos) {
      // An empty match: not right after the previous match; the next search starts one character on.
      if (start === prevEnd) accept = false;
      const code = s.codePointAt(pos);
      pos += code === undefined ? 1 : code > 0xffff ? 2 : 1;
    } else {
      pos = end;
    }
    prevEnd = end;
    if (accept) out.push(s.slice(start, end));
  }
  return out;
}

export const regexFuncs: readonly CelFunc[] = [
  celMethod('matches', CelScalar.STRING, [CelScalar.STRING], CelScalar.BOOL, function (pattern) {
    return matches(this, pattern);
  }),
  celFunc('matches', [CelScalar.STRING, CelScalar.STRING], CelScalar.BOOL, matches),
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (pattern) {
    const m = regexOf(pattern).matcher(this);
    return m.find() ? (m.group() ?? '') : '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], listType(CelScalar.STRING), function (pattern) {
    return celList(findAll(regexOf(pattern), this, -1n));
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], listType(CelScalar.STRING), function (pattern, n) {
    return celList(findAll(regexOf(pattern), this, n));
  }),
];

/** The parts of a parsed expression the constant-pattern check reads. */
interface Node {
  readonly id?: bigint;
  readonly exprKind: { readonly case: string | undefined; readonly value?: unknown };
}

const REGEX_FUNCTIONS = new Set(['find', 'findAll']);
const MATCHES = new Set(['matches']);

/**
 * The constant string pattern of a call of one of `functions`, if it is one: a member call's first
 * argument; with `global`, also the second argument of the function form (`matches(s, re)`).
 */
function constantPattern(e: Node, functions: ReadonlySet<string>, global = false): string | undefined {
  if (e.exprKind.case !== 'callExpr') return undefined;
  const call = e.exprKind.value as { function: string; target?: Node; args: readonly Node[] };
  if (!functions.has(call.function)) return undefined;
  if (call.target === undefined && !(global && call.args.length === 2)) return undefined;
  const arg = call.args[call.target === undefined ? 1 : 0]?.exprKind;
  if (arg?.case !== 'constExpr') return undefined;
  const constant = (arg.value as { constantKind: { case: string | undefined; value?: unknown } }).constantKind;
  return constant.case === 'stringValue' ? (constant.value as string) : undefined;
}

/** The first call (operands before the call, as cel-go's planner meets them) whose constant pattern does not compile. */
function firstInvalid(e: Node | undefined): string | undefined {
  if (!e) return undefined;
  for (const child of exprChildren(e)) {
    const found = firstInvalid(child);
    if (found !== undefined) return found;
  }
  const pattern = constantPattern(e, REGEX_FUNCTIONS) ?? constantPattern(e, MATCHES, true);
  if (pattern === undefined) return undefined;
  const re = compilePattern(pattern);
  return typeof re === 'string' ? re : undefined;
}

/**
 * The program's error upstream reports for a constant pattern of `find`, `findAll` or the function
 * form of `matches` (which the validator below does not read) that does not compile (cel-go's and
 * the regex library's regex optimizations: `program instantiation failed: error parsing regexp:
 * …`), once the expression compiled.
 */
export function constantRegexError(e: Node | undefined): string | undefined {
  const find = firstInvalid(e);
  return find === undefined ? undefined : `program instantiation failed: ${find}`;
}

/**
 * cel-go's ValidateRegexLiterals (in the base environment since 1.29, a validator): each `matches`
 * whose constant pattern does not compile, `invalid matches argument` at the pattern.
 */
export function invalidMatchesLiterals(
  e: Node | undefined,
  out: { at: bigint; message: string }[] = [],
): { at: bigint; message: string }[] {
  if (!e) return out;
  for (const child of exprChildren(e)) invalidMatchesLiterals(child, out);
  const pattern = constantPattern(e, MATCHES);
  if (pattern !== undefined && typeof compilePattern(pattern) === 'string') {
    const arg = (e.exprKind.value as { args: readonly Node[] }).args[0]!;
    out.push({ at: arg.id ?? -1n, message: 'invalid matches argument' });
  }
  return out;
}

/**
 * The regex library's share of the cost model: regex.go's declarations (lines 66-80) and
 * library/cost.go's estimate for find and findAll (lines 126-137): the string's traversal (one more
 * than its length) times a quarter of the pattern's length; the result at most the string's size.
 */
const findCost: CallCoster = (ctx, _fn, _id, target, args) => {
  if (!target || args.length < 1) return undefined;
  const sz = ctx.size(target);
  const strCost = est.factor(est.add(sz, fixed(1n)), COST.stringTraversalFactor);
  const reCost = est.factor(ctx.size(args[0]!), COST.regexStringLengthFactor);
  return { cost: est.mul(strCost, reCost), resultSize: { min: 0n, max: sz.max } };
};

export const regexCost: CelCostLibrary = {
  decls: [
    member('find', 'string_find_string', [T.string, T.string], T.string),
    member('findAll', 'string_find_all_string', [T.string, T.string], T.list(T.string)),
    member('findAll', 'string_find_all_string_int', [T.string, T.string, T.int], T.list(T.string)),
  ],
  byFunction: { find: findCost, findAll: findCost },
};
