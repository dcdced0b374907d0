// The CEL standard library's overloads (cel-go v0.29.2 common/stdlib, with CrossTypeNumericComparisons
// as Kubernetes' base environment enables it) as the cost model's checker needs them: which
// overloads a call can take (their ids select cel-go's built-in cost rules) and the result's type.
import { T, member, overload, type CelCostLibrary, type CelOverloadDecl, type CelT } from './cel-cost';

const NUMS: readonly [string, CelT][] = [
  ['int64', T.int],
  ['uint64', T.uint],
  ['double', T.double],
];

function relational(op: string, name: string): CelOverloadDecl[] {
  const out: CelOverloadDecl[] = [
    overload(op, `${name}_bool`, [T.bool, T.bool], T.bool),
    overload(op, `${name}_int64`, [T.int, T.int], T.bool),
    overload(op, `${name}_uint64`, [T.uint, T.uint], T.bool),
    overload(op, `${name}_double`, [T.double, T.double], T.bool),
    overload(op, `${name}_string`, [T.string, T.string], T.bool),
    overload(op, `${name}_bytes`, [T.bytes, T.bytes], T.bool),
    overload(op, `${name}_timestamp`, [T.timestamp, T.timestamp], T.bool),
    overload(op, `${name}_duration`, [T.duration, T.duration], T.bool),
  ];
  for (const [a, ta] of NUMS) for (const [b, tb] of NUMS) if (a !== b) out.push(overload(op, `${name}_${a}_${b}`, [ta, tb], T.bool));
  return out;
}

function arithmetic(op: string, name: string, extra: CelOverloadDecl[] = []): CelOverloadDecl[] {
  return [
    overload(op, `${name}_int64`, [T.int, T.int], T.int),
    overload(op, `${name}_uint64`, [T.uint, T.uint], T.uint),
    overload(op, `${name}_double`, [T.double, T.double], T.double),
    ...extra,
  ];
}

function conversions(fn: string, from: readonly [string, CelT][], to: CelT, toName: string): CelOverloadDecl[] {
  return from.map(([n, t]) => overload(fn, `${n}_to_${toName}`, [t], to));
}

export const stdCost: CelCostLibrary = {
  decls: [
    overload('_==_', 'equals', [T.A, T.A], T.bool),
    overload('_!=_', 'not_equals', [T.A, T.A], T.bool),
    ...relational('_<_', 'less'),
    ...relational('_<=_', 'less_equals'),
    ...relational('_>_', 'greater'),
    ...relational('_>=_', 'greater_equals'),
    ...arithmetic('_+_', 'add', [
      overload('_+_', 'add_string', [T.string, T.string], T.string),
      overload('_+_', 'add_bytes', [T.bytes, T.bytes], T.bytes),
      overload('_+_', 'add_list', [T.list(T.A), T.list(T.A)], T.list(T.A)),
      overload('_+_', 'add_timestamp_duration', [T.timestamp, T.duration], T.timestamp),
      overload('_+_', 'add_duration_timestamp', [T.duration, T.timestamp], T.timestamp),
      overload('_+_', 'add_duration_duration', [T.duration, T.duration], T.duration),
    ]),
    ...arithmetic('_-_', 'subtract', [
      overload('_-_', 'subtract_timestamp_timestamp', [T.timestamp, T.timestamp], T.duration),
      overload('_-_', 'subtract_timestamp_duration', [T.timestamp, T.duration], T.timestamp),
      overload('_-_', 'subtract_duration_duration', [T.duration, T.duration], T.duration),
    ]),
    ...arithmetic('_*_', 'multiply'),
    ...arithmetic('_/_', 'divide'),
    overload('_%_', 'modulo_int64', [T.int, T.int], T.int),
    overload('_%_', 'modulo_uint64', [T.uint, T.uint], T.uint),
    overload('-_', 'negate_int64', [T.int], T.int),
    overload('-_', 'negate_double', [T.double], T.double),
    overload('!_', 'logical_not', [T.bool], T.bool),
    overload('@not_strictly_false', 'not_strictly_false', [T.bool], T.bool),
    overload('_?_:_', 'conditional', [T.bool, T.A, T.A], T.A),
    overload('_[_]', 'index_list', [T.list(T.A), T.int], T.A),
    overload('_[_]', 'index_map', [T.map(T.A, T.B), T.A], T.B),
    overload('@in', 'in_list', [T.A, T.list(T.A)], T.bool),
    overload('@in', 'in_map', [T.A, T.map(T.A, T.B)], T.bool),
    overload('size', 'size_string', [T.string], T.int),
    overload('size', 'size_bytes', [T.bytes], T.int),
    overload('size', 'size_list', [T.list(T.A)], T.int),
    overload('size', 'size_map', [T.map(T.A, T.B)], T.int),
    member('size', 'string_size', [T.string], T.int),
    member('size', 'bytes_size', [T.bytes], T.int),
    member('size', 'list_size', [T.list(T.A)], T.int),
    member('size', 'map_size', [T.map(T.A, T.B)], T.int),
    member('contains', 'contains_string', [T.string, T.string], T.bool),
    member('startsWith', 'starts_with_string', [T.string, T.string], T.bool),
    member('endsWith', 'ends_with_string', [T.string, T.string], T.bool),
    overload('matches', 'matches', [T.string, T.string], T.bool),
    member('matches', 'matches_string', [T.string, T.string], T.bool),
    ...conversions(
      'int',
      [
        ['int64', T.int],
        ['uint64', T.uint],
        ['double', T.double],
        ['string', T.string],
        ['timestamp', T.timestamp],
      ],
      T.int,
      'int64',
    ),
    ...conversions(
      'uint',
      [
        ['uint64', T.uint],
        ['int64', T.int],
        ['double', T.double],
        ['string', T.string],
      ],
      T.uint,
      'uint64',
    ),
    ...conversions(
      'double',
      [
        ['double', T.double],
        ['int64', T.int],
        ['uint64', T.uint],
        ['string', T.string],
      ],
      T.double,
      'double',
    ),
    ...conversions(
      'string',
      [
        ['string', T.string],
        ['bool', T.bool],
        ['int64', T.int],
        ['uint64', T.uint],
        ['double', T.double],
        ['bytes', T.bytes],
        ['timestamp', T.timestamp],
        ['duration', T.duration],
      ],
      T.string,
      'string',
    ),
    ...conversions(
      'bytes',
      [
        ['bytes', T.bytes],
        ['string', T.string],
      ],
      T.bytes,
      'bytes',
    ),
    ...conversions(
      'bool',
      [
        ['bool', T.bool],
        ['string', T.string],
      ],
      T.bool,
      'bool',
    ),
    overload('type', 'type', [T.A], T.type),
    overload('duration', 'duration_to_duration', [T.duration], T.duration),
    overload('duration', 'string_to_duration', [T.string], T.duration),
    overload('timestamp', 'timestamp_to_timestamp', [T.timestamp], T.timestamp),
    overload('timestamp', 'string_to_timestamp', [T.string], T.timestamp),
    overload('timestamp', 'int64_to_timestamp', [T.int], T.timestamp),
    // The timestamp accessors, in UTC or a time zone, and the duration's (cel-go's standard library).
    ...(
      [
        ['getFullYear', 'full_year'],
        ['getMonth', 'month'],
        ['getDayOfYear', 'day_of_year'],
        ['getDayOfMonth', 'day_of_month_zero_based'],
        ['getDate', 'day_of_month_one_based'],
        ['getDayOfWeek', 'day_of_week'],
        ['getHours', 'hours'],
        ['getMinutes', 'minutes'],
        ['getSeconds', 'seconds'],
        ['getMilliseconds', 'milliseconds'],
      ] as const
    ).flatMap(([fn, id]) => [
      member(fn, `timestamp_to_${id}`, [T.timestamp], T.int),
      member(fn, `timestamp_to_${id}_with_tz`, [T.timestamp, T.string], T.int),
    ]),
    ...(['hours', 'minutes', 'seconds', 'milliseconds'] as const).map((unit) =>
      member(`get${unit[0]!.toUpperCase()}${unit.slice(1)}`, `duration_to_${unit}`, [T.duration], T.int),
    ),
  ],
};
