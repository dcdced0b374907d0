import assert from 'node:assert/strict';
import type { Device } from '../../../../src/engine/api/dra';
import { compileSelector } from '../../../../src/engine/plugins/dynamicresources/cel';

const device: Device = { name: 'gpu-0', attributes: { model: { string: 'a100' }, numa: { int: 0 } } };
const DRIVER = 'gpu.example.com';

function run(expression: string): boolean | string {
  const compiled = compileSelector(expression);
  if (!compiled.ok) return `compile: ${compiled.error}`;
  const result = compiled.matches(device, DRIVER);
  return result.ok ? result.value : `runtime: ${result.error}`;
}

describe('engine/plugins/dynamicresources/cel-optional', () => {
  // cel-go v0.29.2 cel/library.go's documented examples of each optional function (version 0 and
  // 2, all of which Kubernetes' OptionalTypes() enables), and cel-go's words for what fails.
  const TABLE: Array<[expression: string, expected: boolean | string]> = [
    ['optional.of(1).hasValue()', true],
    ['optional.of(1).value() == 1', true],
    ["optional.of(b'hello').value() == b'hello'", true],
    ['optional.none().hasValue()', false],
    ['optional.ofNonZeroValue(null).hasValue()', false],
    ['optional.ofNonZeroValue("").hasValue()', false],
    ['optional.ofNonZeroValue({}).hasValue()', false],
    ['optional.ofNonZeroValue([]).hasValue()', false],
    ['optional.ofNonZeroValue(0).hasValue() || optional.ofNonZeroValue(0u).hasValue() || optional.ofNonZeroValue(0.0).hasValue()', false],
    ['optional.ofNonZeroValue(false).hasValue()', false],
    ['optional.ofNonZeroValue("hello") == optional.of("hello")', true],
    ['optional.of({1: 2}).hasValue()', true],
    ['optional.none().or(optional.of(1)) == optional.of(1)', true],
    ['optional.of(2).or(optional.of(1)).value() == 2', true],
    ["{'hello': 'world'}.map(k, k)[0] == optional.none().orValue('hello')", true],
    ['optional.of(3).orValue(4) == 3', true],
    ['optional.none() == optional.none()', true],
    ['optional.of(1) == optional.of(1)', true],
    ['optional.of(1) == optional.of(2)', false],
    ['optional.of(1) != optional.none()', true],
    ['optional.of([1, 2]) == optional.of([1, 2])', true],
    ["optional.of({'a': [1], 'b': [2]}) == optional.of({'b': [2], 'a': [1]})", true],
    ["optional.of({'a': 1}) == optional.of({'a': 2})", false],
    ["optional.of(b'x') == optional.of(b'x') && optional.of(b'x') != optional.of(b'y')", true],
    ['optional.of(0.0 / 0.0) == optional.of(0.0 / 0.0)', false],
    ['[].first().hasValue() || [].last().hasValue()', false],
    ['[1, 2, 3].first().value() == 1 && [1, 2, 3].last() == optional.of(3)', true],
    ['optional.unwrap([optional.of(42), optional.none()]) == [42]', true],
    ['[optional.of(42), optional.none()].unwrapOpt() == [42]', true],
    [`optional.ofNonZeroValue(device.attributes["${DRIVER}"].numa).orValue(7) == 7`, true],
    [`[device.attributes["${DRIVER}"].model].first().value() == "a100"`, true],
    ['optional.none().value() == 1', 'runtime: optional.none() dereference'],
    [
      "optional.of(1) == optional.of('a')",
      "compile: <input>:1:16: found no matching overload for '_==_' applied to '(optional_type(int), optional_type(string))'",
    ],
    [
      'optional.of(1).orValue("a") == 1',
      "compile: <input>:1:23: found no matching overload for 'orValue' applied to 'optional_type(int).(string)'",
    ],
    // or and orValue short-circuit (library.go decorateOptionalOr): the argument only for an empty optional.
    ['optional.of(1).orValue(1 / 0) == 1', true],
    ['optional.of(1).or(optional.of(1 / 0)).value() == 1', true],
    ['optional.none().orValue(optional.none().value()) == 1', 'runtime: optional.none() dereference'],
    ['optional.none().or(optional.none()).or(optional.of(5)).orValue(0) == 5', true],
    // The optMap and optFlatMap macros (library.go optMap, optFlatMap; cel-go's documented examples,
    // and the errors in the words the oracle's kube-apiserver validation printed).
    ['optional.of(2).optMap(x, x * 3).value() == 6', true],
    ['optional.none().optMap(x, x * 3).hasValue()', false],
    ['optional.of(2).optFlatMap(x, optional.of(x + 1)).value() == 3', true],
    [
      "{'key': {}}['key'].optMap(k, k.size()) == optional.of(0)",
      "compile: found no matching overload for 'hasValue' applied to 'map(dyn, dyn).()'\nfound no matching overload for 'value' applied to 'map(dyn, dyn).()'",
    ],
    ["optional.of({'subkey': 'value'}).optFlatMap(k, optional.ofNonZeroValue(k['subkey'])).value() == 'value'", true],
    [`optional.ofNonZeroValue(device.attributes["${DRIVER}"].model).optMap(m, m.size()).orValue(0) == 4`, true],
    [
      'optional.of(2).optFlatMap(x, x + 1).hasValue()',
      "compile: <input>:1:26: found no matching overload for '_?_:_' applied to '(bool, int, optional_type(dyn))'",
    ],
    ['optional.of(2).optMap(x.y, 1).hasValue()', 'compile: <input>:1:24: optMap() variable name must be a simple identifier'],
    // The optional syntax (cel-optional-syntax.test.ts has more).
    ['[1][?0].hasValue()', true],
  ];
  for (const [expression, expected] of TABLE) it(expression, () => assert.equal(run(expression), expected));
});
