import assert from 'node:assert/strict';
import type { Device } from '../../../../src/engine/api/dra';
import { compileSelector } from '../../../../src/engine/plugins/dynamicresources/cel';

// k8s.io/dynamic-resource-allocation/cel/compile_test.go, TestCompile: the expressions on driver,
// attributes (with and without a domain), capacity (quantity) and versions (semver).
const DRIVER = 'dra.example.com';
const device: Device = {
  name: 'd0',
  attributes: {
    name: { string: 'gpu-a' },
    numa: { int: 1 },
    healthy: { bool: true },
    driverVersion: { version: '1.4.2' },
    'other.example.com/flavor': { string: 'x' },
  },
  capacity: { memory: { value: '40Gi' } },
};

describe('engine/plugins/dynamicresources/cel', () => {
  const table: Array<[expression: string, expected: boolean | string]> = [
    ['true', true],
    [`device.driver == "${DRIVER}"`, true],
    [`device.attributes["${DRIVER}"].name == "gpu-a"`, true],
    [`device.attributes["${DRIVER}"].numa > 0`, true],
    [`device.attributes["${DRIVER}"].healthy`, true],
    ['device.attributes["other.example.com"].flavor == "x"', true],
    [`"numa" in device.attributes["${DRIVER}"]`, true],
    ['"numa" in device.attributes["unknown.example.com"]', false],
    [`device.capacity["${DRIVER}"].memory.compareTo(quantity("40960Mi")) == 0`, true],
    [`device.capacity["${DRIVER}"].memory.isGreaterThan(quantity("1Ti"))`, false],
    [`device.capacity["${DRIVER}"].memory == quantity("40Gi")`, true],
    [`device.attributes["${DRIVER}"].driverVersion.isGreaterThan(semver("1.4.0"))`, true],
    [`device.attributes["${DRIVER}"].driverVersion.compareTo(semver("1.4.2")) == 0`, true],
    [`device.attributes["${DRIVER}"].driverVersion.major() == 1`, true],
    [`device.attributes["${DRIVER}"].name.startsWith("gpu")`, true],
    ['device.allowMultipleAllocations', false],
    // A runtime error (no such attribute) and a compile error are errors, not false.
    [`device.attributes["${DRIVER}"].nope == 1`, 'runtime'],
    ['device.driver ==', 'compile'],
  ];
  for (const [expression, expected] of table) {
    it(expression, () => {
      const compiled = compileSelector(expression);
      if (!compiled.ok) return assert.equal(expected, 'compile', compiled.error);
      const result = compiled.matches(device, DRIVER);
      if (!result.ok) return assert.equal(expected, 'runtime', result.error);
      assert.equal(result.value, expected);
    });
  }
});
