// The estimated cost of a DRA device selector, as kube-apiserver 1.37 computes it before it accepts
// one: cel-go's checker.Cost (github.com/google/cel-go v0.29.2 checker/cost.go) over the checked
// expression, with Kubernetes' library.CostEstimator (k8s.io/apiserver v0.37.2
// pkg/cel/library/cost.go) and the DRA compiler's size estimates for the `device` variable
// (k8s.io/dynamic-resource-allocation v0.37.2 cel/compile.go). @bufbuild/cel 0.6 does not type-check
// (its checker handles constants and identifiers only), so this file carries the small type checker
// the walk needs: the types and overloads of the functions the selector environment declares, each
// library's own declarations and cost entries beside the library (CelCostLibrary).
//
// Costs are uint64 in upstream, saturating at 2^64-1; here bigints with the same saturation.
import { exprChildren, qualifiedName, TYPE_IDENTS } from './cel-ast';

/** cel-go's words (ext/formatting.go) for a format clause's argument of a kind it does not take, by verb (x for X too). */
export const FORMAT_CLAUSE_WORDS = {
  s: 'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps',
  d: 'decimal clause can only be used on integers',
  f: 'fixed-point clause can only be used on doubles',
  e: 'scientific clause can only be used on doubles',
  b: 'only integers and bools can be formatted as binary',
  x: 'only integers, byte buffers, and strings can be formatted as hex',
  o: 'octal clause can only be used on integers',
} as const;

export const MAX_UINT64 = (1n << 64n) - 1n;
const TWO_TO_64 = 2 ** 64;

/** resourceapi.CELSelectorExpressionMaxCost: the estimated (and, in the allocator, runtime) limit. */
export const CEL_SELECTOR_EXPRESSION_MAX_COST = 1_000_000n;

/** cel-go common/cost.go. */
export const COST = {
  selectAndIdent: 1n,
  constant: 0n,
  listCreateBase: 10n,
  mapCreateBase: 30n,
  structCreateBase: 40n,
  stringTraversalFactor: 0.1,
  regexStringLengthFactor: 0.25,
} as const;

/** A range of sizes or costs (checker.SizeEstimate, checker.CostEstimate). */
export interface Estimate {
  readonly min: bigint;
  readonly max: bigint;
}

export const UNKNOWN: Estimate = { min: 0n, max: MAX_UINT64 };

export function fixed(n: bigint): Estimate {
  return { min: n, max: n };
}

/** Go's plain uint64 arithmetic, which wraps (cel-go's result sizes of string conversions and quoting). */
function wrap(x: bigint): bigint {
  return BigInt.asUintN(64, x);
}

function addSat(x: bigint, y: bigint): bigint {
  const s = x + y;
  return s > MAX_UINT64 ? MAX_UINT64 : s;
}

function mulSat(x: bigint, y: bigint): bigint {
  const p = x * y;
  return p > MAX_UINT64 ? MAX_UINT64 : p;
}

/** uint64 × float64 as Go computes it: through float64, rounded up, saturating. */
function mulFactor(x: bigint, y: number): bigint {
  const xf = Number(x);
  if (xf > 0 && y > 0 && xf > TWO_TO_64 / y) return MAX_UINT64;
  const c = Math.ceil(xf * y);
  if (c >= TWO_TO_64) return MAX_UINT64;
  return BigInt(c);
}

export const est = {
  add: (a: Estimate, b: Estimate): Estimate => ({ min: addSat(a.min, b.min), max: addSat(a.max, b.max) }),
  mul: (a: Estimate, b: Estimate): Estimate => ({ min: mulSat(a.min, b.min), max: mulSat(a.max, b.max) }),
  factor: (a: Estimate, f: number): Estimate => ({ min: mulFactor(a.min, f), max: mulFactor(a.max, f) }),
  union: (a: Estimate, b: Estimate): Estimate => ({ min: b.min < a.min ? b.min : a.min, max: b.max > a.max ? b.max : a.max }),
};

// ---- types -------------------------------------------------------------------------------------

export type CelT =
  | {
      readonly k:
        'dyn' | 'any' | 'bool' | 'int' | 'uint' | 'double' | 'string' | 'bytes' | 'null' | 'timestamp' | 'duration' | 'type' | 'error';
    }
  | { readonly k: 'list'; readonly e: CelT }
  | { readonly k: 'map'; readonly key: CelT; readonly val: CelT }
  | { readonly k: 'struct'; readonly name: string }
  | { readonly k: 'opaque'; readonly name: string; readonly params?: readonly CelT[] }
  | { readonly k: 'param'; readonly name: string };

export const T = {
  dyn: { k: 'dyn' },
  any: { k: 'any' },
  bool: { k: 'bool' },
  int: { k: 'int' },
  uint: { k: 'uint' },
  double: { k: 'double' },
  string: { k: 'string' },
  bytes: { k: 'bytes' },
  null: { k: 'null' },
  timestamp: { k: 'timestamp' },
  duration: { k: 'duration' },
  type: { k: 'type' },
  error: { k: 'error' },
  list: (e: CelT): CelT => ({ k: 'list', e }),
  map: (key: CelT, val: CelT): CelT => ({ k: 'map', key, val }),
  struct: (name: string): CelT => ({ k: 'struct', name }),
  opaque: (name: string, params?: readonly CelT[]): CelT => (params ? { k: 'opaque', name, params } : { k: 'opaque', name }),
  param: (name: string): CelT => ({ k: 'param', name }),
  A: { k: 'param', name: 'A' },
  B: { k: 'param', name: 'B' },
} as const satisfies Record<string, CelT | ((...a: never[]) => CelT)>;

export const QUANTITY_T = T.struct('kubernetes.Quantity');
export const SEMVER_T = T.struct('kubernetes.Semver');
export const IP_T = T.opaque('net.IP');
export const CIDR_T = T.opaque('net.CIDR');

function isDyn(t: CelT): boolean {
  return t.k === 'dyn' || t.k === 'any' || t.k === 'error';
}

function sameType(a: CelT, b: CelT): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'list':
      return sameType(a.e, (b as typeof a).e);
    case 'map':
      return sameType(a.key, (b as typeof a).key) && sameType(a.val, (b as typeof a).val);
    case 'struct':
    case 'opaque':
    case 'param':
      return a.name === (b as typeof a).name;
    default:
      return true;
  }
}

/** One overload as the checker sees it (cel.Overload / cel.MemberOverload). */
export interface CelOverloadDecl {
  readonly fn: string;
  readonly id: string;
  readonly member: boolean;
  /** For a member overload the target's type first. */
  readonly params: readonly CelT[];
  readonly result: CelT;
}

export function overload(fn: string, id: string, params: readonly CelT[], result: CelT): CelOverloadDecl {
  return { fn, id, member: false, params, result };
}

export function member(fn: string, id: string, params: readonly CelT[], result: CelT): CelOverloadDecl {
  return { fn, id, member: true, params, result };
}

// ---- the expression tree (cel.expr.Expr as @bufbuild/cel's parser builds it) --------------------

export interface CostExpr {
  readonly id: bigint;
  readonly exprKind:
    | {
        readonly case: 'constExpr';
        readonly value: { readonly constantKind: { readonly case: string | undefined; readonly value?: unknown } };
      }
    | { readonly case: 'identExpr'; readonly value: { readonly name: string } }
    | { readonly case: 'selectExpr'; readonly value: { readonly operand?: CostExpr; readonly field: string; readonly testOnly: boolean } }
    | {
        readonly case: 'callExpr';
        readonly value: { readonly function: string; readonly target?: CostExpr; readonly args: readonly CostExpr[] };
      }
    | {
        readonly case: 'listExpr';
        readonly value: { readonly elements: readonly CostExpr[]; readonly optionalIndices?: readonly number[] };
      }
    | {
        readonly case: 'structExpr';
        readonly value: {
          readonly messageName: string;
          readonly entries: readonly {
            readonly keyKind: { readonly case: string | undefined; readonly value?: unknown };
            readonly value?: CostExpr;
            readonly optionalEntry?: boolean;
          }[];
        };
      }
    | {
        readonly case: 'comprehensionExpr';
        readonly value: {
          readonly iterVar: string;
          readonly iterVar2: string;
          readonly iterRange?: CostExpr;
          readonly accuVar: string;
          readonly accuInit?: CostExpr;
          readonly loopCondition?: CostExpr;
          readonly loopStep?: CostExpr;
          readonly result?: CostExpr;
        };
      }
    | { readonly case: undefined; readonly value?: undefined };
}

// ---- the estimator interface (checker.AstNode, CostEstimator, FunctionEstimator) -----------------

/** What an estimator knows of a call's target or argument (checker.AstNode). */
export interface AstNode {
  readonly path: readonly string[] | undefined;
  readonly type: CelT;
  readonly expr: CostExpr | undefined;
  readonly computedSize: Estimate | undefined;
}

export interface CallEstimate {
  readonly cost: Estimate;
  readonly resultSize?: Estimate;
}

/** What a library's cost entry may ask: the size of a node (computed, else the variable's estimate, else unknown). */
export interface CostContext {
  size(node: AstNode): Estimate;
  /** The estimator's size of a path, without the node's computed size (EstimateSize). */
  estimateSize(node: AstNode): Estimate | undefined;
}

/** A cost entry: the call's own cost, without its arguments' (cel-go adds those). */
export type CallCoster = (
  ctx: CostContext,
  fn: string,
  overloadId: string,
  target: AstNode | undefined,
  args: readonly AstNode[],
) => CallEstimate | undefined;

/**
 * A CEL library's share of the cost model, kept beside the library: its overloads' types for the
 * checker, its entries in Kubernetes' CostEstimator (keyed by function name, as library/cost.go
 * switches) and its cel-go CostEstimatorOptions (keyed by overload id; they win over the former).
 */
export interface CelCostLibrary {
  readonly decls: readonly CelOverloadDecl[];
  /** The qualified type names the library declares as identifiers (`net.IP`). */
  readonly typeNames?: readonly string[];
  readonly byFunction?: Readonly<Record<string, CallCoster>>;
  readonly byOverload?: Readonly<Record<string, CallCoster>>;
}

/** Declared object types' fields (the checker's struct field lookup) and the size estimator of the environment's variables. */
export interface CostEnvironment {
  readonly variables: Readonly<Record<string, CelT>>;
  readonly structFields: Readonly<Record<string, Readonly<Record<string, CelT>>>>;
  readonly libraries: readonly CelCostLibrary[];
  /** checker.CostEstimator.EstimateSize for variables' paths. */
  readonly estimateSize: (node: AstNode) => Estimate | undefined;
}

// ---- the checker ---------------------------------------------------------------------------------

interface Checked {
  readonly types: Map<bigint, CelT>;
  readonly overloads: Map<bigint, string[]>;
  /** Calls whose target is a namespace (`sets.contains(…)`): checked as global functions. */
  readonly qualified: Set<bigint>;
  /** The expression's type (the checked AST's output type). */
  readonly type: CelT;
  /** Whether that type is a type variable nothing bound (dyn once settled: `optional.none().value()`). */
  readonly free: boolean;
  /**
   * The checker's errors, in the order it meets them: identifiers nothing declares, ranges that are
   * not lists or maps, calls no overload takes; in cel-go's words.
   */
  readonly undeclared: readonly CheckerError[];
  /** Literals whose elements' types differ, in cel-go's words. */
  readonly mismatches: readonly CheckerError[];
  /**
   * Whether cel-go's homogeneous-literal validator panics on the expression: an optional list element
   * or map entry whose value is typed dyn or any (cel/validator.go line 329 takes its type's first
   * parameter, which it has not); kube-apiserver drops the request unanswered.
   */
  readonly panics: boolean;
}

/** A checker's or validator's finding: its words, at a node of the expression. */
export interface CheckerError {
  readonly at: bigint;
  readonly message: string;
}

type Bindings = Map<string, CelT>;

/** A type with its parameters replaced by their bindings (unbound ones, and cycles, as dyn). */
function resolve(t: CelT, b: Bindings, seen: ReadonlySet<string> = new Set(), free: CelT = T.dyn): CelT {
  switch (t.k) {
    case 'param': {
      const bound = b.get(t.name);
      return bound && !seen.has(t.name) ? resolve(bound, b, new Set([...seen, t.name]), free) : free;
    }
    case 'list':
      return T.list(resolve(t.e, b, seen, free));
    case 'map':
      return T.map(resolve(t.key, b, seen, free), resolve(t.val, b, seen, free));
    case 'opaque':
      return t.params
        ? T.opaque(
            t.name,
            t.params.map((p) => resolve(p, b, seen, free)),
          )
        : t;
    default:
      return t;
  }
}

function hasParam(t: CelT): boolean {
  switch (t.k) {
    case 'param':
      return true;
    case 'list':
      return hasParam(t.e);
    case 'map':
      return hasParam(t.key) || hasParam(t.val);
    case 'opaque':
      return (t.params ?? []).some(hasParam);
    default:
      return false;
  }
}

/** cel-go checker/types.go isEqualOrLessSpecific: whether a is as general as b, or more. */
function lessSpecific(a: CelT, b: CelT): boolean {
  // checker/types.go isDyn: dyn, any and type parameters (not the error type).
  if (a.k === 'dyn' || a.k === 'any' || a.k === 'param') return true;
  if (b.k === 'dyn' || b.k === 'any' || b.k === 'param') return false;
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'opaque': {
      const o = b as typeof a;
      const ap = a.params ?? [];
      const bp = o.params ?? [];
      return a.name === o.name && ap.length === bp.length && ap.every((p, i) => lessSpecific(p, bp[i]!));
    }
    case 'list':
      return lessSpecific(a.e, (b as typeof a).e);
    case 'map':
      return lessSpecific(a.key, (b as typeof a).key) && lessSpecific(a.val, (b as typeof a).val);
    case 'type':
      return true;
    default:
      return sameType(a, b);
  }
}

/** Whether a value of type `from` may be passed where `to` is expected, binding `to`'s type parameters. */
function assignable(from: CelT, to: CelT, b: Bindings): boolean {
  if (to.k === 'param') {
    if (from.k === 'param' && from.name === to.name) return true;
    const bound = b.get(to.name);
    if (!bound) {
      b.set(to.name, from);
      return true;
    }
    if (!assignable(from, bound, b) && !isDyn(bound)) return false;
    // The binding widens to the more general type (the checker's mostGeneral): dyn over string,
    // map(string, any) over map(string, kubernetes.Quantity).
    // A free type variable in `from` is bound by cel-go to what it meets (optional.none() beside
    // optional.of("x") is an optional_type(string)): it widens nothing.
    if (!isDyn(bound) && bound.k !== 'param' && !hasParam(from) && lessSpecific(from, bound)) b.set(to.name, from);
    return true;
  }
  if (isDyn(from) || isDyn(to)) return true;
  if (from.k === 'param') {
    // An operand's free type variable (`[]`'s element) is bound by the first overload that takes it.
    if (!FREE_NAMES.has(from.name)) return true;
    const bound = b.get(from.name);
    if (!bound) {
      b.set(from.name, to);
      return true;
    }
    return assignable(bound, to, b);
  }
  if (from.k !== to.k) return false;
  switch (to.k) {
    case 'list':
      return assignable((from as typeof to).e, to.e, b);
    case 'map':
      return assignable((from as typeof to).key, to.key, b) && assignable((from as typeof to).val, to.val, b);
    case 'struct':
      return (from as typeof to).name === to.name;
    case 'opaque': {
      const f = from as typeof to;
      if (f.name !== to.name) return false;
      const fp = f.params ?? [];
      const tp = to.params ?? [];
      return fp.length === tp.length && fp.every((p, i) => assignable(p, tp[i]!, b));
    }
    default:
      return true;
  }
}

class TypeChecker {
  private readonly types = new Map<bigint, CelT>();
  private readonly overloads = new Map<bigint, string[]>();
  private readonly qualified = new Set<bigint>();
  private readonly scopes: Map<string, CelT>[] = [];
  private readonly undeclared: CheckerError[] = [];
  /** The validators' findings (homogeneous literals, string.format clauses). */
  private readonly mismatches: CheckerError[] = [];
  private panics = false;
  /** How many calls of `format` enclose the node being checked. */
  private formatDepth = 0;
  private readonly typeNames: ReadonlySet<string>;

  constructor(
    private readonly env: CostEnvironment,
    private readonly byFn: Map<string, CelOverloadDecl[]>,
  ) {
    this.typeNames = new Set(env.libraries.flatMap((l) => l.typeNames ?? []));
  }

  run(e: CostExpr): Checked {
    const raw = this.check(e);
    const type = settled(raw);
    return {
      free: raw.k === 'param',
      types: this.types,
      overloads: this.overloads,
      qualified: this.qualified,
      type,
      undeclared: this.undeclared,
      mismatches: [...this.mismatches, ...this.formatErrors(e)],
      panics: this.panics,
    };
  }

  private set(e: CostExpr, t: CelT): CelT {
    this.types.set(e.id, t);
    return t;
  }

  private lookup(name: string): CelT | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]!.get(name);
      if (t) return t;
    }
    return this.env.variables[name];
  }

  check(e: CostExpr | undefined): CelT {
    if (!e) return T.dyn;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind.case;
        const t: CelT =
          c === 'boolValue'
            ? T.bool
            : c === 'int64Value'
              ? T.int
              : c === 'uint64Value'
                ? T.uint
                : c === 'doubleValue'
                  ? T.double
                  : c === 'stringValue'
                    ? T.string
                    : c === 'bytesValue'
                      ? T.bytes
                      : c === 'nullValue'
                        ? T.null
                        : T.dyn;
        return this.set(e, t);
      }
      case 'identExpr': {
        const name = k.value.name;
        const t = this.lookup(name) ?? (TYPE_IDENTS.has(name) ? T.type : undefined);
        if (t === undefined) this.undeclared.push({ at: e.id, message: `undeclared reference to '${name}' (in container '')` });
        // cel-go types what it could not resolve as the error type (`!error!` in later messages).
        return this.set(e, t ?? T.error);
      }
      case 'selectExpr': {
        // A protobuf type name (google.protobuf.Duration) is an identifier, not a select.
        const q = qualifiedName(e);
        if (q !== undefined && (q.startsWith('google.protobuf.') || this.typeNames.has(q))) return this.set(e, T.type);
        const operand = this.check(k.value.operand);
        // An optional operand's field is an optional (checker.go checkSelectField); a presence test a bool.
        const inner = unwrapOptional(operand);
        const field = this.selectField(e.id, inner ?? operand, k.value.field);
        if (k.value.testOnly) return this.set(e, T.bool);
        return this.set(e, inner ? optionalOf(field) : field);
      }
      case 'listExpr': {
        let elem: CelT | undefined;
        let first: CelT | undefined;
        let reported = false;
        const optional = new Set(k.value.optionalIndices ?? []);
        for (const [i, el] of k.value.elements.entries()) {
          let t = this.check(el);
          if (optional.has(i)) t = this.unwrapOptionalInit(el.id, t);
          // The validator reports a list's first element of another type than the first, only.
          if (first !== undefined && !reported) reported = this.literalMismatch(el.id, first, t);
          first ??= t;
          elem = elem === undefined ? t : joinTypes(elem, t);
        }
        // An empty list's element type is free until a call binds it (as the checker's type variables).
        return this.set(e, T.list(elem ?? FREE));
      }
      case 'structExpr': {
        let key: CelT | undefined;
        let val: CelT | undefined;
        let firstKey: CelT | undefined;
        let firstVal: CelT | undefined;
        const map = k.value.messageName === '';
        for (const entry of k.value.entries) {
          // The validator compares each entry's key and value with the first entry's.
          if (entry.keyKind.case === 'mapKey') {
            const kt = this.check(entry.keyKind.value as CostExpr);
            if (firstKey !== undefined) this.literalMismatch((entry.keyKind.value as CostExpr).id, firstKey, kt);
            firstKey ??= kt;
            key = key === undefined ? kt : joinTypes(key, kt);
          }
          let vt = this.check(entry.value);
          if (entry.optionalEntry === true && entry.value) vt = this.unwrapOptionalInit(entry.value.id, vt);
          if (map && firstVal !== undefined && entry.value) this.literalMismatch(entry.value.id, firstVal, vt);
          firstVal ??= vt;
          val = val === undefined ? vt : joinTypes(val, vt);
        }
        if (k.value.messageName !== '') return this.set(e, T.struct(k.value.messageName));
        // An empty map's key and value types are free until a call binds them (cel.@mapInsert).
        return this.set(e, T.map(key ?? FREE_KEY, val ?? FREE_VAL));
      }
      case 'comprehensionExpr': {
        const c = k.value;
        const range = this.check(c.iterRange);
        const rangeName = celTypeName(range, 'any');
        if (
          range.k !== 'list' &&
          range.k !== 'map' &&
          range.k !== 'dyn' &&
          range.k !== 'error' &&
          range.k !== 'param' &&
          rangeName !== undefined
        ) {
          this.undeclared.push({
            at: c.iterRange!.id,
            message: `expression of type '${rangeName}' cannot be range of a comprehension (must be list, map, or dynamic)`,
          });
        }
        const accu = this.check(c.accuInit);
        const scope = new Map<string, CelT>();
        const iter1 = range.k === 'list' ? (c.iterVar2 ? T.int : range.e) : range.k === 'map' ? range.key : T.dyn;
        const iter2 = range.k === 'list' ? range.e : range.k === 'map' ? range.val : T.dyn;
        scope.set(c.accuVar, accu);
        scope.set(c.iterVar, iter1);
        if (c.iterVar2) scope.set(c.iterVar2, iter2);
        this.scopes.push(scope);
        this.check(c.loopCondition);
        const step = this.check(c.loopStep);
        // The accumulator takes the step's type (a list literal's element type, once known).
        scope.set(c.accuVar, (accu.k === 'list' && step.k === 'list') || (accu.k === 'map' && step.k === 'map') ? step : accu);
        scope.delete(c.iterVar);
        if (c.iterVar2) scope.delete(c.iterVar2);
        const result = this.check(c.result);
        this.scopes.pop();
        return this.set(e, result);
      }
      case 'callExpr': {
        const format = k.value.function === 'format';
        if (format) this.formatDepth++;
        const t = this.call(e, k.value);
        if (format) this.formatDepth--;
        return this.set(e, t);
      }
      default:
        return this.set(e, T.dyn);
    }
  }

  /**
   * cel-go's string.format validator (ext/formatting.go lines 411-659, the strings extension at
   * version 2 as kube-apiserver's base environment has it): each `"<constant>".format([<list
   * literal>])` has its clauses parsed and each clause's argument's type checked by kind (dyn
   * passes), in cel-go's words, at the argument (or the call) it finds wrong.
   */
  private formatErrors(root: CostExpr): CheckerError[] {
    const out: CheckerError[] = [];
    const typeOf = (e: CostExpr): CelT => settled(this.types.get(e.id) ?? T.dyn);
    const kindOk = (e: CostExpr, kinds: readonly string[]): boolean => {
      const t = typeOf(e);
      return t.k === 'dyn' || t.k === 'error' || kinds.includes(t.k);
    };
    const typeName = (e: CostExpr): string => formatTypeName(typeOf(e));
    const verifyString = (sub: CostExpr): CostExpr | undefined => {
      if (!kindOk(sub, ['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'timestamp', 'bytes', 'duration', 'type', 'null']))
        return sub;
      const k = sub.exprKind;
      if (k.case === 'listExpr') {
        for (const el of k.value.elements) {
          const bad = verifyString(el);
          if (bad) return bad;
        }
      } else if (k.case === 'structExpr' && k.value.messageName === '') {
        for (const entry of k.value.entries) {
          const bad = verifyString(entry.keyKind.value as CostExpr) ?? (entry.value && verifyString(entry.value));
          if (bad) return bad;
        }
      }
      return undefined;
    };
    const visit = (e: CostExpr | undefined): void => {
      if (!e) return;
      for (const child of exprChildren(e)) visit(child);
      const k = e.exprKind;
      if (k.case !== 'callExpr' || k.value.function !== 'format' || !k.value.target) return;
      const ids = this.overloads.get(e.id) ?? [];
      if (ids.length > 0 && !ids.includes('string_format')) return;
      const t = k.value.target.exprKind;
      if (t.case !== 'constExpr' || t.value.constantKind.case !== 'stringValue' || k.value.args.length !== 1) return;
      const list = k.value.args[0]!.exprKind;
      if (list.case !== 'listExpr') return;
      const args = list.value.elements;
      const found = checkFormat(t.value.constantKind.value as string, args.length, (clause, index) => {
        const arg = args[index]!;
        const err = (words: string, at: CostExpr = arg) => ({
          at: at.id,
          message: `error during formatting: ${words}, was given ${typeName(at)}`,
        });
        switch (clause) {
          case 's': {
            const bad = verifyString(arg);
            return bad && err(FORMAT_CLAUSE_WORDS.s, bad);
          }
          case 'd':
            return kindOk(arg, ['int', 'uint']) ? undefined : err(FORMAT_CLAUSE_WORDS.d);
          case 'f':
            return kindOk(arg, ['double', 'string']) ? undefined : err(FORMAT_CLAUSE_WORDS.f);
          case 'e':
            return kindOk(arg, ['double', 'string']) ? undefined : err(FORMAT_CLAUSE_WORDS.e);
          case 'b':
            return kindOk(arg, ['int', 'uint', 'bool']) ? undefined : err(FORMAT_CLAUSE_WORDS.b);
          case 'x':
          case 'X':
            return kindOk(arg, ['int', 'uint', 'string', 'bytes']) ? undefined : err(FORMAT_CLAUSE_WORDS.x);
          default:
            return kindOk(arg, ['int', 'uint']) ? undefined : err(FORMAT_CLAUSE_WORDS.o);
        }
      });
      if (found) out.push('at' in found ? found : { at: e.id, message: found.message });
    };
    visit(root);
    return out;
  }

  /**
   * cel-go checker.go's `found no matching overload for 'f' applied to '(string, bool)'` (a member
   * call: `'list(int).()'`), when the call's operands' types are known well enough to be sure: none
   * is dyn, any or a free type parameter, and each has a name.
   */
  private noMatchingOverload(at: bigint, fn: string, target: CelT | undefined, args: readonly CelT[]): void {
    // An operand this checker types as dyn where cel-go knows more matches at least the overloads
    // cel-go's type does: when none matches, none matches upstream either.
    const names = args.map((t) => celTypeName(settled(t), 'any'));
    const targetName = target && celTypeName(settled(target), 'any');
    if (names.some((n) => n === undefined) || (target && targetName === undefined)) return;
    const signature = `${target ? `${targetName}.` : ''}(${names.join(', ')})`;
    this.undeclared.push({ at, message: `found no matching overload for '${fn}' applied to '${signature}'` });
  }

  /**
   * Whether a list or map literal's element is of another type than its first, noting it: Kubernetes'
   * base environment validates homogeneous aggregate literals (k8s.io/apiserver v0.37.2
   * pkg/cel/environment/base.go line 115; cel-go v0.29.2 cel/validator.go lines 313-368, `expected
   * type 'int' but found 'uint'`, dyn and any being types of their own), except under a call of
   * `format` (ext/formatting.go lines 421-427). Types with a free type variable inside are compared
   * only when their kinds differ (cel-go binds the variable to what the literal joins it with).
   */
  private literalMismatch(at: bigint, first: CelT, cur: CelT): boolean {
    const exact = celTypeName(first, 'any') !== undefined && celTypeName(cur, 'any') !== undefined;
    const kinds = first.k !== 'param' && cur.k !== 'param' && first.k !== cur.k;
    const p = celTypeName(settled(first), 'any');
    const c = celTypeName(settled(cur), 'any');
    if ((exact || kinds) && p !== undefined && c !== undefined && p !== c && this.formatDepth === 0) {
      this.mismatches.push({ at, message: `expected type '${p}' but found '${c}'` });
      return true;
    }
    return false;
  }

  /**
   * An optional list element's or map entry's type: the optional's value type, or cel-go's
   * `expected type 'optional_type(int)' but found 'int'` (checker.go checkCreateList, checkCreateMap).
   */
  private unwrapOptionalInit(at: bigint, t: CelT): CelT {
    const inner = unwrapOptional(t);
    if (inner) return inner;
    const name = celTypeName(settled(t), 'any');
    if (!isDyn(t) && t.k !== 'param' && name !== undefined) {
      this.undeclared.push({ at, message: `expected type 'optional_type(${name})' but found '${name}'` });
    } else if (this.formatDepth === 0) {
      this.panics = true;
    }
    return t;
  }

  /** `a.?f` (the parser's `_?._`(a, "f")): the field's type as an optional (checker.go checkOptSelect). */
  private optSelect(e: CostExpr, args: readonly CostExpr[]): CelT {
    const operand = this.check(args[0]);
    const f = args[1];
    const name =
      f?.exprKind.case === 'constExpr' && f.exprKind.value.constantKind.case === 'stringValue'
        ? (f.exprKind.value.constantKind.value as string)
        : '';
    if (f) this.set(f, T.string);
    this.overloads.set(e.id, ['select_optional_field']);
    return optionalOf(this.selectField(e.id, unwrapOptional(operand) ?? operand, name));
  }

  /**
   * A field's type, as checker.go checkSelectField finds it: a map's value type, a declared
   * struct's field (`undefined field 'f'`; a type the environment declares no fields for is
   * `unexpected failed resolution of 'kubernetes.Quantity'`), dyn for dyn, any and type parameters,
   * and for any other type `type 'string' does not support field selection`.
   */
  private selectField(at: bigint, operand: CelT, field: string): CelT {
    if (operand.k === 'map') return operand.val;
    if (operand.k === 'struct') {
      const fields = this.env.structFields[operand.name];
      if (!fields) {
        this.undeclared.push({ at, message: `unexpected failed resolution of '${operand.name}'` });
        return T.error;
      }
      const t = fields[field];
      if (t) return t;
      this.undeclared.push({ at, message: `undefined field '${field}'` });
      return T.error;
    }
    if (isDyn(operand) || operand.k === 'param') return T.dyn;
    const name = celTypeName(settled(operand), 'any');
    if (name !== undefined) this.undeclared.push({ at, message: `type '${name}' does not support field selection` });
    return T.dyn;
  }

  private call(e: CostExpr, call: { readonly function: string; readonly target?: CostExpr; readonly args: readonly CostExpr[] }): CelT {
    if (call.function === '_?._' && call.args.length === 2 && !call.target) return this.optSelect(e, call.args);
    let fn = call.function;
    let target = call.target;
    const q = qualifiedName(target);
    if (q !== undefined && this.lookup(q.split('.')[0]!) === undefined && this.byFn.has(`${q}.${fn}`)) {
      fn = `${q}.${fn}`;
      target = undefined;
      this.qualified.add(e.id);
    }
    const argTypes = call.args.map((a) => this.check(a));
    if (fn === '_&&_' || fn === '_||_') {
      this.overloads.set(e.id, [fn === '_&&_' ? 'logical_and' : 'logical_or']);
      return T.bool;
    }
    const targetType = target ? this.check(target) : undefined;
    if (fn === 'dyn') return T.dyn;
    const all = targetType ? [targetType, ...argTypes] : argTypes;
    let result: CelT | undefined;
    const ids: string[] = [];
    // cel-go keeps what a matching overload bound the operands' free type variables to (checker.go
    // resolveOverload, isAssignableList): `[].min()` is list_int_min_int's int, not also double's.
    const kept: Bindings = new Map();
    for (const o of this.byFn.get(fn) ?? []) {
      if (o.member !== (target !== undefined) || o.params.length !== all.length) continue;
      const b: Bindings = new Map(kept);
      if (!all.every((t, i) => assignable(t, o.params[i]!, b))) continue;
      for (const name of FREE_NAMES) if (!kept.has(name) && b.has(name)) kept.set(name, b.get(name)!);
      ids.push(o.id);
      // A type parameter nothing bound stays free (the checker's fresh type variable, dyn once settled).
      const r = resolve(o.result, b, new Set(), FREE);
      if (result === undefined) result = r;
      else if (!isDyn(result) && !sameType(r, result)) result = T.dyn;
    }
    this.overloads.set(e.id, ids);
    if (ids.length === 0 && this.byFn.has(fn)) {
      this.noMatchingOverload(e.id, fn, targetType, argTypes);
      return T.error;
    }
    return result ?? T.dyn;
  }
}

/** A type's name as cel-go's Type.TypeName gives it (the string.format validator's words). */
function formatTypeName(t: CelT): string {
  switch (t.k) {
    case 'list':
    case 'map':
      return t.k;
    case 'struct':
    case 'opaque':
    case 'param':
      return t.name;
    default:
      return celTypeName(t) ?? 'dyn';
  }
}

/**
 * ext/formatting.go parseFormatString as the validator runs it: each clause of the format string
 * handed to `check` with its argument's index; the first error (a clause's, at its argument, or
 * the string's own, at the call), or undefined.
 */
function checkFormat(
  format: string,
  size: number,
  check: (clause: string, index: number) => CheckerError | undefined,
): CheckerError | { message: string } | undefined {
  let i = 0;
  let arg = 0;
  let requested = 0;
  while (i < format.length) {
    if (format[i] !== '%') {
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      i += 2;
      continue;
    }
    requested++;
    if (i + 1 >= format.length) return { message: 'unexpected end of string' };
    if (arg >= size) return { message: `index ${arg} out of range` };
    let j = i + 1;
    if (format[j] === '.') {
      j++;
      const start = j;
      while (j < format.length && /[0-9]/.test(format[j]!)) j++;
      if (j >= format.length) {
        return { message: 'could not parse formatting clause: error while parsing precision: could not find end of precision specifier' };
      }
      if (j === start) {
        return {
          message:
            'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
        };
      }
    }
    const clause = format[j]!;
    if (!'sdfebxXo'.includes(clause)) return { message: `could not parse formatting clause: unrecognized formatting clause "${clause}"` };
    const bad = check(clause, arg);
    if (bad) return bad;
    i = j + 1;
    arg++;
  }
  if (size > requested) return { message: `too many arguments supplied to string.format (expected ${requested}, got ${size})` };
  return undefined;
}

/** optional_type(t). */
function optionalOf(t: CelT): CelT {
  return T.opaque('optional_type', [t]);
}

/** An optional's value type, or undefined for a type that is not an optional. */
function unwrapOptional(t: CelT): CelT | undefined {
  return t.k === 'opaque' && t.name === 'optional_type' && t.params?.length === 1 ? t.params[0] : undefined;
}

const FREE: CelT = { k: 'param', name: '_free' };
const FREE_KEY: CelT = { k: 'param', name: '_freeKey' };
const FREE_VAL: CelT = { k: 'param', name: '_freeValue' };
const FREE_NAMES: ReadonlySet<string> = new Set(['_free', '_freeKey', '_freeValue']);

/** A type with the checker's unbound type variables as dyn (the checked AST's final types). */
function settled(t: CelT): CelT {
  return resolve(t, new Map());
}

function joinTypes(prev: CelT, cur: CelT): CelT {
  if (sameType(prev, cur)) return prev;
  // A free type variable takes the other's type (the checker binds it).
  if (cur.k === 'param') return prev;
  if (prev.k === 'param') return cur;
  if (isDyn(prev)) return prev;
  if (isDyn(cur)) return cur;
  if (prev.k === 'list' && cur.k === 'list') return T.list(joinTypes(prev.e, cur.e));
  return T.dyn;
}

// ---- the coster (checker.Cost) ---------------------------------------------------------------------

interface EntrySize {
  readonly container: 'list' | 'map' | undefined;
  readonly key: Estimate;
  readonly val: Estimate;
}

/**
 * A Go []string: `len` elements of a backing array shared by every slice appended from it. cel-go
 * builds paths with `append(path, name)` (checker/cost.go lines 414, 429, 445, 527, 579, 584), so two
 * appends to one path with spare capacity write the same element: the earlier path then reads the
 * later name (a two-variable comprehension's key variable reads its range's `@values`, line 429
 * overwriting line 414's `@keys`). Kept as Go keeps it, since the sizes depend on it.
 */
interface GoSlice {
  readonly backing: { readonly items: string[]; readonly cap: number };
  readonly len: number;
}

const NIL_SLICE: GoSlice = { backing: { items: [], cap: 0 }, len: 0 };

/** Go's malloc size classes up to 2 KiB (runtime/sizeclasses.go): where growslice rounds a capacity up to. */
const SIZE_CLASSES = [
  8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704,
  768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048,
];

/** runtime.growslice's new capacity for a []string (16-byte elements) of `oldCap` that must hold `newLen`. */
function growCap(oldCap: number, newLen: number): number {
  let cap = newLen > oldCap * 2 ? newLen : oldCap < 256 ? oldCap * 2 : oldCap + ((oldCap + 768) >> 2);
  let bytes = cap * 16;
  // Objects of pointers above 512 bytes carry an 8-byte malloc header (runtime/msize.go roundupsize).
  if (bytes > 512) bytes += 8;
  const cls = SIZE_CLASSES.find((c) => c >= bytes);
  if (cls !== undefined) cap = Math.floor((cls - (bytes > 512 + 8 ? 8 : 0)) / 16);
  return cap;
}

/** Go's append(s, x). */
function goAppend(s: GoSlice, x: string): GoSlice {
  if (s.len < s.backing.cap) {
    s.backing.items[s.len] = x;
    return { backing: s.backing, len: s.len + 1 };
  }
  const items = [...s.backing.items.slice(0, s.len), x];
  return { backing: { items, cap: growCap(s.backing.cap, s.len + 1) }, len: s.len + 1 };
}

function goItems(s: GoSlice): readonly string[] {
  return s.backing.items.slice(0, s.len);
}

function goSlice(items: readonly string[]): GoSlice {
  return { backing: { items: [...items], cap: items.length }, len: items.length };
}

interface LocalVar {
  readonly path: GoSlice;
  readonly size: Estimate | undefined;
  readonly entry: EntrySize | undefined;
}

const ACCUMULATORS = new Set(['@result', '__result__']);

class Coster implements CostContext {
  private readonly paths = new Map<bigint, GoSlice>();
  private readonly sizes = new Map<bigint, Estimate>();
  private readonly entries = new Map<bigint, EntrySize>();
  private readonly locals = new Map<string, LocalVar[]>();

  constructor(
    private readonly env: CostEnvironment,
    private readonly checked: Checked,
    private readonly byFunction: Map<string, CallCoster>,
    private readonly byOverload: Map<string, CallCoster>,
  ) {}

  size(node: AstNode): Estimate {
    return node.computedSize ?? this.env.estimateSize(node) ?? UNKNOWN;
  }

  estimateSize(node: AstNode): Estimate | undefined {
    return this.env.estimateSize(node);
  }

  private typeOf(e: CostExpr | undefined): CelT {
    const t = e && this.checked.types.get(e.id);
    return t ? settled(t) : T.dyn;
  }

  private peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s && s.length > 0 ? s[s.length - 1] : undefined;
  }

  private push(name: string, v: LocalVar): void {
    const s = this.locals.get(name) ?? [];
    s.push(v);
    this.locals.set(name, s);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private pathOf(e: CostExpr | undefined): GoSlice {
    if (!e) return NIL_SLICE;
    if (e.exprKind.case === 'identExpr') {
      const v = this.peek(e.exprKind.value.name);
      if (v) return v.path;
    }
    return this.paths.get(e.id) ?? NIL_SLICE;
  }

  private node(e: CostExpr): AstNode {
    let path: readonly string[] | undefined = goItems(this.pathOf(e));
    if (path.length > 0 && ACCUMULATORS.has(path[0]!)) path = undefined;
    return { path, type: this.typeOf(e), expr: e, computedSize: this.computeSize(e) };
  }

  private sizeOrUnknown(e: CostExpr | undefined): Estimate {
    return (e && this.computeSize(e)) ?? UNKNOWN;
  }

  private computeSize(e: CostExpr): Estimate | undefined {
    const hit = this.sizes.get(e.id);
    if (hit) return hit;
    const literal = exprSize(e);
    if (literal) return literal;
    const estimated = this.env.estimateSize({ path: goItems(this.pathOf(e)), type: this.typeOf(e), expr: e, computedSize: undefined });
    if (estimated) {
      this.sizes.set(e.id, estimated);
      return estimated;
    }
    const t = this.typeOf(e);
    if (isScalar(t)) return fixed(1n);
    if (e.exprKind.case === 'identExpr') return this.peek(e.exprKind.value.name)?.size;
    return undefined;
  }

  private entrySize(e: CostExpr | undefined): EntrySize | undefined {
    if (!e) return undefined;
    const hit = this.entries.get(e.id);
    if (hit) return hit;
    if (e.exprKind.case === 'identExpr') return this.peek(e.exprKind.value.name)?.entry;
    return undefined;
  }

  private pushIter(name: string, range: CostExpr, which: 'single' | 'key' | 'value'): void {
    const entry = this.entrySize(range);
    const container = entry?.container ?? (this.typeOf(range).k === 'list' ? 'list' : this.typeOf(range).k === 'map' ? 'map' : undefined);
    let size: Estimate | undefined;
    let sub: string;
    if (which === 'key') {
      size = entry?.key;
      sub = container === 'list' ? '@indices' : '@keys';
    } else if (which === 'value') {
      size = entry?.val;
      sub = container === 'list' ? '@items' : '@values';
    } else if (container === 'list') {
      size = entry?.val;
      sub = '@items';
    } else {
      size = entry?.key;
      sub = '@keys';
    }
    this.push(name, { path: goAppend(this.pathOf(range), sub), size, entry: undefined });
  }

  cost(e: CostExpr | undefined): Estimate {
    if (!e) return fixed(0n);
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return fixed(COST.constant);
      case 'identExpr': {
        const v = this.peek(k.value.name);
        this.paths.set(e.id, v ? v.path : goSlice([k.value.name]));
        return fixed(COST.selectAndIdent);
      }
      case 'selectExpr': {
        if (k.value.testOnly) return this.cost(k.value.operand); // PresenceTestHasCost(false)
        let sum = this.cost(k.value.operand);
        const kind = this.typeOf(k.value.operand).k;
        if (kind === 'map' || kind === 'struct' || kind === 'param') sum = est.add(sum, fixed(COST.selectAndIdent));
        this.paths.set(e.id, goAppend(this.pathOf(k.value.operand), k.value.field));
        return sum;
      }
      case 'callExpr':
        return this.costCall(e, k.value);
      case 'listExpr': {
        let sum = fixed(0n);
        let item: Estimate = { min: k.value.elements.length === 0 ? 0n : MAX_UINT64, max: 0n };
        for (const el of k.value.elements) {
          sum = est.add(sum, this.cost(el));
          item = est.union(item, this.sizeOrUnknown(el));
        }
        this.entries.set(e.id, { container: 'list', key: fixed(1n), val: item });
        return est.add(sum, fixed(COST.listCreateBase));
      }
      case 'structExpr': {
        let sum = fixed(0n);
        if (k.value.messageName !== '') {
          for (const entry of k.value.entries) sum = est.add(sum, this.cost(entry.value));
          return est.add(sum, fixed(COST.structCreateBase));
        }
        const empty = k.value.entries.length === 0;
        let key: Estimate = { min: empty ? 0n : MAX_UINT64, max: 0n };
        let val: Estimate = { min: empty ? 0n : MAX_UINT64, max: 0n };
        for (const entry of k.value.entries) {
          const ke = entry.keyKind.value as CostExpr;
          sum = est.add(sum, this.cost(ke));
          sum = est.add(sum, this.cost(entry.value));
          key = est.union(key, this.sizeOrUnknown(ke));
          val = est.union(val, this.sizeOrUnknown(entry.value));
        }
        this.entries.set(e.id, { container: 'map', key, val });
        return est.add(sum, fixed(COST.mapCreateBase));
      }
      case 'comprehensionExpr':
        return isBind(k.value) ? this.costBind(e, k.value) : this.costComprehension(e, k.value);
      default:
        return fixed(0n);
    }
  }

  private pushLocal(name: string, e: CostExpr | undefined): void {
    this.push(name, { path: this.pathOf(e), size: e && this.computeSize(e), entry: this.entrySize(e) });
  }

  private costBind(e: CostExpr, c: Extract<CostExpr['exprKind'], { case: 'comprehensionExpr' }>['value']): Estimate {
    let sum = est.add(this.cost(c.iterRange), this.cost(c.accuInit));
    this.pushLocal(c.accuVar, c.accuInit);
    sum = est.add(sum, this.cost(c.result));
    this.pop(c.accuVar);
    this.copySizes(e, c.result);
    return sum;
  }

  private costComprehension(e: CostExpr, c: Extract<CostExpr['exprKind'], { case: 'comprehensionExpr' }>['value']): Estimate {
    let sum = est.add(this.cost(c.iterRange), this.cost(c.accuInit));
    this.pushLocal(c.accuVar, c.accuInit);
    const range = c.iterRange!;
    if (c.iterVar2) {
      this.pushIter(c.iterVar, range, 'key');
      this.pushIter(c.iterVar2, range, 'value');
    } else {
      this.pushIter(c.iterVar, range, 'single');
    }
    const loop = this.cost(c.loopCondition);
    const step = this.cost(c.loopStep);
    this.pop(c.iterVar);
    if (c.iterVar2) this.pop(c.iterVar2);
    sum = est.add(sum, this.cost(c.result));
    this.pop(c.accuVar);
    const count = this.sizeOrUnknown(range);
    sum = est.add(sum, est.mul(count, est.add(step, loop)));
    const init = c.accuInit?.exprKind.case;
    if (init === 'constExpr') {
      const s = c.accuInit && this.computeSize(c.accuInit);
      if (s) this.sizes.set(e.id, s);
    } else if (init === 'listExpr' || init === 'structExpr') {
      this.sizes.set(e.id, count);
      const stepEntry = this.entrySize(c.loopStep);
      if (stepEntry) this.entries.set(e.id, stepEntry);
    }
    return sum;
  }

  private copySizes(dst: CostExpr, src: CostExpr | undefined): void {
    if (!src) return;
    const s = this.computeSize(src);
    if (s) this.sizes.set(dst.id, s);
    const en = this.entrySize(src);
    if (en) this.entries.set(dst.id, en);
  }

  private costCall(
    e: CostExpr,
    call: { readonly function: string; readonly target?: CostExpr; readonly args: readonly CostExpr[] },
  ): Estimate {
    const qualified = this.checked.qualified.has(e.id);
    const fn = qualified ? `${qualifiedName(call.target)}.${call.function}` : call.function;
    if (fn === 'dyn' && call.args.length === 1) {
      const argCost = this.cost(call.args[0]);
      this.copySizes(e, call.args[0]);
      return est.add(fixed(1n), argCost);
    }
    const argCosts = call.args.map((a) => this.cost(a));
    const args = call.args.map((a) => this.node(a));
    const ids = this.checked.overloads.get(e.id) ?? [];
    if (ids.length === 0) return fixed(0n);
    let sum = fixed(0n);
    let target: AstNode | undefined;
    if (call.target && !qualified) {
      sum = est.add(sum, this.cost(call.target));
      target = this.node(call.target);
    }
    let fnCost: Estimate = { min: MAX_UINT64, max: 0n };
    let resultSize: Estimate | undefined;
    for (const id of ids) {
      const oc = this.functionCost(e, fn, id, target, args, argCosts, call.args);
      fnCost = est.union(fnCost, oc.cost);
      if (oc.resultSize) resultSize = resultSize ? est.union(resultSize, oc.resultSize) : oc.resultSize;
      if ((id === 'index_list' || id === 'index_map') && call.args.length > 0) {
        resultSize = this.entrySize(call.args[0])?.val;
        this.paths.set(e.id, goAppend(this.pathOf(call.args[0]), id === 'index_list' ? '@items' : '@values'));
      }
      resultSize ??= this.computeSize(e);
    }
    if (resultSize) this.sizes.set(e.id, resultSize);
    return est.add(sum, fnCost);
  }

  private functionCost(
    e: CostExpr,
    fn: string,
    id: string,
    target: AstNode | undefined,
    args: readonly AstNode[],
    argCosts: readonly Estimate[],
    argExprs: readonly CostExpr[],
  ): CallEstimate {
    const argSum = (): Estimate => argCosts.reduce((a, b) => est.add(a, b), fixed(0n));
    const withArgs = (c: CallEstimate | undefined): CallEstimate | undefined =>
      c && (c.resultSize ? { cost: est.add(c.cost, argSum()), resultSize: c.resultSize } : { cost: est.add(c.cost, argSum()) });
    const byId = withArgs(this.byOverload.get(id)?.(this, fn, id, target, args));
    if (byId) return byId;
    const byName = withArgs(this.byFunction.get(fn)?.(this, fn, id, target, args));
    if (byName) return byName;
    const traverse = (s: Estimate): Estimate => est.factor(s, COST.stringTraversalFactor);
    switch (id) {
      case 'string_format':
        if (target) return { cost: est.add(traverse(this.size0(target)), argSum()) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const sz = this.size0(args[0]!);
          return { cost: est.add(traverse(sz), argSum()), resultSize: { min: sz.min, max: wrap(sz.max * 4n) } };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const sz = this.size0(args[0]!);
          return { cost: est.add(traverse(sz), argSum()), resultSize: { min: sz.min / 4n, max: sz.max } };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const sz = this.size0(args[0]!);
          return { cost: est.add(traverse(sz), argSum()), resultSize: { min: wrap(sz.min + 2n), max: wrap(sz.max * 2n + 2n) } };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return { cost: est.add(traverse(this.size0(args[0]!)), argSum()) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: est.add(est.factor(this.size0(args[1]!), 1), argSum()) };
        break;
      case 'matches':
      case 'matches_string': {
        const [str, re] =
          id === 'matches_string' && target && args.length === 1
            ? [target, args[0]]
            : id === 'matches' && !target && args.length === 2
              ? [args[0], args[1]]
              : [];
        if (str && re) {
          const strCost = traverse(est.add(this.size0(str), fixed(1n)));
          const reCost = est.factor(this.size0(re), COST.regexStringLengthFactor);
          return { cost: est.add(est.mul(strCost, reCost), argSum()) };
        }
        break;
      }
      case 'contains_string':
        if (target && args.length === 1)
          return { cost: est.add(est.mul(traverse(this.size0(target)), traverse(this.size0(args[0]!))), argSum()) };
        break;
      case 'logical_or':
      case 'logical_and': {
        const l = argCosts[0] ?? fixed(0n);
        const r = argCosts[1] ?? fixed(0n);
        return { cost: { min: l.min, max: est.add(l, r).max } };
      }
      case 'conditional': {
        const size = est.union(this.size0(args[1]!), this.size0(args[2]!));
        const a = this.entrySize(argExprs[1]);
        const b = this.entrySize(argExprs[2]);
        if (a && b) this.entries.set(e.id, { container: a.container, key: est.union(a.key, b.key), val: est.union(a.val, b.val) });
        return { cost: est.add(argCosts[0]!, est.union(argCosts[1]!, argCosts[2]!)), resultSize: size };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = est.add(this.size0(args[0]!), this.size0(args[1]!));
          const a = this.entrySize(argExprs[0]);
          const b = this.entrySize(argExprs[1]);
          if (a && b) this.entries.set(e.id, { container: a.container, key: est.union(a.key, b.key), val: est.union(a.val, b.val) });
          if (id === 'add_list') return { cost: est.add(fixed(1n), argSum()), resultSize };
          return { cost: est.add(traverse(resultSize), argSum()), resultSize };
        }
        break;
      case 'less_string':
      case 'greater_string':
      case 'less_equals_string':
      case 'greater_equals_string':
      case 'less_bytes':
      case 'greater_bytes':
      case 'less_equals_bytes':
      case 'greater_equals_bytes':
      case 'equals':
      case 'not_equals': {
        const l = this.size0(args[0]!);
        const r = this.size0(args[1]!);
        const smallest = r.max < l.max ? r.max : l.max;
        return { cost: est.add(traverse({ min: smallest > 0n ? 1n : 0n, max: smallest }), argSum()) };
      }
    }
    return { cost: est.add(fixed(1n), argSum()) };
  }

  /** cel-go's sizeOrUnknown on an AstNode: its computed size only. */
  private size0(node: AstNode): Estimate {
    return node.computedSize ?? UNKNOWN;
  }
}

function isBind(c: Extract<CostExpr['exprKind'], { case: 'comprehensionExpr' }>['value']): boolean {
  const range = c.iterRange?.exprKind;
  const cond = c.loopCondition?.exprKind;
  return (
    range?.case === 'listExpr' &&
    range.value.elements.length === 0 &&
    cond?.case === 'constExpr' &&
    cond.value.constantKind.case === 'boolValue' &&
    cond.value.constantKind.value === false &&
    !ACCUMULATORS.has(c.accuVar)
  );
}

function exprSize(e: CostExpr): Estimate | undefined {
  const k = e.exprKind;
  if (k.case === 'constExpr') {
    const c = k.value.constantKind;
    if (c.case === 'stringValue') return fixed(BigInt([...(c.value as string)].length));
    if (c.case === 'bytesValue') return fixed(BigInt((c.value as Uint8Array).length));
    return c.case === undefined ? undefined : fixed(1n);
  }
  if (k.case === 'listExpr') return fixed(BigInt(k.value.elements.length));
  if (k.case === 'structExpr' && k.value.messageName === '') return fixed(BigInt(k.value.entries.length));
  return undefined;
}

function isScalar(t: CelT): boolean {
  switch (t.k) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && t.params !== undefined && t.params[0] !== undefined && isScalar(t.params[0]);
    default:
      return false;
  }
}

/** An environment's compiled declarations: build once, estimate many. */
export interface CostModel {
  /** The estimated cost range of an expression (its checked tree), as checker.Cost. */
  estimate(expr: CostExpr): Estimate;
  /** The expression's output type and its undeclared identifiers, as the checker finds them. */
  check(expr: CostExpr): {
    readonly type: CelT;
    readonly free: boolean;
    readonly undeclared: readonly CheckerError[];
    readonly mismatches: readonly CheckerError[];
    readonly panics: boolean;
  };
  /** The checker's type of each node (its type parameters bound as far as the checker binds them). */
  types(expr: CostExpr): ReadonlyMap<bigint, CelT>;
  /**
   * The checker's overload candidates per call (by node id) and the calls of a qualified function
   * name (`sets.contains`): what cel-go's planner resolves a call to (cel-runtime-cost.ts).
   */
  references(expr: CostExpr): { readonly overloads: ReadonlyMap<bigint, readonly string[]>; readonly qualified: ReadonlySet<bigint> };
}

/**
 * A type as cel-go prints it, or undefined where this checker's type is not exact: as types.Type's
 * String (`google.protobuf.Any`, the DRA compiler's output-type error) by default, or, with
 * `'any'`, as the checker's messages print it (checker/format.go FormatCELType: `any`,
 * `timestamp`, `duration`, `null`).
 */
export function celTypeName(t: CelT, anyName = 'google.protobuf.Any'): string | undefined {
  const checker = anyName === 'any';
  switch (t.k) {
    case 'bool':
    case 'int':
    case 'uint':
    case 'double':
    case 'string':
    case 'bytes':
    case 'dyn':
      return t.k;
    case 'null':
      return checker ? 'null' : 'null_type';
    case 'error':
      return '!error!';
    case 'any':
      return anyName;
    case 'timestamp':
      return checker ? 'timestamp' : 'google.protobuf.Timestamp';
    case 'duration':
      return checker ? 'duration' : 'google.protobuf.Duration';
    case 'struct':
      return t.name;
    case 'list': {
      const e = celTypeName(t.e, anyName);
      return e === undefined ? undefined : `list(${e})`;
    }
    case 'map': {
      const key = celTypeName(t.key, anyName);
      const val = celTypeName(t.val, anyName);
      return key === undefined || val === undefined ? undefined : `map(${key}, ${val})`;
    }
    case 'opaque': {
      // cel-go's opaque types print with their parameters: optional_type(int), net.IP.
      const params = (t.params ?? []).map((p) => celTypeName(p, anyName));
      if (params.some((p) => p === undefined)) return undefined;
      return params.length === 0 ? t.name : `${t.name}(${params.join(', ')})`;
    }
    default:
      return undefined;
  }
}

export function costModel(env: CostEnvironment): CostModel {
  const byFn = new Map<string, CelOverloadDecl[]>();
  const byFunction = new Map<string, CallCoster>();
  const byOverload = new Map<string, CallCoster>();
  for (const lib of env.libraries) {
    for (const d of lib.decls) {
      const list = byFn.get(d.fn) ?? [];
      if (!list.some((o) => o.id === d.id)) list.push(d);
      byFn.set(d.fn, list);
    }
    for (const [name, c] of Object.entries(lib.byFunction ?? {})) byFunction.set(name, c);
    for (const [id, c] of Object.entries(lib.byOverload ?? {})) byOverload.set(id, c);
  }
  return {
    estimate(expr) {
      const checked = new TypeChecker(env, byFn).run(expr);
      return new Coster(env, checked, byFunction, byOverload).cost(expr);
    },
    check(expr) {
      const checked = new TypeChecker(env, byFn).run(expr);
      return {
        type: checked.type,
        free: checked.free,
        undeclared: checked.undeclared,
        mismatches: checked.mismatches,
        panics: checked.panics,
      };
    },
    types(expr) {
      return new TypeChecker(env, byFn).run(expr).types;
    },
    references(expr) {
      const checked = new TypeChecker(env, byFn).run(expr);
      return { overloads: checked.overloads, qualified: checked.qualified };
    },
  };
}
