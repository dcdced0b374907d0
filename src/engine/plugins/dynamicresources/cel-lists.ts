// Kubernetes' CEL `lists` library (k8s.io/apiserver/pkg/cel/library/lists.go, ListsVersion(1) as
// the 1.37 base environment enables it: isSorted, sum, min, max, indexOf, lastIndexOf, includes) and
// cel-go's `sets` extension (sets.contains, sets.equivalent, sets.intersects), for device selectors.
// Element comparison, equality and addition are @bufbuild/cel's own `<`, `==` and `+` (so numbers
// compare across int, uint and double); as upstream, an element that is not comparable fails with
// `no such overload`, and a comparison across types that fails counts as "not greater".
import {
  celEnv,
  celFunc,
  celMethod,
  CelScalar,
  isCelError,
  isCelList,
  listType,
  parse,
  plan,
  type CelFunc,
  type CelList,
} from '@bufbuild/cel';
import { stdErrorFuncs } from './cel-std-errors';
import { COST, est, fixed, member, overload, T, type AstNode, type CallCoster, type CelCostLibrary, type CelT } from './cel-cost';

const LIST = listType(CelScalar.DYN);
const opsEnv = celEnv({});
// The standard operators with cel-go's errors (cel-std-errors.ts: `a + b` overflowing is `integer overflow`).
const arithmeticEnv = celEnv({ funcs: [...stdErrorFuncs] });

type Binary = (a: unknown, b: unknown) => unknown;

/** A CEL operator on two values (`a < b`, …) as CEL itself evaluates it, errors thrown. */
export function binary(expression: string, env = opsEnv): Binary {
  const program = plan(env, parse(expression)) as unknown as (ctx: Record<string, unknown>) => unknown;
  return (a, b) => {
    const out = program({ a, b });
    if (isCelError(out)) throw out;
    return out;
  };
}

export const less = binary('a < b');
export const eq = binary('a == b');
const plus = binary('a + b', arithmeticEnv);

/** Whether a value is one of CEL's comparable types (cel-go's traits.Comparer); upstream's error otherwise. */
function comparable(x: unknown): void {
  try {
    less(x, x);
  } catch {
    throw new Error('no such overload');
  }
}

/** `a > b`, as upstream's `a.Compare(b) == 1`: a comparison across types that fails is not greater. */
function greater(a: unknown, b: unknown): boolean {
  try {
    return less(b, a) === true;
  } catch {
    return false;
  }
}

function isSorted(this: CelList): boolean {
  let prev: unknown;
  let first = true;
  for (const next of this) {
    comparable(next);
    if (!first && greater(prev, next)) return false;
    prev = next;
    first = false;
  }
  return true;
}

function extreme(name: 'min' | 'max') {
  return function (this: CelList): unknown {
    let result: unknown;
    let first = true;
    for (const next of this) {
      comparable(next);
      if (first || (name === 'min' ? greater(result, next) : greater(next, result))) result = next;
      first = false;
    }
    if (first) throw new Error(`${name} called on empty list`);
    return result;
  };
}

function indexOf(list: CelList, item: unknown, fromEnd: boolean): bigint {
  const items = [...list];
  for (let k = 0; k < items.length; k++) {
    const i = fromEnd ? items.length - 1 - k : k;
    if (eq(items[i], item) === true) return BigInt(i);
  }
  return -1n;
}

function contains(list: CelList, sub: CelList): boolean {
  const items = [...list];
  for (const s of sub) if (!items.some((x) => eq(x, s) === true)) return false;
  return true;
}

function includes(target: unknown, item: unknown): boolean {
  if (isCelList(target)) {
    for (const x of target) if (eq(x, item) === true) return true;
    return false;
  }
  return eq(target, item) === true;
}

export const listFuncs: CelFunc[] = [
  celMethod('isSorted', LIST, [], CelScalar.BOOL, isSorted),
  celMethod('min', LIST, [], CelScalar.DYN, extreme('min') as (this: CelList) => never),
  celMethod('max', LIST, [], CelScalar.DYN, extreme('max') as (this: CelList) => never),
  celMethod('sum', LIST, [], CelScalar.DYN, function (this: CelList) {
    let acc: unknown;
    let first = true;
    for (const next of this) {
      acc = first ? next : plus(acc, next);
      first = false;
    }
    // The empty list's sum is the zero of its (statically known) element type; untyped here: int 0.
    return (first ? 0n : acc) as never;
  }),
  celMethod('indexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (this: CelList, item) {
    return indexOf(this, item, false);
  }),
  celMethod('lastIndexOf', LIST, [CelScalar.DYN], CelScalar.INT, function (this: CelList, item) {
    return indexOf(this, item, true);
  }),
  celMethod('includes', CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (item) {
    return includes(this, item);
  }),
  celFunc('sets.contains', [LIST, LIST], CelScalar.BOOL, (a, b) => contains(a, b)),
  celFunc('sets.equivalent', [LIST, LIST], CelScalar.BOOL, (a, b) => contains(a, b) && contains(b, a)),
  celFunc('sets.intersects', [LIST, LIST], CelScalar.BOOL, (a, b) => {
    const items = [...a];
    for (const s of b) if (items.some((x) => eq(x, s) === true)) return true;
    return false;
  }),
];

const COMPARABLE: readonly [string, CelT][] = [
  ['int', T.int],
  ['uint', T.uint],
  ['double', T.double],
  ['bool', T.bool],
  ['duration', T.duration],
  ['timestamp', T.timestamp],
  ['string', T.string],
  ['bytes', T.bytes],
];
const SUMMABLE = COMPARABLE.filter(([n]) => ['int', 'uint', 'double', 'duration'].includes(n));

/** library/cost.go's estimate for the lists functions: one traversal of the target. */
const listTraversal: CallCoster = (ctx, fn, _id, target) => {
  if (!target) return undefined;
  let elCost = fixed(1n);
  if (target.type.k === 'list') {
    const el: AstNode = { path: target.path && [...target.path, '@items'], type: target.type.e, expr: undefined, computedSize: undefined };
    if (el.type.k === 'string' || el.type.k === 'bytes') elCost = est.add(elCost, est.factor(ctx.size(el), COST.stringTraversalFactor));
    return { cost: est.mul(ctx.size(target), elCost) };
  }
  if (fn === 'includes') return { cost: est.mul(ctx.size(target), elCost) };
  return { cost: est.factor(ctx.size(target), COST.stringTraversalFactor) };
};

/** cel-go ext/sets.go estimateSetsCost: |a|·|b|·factor + 1. */
function setsCost(factor: number): CallCoster {
  return (ctx, _fn, _id, _target, args) =>
    args.length === 2 ? { cost: est.add(est.factor(est.mul(ctx.size(args[0]!), ctx.size(args[1]!)), factor), fixed(1n)) } : undefined;
}

/**
 * The lists library's and the sets extension's share of the cost model: their overloads (k8s.io/apiserver
 * pkg/cel/library/lists.go, cel-go ext/sets.go) and costs (library/cost.go by function name; the
 * sets extension's own CostEstimatorOptions by overload id).
 */
export const listsCost: CelCostLibrary = {
  decls: [
    ...COMPARABLE.map(([n, t]) => member('isSorted', `list_${n}_is_sorted_bool`, [T.list(t)], T.bool)),
    ...SUMMABLE.map(([n, t]) => member('sum', `list_${n}_sum_${n}`, [T.list(t)], t)),
    ...COMPARABLE.map(([n, t]) => member('max', `list_${n}_max_${n}`, [T.list(t)], t)),
    ...COMPARABLE.map(([n, t]) => member('min', `list_${n}_min_${n}`, [T.list(t)], t)),
    member('indexOf', 'list_a_index_of_int', [T.list(T.A), T.A], T.int),
    member('lastIndexOf', 'list_a_last_index_of_int', [T.list(T.A), T.A], T.int),
    member('includes', 'list_includes_dyn_dyn', [T.dyn, T.dyn], T.bool),
    overload('sets.contains', 'list_sets_contains_list', [T.list(T.A), T.list(T.A)], T.bool),
    overload('sets.equivalent', 'list_sets_equivalent_list', [T.list(T.A), T.list(T.A)], T.bool),
    overload('sets.intersects', 'list_sets_intersects_list', [T.list(T.A), T.list(T.A)], T.bool),
  ],
  byFunction: {
    isSorted: listTraversal,
    sum: listTraversal,
    max: listTraversal,
    min: listTraversal,
    indexOf: listTraversal,
    lastIndexOf: listTraversal,
    includes: listTraversal,
  },
  byOverload: {
    list_sets_contains_list: setsCost(1),
    list_sets_intersects_list: setsCost(1),
    list_sets_equivalent_list: setsCost(2),
  },
};
