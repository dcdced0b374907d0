import assert from 'node:assert/strict';
import { compileSelector, isQualifiedName, labelValue, selectorMatches, withLabelKeys } from '../../../src/engine/api/labels';
import { type LabelSelector, type Labels } from '../../../src/engine/api/types';

describe('engine/api/labels', () => {
  describe('a selector matches labels as Kubernetes evaluates it', () => {
    const labels: Labels = { app: 'web', tier: 'front' };
    const table: Array<[name: string, selector: LabelSelector | undefined, want: boolean]> = [
      ['an absent selector matches nothing', undefined, false],
      ['an empty selector matches everything', {}, true],
      ['matchLabels, all equal', { matchLabels: { app: 'web', tier: 'front' } }, true],
      ['matchLabels, one differs', { matchLabels: { app: 'web', tier: 'back' } }, false],
      ['In', { matchExpressions: [{ key: 'app', operator: 'In', values: ['db', 'web'] }] }, true],
      ['In on a missing label', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
      ['NotIn on a missing label', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
      ['NotIn on a listed value', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, false],
      ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
      ['DoesNotExist', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
      ['matchLabels and expressions are ANDed', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, false],
      ['a key named like an Object.prototype member is just absent', { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, false],
    ];
    for (const [name, selector, want] of table) {
      it(name, () => {
        assert.equal(compileSelector(selector)(labels), want);
        assert.equal(selectorMatches(selector, labels), want);
      });
    }

    it('reads own string values only', () => {
      assert.equal(labelValue({ app: 'web' }, 'app'), 'web');
      assert.equal(labelValue({ app: 'web' }, 'toString'), undefined);
      assert.equal(labelValue(undefined, 'app'), undefined);
    });
  });

  describe('matchLabelKeys / mismatchLabelKeys narrow a selector by the owning pod’s values', () => {
    const selector: LabelSelector = { matchLabels: { app: 'web' } };
    const owner: Labels = { app: 'web', release: 'r2' };
    const table: Array<[name: string, match: string[], mismatch: string[], labels: Labels, want: boolean]> = [
      ['same release matches with matchLabelKeys', ['release'], [], { app: 'web', release: 'r2' }, true],
      ['another release does not', ['release'], [], { app: 'web', release: 'r1' }, false],
      ['another release matches with mismatchLabelKeys', [], ['release'], { app: 'web', release: 'r1' }, true],
      ['the same release does not', [], ['release'], { app: 'web', release: 'r2' }, false],
      ['a key the owner lacks is ignored', ['track'], [], { app: 'web', track: 'canary' }, true],
    ];
    for (const [name, match, mismatch, labels, want] of table) {
      it(name, () => assert.equal(compileSelector(withLabelKeys(selector, owner, match, mismatch))(labels), want));
    }
  });

  describe('label keys are qualified names', () => {
    const table: Array<[key: string, want: boolean]> = [
      ['app', true],
      ['kubernetes.io/hostname', true],
      ['topology.kubernetes.io/zone', true],
      ['a_b.c-d', true],
      ['', false],
      ['/app', false],
      ['a/b/c', false],
      ['-app', false],
      ['Example.com/app', false],
      ['x'.repeat(64), false],
    ];
    for (const [key, want] of table) it(`"${key.length > 20 ? `${key.slice(0, 8)}… (${key.length})` : key}" → ${want}`, () => assert.equal(isQualifiedName(key), want));
  });
});
