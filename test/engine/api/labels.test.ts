import assert from 'node:assert/strict';
import { parseSelector, selectorMatches } from '../../../src/engine/api/labels';
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
      ['Exists on a key named like an Object.prototype member', { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] }, {}, false],
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

  describe('parseSelector reads the kubectl -l form', () => {
    const table: Array<[text: string, selector: LabelSelector]> = [
      ['', { matchLabels: {}, matchExpressions: [] }],
      ['   ', { matchLabels: {}, matchExpressions: [] }],
      ['app=web', { matchLabels: { app: 'web' }, matchExpressions: [] }],
      ['app == web', { matchLabels: { app: 'web' }, matchExpressions: [] }],
      ['app=', { matchLabels: { app: '' }, matchExpressions: [] }],
      ['tier!=db', { matchLabels: {}, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] }],
      ['env in (prod, staging)', { matchLabels: {}, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'staging'] }] }],
      ['env notin (dev)', { matchLabels: {}, matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['dev'] }] }],
      ['!canary', { matchLabels: {}, matchExpressions: [{ key: 'canary', operator: 'DoesNotExist' }] }],
      ['example.com/gpu', { matchLabels: {}, matchExpressions: [{ key: 'example.com/gpu', operator: 'Exists' }] }],
      [
        'app=web, env in (prod,staging), !canary',
        {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'env', operator: 'In', values: ['prod', 'staging'] },
            { key: 'canary', operator: 'DoesNotExist' },
          ],
        },
      ],
      // Both must hold, so nothing matches; the second is not allowed to overwrite the first.
      ['app=web,app=api', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] }],
    ];
    for (const [text, selector] of table) {
      it(JSON.stringify(text), () => assert.deepEqual(parseSelector(text), selector));
    }

    describe('is undefined when malformed', () => {
      for (const text of ['a=b,', ',', 'a=b,,c=d', 'a in ()', 'a in (x,)', 'a in (x', 'a in ((x))', 'a)', 'a b', 'a=b c', '=b', 'a in (x y)', 'a=b,(']) {
        it(JSON.stringify(text), () => assert.equal(parseSelector(text), undefined));
      }
    });

    it('matches what the selector it stands for matches', () => {
      const selector = parseSelector('app=web,app=api');
      assert.equal(selectorMatches(selector, { app: 'web' }), false);
      assert.equal(selectorMatches(parseSelector('tier!=db,!canary'), { tier: 'web' }), true);
      assert.equal(selectorMatches(parseSelector(''), undefined), true);
    });
  });
});
