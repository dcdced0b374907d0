import assert from 'node:assert/strict';
import {
  argsErrorText,
  dnsLabelError,
  fieldDuplicate,
  fieldErrorText,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldUnknown,
  subdomainError,
  type FieldError,
} from '../../../src/engine/api/field';

describe('engine/api/field: names as the API server checks them', () => {
  const cases: Array<[string, boolean, boolean]> = [
    // name, a valid subdomain (object names), a valid label (namespaces)
    ['nightly-batch', true, true],
    ['app.v2', true, false],
    ['Nightly', false, false],
    ['-lead', false, false],
    ['trail-', false, false],
    ['under_score', false, false],
    ['a'.repeat(63), true, true],
    ['a'.repeat(64), true, false],
    ['a'.repeat(254), false, false],
  ];
  for (const [name, subdomain, label] of cases) {
    it(`${name.length > 20 ? `${name.length} × a` : JSON.stringify(name)}: subdomain ${subdomain}, label ${label}`, () => {
      assert.equal(subdomainError(name) === undefined, subdomain);
      assert.equal(dnsLabelError(name) === undefined, label);
    });
  }

  it('says why in upstream’s words', () => {
    assert.match(subdomainError('Nightly') ?? '', /^a lowercase RFC 1123 subdomain must consist of/);
    assert.equal(dnsLabelError('a'.repeat(64)), 'must be no more than 63 characters');
  });
});

describe('engine/api/field: field errors as data, their text made from them', () => {
  const table: Array<[error: FieldError, text: string]> = [
    [
      fieldInvalid(['scoringStrategy', 'resources', 0, 'weight'], 101, 'not in valid range (0, 100]'),
      'scoringStrategy.resources[0].weight: Invalid value: 101: not in valid range (0, 100]',
    ],
    [
      fieldNotSupported(['type'], 'Fastest', ['LeastAllocated', 'MostAllocated']),
      'type: Unsupported value: "Fastest": supported values: "LeastAllocated", "MostAllocated"',
    ],
    [fieldRequired(['shape'], 'at least one point must be specified'), 'shape: Required value: at least one point must be specified'],
    [fieldForbidden(['ratio'], 'must be nil'), 'ratio: Forbidden: must be nil'],
    [fieldDuplicate(['resources', 1, 'name'], 'cpu'), 'resources[1].name: Duplicate value: "cpu"'],
    [fieldUnknown(['scoringStrategy', 'speed']), 'unknown field "scoringStrategy.speed"'],
    [fieldInvalid([], 7, 'must be an object'), 'args: Invalid value: 7: must be an object'],
    [fieldInvalid([0], 'x', 'must be a number'), '[0]: Invalid value: "x": must be a number'],
  ];
  for (const [error, text] of table) it(text, () => assert.equal(fieldErrorText(error), text));

  it('a plugin’s args error: one field as it is, several as upstream’s aggregate', () => {
    assert.equal(argsErrorText({ plugin: 'P', errors: [fieldUnknown(['a'])] }), 'P: unknown field "a"');
    assert.equal(
      argsErrorText({ plugin: 'P', errors: [fieldUnknown(['a']), fieldUnknown(['b'])] }),
      'P: [unknown field "a", unknown field "b"]',
    );
  });
});
