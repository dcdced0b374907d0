import assert from 'node:assert/strict';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import { CycleValue } from '../../../src/engine/plugins/cycle-value';

describe('engine/plugins/cycle-value', () => {
  it('reads back what was written to the same state', () => {
    const value = new CycleValue<string>('v');
    const state = new CycleState();
    assert.equal(value.read(state), undefined);
    value.write(state, 'a');
    assert.equal(value.read(state), 'a');
    value.write(state, 'b');
    assert.equal(value.read(state), 'b');
  });

  it('never serves one state the value of another', () => {
    const value = new CycleValue<string>('v');
    const first = new CycleState();
    const second = new CycleState();
    value.write(first, 'first');
    assert.equal(value.read(second), undefined);
    value.write(second, 'second');
    const clone = first.clone();
    assert.equal(value.read(first), 'first');
    assert.equal(value.read(clone), 'first');
    assert.equal(value.read(second), 'second');
  });
});
