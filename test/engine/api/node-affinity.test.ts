import assert from 'node:assert/strict';
import { fieldErrorText } from '../../../src/engine/api/field';
import { NodeSelectorMatcher, PreferredTerms, requiredNodeAffinity } from '../../../src/engine/api/node-affinity';
import type { NodeSelectorRequirement, NodeSelectorTerm } from '../../../src/engine/api/types';
import { makeNode, makePod } from '../../builders';

const compile = (...terms: NodeSelectorTerm[]) => NodeSelectorMatcher.compile({ nodeSelectorTerms: terms }, 'sel');
const expr = (...matchExpressions: NodeSelectorRequirement[]): NodeSelectorTerm => ({ matchExpressions });

describe('engine/api/node-affinity', () => {
  describe('matching', () => {
    const table: Array<[why: string, term: NodeSelectorTerm, labels: Record<string, string>, matches: boolean]> = [
      [
        'Gt compares 64-bit integers exactly',
        expr({ key: 'n', operator: 'Gt', values: ['9007199254740992'] }),
        { n: '9007199254740993' },
        true,
      ],
      ['Lt with negative numbers', expr({ key: 'n', operator: 'Lt', values: ['-1'] }), { n: '-2' }, true],
      ['Gt: a label past int64 is not a number', expr({ key: 'n', operator: 'Gt', values: ['0'] }), { n: '9223372036854775808' }, false],
      ['a label key shaped like an Object property is an ordinary key', expr({ key: 'constructor', operator: 'Exists' }), {}, false],
      ['In on "constructor" with the label set', expr({ key: 'constructor', operator: 'In', values: ['x'] }), { constructor: 'x' }, true],
      [
        'a field other than metadata.name reads as empty',
        { matchFields: [{ key: 'spec.podCIDR', operator: 'In', values: [''] }] },
        {},
        true,
      ],
      ['an empty term matches nothing', {}, { a: 'b' }, false],
    ];
    for (const [why, term, labels, matches] of table) {
      it(why, () => {
        const { matcher, errors } = compile(term);
        assert.deepEqual(errors, []);
        assert.equal(matcher.matches(makeNode('n').labels(labels).obj), matches);
      });
    }
  });

  it('reports every malformed requirement with its path, and drops only that term', () => {
    const { matcher, errors } = compile(
      expr({ key: 'bad key', operator: 'Exists' }, { key: 'n', operator: 'Gt', values: [] }),
      expr({ key: 'zone', operator: 'Exists' }),
    );
    assert.equal(errors.length, 2);
    assert.deepEqual(
      errors.map((e) => [e.type, e.path]),
      [
        ['invalid', ['sel', 'nodeSelectorTerms', 0, 'matchExpressions', 0, 'key']],
        ['invalid', ['sel', 'nodeSelectorTerms', 0, 'matchExpressions', 1, 'values']],
      ],
    );
    const texts = errors.map(fieldErrorText);
    assert.match(texts[0] ?? '', /^sel\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.key: Invalid value: "bad key": /);
    assert.equal(
      texts[1],
      "sel.nodeSelectorTerms[0].matchExpressions[1].values: Invalid value: []: for 'Gt', 'Lt' operators, exactly one value is required",
    );
    assert.equal(matcher.matches(makeNode('n').labels({ zone: 'a' }).obj), true);
  });

  it('preferred terms with weight 0 or no requirements are left out', () => {
    const terms = PreferredTerms.compile(
      [
        { weight: 0, preference: expr({ key: 'zone', operator: 'Exists' }) },
        { weight: 3, preference: {} },
        { weight: 7, preference: expr({ key: 'zone', operator: 'Exists' }) },
      ],
      ['pref'],
    );
    assert.ok(terms.ok);
    assert.equal(terms.value.size, 1);
    assert.equal(terms.value.score(makeNode('n').labels({ zone: 'a' }).obj), 7);
  });

  it("a pod's required affinity is compiled once per pod object", () => {
    const pod = makePod('p').nodeSelector({ zone: 'a' }).obj;
    assert.equal(requiredNodeAffinity(pod), requiredNodeAffinity(pod));
    assert.equal(requiredNodeAffinity(pod).matches(makeNode('n').labels({ zone: 'a' }).obj), true);
  });
});
