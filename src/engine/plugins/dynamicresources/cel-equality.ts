// Equality and list membership as cel-go v0.29.2 evaluates them where a selector's operands are
// typed dyn (a device attribute's value), which @bufbuild/cel's heterogeneous equality answers
// otherwise:
// - `l == r` is `l.Equal(r)` (types.Equal): a Kubernetes type on the left (Semver, Quantity, IP,
//   CIDR, URL, Format) compared with another type is `no such overload` (apiserver pkg/cel's
//   Equal methods), while a string or number on the left compared with one is false; a list or a
//   map is equal unless a pair of its elements is false (an error between them does not count:
//   baseList.Equal, baseMap.Equal);
// - `l != r` is `types.Equal(l, r) != True`: never an error;
// - `x in list` is true when `x.Equal(e)` is True for an element (baseList.Contains: errors count
//   as no); `x in [constants]` (a non-empty list literal of bool, int, uint, double and string
//   literals) is a hash lookup (interpreter maybeOptimizeSetMembership), which panics on a value Go
//   cannot hash (Semver and Format hold slices or functions), and `x in []` is false without
//   evaluating x. `setMembership` rewrites the tree to evaluate into that shape.
import { celEnv, celFunc, CelScalar, isCelList, isCelMap, listType, type CelFunc, type CelValue } from '@bufbuild/cel';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import type { MacroNode } from './cel-macros';
import { exprChildren } from './cel-ast';

/** The Kubernetes CEL types whose Equal refuses another type (and whose `_==_` costs 1). */
export const KUBERNETES_EQUALITY_TYPES: ReadonlySet<string> = new Set([
  'kubernetes.Quantity',
  'kubernetes.Semver',
  'net.IP',
  'net.CIDR',
  'kubernetes.NamedFormat',
  'kubernetes.URL',
]);

/** Whether `lhs.Equal(rhs)` is `no such overload`: a Kubernetes type compared with another type. */
export function kubernetesTypeMismatch(lhs: unknown, rhs: unknown): boolean {
  if (!isReflectMessage(lhs) || !KUBERNETES_EQUALITY_TYPES.has(lhs.desc.typeName)) return false;
  return !isReflectMessage(rhs) || rhs.desc.typeName !== lhs.desc.typeName;
}

// @bufbuild/cel's own equality (not exported but through its standard functions): for what is
// neither a list, a map nor a Kubernetes type compared with another type, cel-go's answer too.
const libraryEquals = celEnv().funcs.find('_==_');
const equals = (l: unknown, r: unknown): boolean => libraryEquals?.call(0, undefined, [l, r] as never) === true;

const NO_SUCH_OVERLOAD = 'no such overload';
type Equality = boolean | { readonly error: string };

/** types.Equal(lhs, rhs): true, false or the error `lhs.Equal` gives. */
function celGoEqual(lhs: unknown, rhs: unknown): Equality {
  if (lhs === null || rhs === null) return lhs === rhs;
  if (kubernetesTypeMismatch(lhs, rhs)) return { error: NO_SUCH_OVERLOAD };
  if (isCelList(lhs)) {
    if (!isCelList(rhs) || lhs.size !== rhs.size) return false;
    for (let i = 0; i < lhs.size; i++) if (celGoEqual(lhs.get(i), rhs.get(i)) === false) return false;
    return true;
  }
  if (isCelMap(lhs)) {
    if (!isCelMap(rhs) || lhs.size !== rhs.size) return false;
    for (const [key, value] of lhs.entries()) {
      if (!rhs.has(key as never)) return false;
      if (celGoEqual(value, rhs.get(key as never)) === false) return false;
    }
    return true;
  }
  return equals(lhs, rhs);
}

/** The Go types apiserver pkg/cel's values are, as a runtime panic names them. */
const GO_TYPE: Readonly<Record<string, string>> = { 'kubernetes.Semver': 'cel.Semver', 'kubernetes.NamedFormat': 'cel.Format' };

/** The function only the evaluated tree calls (setMembership's), which the cost estimate never meets. */
export const SET_KEY = '@in_set_key';

const DYN = CelScalar.DYN;
const BOOL = CelScalar.BOOL;

export const equalityFuncs: readonly CelFunc[] = [
  celFunc('_==_', [DYN, DYN], BOOL, (l: unknown, r: unknown) => {
    const eq = celGoEqual(l, r);
    if (typeof eq !== 'boolean') throw new Error(eq.error);
    return eq;
  }),
  celFunc('_!=_', [DYN, DYN], BOOL, (l: unknown, r: unknown) => celGoEqual(l, r) !== true),
  celFunc('@in', [DYN, listType(DYN)], BOOL, (x: unknown, list: { size: number; get(i: number): unknown }) => {
    for (let i = 0; i < list.size; i++) if (celGoEqual(x, list.get(i)) === true) return true;
    return false;
  }),
  // The hash lookup's key: a value Go cannot hash panics, as the interpreter's recovery words it.
  celFunc(SET_KEY, [DYN], DYN, (x: CelValue) => {
    const goType = isReflectMessage(x) ? GO_TYPE[x.desc.typeName] : undefined;
    if (goType !== undefined) throw new Error(`internal error: runtime error: hash of unhashable type ${goType}`);
    return x;
  }),
];

const PRIMITIVE_CONSTANTS = new Set(['boolValue', 'int64Value', 'uint64Value', 'doubleValue', 'stringValue']);

/** Rewrites each `x in [constants]` of the tree to evaluate as cel-go's set membership test (above). */
export function setMembership(e: MacroNode | undefined, nextId: () => bigint): void {
  if (!e) return;
  for (const child of exprChildren(e)) setMembership(child, nextId);
  const k = e.exprKind;
  if (k.case !== 'callExpr') return;
  const c = k.value as { function: string; target?: MacroNode; args: MacroNode[] };
  const [x, range] = c.args;
  if (c.function !== '@in' || c.target || !x || range?.exprKind.case !== 'listExpr') return;
  const list = range.exprKind.value as { elements: MacroNode[]; optionalIndices: number[] };
  if (list.optionalIndices.length > 0) return;
  const constant = (n: MacroNode): boolean =>
    n.exprKind.case === 'constExpr' &&
    PRIMITIVE_CONSTANTS.has((n.exprKind.value as { constantKind: { case?: string } }).constantKind.case ?? '');
  if (!list.elements.every(constant)) return;
  if (list.elements.length === 0) {
    e.exprKind = {
      case: 'constExpr',
      value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } },
    } as never;
    return;
  }
  const key = { ...x, id: nextId() } as MacroNode;
  c.args[0] = {
    ...x,
    exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: SET_KEY, args: [key] } },
  } as never;
}
