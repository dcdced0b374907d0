// cel-go's `lists` extension (github.com/google/cel-go v0.29.2 ext/lists.go) as Kubernetes 1.37's
// base CEL environment enables it (k8s.io/apiserver pkg/cel/environment/base.go: `ext.Lists(
// ext.ListsVersion(3))`, introduced 1.34): `slice(start, end)`, `flatten()`, `flatten(depth)`,
// `sort()`, `sortBy(e, key)` (a macro: cel-macros.ts expands it to `@sortByAssociatedKeys`),
// `lists.range(n)`, `reverse()` and `distinct()`, with upstream's error words. Equality and order
// are @bufbuild/cel's own `==` and `<`. Upstream sorts with Go's sort.Slice, which is not stable
// beyond 12 elements; here equal keys keep their order.
import { celFunc, celList, celMethod, CelScalar, isCelList, listType, type CelFunc, type CelList } from '@bufbuild/cel';
import {
  COST,
  est,
  fixed,
  member,
  overload,
  T,
  type AstNode,
  type CallCoster,
  type CelCostLibrary,
  type CelT,
  type CostContext,
  type Estimate,
} from './cel-cost';
import { binary, eq, less } from './cel-lists';

const LIST = listType(CelScalar.DYN);
const sameType = binary('type(a) == type(b)');
/** cel-go's comparableTypes: what sort and sortBy order by. */
const comparableKey = binary(
  '[int, uint, double, bool, google.protobuf.Duration, google.protobuf.Timestamp, string, bytes].exists(t, type(a) == t)',
);

/** The largest list lists.range builds (cel-go's defaultMaxRangeSize). */
const MAX_RANGE = 10_000_000n;

function slice(list: CelList, start: bigint, end: bigint): CelList {
  if (start < 0n || end < 0n) throw new Error(`cannot slice(${start}, ${end}), negative indexes not supported`);
  if (start > end) throw new Error(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  if (BigInt(list.size) < end) throw new Error(`cannot slice(${start}, ${end}), list is length ${list.size}`);
  return celList([...list].slice(Number(start), Number(end)) as never);
}

function flatten(list: CelList, depth: bigint): unknown[] {
  if (depth < 0n) throw new Error('level must be non-negative');
  const out: unknown[] = [];
  for (const v of list) {
    if (!isCelList(v) || depth === 0n) out.push(v);
    else out.push(...flatten(v, depth - 1n));
  }
  return out;
}

/** cel-go's sortListByAssociatedKeys: `list` ordered by `keys`, which must be comparable and of one type. */
function sortByKeys(list: CelList, keys: CelList): CelList {
  if (list.size !== keys.size) {
    throw new Error(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.size} and ${keys.size} elements respectively`,
    );
  }
  if (list.size === 0) return list;
  const k = [...keys];
  if (comparableKey(k[0], undefined) !== true) throw new Error('list elements must be comparable');
  if (k.length > 1 && k.some((key) => sameType(key, k[0]) !== true)) throw new Error('list elements must have the same type');
  const items = [...list];
  const order = items.map((_, i) => i);
  order.sort((i, j) => (less(k[i], k[j]) === true ? -1 : less(k[j], k[i]) === true ? 1 : 0));
  return celList(order.map((i) => items[i]) as never);
}

export const extListFuncs: readonly CelFunc[] = [
  celMethod('slice', LIST, [CelScalar.INT, CelScalar.INT], LIST, function (this: CelList, start, end) {
    return slice(this, start, end);
  }),
  celMethod('flatten', LIST, [], LIST, function (this: CelList) {
    return celList(flatten(this, 1n) as never);
  }),
  celMethod('flatten', LIST, [CelScalar.INT], LIST, function (this: CelList, depth) {
    return celList(flatten(this, depth) as never);
  }),
  celMethod('sort', LIST, [], LIST, function (this: CelList) {
    return sortByKeys(this, this);
  }),
  celMethod('@sortByAssociatedKeys', LIST, [LIST], LIST, function (this: CelList, keys) {
    return sortByKeys(this, keys);
  }),
  celFunc('lists.range', [CelScalar.INT], listType(CelScalar.INT), (n) => {
    if (n < 0n) throw new Error(`lists.range: size must be non-negative, got ${n}`);
    if (n > MAX_RANGE) throw new Error(`lists.range: size ${n} exceeds maximum allowed (${MAX_RANGE})`);
    return celList(Array.from({ length: Number(n) }, (_, i) => BigInt(i)));
  }),
  celMethod('reverse', LIST, [], LIST, function (this: CelList) {
    return celList([...this].reverse() as never);
  }),
  celMethod('distinct', LIST, [], LIST, function (this: CelList) {
    const unique: unknown[] = [];
    for (const v of this) if (!unique.some((u) => eq(v, u) === true)) unique.push(v);
    return celList(unique as never);
  }),
];

// ---- the cost model's share: ext/lists.go's declarations (CompileOptions, lines 204-385) and its
// cost estimators (CostEstimatorOptions at version 3, lines 362-383; the estimators lines 634-732).

/** ext/lists.go comparableTypes (lines 34-43) with each type's TypeName, as the overload ids spell it. */
const COMPARABLE: readonly [string, CelT][] = [
  ['int', T.int],
  ['uint', T.uint],
  ['double', T.double],
  ['bool', T.bool],
  ['google.protobuf.Duration', T.duration],
  ['google.protobuf.Timestamp', T.timestamp],
  ['string', T.string],
  ['bytes', T.bytes],
];

/** ext/costs.go nodeAsUintValue: an int literal's value (0 when negative), else the default. */
function literalUint(node: AstNode | undefined, otherwise: bigint): bigint {
  const k = node?.expr?.exprKind;
  if (k?.case !== 'constExpr' || k.value.constantKind.case !== 'int64Value') return otherwise;
  const v = k.value.constantKind.value as bigint;
  return v < 0n ? 0n : v;
}

/** estimateAllocatingListCall: `size` elements at `factor` each, plus the call and the list's creation. */
function allocatingList(factor: number, size: Estimate): { cost: Estimate; resultSize: Estimate } {
  return { cost: est.add(est.add(est.factor(size, factor), fixed(1n)), fixed(COST.listCreateBase)), resultSize: size };
}

/** estimateListSortCost: O(n²) comparisons at factor 2, plus the string traversal factor for strings and bytes. */
function sortCost(ctx: CostContext, node: AstNode, stringy: boolean): { cost: Estimate; resultSize: Estimate } {
  const sz = ctx.size(node);
  return allocatingList(2 + (stringy ? COST.stringTraversalFactor : 0), est.mul(sz, sz));
}

const flattenCost: CallCoster = (ctx, _fn, _id, target, args) =>
  !target || args.length > 1
    ? undefined
    : allocatingList(Number(args.length === 1 ? literalUint(args[0], MAX_UINT) : 1n), ctx.size(target));

const MAX_UINT = (1n << 64n) - 1n;
const LIST_T = T.list(T.param('T'));

export const extListsCost: CelCostLibrary = {
  decls: [
    member('slice', 'list_slice', [LIST_T, T.int, T.int], LIST_T),
    member('flatten', 'list_flatten', [T.list(LIST_T)], LIST_T),
    member('flatten', 'list_flatten_int', [T.list(T.dyn), T.int], T.list(T.dyn)),
    ...COMPARABLE.map(([name, t]) => member('sort', `list_${name}_sort`, [T.list(t)], T.list(t))),
    ...COMPARABLE.map(([name, t]) => member('@sortByAssociatedKeys', `list_${name}_sortByAssociatedKeys`, [LIST_T, T.list(t)], LIST_T)),
    overload('lists.range', 'lists_range', [T.int], T.list(T.int)),
    member('reverse', 'list_reverse', [LIST_T], LIST_T),
    member('distinct', 'list_distinct', [LIST_T], LIST_T),
  ],
  byOverload: {
    list_slice: (ctx, _fn, _id, target, args) => {
      if (!target || args.length !== 2) return undefined;
      const sz = ctx.size(target);
      const start = literalUint(args[0], 0n);
      const end = literalUint(args[1], sz.max);
      return allocatingList(1, fixed(BigInt.asUintN(64, end - start)));
    },
    lists_range: (_ctx, _fn, _id, target, args) =>
      target || args.length !== 1 ? undefined : allocatingList(1, fixed(literalUint(args[0], MAX_UINT))),
    list_reverse: (ctx, _fn, _id, target, args) => (!target || args.length !== 0 ? undefined : allocatingList(1, ctx.size(target))),
    list_flatten: flattenCost,
    list_flatten_int: flattenCost,
    list_distinct: (ctx, _fn, _id, target, args) => {
      if (!target || args.length !== 0) return undefined;
      const sz = ctx.size(target);
      return allocatingList(2, est.mul(sz, sz));
    },
    ...Object.fromEntries(
      COMPARABLE.flatMap(([name]) => {
        const stringy = name === 'string' || name === 'bytes';
        const sort: CallCoster = (ctx, _fn, _id, target, args) =>
          !target || args.length !== 0 ? undefined : sortCost(ctx, target, stringy);
        const sortBy: CallCoster = (ctx, _fn, _id, target, args) =>
          !target || args.length !== 1 ? undefined : sortCost(ctx, args[0]!, stringy);
        return [
          [`list_${name}_sort`, sort],
          [`list_${name}_sortByAssociatedKeys`, sortBy],
        ] as [string, CallCoster][];
      }),
    ),
  },
};
