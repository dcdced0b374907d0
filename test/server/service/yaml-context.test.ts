import assert from 'node:assert/strict';
import { yamlContext } from '../../../src/server/service/yaml-context';

/** The context at the `|` of a text. */
const at = (marked: string) => {
  const offset = marked.indexOf('|');
  const { position, path, prefix, siblings, fields } = yamlContext(marked.replace('|', ''), offset);
  return { position, path, prefix, siblings, fields };
};

describe('server/service/yaml-context: where the cursor is, from lines and indentation', () => {
  const cases: Array<[string, string, ReturnType<typeof at>]> = [
    ['a key at the root', 'kind: X\n|', { position: 'key', path: [], prefix: '', siblings: ['kind'], fields: { kind: 'X' } }],
    ['a key being typed in a mapping', 'spec:\n  st|', { position: 'key', path: ['spec'], prefix: 'st', siblings: [], fields: {} }],
    [
      'a key on an empty line, by the cursor’s column',
      'metadata:\n  labels:\n    a: b\n    |',
      { position: 'key', path: ['metadata', 'labels'], prefix: '', siblings: ['a'], fields: { a: 'b' } },
    ],
    [
      'a value',
      'spec:\n  state: Pl|',
      { position: 'value', path: ['spec', 'state'], prefix: 'Pl', siblings: ['state'], fields: { state: 'Pl' } },
    ],
    [
      'a value right after the colon',
      'spec:\n  state:|',
      { position: 'value', path: ['spec', 'state'], prefix: '', siblings: ['state'], fields: {} },
    ],
    [
      'a value in the second item of a sequence, beside its other fields',
      'spec:\n  plan:\n    - pod: a\n      node: n1\n    - pod: b\n      node: |',
      { position: 'value', path: ['spec', 'plan', 1, 'node'], prefix: '', siblings: ['pod', 'node'], fields: { pod: 'b' } },
    ],
    [
      'a key starting an item',
      'spec:\n  plan:\n    - pod: a\n    - |',
      { position: 'key', path: ['spec', 'plan', 1], prefix: '', siblings: [], fields: {} },
    ],
    [
      'a sequence at its parent key’s column',
      'plan:\n- pod: a\n- pod: |',
      { position: 'value', path: ['plan', 1, 'pod'], prefix: '', siblings: ['pod'], fields: {} },
    ],
    [
      'quoted keys read as their text',
      'metadata:\n  labels:\n    "planner.ciena.io/pod-set": |',
      {
        position: 'value',
        path: ['metadata', 'labels', 'planner.ciena.io/pod-set'],
        prefix: '',
        siblings: ['planner.ciena.io/pod-set'],
        fields: {},
      },
    ],
    ['only the document the cursor is in', 'a: 1\n---\nb:\n  |', { position: 'key', path: ['b'], prefix: '', siblings: [], fields: {} }],
    [
      'a comment after the value is not the value',
      'spec:\n  state: Plan| # soon',
      { position: 'value', path: ['spec', 'state'], prefix: 'Plan', siblings: ['state'], fields: { state: 'Plan' } },
    ],
  ];
  for (const [what, marked, expected] of cases) it(what, () => assert.deepEqual(at(marked), expected));

  it('the range to replace covers the whole word under the cursor', () => {
    const text = 'spec:\n  state: Planning\n';
    const c = yamlContext(text, text.indexOf('Planning') + 3);
    assert.deepEqual([text.slice(c.start, c.end), c.prefix], ['Planning', 'Pla']);
  });
});
