import assert from 'node:assert/strict';
import type { Device } from '../../../../src/engine/api/dra';
import { compileSelector, selectorCost } from '../../../../src/engine/plugins/dynamicresources/cel';
import { scanOptionalSyntax } from '../../../../src/engine/plugins/dynamicresources/cel-optional-syntax';

const DRIVER = 'gpu.example.com';
const device: Device = {
  name: 'gpu-0',
  attributes: { model: { string: 'a100' }, numa: { int: 0 } },
  capacity: { memory: { value: '80Gi' } },
};
const A = `device.attributes["${DRIVER}"]`;

function run(expression: string): boolean | string {
  const compiled = compileSelector(expression);
  if (!compiled.ok) return `compile: ${compiled.error}`;
  const result = compiled.matches(device, DRIVER);
  return result.ok ? result.value : `runtime: ${result.error}`;
}

describe('engine/plugins/dynamicresources/cel-optional-syntax', () => {
  describe('scanOptionalSyntax: the `?`s the grammar reads as optional syntax blanked, positions kept', () => {
    const TABLE: Array<[text: string, blanked: string, marks: string]> = [
      ['a.?b.?c', 'a. b. c', 'selects 1,4'],
      ['a . ? b', 'a .   b', 'selects 2'],
      ['a[?1]', 'a[ 1]', 'indexes 1'],
      ['f(x)[?k]', 'f(x)[ k]', 'indexes 4'],
      ['[?x, y, ?z]', '[ x, y,  z]', 'list 0: 0,2'],
      ['x in [?y]', 'x in [ y]', 'list 5: 0'],
      ['{?"k": v, "j": w}', '{ "k": v, "j": w}', 'map 0: 0'],
      ['{"k": v, ?"j": w}', '{"k": v,  "j": w}', 'map 0: 1'],
      // The conditional's `?`, and `?` in strings and comments, stay.
      ['a ? [b] : {c: d}', 'a ? [b] : {c: d}', ''],
      ['a[b ? 1 : 2]', 'a[b ? 1 : 2]', ''],
      ['"?" == \'.?\' // a.?b\n', '"?" == \'.?\' // a.?b\n', ''],
      ['r".?[?" == "\\".?[?"', 'r".?[?" == "\\".?[?"', ''],
      // In a raw string a backslash escapes nothing: the string ends at the next quote.
      ["r'\\'.?x", "r'\\'. x", 'selects 4'],
      ['"""a\n.?b""" == x', '"""a\n.?b""" == x', ''],
      // Where the grammar has no optional syntax, the `?` stays for the parser to refuse.
      ['f(a, ?b)', 'f(a, ?b)', ''],
    ];
    for (const [text, blanked, marks] of TABLE) {
      it(JSON.stringify(text), () => {
        const found = scanOptionalSyntax(text);
        const parts = [
          found.marks.selects.size > 0 ? `selects ${[...found.marks.selects].join(',')}` : '',
          found.marks.indexes.size > 0 ? `indexes ${[...found.marks.indexes].join(',')}` : '',
          ...[...found.marks.lists].map(([at, i]) => `list ${at}: ${[...i].join(',')}`),
          ...[...found.marks.maps].map(([at, i]) => `map ${at}: ${[...i].join(',')}`),
        ].filter((p) => p !== '');
        assert.equal(found.text, blanked);
        assert.equal(found.text.length, text.length);
        assert.equal(parts.join('; '), marks);
        assert.equal(found.any, marks !== '');
      });
    }
  });

  // Each row's verdict is upstream's: the oracle's -celcost mode evaluated it on the same device
  // (k8s.io/dynamic-resource-allocation v0.37.2, cel-go v0.29.2), or printed its compile error.
  const TABLE: Array<[expression: string, expected: boolean | string]> = [
    // `a.?f` and `a[?k]`: an optional of what is there, optional.none() where nothing is.
    [`${A}.?model.orValue("") == "a100"`, true],
    [`${A}[?"model"] == optional.of("a100")`, true],
    [`${A}.?nope.hasValue()`, false],
    [`${A}[?"nope"].orValue(1) == 1`, true],
    ['device.?driver == optional.of("gpu.example.com")', true],
    // The attribute maps have every domain (an empty map where the device has none).
    ['device.attributes[?"other.example.com"].hasValue()', true],
    ['device.attributes.?other.?x.hasValue()', false],
    [`device.capacity[?"${DRIVER}"].?memory.value().isGreaterThan(quantity("1Gi"))`, true],
    ['[1][?0] == optional.of(1) && [1][?2] == optional.none() && {1: 2}[?1].value() == 2', true],
    // Optional list elements and map entries: left out when empty; an empty entry removes its key.
    ['[?optional.of(1), ?optional.none()] == [1]', true],
    [`[?${A}.?model, ?${A}.?nope].size() == 1`, true],
    ['{?"a": optional.of(1)}.?a == optional.of(1)', true],
    ['{?"a": optional.none(), "b": 1}.size() == 1', true],
    ['{"a": 1, ?"a": optional.none()}.size() == 0', true],
    // A select or index on an optional is an optional; once one is met, absence is optional.none().
    ['optional.of([1])[0] == optional.of(1)', true],
    ['optional.of([1])[5].hasValue()', false],
    ["optional.of({'a': {'b': 2}}).a.b.value() == 2", true],
    ["optional.of({'a': {'b': 2}}).?a.c.hasValue()", false],
    ['optional.none().a.hasValue()', false],
    // has() on an optional: whether it has a value with the field.
    ["has(optional.of({'a': 1}).a) && !has(optional.of({'a': 1}).b) && !has(optional.none().a)", true],
    ['has(device.attributes.?x.y)', false],
    // In macros and bindings.
    [`${A}.exists(k, ${A}[?k].hasValue())`, true],
    [`cel.bind(o, ${A}.?model, o.hasValue() && o.value() == "a100")`, true],
    [`${A}.?model.optMap(m, m.size()).orValue(0) == 4`, true],
    // A two-variable comprehension's variable holding an optional (typed from its range, as cel-go's).
    ["[optional.of({'a': 1})].all(i, o, o.a.hasValue())", true],
    ['[optional.of([1])].transformList(i, o, o[0]) == [optional.of(1)]', true],
    // What fails: a missing value's dereference at evaluation; the rest at compile time, in cel-go's words.
    [`device.capacity["${DRIVER}"][?"nope"].value().isGreaterThan(quantity("1Gi"))`, 'runtime: optional.none() dereference'],
    ['has(device.attributes.?x)', 'compile: <input>:1:22: invalid argument to has() macro'],
    ['[?1] == [1]', "compile: <input>:1:3: expected type 'optional_type(int)' but found 'int'"],
    ['{?"a": 1}.size() == 1', "compile: <input>:1:8: expected type 'optional_type(int)' but found 'int'"],
    [
      'device.attributes.?x == 1',
      "compile: <input>:1:22: found no matching overload for '_==_' applied to '(optional_type(map(string, any)), int)'",
    ],
    [`${A}.?model`, 'compile: must evaluate to bool or the unknown type, not optional_type(google.protobuf.Any)'],
    // Field selection as cel-go's checker allows it: a declared field of `device`, a map's key.
    ['device.?nope.hasValue()', "compile: <input>:1:7: undefined field 'nope'"],
    ['has(device.nope)', "compile: <input>:1:4: undefined field 'nope'"],
    ['device.driver.?x.hasValue()', "compile: <input>:1:14: type 'string' does not support field selection"],
    ['has(optional.of(1).x)', "compile: <input>:1:4: type 'int' does not support field selection"],
    ['quantity("1").?x.hasValue()', "compile: <input>:1:14: unexpected failed resolution of 'kubernetes.Quantity'"],
    ['[1][?"a"].hasValue()', "compile: <input>:1:4: found no matching overload for '_[?_]' applied to '(list(int), string)'"],
    // cel-go's homogeneous-literal validator panics on an optional element typed dyn or any (kube-apiserver answers 500).
    [`[?${A}.model].size() == 1`, 'compile: runtime error: index out of range [0] with length 0'],
    // Every error, in the order of their places in the selector.
    [
      '[?1] == [?"a"] && x',
      [
        "compile: <input>:1:3: expected type 'optional_type(int)' but found 'int'",
        "<input>:1:6: found no matching overload for '_==_' applied to '(list(int), list(string))'",
        "<input>:1:11: expected type 'optional_type(string)' but found 'string'",
        "<input>:1:19: undeclared reference to 'x' (in container '')",
      ].join('\n'),
    ],
  ];
  for (const [expression, expected] of TABLE) it(expression, () => assert.equal(run(expression), expected));

  it('costs `_?._` and `_[?_]` as cel-go does (a call of cost 1 beside its operands; the oracle printed each)', () => {
    const COSTS: Array<[string, bigint]> = [
      ['device.?driver == optional.of("gpu.example.com")', 1844674407370955267n],
      ['[?optional.of(1), ?optional.none()] == [1]', 23n],
      ['{?"a": optional.of(1)}.?a == optional.of(1)', 34n],
      ['optional.of([1])[0] == optional.of(1)', 14n],
      ['device.attributes[?"x"].hasValue()', 4n],
      ['device.attributes.?x.?y.hasValue()', 5n],
      ['[1][?2] == optional.none() && {1:2}[?1].value() == 2', 46n],
      ['has(device.attributes.?x.y)', 3n],
    ];
    for (const [expression, cost] of COSTS) assert.equal(selectorCost(expression)?.cost, cost, expression);
  });
});
