import assert from 'node:assert/strict';
import type { Device } from '../../../../src/engine/api/dra';
import { compileSelector } from '../../../../src/engine/plugins/dynamicresources/cel';
import { FORMAT_NAMES } from '../../../../src/engine/plugins/dynamicresources/cel-format';

const device: Device = { name: 'gpu-0', attributes: { name: { string: 'gpu-a' } } };
const DRIVER = 'gpu.example.com';

/** A selector's verdict on the device: its value, or `compile: …` / `runtime: …`. */
function run(expression: string): boolean | string {
  const compiled = compileSelector(expression);
  if (!compiled.ok) return `compile: ${compiled.error}`;
  const result = compiled.matches(device, DRIVER);
  return result.ok ? result.value : `runtime: ${result.error}`;
}

/** `validate`'s result as a selector can test it: none (valid) or exactly these errors. */
function validates(call: string, errors: readonly string[] | null): string {
  return errors === null ? `!${call}.hasValue()` : `${call}.value() == ${JSON.stringify(errors)}`;
}

const LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe('engine/plugins/dynamicresources/cel-format', () => {
  it("offers format.go's thirteen named formats", () => {
    assert.deepEqual([...FORMAT_NAMES].sort(), [
      'byte',
      'date',
      'datetime',
      'dns1035Label',
      'dns1035LabelPrefix',
      'dns1123Label',
      'dns1123LabelPrefix',
      'dns1123Subdomain',
      'dns1123SubdomainPrefix',
      'labelValue',
      'qualifiedName',
      'uri',
      'uuid',
    ]);
  });

  // k8s.io/apiserver v0.37.2 pkg/cel/library/format_test.go, TestFormat: each call and its value
  // (null: optional.none(), valid).
  const FORMAT_TEST: Array<[call: string, errors: readonly string[] | null]> = [
    ['format.dns1123Label().validate("my-label-name")', null],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io")', null],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")', null],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-")', null],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")', null],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-")', null],
    ['format.uri().validate("http://example.com")', null],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")', null],
    ['format.byte().validate("aGVsbG8=")', null],
    ['format.date().validate("2021-01-01")', null],
    ['format.datetime().validate("2021-01-01T00:00:00Z")', null],
    ['format.dns1123Label().validate("contains a space")', [LABEL_ERR]],
    ['format.dns1123Subdomain().validate("contains a space")', [SUBDOMAIN_ERR]],
    ['format.dns1035Label().validate("contains a space")', [DNS1035_ERR]],
    [
      'format.qualifiedName().validate("contains a space")',
      [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    ['format.dns1123LabelPrefix().validate("contains a space-")', [LABEL_ERR]],
    ['format.dns1123SubdomainPrefix().validate("contains a space-")', [SUBDOMAIN_ERR]],
    ['format.dns1035LabelPrefix().validate("contains a space-")', [DNS1035_ERR]],
    ['format.dns1123Label().validate("my-label-name")', null],
    ['format.dns1123Subdomain().validate("example.com")', null],
    ['format.dns1035Label().validate("my-label-name")', null],
    ['format.qualifiedName().validate("my.name")', null],
    ['format.byte().validate("aGVsbG8=")', null],
    ['format.byte().validate("aGVsbG8")', ['invalid base64']],
    ['format.date().validate("2020-01-01")', null],
    ['format.date().validate("2020-01-32")', ['invalid date']],
    ['format.datetime().validate("2020-01-01T00:00:00Z")', null],
    ['format.datetime().validate("2020-01-32T00:00:00Z")', ['invalid datetime']],
    ['format.labelValue().validate("my-cool-label-Value")', null],
    [
      'format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")',
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
  ];
  for (const [call, errors] of FORMAT_TEST) {
    it(`${call} → ${errors === null ? 'none' : errors.join('; ')}`, () => assert.equal(run(validates(call, errors)), true));
  }

  // format_test.go: unknown_format, and for every constant "lookup and comparison", "comparison with
  // lookup succeeds" and compare_<a>_<b> (false for two different formats).
  it('format.named finds each constant, equal to its own function and to no other', () => {
    assert.equal(run('format.named("unknown").hasValue()'), false);
    for (const a of FORMAT_NAMES) {
      assert.equal(run(`format.named("${a}").hasValue()`), true, a);
      assert.equal(run(`format.named("${a}").value() == format.${a}()`), true, a);
      for (const b of FORMAT_NAMES) if (a !== b) assert.equal(run(`format.${a}() == format.${b}()`), false, `${a} ${b}`);
    }
  });

  // k8s.io/apiextensions-apiserver v0.37.2 pkg/apiserver/schema/cel/validation_test.go,
  // TestValidationExpressions "format": each valid.
  const VALIDATION_TEST = [
    `format.dns1123Label().validate("my-label-name") == optional.none()`,
    `format.dns1123Subdomain().validate("apiextensions.k8s.io") == optional.none()`,
    `format.qualifiedName().validate("apiextensions.k8s.io/v1beta1") == optional.none()`,
    `format.dns1123LabelPrefix().validate("my-label-prefix-") == optional.none()`,
    `format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-") == optional.none()`,
    `format.dns1035LabelPrefix().validate("my-label-prefix-") == optional.none()`,
    `format.uri().validate("http://example.com") == optional.none()`,
    `format.uuid().validate("123e4567-e89b-12d3-a456-426614174000") == optional.none()`,
    `format.byte().validate("aGVsbG8=") == optional.none()`,
    `format.date().validate("2021-01-01") == optional.none()`,
    `format.datetime().validate("2021-01-01T00:00:00Z") == optional.none()`,
    `format.named("dns1123Label").value().validate("my-name") == optional.none()`,
    `format.dns1123Label().validate("contains a space").value()[0] == "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \\'-\\', and must start and end with an alphanumeric character (e.g. \\'my-name\\',  or \\'123-abc\\', regex used for validation is \\'[a-z0-9]([-a-z0-9]*[a-z0-9])?\\')"`,
    `!format.named("unknown").hasValue()`,
  ];
  for (const expression of VALIDATION_TEST) it(expression, () => assert.equal(run(expression), true));

  // Edges, each as k8s.io/apiserver v0.37.2's ConstantFormats[name].ValidateFunc returned it for the
  // same text (a Go program calling it, run once): lengths in bytes with each package's words
  // ("characters" in util/validation, "bytes" in api/validate/content), maskTrailingDash dropping
  // two bytes for one dash, strfmt's datetime reading only up to the second 't', Go's
  // url.ParseRequestURI errors.
  const EDGES: Array<[format: string, text: string, errors: readonly string[]]> = [
    ['dns1123Label', 'a.b', ['must not contain dots']],
    ['dns1123Label', 'a'.repeat(64), ['must be no more than 63 characters']],
    ['dns1123Subdomain', 'b'.repeat(254), ['must be no more than 253 characters']],
    [
      'dns1035Label',
      '9abc',
      [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    [
      'qualifiedName',
      'é',
      [
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    ['qualifiedName', '/y', ['prefix part must be non-empty']],
    [
      'qualifiedName',
      'x/',
      [
        'name part must be non-empty',
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    [
      'qualifiedName',
      'a/b/c',
      [
        "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    ['qualifiedName', `${'a'.repeat(254)}/x`, ['prefix part must be no more than 253 bytes']],
    ['qualifiedName', `x/${'a'.repeat(64)}`, ['name part must be no more than 63 bytes']],
    ['dns1123LabelPrefix', 'a-', []],
    ['dns1123LabelPrefix', 'ab-', []],
    [
      'dns1123LabelPrefix',
      '-',
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['dns1035LabelPrefix', 'abc-', []],
    ['labelValue', '', []],
    [
      'labelValue',
      '_a',
      [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
    [
      'labelValue',
      'é'.repeat(40),
      [
        'must be no more than 63 bytes',
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      ],
    ],
    ['uri', '', ['parse "": empty url']],
    ['uri', '../x', ['parse "../x": invalid URI for request']],
    ['uri', 'http://x/%zz', ['parse "http://x/%zz": invalid URL escape "%zz"']],
    ['uri', '/path', []],
    ['uuid', '123E4567E89B12D3A456426614174000', []],
    ['uuid', '123e4567-e89b-12d3-a456-42661417400', ['does not match the UUID format']],
    ['byte', '', ['invalid base64']],
    ['byte', 'YQ==', []],
    ['byte', 'abcd', []],
    ['date', '2020-02-29', []],
    ['date', '2021-02-29', ['invalid date']],
    ['date', '2000-02-29', []],
    ['date', '1900-02-29', ['invalid date']],
    ['date', '2020-04-31', ['invalid date']],
    ['date', '0000-01-01', []],
    ['date', '2020-1-01', ['invalid date']],
    ['datetime', '2020-01-01t23:59:59.123+05:30', []],
    ['datetime', '2020-01-01T24:00:00Z', ['invalid datetime']],
    ['datetime', '2020-01-01T00:00:00', ['invalid datetime']],
    ['datetime', '2020-01-01T00:00:00ZTjunk', []],
    ['datetime', '2020-01-01 00:00:00Z', ['invalid datetime']],
    ['datetime', '2020-01-01T00:00:00éZ', ['invalid datetime']],
    ['datetime', '2020-01-01T00:00:00\nZ', ['invalid datetime']],
  ];
  for (const [format, text, errors] of EDGES) {
    it(`format.${format}().validate(${JSON.stringify(text).slice(0, 40)}) → ${errors.length === 0 ? 'none' : errors.join('; ').slice(0, 60)}`, () =>
      assert.equal(run(validates(`format.${format}().validate(${JSON.stringify(text)})`, errors.length === 0 ? null : errors)), true));
  }

  it('a format the library lacks does not compile; the value of none is an error, as cel-go words it', () => {
    assert.equal(
      run('format.nope().validate("x").hasValue()'),
      "compile: <input>:1:1: undeclared reference to 'format' (in container '')\n<input>:1:12: undeclared reference to 'nope' (in container '')",
    );
    assert.equal(run('format.named("nope").value().validate("x").hasValue()'), 'runtime: optional.none() dereference');
    assert.equal(
      run('format.dns1123Label().validate(1).hasValue()'),
      "compile: <input>:1:31: found no matching overload for 'validate' applied to 'kubernetes.NamedFormat.(int)'",
    );
  });

  it('validates device attributes', () => {
    assert.equal(run(`!format.dns1123Label().validate(device.attributes["${DRIVER}"].name).hasValue()`), true);
    assert.equal(run(`format.uuid().validate(device.attributes["${DRIVER}"].name).hasValue()`), true);
  });
});
