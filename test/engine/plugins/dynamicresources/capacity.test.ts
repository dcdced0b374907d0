import assert from 'node:assert/strict';
import type { Device, DeviceCapacity } from '../../../../src/engine/api/dra';
import { consumedBy, fitsCapacity, nano, quantityText } from '../../../../src/engine/plugins/dynamicresources/capacity';

// k8s.io/dynamic-resource-allocation/structured/internal/incubating/consumable_capacity_test.go:
// testCalculateConsumedCapacity and testViolateCapacityRequestPolicy, the rows named below (one
// capacity, `c`; DRAFractionalCapacityRange off, as 1.37 has it by default).
const device = (capacity: DeviceCapacity): Device => ({ name: 'd', allowMultipleAllocations: true, capacity: { c: capacity } });
const consumed = (requested: string | undefined, capacity: DeviceCapacity) =>
  quantityText(consumedBy(requested === undefined ? undefined : { c: requested }, device(capacity)).get('c') ?? -1n);

describe('engine/plugins/dynamicresources/capacity', () => {
  const consumption: Array<[name: string, requested: string | undefined, capacity: DeviceCapacity, expected: string]> = [
    ['empty', undefined, { value: '1', requestPolicy: {} }, '1'],
    ['no policy, nothing asked: the whole capacity', undefined, { value: '80Gi' }, `${80 * 2 ** 30}`],
    ['min in range', undefined, { value: '2', requestPolicy: { default: '1', validRange: { min: '1' } } }, '1'],
    ['default in set', undefined, { value: '2', requestPolicy: { default: '1', validValues: ['1'] } }, '1'],
    ['more than min in range', '2', { value: '2', requestPolicy: { default: '1', validRange: { min: '1' } } }, '2'],
    ['less than min in range', '1', { value: '2', requestPolicy: { default: '1', validRange: { min: '2' } } }, '2'],
    ['with step (round up)', '2', { value: '3', requestPolicy: { default: '1', validRange: { min: '1', step: '2' } } }, '3'],
    ['with step (no remaining)', '2', { value: '2', requestPolicy: { default: '1', validRange: { min: '1', step: '1' } } }, '2'],
    ['valid value in set', '1', { value: '2', requestPolicy: { default: '1', validValues: ['1'] } }, '1'],
    ['set (round up)', '1', { value: '2', requestPolicy: { default: '1', validValues: ['2'] } }, '2'],
    ['larger than set', '3', { value: '2', requestPolicy: { default: '1', validValues: ['1'] } }, '3'],
    [
      'binary amounts: 5Gi in steps of 4Gi from 4Gi',
      '5Gi',
      { value: '80Gi', requestPolicy: { validRange: { min: '4Gi', step: '4Gi' } } },
      `${8 * 2 ** 30}`,
    ],
  ];
  for (const [name, requested, capacity, expected] of consumption)
    it(`consumed: ${name}`, () => assert.equal(consumed(requested, capacity), expected));

  const policy: Array<[name: string, requested: string, capacity: DeviceCapacity, fits: boolean]> = [
    ['no constraint', '1', { value: '2' }, true],
    ['less than maximum', '1', { value: '2', requestPolicy: { default: '1', validRange: { min: '1', max: '2' } } }, true],
    ['more than maximum', '2', { value: '2', requestPolicy: { default: '1', validRange: { min: '1', max: '1' } } }, false],
    ['in set', '1', { value: '2', requestPolicy: { default: '1', validValues: ['1'] } }, true],
    ['not in set (above every value)', '2', { value: '2', requestPolicy: { default: '1', validValues: ['1'] } }, false],
    ['more than the capacity', '3', { value: '2' }, false],
  ];
  for (const [name, requested, capacity, fits] of policy)
    it(`policy: ${name}`, () => assert.equal(fitsCapacity({ c: requested }, device(capacity), undefined, undefined), fits));

  it('shares add up: what other shares consume, allocated and in this allocation, counts against the capacity', () => {
    const d = device({ value: '10Gi' });
    const gi = (n: number) => new Map([['c', nano(`${n}Gi`)]]);
    assert.equal(fitsCapacity({ c: '4Gi' }, d, gi(6), undefined), true);
    assert.equal(fitsCapacity({ c: '4Gi' }, d, gi(4), gi(3)), false);
    assert.equal(fitsCapacity({ other: '1' }, d, undefined, undefined), false, 'a capacity the device does not have');
  });
});
