// Cost entries for the Kubernetes and cel-go libraries the selector environment does not offer yet:
// the regex library (find, findAll), the URL library, the format library (k8s.io/apiserver v0.37.2
// pkg/cel/library regex.go, urls.go, format.go and their entries in cost.go) and cel-go's lists
// extension at version 3 (ext/lists.go's CostEstimatorOptions). Kept here, keyed by function name
// and overload id, so each can move beside its library when that library lands; until then a call
// of one of these functions is refused as undeclared before its cost matters. cel.bind and the
// two-variable comprehensions need no entry: the coster prices their comprehensions itself.
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

const URL_T = T.struct('kubernetes.URL');
const FORMAT_T = T.struct('kubernetes.NamedFormat');
const OPTIONAL = (t: CelT): CelT => T.opaque('optional_type', [t]);
/** apiservercel.MaxNameFormatRegexSize. */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

const unit: CallCoster = () => ({ cost: fixed(1n) });

const find: CallCoster = (ctx, _fn, _id, target, args) => {
  if (!target || args.length < 1) return undefined;
  const sz = ctx.size(target);
  const strCost = est.factor(est.add(sz, fixed(1n)), COST.stringTraversalFactor);
  const reCost = est.factor(ctx.size(args[0]!), COST.regexStringLengthFactor);
  return { cost: est.mul(strCost, reCost), resultSize: { min: 0n, max: sz.max } };
};

/** cel-go ext/lists.go: cost of a call producing a list of `size` elements at `factor` per element. */
function allocatingList(factor: number, size: Estimate): { cost: Estimate; resultSize: Estimate } {
  return { cost: est.add(est.add(est.factor(size, factor), fixed(1n)), fixed(COST.listCreateBase)), resultSize: size };
}

function literalUint(node: AstNode | undefined, otherwise: bigint): bigint {
  const k = node?.expr?.exprKind;
  if (k?.case === 'constExpr' && (k.value.constantKind.case === 'int64Value' || k.value.constantKind.case === 'uint64Value')) {
    return BigInt.asUintN(64, k.value.constantKind.value as bigint);
  }
  return otherwise;
}

/** ext/lists.go estimateListSortCost: O(n²) comparisons at factor 2 (plus string traversal). */
function sortCost(ctx: CostContext, node: AstNode, stringy: boolean): { cost: Estimate; resultSize: Estimate } {
  const sz = ctx.size(node);
  return allocatingList(2 + (stringy ? COST.stringTraversalFactor : 0), est.mul(sz, sz));
}

const COMPARABLE = ['int', 'uint', 'double', 'bool', 'duration', 'timestamp', 'string', 'bytes'] as const;

export const pendingCost: CelCostLibrary = {
  decls: [
    member('find', 'string_find_string', [T.string, T.string], T.string),
    member('findAll', 'string_find_all_string', [T.string, T.string], T.list(T.string)),
    member('findAll', 'string_find_all_string_int', [T.string, T.string, T.int], T.list(T.string)),
    overload('url', 'string_to_url', [T.string], URL_T),
    overload('isURL', 'is_url_string', [T.string], T.bool),
    member('getScheme', 'url_get_scheme', [URL_T], T.string),
    member('getHost', 'url_get_host', [URL_T], T.string),
    member('getHostname', 'url_get_hostname', [URL_T], T.string),
    member('getPort', 'url_get_port', [URL_T], T.string),
    member('getEscapedPath', 'url_get_escaped_path', [URL_T], T.string),
    member('getQuery', 'url_get_query', [URL_T], T.map(T.string, T.list(T.string))),
    member('validate', 'format-validate', [FORMAT_T, T.string], OPTIONAL(T.list(T.string))),
    overload('format.named', 'format-named', [T.string], OPTIONAL(FORMAT_T)),
  ],
  byFunction: {
    find,
    findAll: find,
    url: (ctx, _fn, _id, _target, args) => {
      if (args.length !== 1) return undefined;
      const sz = ctx.size(args[0]!);
      return { cost: est.factor(sz, COST.stringTraversalFactor), resultSize: sz };
    },
    getScheme: unit,
    getHostname: unit,
    getHost: unit,
    getPort: unit,
    getEscapedPath: unit,
    getQuery: unit,
    validate: (ctx, _fn, _id, _target, args) =>
      args.length >= 1
        ? {
            cost: est.factor(
              est.factor(ctx.size(args[0]!), COST.stringTraversalFactor),
              MAX_NAME_FORMAT_REGEX_SIZE * COST.regexStringLengthFactor,
            ),
          }
        : undefined,
    'format.named': unit,
  },
  byOverload: {
    list_slice: (ctx, _fn, _id, target, args) => {
      if (!target || args.length !== 2) return undefined;
      const sz = ctx.size(target);
      const start = literalUint(args[0], 0n);
      const end = literalUint(args[1], sz.max);
      return allocatingList(1, fixed(BigInt.asUintN(64, end - start)));
    },
    lists_range: (_ctx, _fn, _id, target, args) =>
      target || args.length !== 1 ? undefined : allocatingList(1, fixed(literalUint(args[0], (1n << 64n) - 1n))),
    list_reverse: (ctx, _fn, _id, target, args) => (!target || args.length !== 0 ? undefined : allocatingList(1, ctx.size(target))),
    list_flatten: (ctx, _fn, _id, target, args) =>
      !target || args.length > 1
        ? undefined
        : allocatingList(Number(args.length === 1 ? literalUint(args[0], (1n << 64n) - 1n) : 1n), ctx.size(target)),
    list_flatten_int: (ctx, _fn, _id, target, args) =>
      !target || args.length > 1
        ? undefined
        : allocatingList(Number(args.length === 1 ? literalUint(args[0], (1n << 64n) - 1n) : 1n), ctx.size(target)),
    list_distinct: (ctx, _fn, _id, target, args) => {
      if (!target || args.length !== 0) return undefined;
      const sz = ctx.size(target);
      return allocatingList(2, est.mul(sz, sz));
    },
    ...Object.fromEntries(
      COMPARABLE.flatMap((t) => {
        const stringy = t === 'string' || t === 'bytes';
        const sort: CallCoster = (ctx, _fn, _id, target, args) =>
          !target || args.length !== 0 ? undefined : sortCost(ctx, target, stringy);
        const sortBy: CallCoster = (ctx, _fn, _id, target, args) =>
          !target || args.length !== 1 ? undefined : sortCost(ctx, args[0]!, stringy);
        return [
          [`list_${t}_sort`, sort],
          [`list_${t}_sortByAssociatedKeys`, sortBy],
        ] as [string, CallCoster][];
      }),
    ),
  },
};
