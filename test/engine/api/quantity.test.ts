import assert from 'node:assert/strict';
import { parseQuantity, quantityMilliValue, quantityValue } from '../../../src/engine/api/quantity';

function parsed(text: string) {
  const q = parseQuantity(text);
  if (!q.ok) throw new Error(q.error);
  return q.value;
}

describe('engine/api/quantity', () => {
  describe('parses the forms Kubernetes accepts, exactly', () => {
    const table: Array<[text: string, value: number, milli: number]> = [
      ['100m', 1, 100],
      ['0.5', 1, 500],
      ['1', 1, 1000],
      ['1Gi', 1073741824, 1073741824000],
      ['500Mi', 524288000, 524288000000],
      ['1e3', 1000, 1000000],
      ['1E-3', 1, 1],
      ['1.5k', 1500, 1500000],
      ['2M', 2000000, 2000000000],
      ['.25', 1, 250],
      ['1n', 1, 1],
      ['0', 0, 0],
      ['1.5Gi', 1610612736, 1610612736000],
      ['+3', 3, 3000],
      [' 250m ', 1, 250],
    ];
    for (const [text, value, milli] of table) {
      it(`"${text}" is ${value} units and ${milli} milli-units (both rounded up)`, () => {
        const q = parsed(text);
        assert.deepEqual(quantityValue(q), { ok: true, value });
        assert.deepEqual(quantityMilliValue(q), { ok: true, value: milli });
      });
    }
  });

  describe('rejects malformed quantities with a message instead of NaN', () => {
    for (const text of ['', 'abc', '1.2.3', '1 Gi', '1GB', '1Gii', 'm', '--1', '1e', '0x10', '1e999']) {
      it(`"${text}"`, () => {
        const q = parseQuantity(text);
        assert.equal(q.ok, false);
        if (!q.ok) assert.match(q.error, new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      });
    }
  });

  it('reports a quantity too large for exact arithmetic', () => {
    assert.equal(quantityValue(parsed('100Ei')).ok, false);
  });
});
