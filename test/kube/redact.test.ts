import assert from 'node:assert/strict';
import { REDACTED, Redactor } from '../../src/kube/redact';

describe('kube/redact (the one place credentials are kept out of text)', () => {
  const token = 'sha256~Zx9fT0kEnVaLuE-1234567890abcdef';
  const key = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBq0abc\n-----END EC PRIVATE KEY-----';
  const keyData = Buffer.from(key).toString('base64');
  const redactor = new Redactor([token, keyData]);

  const table: Array<[what: string, text: string, gone: readonly string[]]> = [
    ['a known token anywhere in a message', `request failed: token ${token} was refused`, [token]],
    ['the base64 form of a known secret', `data: ${Buffer.from(token).toString('base64')}`, [Buffer.from(token).toString('base64')]],
    ['a known client-key-data value and the key it decodes to', `client-key-data: ${keyData} / ${key}`, [keyData, 'MHcCAQEEIBq0abc']],
    ['an unknown bearer header', 'Authorization: Bearer abc.def.ghi-unknown', ['abc.def.ghi-unknown']],
    ['an unknown PEM private key', '-----BEGIN RSA PRIVATE KEY-----\nAAAAsecret\n-----END RSA PRIVATE KEY-----', ['AAAAsecret']],
    ['unknown token/password fields', 'token: s3cr3t-value password="hunter22"', ['s3cr3t-value', 'hunter22']],
  ];
  for (const [what, text, gone] of table) {
    it(`blanks ${what}`, () => {
      const out = redactor.redact(text);
      for (const g of gone) assert.ok(!out.includes(g), `${g} is still in ${out}`);
      assert.ok(out.includes(REDACTED), out);
    });
  }

  it('leaves text without credentials alone', () => {
    const text = 'listing pods failed: 0/5 nodes are available: 2 Insufficient cpu (server https://10.0.0.1:6443)';
    assert.equal(redactor.redact(text), text);
  });

  it('ignores values too short to be secrets (they would blank ordinary words)', () => {
    const r = new Redactor(['abc']);
    assert.equal(r.redact('abc def'), 'abc def');
  });

  it('describes errors of any kind, redacted', () => {
    assert.equal(redactor.describe(new Error(`bad ${token}`)), `bad ${REDACTED}`);
    assert.equal(redactor.describe({ message: token }), `{"message":"${REDACTED}"}`);
  });

  it('learns secrets as they show up (an exec plugin token on a request)', () => {
    const r = new Redactor();
    r.add('exec-issued-token-xyz');
    assert.equal(r.redact('got exec-issued-token-xyz'), `got ${REDACTED}`);
  });
});
