import assert from 'node:assert/strict';
import {
  addQuantities,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  quantityMilliValue,
  quantityValue,
} from '../../../src/engine/api/quantity';

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

  describe("prints as upstream's Quantity.String(): canonical in the format its suffix chose", () => {
    const table: Array<[text: string, printed: string]> = [
      ['100m', '100m'],
      ['1000m', '1'],
      ['0.1', '100m'],
      ['1.5', '1500m'],
      ['1.5Gi', '1536Mi'],
      ['1024Mi', '1Gi'],
      ['0.5Gi', '512Mi'],
      ['1025Ki', '1025Ki'],
      ['1000k', '1M'],
      ['129M', '129M'],
      ['128974848', '128974848'],
      ['1e3', '1e3'],
      ['12e6', '12e6'],
      ['0', '0'],
      ['-500m', '-500m'],
    ];
    for (const [text, printed] of table) it(`${text} -> ${printed}`, () => assert.equal(formatQuantity(parsed(text)), printed));
  });

  it("adds exactly, the sum printed in the first term's format (the second's when the first is zero), and compares exactly", () => {
    assert.equal(addQuantities(parsed('200Mi'), parsed('900Mi')).text, '1100Mi');
    assert.equal(addQuantities(parsed('500m'), parsed('1.9')).text, '2400m');
    assert.equal(addQuantities(parsed('0'), parsed('1Gi')).text, '1Gi');
    assert.equal(addQuantities(parsed('1Gi'), parsed('1G')).text, '2073741824');
    assert.equal(compareQuantities(parsed('1Gi'), parsed('1024Mi')), 0);
    assert.equal(compareQuantities(parsed('0.1'), parsed('99m')), 1);
    assert.equal(compareQuantities(parsed('1G'), parsed('1Gi')), -1);
  });
});
