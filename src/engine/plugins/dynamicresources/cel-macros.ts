// cel-go's macros that @bufbuild/cel 0.6 does not expand (it parses the calls but takes no macros),
// rewritten on the parsed expression as cel-go (v0.29.2) expands them:
// - `cel.bind(var, init, expr)` (ext/bindings.go, celBind), which DRA's environment adds
//   (k8s.io/dynamic-resource-allocation/cel/compile.go, newCompiler: `ext.Bindings(
//   ext.BindingsVersion(0))`, introduced 1.31): the comprehension over an empty list whose
//   accumulator is the variable, initialised to `init`, and whose result is `expr`;
// - `list.sortBy(e, key)` (ext/lists.go, sortByMacro; the base environment's ext.Lists(3));
// - the two-variable comprehensions (ext/comprehensions.go; the base environment's
//   ext.TwoVarComprehensions(), since 1.32), with the parser's error words;
// - `opt.optMap(v, expr)` and `opt.optFlatMap(v, expr)` (cel/library.go optMap, optFlatMap; the base
//   environment's cel.OptionalTypes(), since 1.28): `opt.hasValue() ? [optional.of](cel.bind(v,
//   opt.value(), expr)) : optional.none()`, the receiver copied with new ids;
// - for evaluation only, `opt.or(o)` and `opt.orValue(v)`, which cel-go short-circuits.
// Macros expand inside out, as the parser meets them.

import { celFunc, celList, celMap, CelScalar, isCelList, isCelMap, listType, mapType, type CelFunc } from '@bufbuild/cel';
import { overload, T, type CelCostLibrary } from './cel-cost';
import { exprChildren } from './cel-ast';

/** A parsed CEL expression node (cel.expr.Expr), as far as the rewrite reads and writes it. */
export interface MacroNode {
  id: bigint;
  exprKind: { case: string | undefined; value?: unknown };
}

const UNUSED_ITER_VAR = '#unused';

function node(id: bigint, exprKind: MacroNode['exprKind']): MacroNode {
  return { $typeName: 'cel.expr.Expr', id, exprKind } as MacroNode;
}

type Kind = MacroNode['exprKind'];

const ident = (id: bigint, name: string): MacroNode => node(id, { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name } });

function constant(id: bigint, c: { case: 'boolValue'; value: boolean } | { case: 'int64Value'; value: bigint }): MacroNode {
  return node(id, { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: c } });
}

function call(id: bigint, fn: string, args: MacroNode[], target?: MacroNode): MacroNode {
  return node(id, { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: fn, target, args } });
}

function list(id: bigint, elements: MacroNode[]): MacroNode {
  return node(id, { case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] } });
}

interface Fold {
  readonly range: MacroNode;
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly accuVar: string;
  readonly init: MacroNode;
  readonly condition: MacroNode;
  readonly step: MacroNode;
  readonly result: MacroNode;
}

function comprehension(f: Fold): Kind {
  return {
    case: 'comprehensionExpr',
    value: {
      $typeName: 'cel.expr.Expr.Comprehension',
      iterVar: f.iterVar,
      iterVar2: f.iterVar2 ?? '',
      iterRange: f.range,
      accuVar: f.accuVar,
      accuInit: f.init,
      loopCondition: f.condition,
      loopStep: f.step,
      result: f.result,
    },
  };
}

/** cel.bind as cel-go expands it: a fold over an empty list whose accumulator is the variable. */
function bind(name: string, init: MacroNode, result: MacroNode, nextId: () => bigint): Kind {
  return comprehension({
    range: list(nextId(), []),
    iterVar: UNUSED_ITER_VAR,
    accuVar: name,
    init,
    condition: constant(nextId(), { case: 'boolValue', value: false }),
    step: ident(nextId(), name),
    result,
  });
}

/** A deep copy of a node with new ids for it and every node under it (cel-go's MacroExprFactory.Copy). */
function copyNode(e: MacroNode, nextId: () => bigint): MacroNode {
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(copy);
    if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = copy(x);
    if ((v as { $typeName?: string }).$typeName === 'cel.expr.Expr') out['id'] = nextId();
    return out;
  };
  return copy(e) as MacroNode;
}

/** The name of an identifier argument, or undefined. */
function identName(e: MacroNode): string | undefined {
  return e.exprKind.case === 'identExpr' ? (e.exprKind.value as { name: string }).name : undefined;
}

const ACCU = '@result';
const ITER = '@it';

/** cel-go's hidden accumulator name and the parser's visible one: not an iteration variable. */
const ACCUMULATOR_NAMES = new Set([ACCU, '__result__']);

/**
 * cel-go's two-variable comprehensions (ext/comprehensions.go, in the base environment since 1.32:
 * `ext.TwoVarComprehensions()`). @bufbuild/cel 0.6 folds over one variable only, so the fold runs
 * over `@entries(target)` (a list's [index, element] or a map's [key, value] pairs) and binds the
 * two variables from each pair around every expression the user wrote; loop condition, step and
 * result are cel-go's own.
 */
function twoVar(
  fn: string,
  target: MacroNode,
  args: MacroNode[],
  nextId: () => bigint,
  shape: MacroShape,
): { kind: Kind } | MacroError | undefined {
  const arity = args.length;
  const quantifier = ['all', 'exists', 'existsOne', 'exists_one'].includes(fn) && arity === 3;
  const transform = ['transformList', 'transformMap', 'transformMapEntry'].includes(fn) && (arity === 3 || arity === 4);
  if (!quantifier && !transform) return undefined;
  const [a0, a1] = args as [MacroNode, MacroNode];
  const v1 = identName(a0);
  if (v1 === undefined) return { error: 'argument must be a simple name', at: a0.id };
  const v2 = identName(a1);
  if (v2 === undefined) return { error: 'argument must be a simple name', at: a1.id };
  if (v1 === v2) return { error: `duplicate variable name: ${v1}`, at: a1.id };
  if (ACCUMULATOR_NAMES.has(v1)) return { error: 'iteration variable overwrites accumulator variable', at: a0.id };
  if (ACCUMULATOR_NAMES.has(v2)) return { error: 'iteration variable overwrites accumulator variable', at: a1.id };
  const bound = (e: MacroNode): MacroNode => {
    if (shape === 'cel-go') return e;
    const pair = (i: bigint) => call(nextId(), '_[_]', [ident(nextId(), ITER), constant(nextId(), { case: 'int64Value', value: i })]);
    const inner = node(nextId(), bind(v2, pair(1n), e, nextId));
    return node(nextId(), bind(v1, pair(0n), inner, nextId));
  };
  const accu = () => ident(nextId(), ACCU);
  const bool = (value: boolean) => constant(nextId(), { case: 'boolValue', value });
  const base =
    shape === 'cel-go'
      ? { range: target, iterVar: v1, iterVar2: v2, accuVar: ACCU }
      : { range: call(nextId(), '@entries', [target]), iterVar: ITER, accuVar: ACCU };
  let fold: Fold;
  if (fn === 'all') {
    fold = {
      ...base,
      init: bool(true),
      condition: call(nextId(), '@not_strictly_false', [accu()]),
      step: call(nextId(), '_&&_', [accu(), bound(args[2]!)]),
      result: accu(),
    };
  } else if (fn === 'exists') {
    fold = {
      ...base,
      init: bool(false),
      condition: call(nextId(), '@not_strictly_false', [call(nextId(), '!_', [accu()])]),
      step: call(nextId(), '_||_', [accu(), bound(args[2]!)]),
      result: accu(),
    };
  } else if (quantifier) {
    const one = () => constant(nextId(), { case: 'int64Value', value: 1n });
    fold = {
      ...base,
      init: constant(nextId(), { case: 'int64Value', value: 0n }),
      condition: bool(true),
      step: call(nextId(), '_?_:_', [bound(args[2]!), call(nextId(), '_+_', [accu(), one()]), accu()]),
      result: call(nextId(), '_==_', [accu(), one()]),
    };
  } else {
    const filter = arity === 4 ? args[2] : undefined;
    const expr = args[arity - 1]!;
    let step =
      fn === 'transformList'
        ? call(nextId(), '_+_', [accu(), list(nextId(), [bound(expr)])])
        : fn === 'transformMap'
          ? call(nextId(), '@mapInsert', [accu(), bound(ident(nextId(), v1)), bound(expr)])
          : call(nextId(), '@mapInsert', [accu(), bound(expr)]);
    if (filter) step = call(nextId(), '_?_:_', [bound(filter), step, accu()]);
    const init =
      fn === 'transformList'
        ? list(nextId(), [])
        : node(nextId(), { case: 'structExpr', value: { $typeName: 'cel.expr.Expr.CreateStruct', messageName: '', entries: [] } });
    fold = { ...base, init, condition: bool(true), step, result: accu() };
  }
  return { kind: comprehension(fold) };
}

/**
 * What a two-variable comprehension expands to: a fold @bufbuild/cel can run (over `@entries`, the
 * variables bound around each expression) or cel-go's own fold over both variables, the shape
 * kube-apiserver's cost estimate walks.
 */
export type MacroShape = 'evaluate' | 'cel-go';

/** A macro's error in cel-go's words, at the node cel-go reports it at (its argument or target). */
export interface MacroError {
  readonly error: string;
  readonly at: bigint;
}

/**
 * Expands, in place and inside out as cel-go's parser meets them, every `cel.bind(v, init, expr)`,
 * `sortBy` of cel-go's lists extension and two-variable comprehension; or the error cel-go's
 * parser reports for one. `nextId` hands out ids for the new nodes.
 */
export function expandMacros(e: MacroNode | undefined, nextId: () => bigint, shape: MacroShape = 'evaluate'): MacroError | undefined {
  if (!e) return undefined;
  for (const child of exprChildren(e)) {
    const error = expandMacros(child, nextId, shape);
    if (error !== undefined) return error;
  }
  if (e.exprKind.case !== 'callExpr') return undefined;
  const c = e.exprKind.value as { function: string; target?: MacroNode; args: MacroNode[] };
  if (c.target === undefined) return undefined;
  if (c.function === 'bind' && c.args.length === 3 && identName(c.target) === 'cel') {
    const [variable, init, result] = c.args as [MacroNode, MacroNode, MacroNode];
    const name = identName(variable);
    if (name === undefined) return { error: 'cel.bind() variable names must be simple identifiers', at: variable.id };
    e.exprKind = bind(name, init, result, nextId);
    return undefined;
  }
  if (c.function === 'sortBy' && c.args.length === 2) {
    // ext/lists.go sortByMacro: cel.bind(@__sortBy_input__, target,
    //   @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))).
    const kind = c.target.exprKind.case;
    if (!['listExpr', 'selectExpr', 'identExpr', 'comprehensionExpr', 'callExpr'].includes(kind ?? '')) {
      return { error: 'sortBy can only be applied to a list, identifier, comprehension, call or select expression', at: c.target.id };
    }
    const [variable, key] = c.args as [MacroNode, MacroNode];
    const name = identName(variable);
    if (name === undefined) return { error: 'argument is not an identifier', at: variable.id };
    const input = '@__sortBy_input__';
    const keys = node(
      nextId(),
      comprehension({
        range: ident(nextId(), input),
        iterVar: name,
        accuVar: ACCU,
        init: list(nextId(), []),
        condition: constant(nextId(), { case: 'boolValue', value: true }),
        step: call(nextId(), '_+_', [ident(nextId(), ACCU), list(nextId(), [key])]),
        result: ident(nextId(), ACCU),
      }),
    );
    e.exprKind = bind(input, c.target, call(nextId(), '@sortByAssociatedKeys', [keys], ident(nextId(), input)), nextId);
    return undefined;
  }
  if ((c.function === 'optMap' || c.function === 'optFlatMap') && c.args.length === 2) {
    const [variable, mapExpr] = c.args as [MacroNode, MacroNode];
    const name = identName(variable);
    if (name === undefined) return { error: `${c.function}() variable name must be a simple identifier`, at: variable.id };
    const bound = node(nextId(), bind(name, call(nextId(), 'value', [], copyNode(c.target, nextId)), mapExpr, nextId));
    const some = c.function === 'optMap' ? call(nextId(), 'optional.of', [bound]) : bound;
    e.exprKind = call(nextId(), '_?_:_', [call(nextId(), 'hasValue', [], c.target), some, call(nextId(), 'optional.none', [])]).exprKind;
    return undefined;
  }
  if ((c.function === 'or' || c.function === 'orValue') && c.args.length === 1 && shape === 'evaluate') {
    // cel-go evaluates or/orValue short-circuiting (library.go decorateOptionalOr): the argument
    // only when the optional is empty. Evaluated here as cel.bind(@opt, target, @opt.hasValue() ?
    // @opt or @opt.value() : arg); the cost estimate and the checker read the call itself.
    const name = `@opt${e.id}`;
    const some = c.function === 'or' ? ident(nextId(), name) : call(nextId(), 'value', [], ident(nextId(), name));
    const pick = call(nextId(), '_?_:_', [call(nextId(), 'hasValue', [], ident(nextId(), name)), some, c.args[0]!]);
    e.exprKind = bind(name, c.target, pick, nextId);
    return undefined;
  }
  const expanded = twoVar(c.function, c.target, c.args, nextId, shape);
  if (expanded === undefined) return undefined;
  if ('error' in expanded) return expanded;
  e.exprKind = expanded.kind;
  return undefined;
}

const MAP = mapType(CelScalar.DYN, CelScalar.DYN);

/** cel-go's InsertMapKeyValue: a new map with the entry, or upstream's error if the key is there. */
function insert(m: ReadonlyMap<unknown, unknown> & { has(k: unknown): boolean }, k: unknown, v: unknown): ReturnType<typeof celMap> {
  if (m.has(k)) throw new Error(`insert failed: key ${String(k)} already exists`);
  return celMap(new Map([...m.entries(), [k, v]]) as never);
}

/** The functions the expansions call: the pairs a two-variable fold runs over, and cel.@mapInsert. */
export const macroFuncs: readonly CelFunc[] = [
  celFunc('@entries', [CelScalar.DYN], listType(CelScalar.DYN), (range) => {
    if (isCelList(range)) return celList([...range].map((v, i) => celList([BigInt(i), v] as never)));
    if (isCelMap(range)) return celList([...range.entries()].map(([k, v]) => celList([k, v] as never)));
    throw new Error('no such overload');
  }),
  celFunc('@mapInsert', [MAP, CelScalar.DYN, CelScalar.DYN], MAP, (m, k, v) => insert(m, k, v)),
  celFunc('@mapInsert', [MAP, MAP], MAP, (m, update) => {
    let out = m;
    for (const [k, v] of update) out = insert(out, k, v);
    return out;
  }),
];

/**
 * The two-variable comprehensions' share of the cost model: cel.@mapInsert as ext/comprehensions.go
 * declares it (lines 209-230; here under the name the expansion calls, `@mapInsert`). Neither cel-go
 * nor library/cost.go (knownUnhandledFunctions, line 43) estimates it: a call costs 1.
 */
export const macrosCost: CelCostLibrary = {
  decls: [
    overload(
      '@mapInsert',
      '@mapInsert_map_key_value',
      [T.map(T.param('K'), T.param('V')), T.param('K'), T.param('V')],
      T.map(T.param('K'), T.param('V')),
    ),
    overload(
      '@mapInsert',
      '@mapInsert_map_map',
      [T.map(T.param('K'), T.param('V')), T.map(T.param('K'), T.param('V'))],
      T.map(T.param('K'), T.param('V')),
    ),
  ],
};
