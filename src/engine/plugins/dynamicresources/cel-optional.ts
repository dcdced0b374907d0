// cel-go's optional values as functions (github.com/google/cel-go v0.29.2 cel/library.go
// OptionalTypes, lines 361-595; kube-apiserver's base environment enables it from 1.28 with no
// OptionalTypesVersion, so every version's functions: k8s.io/apiserver v0.37.2
// pkg/cel/environment/base.go lines 100-105): optional.of, optional.ofNonZeroValue, optional.none,
// value, hasValue, or, orValue (version 0), first, last, optional.unwrap, unwrapOpt (version 2); the
// macros optMap and optFlatMap expand in cel-macros.ts.
// @bufbuild/cel 0.6 has no optional type, so an optional is a message of our own registry holding
// whether it has a value; the value sits beside it, keyed by the message. Not covered: the optional
// syntax (`a[?i]`, `{?k: v}`, `.?f`, which @bufbuild/cel's parser does not read), indexing an
// optional list or map (`optional_list_index_int`). `or` and `orValue` short-circuit as cel-go's
// do (their argument evaluated only for an empty optional) through cel-macros.ts.
import {
  celFunc,
  celList,
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

function unwrap(l: CelList): CelList {
  const out: unknown[] = [];
  for (const o of l) {
    if (!isReflectMessage(o) || o.desc !== OptionalDesc) throw new Error('no such overload');
    if (hasValue(o)) out.push(held.get(o.message));
  }
  return celList(out as never);
}

const A = T.param('V');
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
  ],
  byFunction: {},
};
