// cel-go's optional values as functions (github.com/google/cel-go v0.29.2 cel/library.go
// OptionalTypes, lines 361-595; kube-apiserver's base environment enables it from 1.28 with no
// OptionalTypesVersion, so every version's functions: k8s.io/apiserver v0.37.2
// pkg/cel/environment/base.go lines 100-105): optional.of, optional.ofNonZeroValue, optional.none,
// value, hasValue, or, orValue (version 0), first, last, optional.unwrap, unwrapOpt (version 2); the
// macros optMap and optFlatMap expand in cel-macros.ts.
// @bufbuild/cel 0.6 has no optional type, so an optional is a message of our own registry holding
// whether it has a value; the value sits beside it, keyed by the message. The optional syntax
// (`a[?i]`, `{?k: v}`, `.?f`) and indexing an optional list or map (`optional_list_index_int`)
// are declared here and evaluated by optionalSyntaxFuncs, which cel-optional-syntax.ts's rewrite
// calls. `or` and `orValue` short-circuit as cel-go's do (their argument evaluated only for an
// empty optional) through cel-macros.ts.
import {
  celFunc,
  celList,
  celMap,
  isCelUint,
  mapType,
  celMethod,
  CelScalar,
  isCelList,
  isCelMap,
  listType,
  objectType,
  type CelFunc,
  type CelList,
} from '@bufbuild/cel';
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { isReflectMessage, reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { member, overload, T, type CelCostLibrary, type CelT } from './cel-cost';

const BOOL = 8;
const STRING = 9;
const OPTIONAL_LABEL = 1;

export const optionalRegistry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: 'podplan/cel_optional.proto',
    package: 'podplan',
    syntax: 'proto3',
    // has_value, and `key`: the held value's equality key, so two optionals compare as cel-go's
    // Optional.Equal does (both empty, or both valued with equal values).
    messageType: [
      {
        name: 'Optional',
        field: [
          { name: 'has_value', number: 1, type: BOOL, label: OPTIONAL_LABEL },
          { name: 'key', number: 2, type: STRING, label: OPTIONAL_LABEL },
        ],
      },
    ],
  }),
  () => undefined,
);

const OptionalDesc = optionalRegistry.getMessage('podplan.Optional') as DescMessage;
/** The runtime type of an optional value. */
export const OPTIONAL_TYPE = objectType(OptionalDesc);

/** The checker's optional_type(t). */
export const optionalT = (t: CelT): CelT => T.opaque('optional_type', [t]);

const held = new WeakMap<object, unknown>();
let unkeyed = 0;

/** A key equal for values CEL calls equal (numbers across int, uint and double; lists and maps by their elements; messages by their fields). */
function equalityKey(v: unknown): string {
  if (typeof v === 'bigint') return `n${v}`;
  if (typeof v === 'number') return Number.isNaN(v) ? `u${unkeyed++}` : Number.isInteger(v) ? `n${BigInt(v)}` : `n${v}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (typeof v === 'boolean') return `b${v}`;
  if (v === null) return 'null';
  if (typeof v === 'object' && 'value' in v && typeof (v as { value: unknown }).value === 'bigint' && Object.keys(v).length === 1) {
    return `n${(v as { value: bigint }).value}`;
  }
  if (v instanceof Uint8Array) return `y${[...v].join(',')}`;
  if (isCelList(v)) return `[${[...v].map(equalityKey).join(',')}]`;
  if (isCelMap(v))
    return `{${[...v.entries()]
      .map(([k, x]) => `${equalityKey(k)}:${equalityKey(x)}`)
      .sort()
      .join(',')}}`;
  if (isReflectMessage(v)) {
    if (v.desc === OptionalDesc) return `o${String(v.get(OptionalDesc.field['hasValue']!))}${String(v.get(OptionalDesc.field['key']!))}`;
    return `m${v.desc.typeName}${JSON.stringify(v.message, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x))}`;
  }
  // Other values (NaN): equal only to themselves.
  return `u${unkeyed++}`;
}

/** An optional holding v (optional.of). */
export function optionalOf(v: unknown): ReflectMessage {
  const m = create(OptionalDesc, { hasValue: true, key: equalityKey(v) });
  held.set(m, v);
  return reflect(OptionalDesc, m);
}

/** The empty optional (optional.none). */
export function optionalNone(): ReflectMessage {
  return reflect(OptionalDesc, create(OptionalDesc, {}));
}

const hasValue = (o: ReflectMessage): boolean => o.get(OptionalDesc.field['hasValue']!) === true;

/** What an optional value holds ({value}), none when it is empty or not an optional (cel-runtime-cost.ts: its size). */
export function optionalHeld(v: unknown): { readonly value: unknown } | undefined {
  if (!isReflectMessage(v, OptionalDesc) || !hasValue(v)) return undefined;
  return { value: held.get(v.message) };
}

/** cel-go's traits.Zeroer: the values optional.ofNonZeroValue treats as empty. */
function isZero(v: unknown): boolean {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v)) return v.size === 0;
  if (isCelMap(v)) return v.size === 0;
  if (typeof v === 'object' && 'value' in v && (v as { value: unknown }).value === 0n && Object.keys(v).length === 1) return true;
  return false;
}

const OPT = OPTIONAL_TYPE;
const DYN = CelScalar.DYN;

export const optionalFuncs: readonly CelFunc[] = [
  celFunc('optional.of', [DYN], OPT, (v) => optionalOf(v)),
  celFunc('optional.ofNonZeroValue', [DYN], OPT, (v) => (isZero(v) ? optionalNone() : optionalOf(v))),
  celFunc('optional.none', [], OPT, () => optionalNone()),
  celMethod('value', OPT, [], DYN, function () {
    if (!hasValue(this)) throw new Error('optional.none() dereference');
    return held.get(this.message) as never;
  }),
  celMethod('hasValue', OPT, [], CelScalar.BOOL, function () {
    return hasValue(this);
  }),
  celMethod('or', OPT, [OPT], OPT, function (b) {
    return hasValue(this) ? this : b;
  }),
  celMethod('orValue', OPT, [DYN], DYN, function (v) {
    return hasValue(this) ? (held.get(this.message) as never) : v;
  }),
  celMethod('first', listType(DYN), [], OPT, function () {
    return this.size === 0 ? optionalNone() : optionalOf(this.get(0));
  }),
  celMethod('last', listType(DYN), [], OPT, function () {
    return this.size === 0 ? optionalNone() : optionalOf(this.get(this.size - 1));
  }),
  celFunc('optional.unwrap', [listType(DYN)], listType(DYN), (l) => unwrap(l)),
  celMethod('unwrapOpt', listType(DYN), [], listType(DYN), function () {
    return unwrap(this);
  }),
];

/** Whether v is an optional value (empty or not). */
export function isOptional(v: unknown): v is ReflectMessage {
  return isReflectMessage(v) && v.desc === OptionalDesc;
}

/**
 * The object a qualifier applies to once an optional is met (interpreter/attributes.go
 * applyQualifiers): an optional's value, or undefined for an empty optional (the result stays empty).
 */
function qualified(x: unknown): { obj: unknown } | undefined {
  if (!isOptional(x)) return { obj: x };
  return hasValue(x) ? { obj: held.get(x.message) } : undefined;
}

/** cel-go's refQualify testing presence: the value at a map's key or a list's index, or undefined where absent. */
function qualifyIfPresent(obj: unknown, key: unknown): { value: unknown } | undefined {
  if (isCelMap(obj)) return obj.has(key as never) ? { value: obj.get(key as never) } : undefined;
  if (isCelList(obj)) {
    let i: bigint;
    if (typeof key === 'bigint') i = key;
    else if (isCelUint(key)) i = key.value;
    else if (typeof key === 'number' && Number.isInteger(key)) i = BigInt(key);
    else throw new Error(`unsupported index value ${String(key)}`);
    return i >= 0n && i < BigInt(obj.size) ? { value: obj.get(Number(i)) } : undefined;
  }
  return undefined;
}

/** `a.?f`, `a[?k]`, and a select or index on an optional: an optional of what is there. */
function optionalQualify(x: unknown, key: unknown): ReflectMessage {
  const q = qualified(x);
  if (!q) return optionalNone();
  const found = qualifyIfPresent(q.obj, key);
  return found ? optionalOf(found.value) : optionalNone();
}

/**
 * The optional syntax's runtime, as cel-optional-syntax.ts rewrites a selector for evaluation (cel-go
 * v0.29.2 interpreter/attributes.go applyQualifiers and interpretable.go evalTestOnly, evalList,
 * evalMap): a select or index that met an optional yields optional.none() for what is absent; a
 * presence test on an optional is false when it is empty; a list's optional element and a map's
 * optional entry are left out when empty (an empty entry removes the key an earlier entry set).
 */
export const optionalSyntaxFuncs: readonly CelFunc[] = [
  celFunc('@optSelect', [DYN, CelScalar.STRING], OPT, (x, f) => optionalQualify(x, f)),
  celFunc('@optIndex', [DYN, DYN], OPT, (x, k) => optionalQualify(x, k)),
  celFunc('@optHas', [DYN, CelScalar.STRING], CelScalar.BOOL, (x, f) => {
    const q = qualified(x);
    return q !== undefined && qualifyIfPresent(q.obj, f) !== undefined;
  }),
  celFunc('@optList', [listType(DYN), listType(DYN)], listType(DYN), (elements, optional) => {
    const opt = new Set([...optional].map((i) => Number(i as bigint)));
    const out: unknown[] = [];
    [...elements].forEach((v, i) => {
      if (!opt.has(i)) out.push(v);
      else if (!isOptional(v)) throw new Error(`cannot initialize optional list element from non-optional value ${String(v)}`);
      else if (hasValue(v)) out.push(held.get(v.message));
    });
    return celList(out as never);
  }),
  celFunc('@optMap', [listType(DYN), listType(DYN)], mapType(DYN, DYN), (pairs, optional) => {
    const opt = new Set([...optional].map((i) => Number(i as bigint)));
    const items = [...pairs];
    const out = new Map<unknown, unknown>();
    for (let i = 0; 2 * i + 1 < items.length; i++) {
      const k = items[2 * i];
      let v = items[2 * i + 1];
      if (opt.has(i)) {
        if (!isOptional(v)) throw new Error(`cannot initialize optional entry '${String(k)}' from non-optional value ${String(v)}`);
        if (!hasValue(v)) {
          out.delete(k);
          continue;
        }
        v = held.get(v.message) as never;
      }
      out.set(k, v);
    }
    return celMap(out as never);
  }),
];

/** The runtime functions only the rewritten tree calls (no cost-model declaration: the estimate reads cel-go's shape). */
export const OPTIONAL_SYNTAX_RUNTIME: ReadonlySet<string> = new Set(optionalSyntaxFuncs.map((f) => f.name));

function unwrap(l: CelList): CelList {
  const out: unknown[] = [];
  for (const o of l) {
    if (!isReflectMessage(o) || o.desc !== OptionalDesc) throw new Error('no such overload');
    if (hasValue(o)) out.push(held.get(o.message));
  }
  return celList(out as never);
}

const A = T.param('V');
const K = T.param('K');
const OPT_A = optionalT(A);

/**
 * The optional library's share of the cost model: its declarations (library.go lines 430-553); no
 * call has a cost entry in cel-go's or Kubernetes' estimator, so each costs 1.
 */
export const optionalCost: CelCostLibrary = {
  decls: [
    overload('optional.of', 'optional_of', [A], OPT_A),
    overload('optional.ofNonZeroValue', 'optional_ofNonZeroValue', [A], OPT_A),
    overload('optional.none', 'optional_none', [], OPT_A),
    member('value', 'optional_value', [OPT_A], A),
    member('hasValue', 'optional_hasValue', [OPT_A], T.bool),
    member('or', 'optional_or_optional', [OPT_A, OPT_A], OPT_A),
    member('orValue', 'optional_orValue_value', [OPT_A, A], A),
    member('last', 'list_last', [T.list(A)], OPT_A),
    member('first', 'list_first', [T.list(A)], OPT_A),
    overload('optional.unwrap', 'optional_unwrap', [T.list(OPT_A)], T.list(A)),
    member('unwrapOpt', 'optional_unwrapOpt', [T.list(OPT_A)], T.list(A)),
    // `a[?k]` (library.go lines 507-520) and an index into an optional list or map (lines 522-525).
    overload('_[?_]', 'list_optindex_optional_int', [T.list(A), T.int], OPT_A),
    overload('_[?_]', 'optional_list_optindex_optional_int', [optionalT(T.list(A)), T.int], OPT_A),
    overload('_[?_]', 'map_optindex_optional_value', [T.map(K, A), K], OPT_A),
    overload('_[?_]', 'optional_map_optindex_optional_value', [optionalT(T.map(K, A)), K], OPT_A),
    overload('_[_]', 'optional_list_index_int', [optionalT(T.list(A)), T.int], OPT_A),
    overload('_[_]', 'optional_map_index_value', [optionalT(T.map(K, A)), K], OPT_A),
  ],
  byFunction: {},
};
