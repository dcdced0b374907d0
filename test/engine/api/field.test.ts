import assert from 'node:assert/strict';
import { dnsLabelError, subdomainError } from '../../../src/engine/api/field';

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
