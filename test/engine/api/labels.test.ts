import assert from 'node:assert/strict';
import { selectorMatches } from '../../../src/engine/api/labels';
import type { LabelSelector, Labels } from '../../../src/engine/api/types';

describe('engine/api/labels', () => {
  describe('selectorMatches', () => {
    const web: Labels = { app: 'web', tier: 'frontend' };
    const table: Array<[what: string, selector: LabelSelector | undefined, labels: Labels | undefined, matches: boolean]> = [
      ['an absent selector matches nothing', undefined, web, false],
      ['an absent selector matches nothing, not even a pod without labels', undefined, undefined, false],
      ['an empty selector matches everything', {}, web, true],
      ['an empty selector matches a pod without labels', {}, undefined, true],
      ['empty lists are an empty selector', { matchLabels: {}, matchExpressions: [] }, undefined, true],
      ['matchLabels: equal value', { matchLabels: { app: 'web' } }, web, true],
      ['matchLabels: other value', { matchLabels: { app: 'db' } }, web, false],
      ['matchLabels: missing key', { matchLabels: { zone: 'a' } }, web, false],
      ['matchLabels: every pair must match', { matchLabels: { app: 'web', tier: 'backend' } }, web, false],
      ['In: value in the set', { matchExpressions: [{ key: 'app', operator: 'In', values: ['db', 'web'] }] }, web, true],
      ['In: value not in the set', { matchExpressions: [{ key: 'app', operator: 'In', values: ['db'] }] }, web, false],
      ['In: missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, web, false],
      ['NotIn: value in the set', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, web, false],
      ['NotIn: a missing key is not in the set', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, web, true],
      ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, web, true],
      ['Exists: missing key', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, web, false],
      ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, web, true],
      ['DoesNotExist: present key', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, web, false],
      [
        'Exists on a key named like an Object.prototype member',
        { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] },
        {},
        false,
      ],
      [
        'matchLabels and matchExpressions are ANDed',
        { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['backend'] }] },
        web,
        false,
      ],
    ];
    for (const [what, selector, labels, matches] of table) {
      it(what, () => assert.equal(selectorMatches(selector, labels), matches));
    }
  });
});
