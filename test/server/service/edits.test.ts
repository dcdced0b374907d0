import assert from 'node:assert/strict';
import { appendItems, removeItem, removeKey, replaceValue, scalar, setEntry, type Target } from '../../../src/server/service/edits';
import { applyEdits } from '../text';
import { uriOf, workspaceOf } from './fixtures';

/** The text after one edit made on the first document of `text`. */
function edited(text: string, make: (t: Target) => ReturnType<typeof replaceValue>): string {
  const ws = workspaceOf({ 'a.yaml': text });
  const file = ws.file(uriOf('a.yaml'))!;
  const document = file.model.documents[0]!;
  const change = make({ file, index: 0, source: document.source, value: document.value, base: '' });
  assert.ok(change, 'no edit');
  return applyEdits(text, [change.edit]);
}

describe('server/service/edits: one field changed, the rest as written', () => {
  it('writes plain scalars plainly and quotes the rest', () => {
    assert.deepEqual(['nightly', 'node-1', 'true', '007', '1e3', 'a b', ''].map(scalar), [
      'nightly',
      'node-1',
      '"true"',
      '"007"',
      '"1e3"',
      '"a b"',
      '""',
    ]);
  });

  it('replaces a value', () =>
    assert.equal(
      edited('spec:\n  state: planning # hold\n', (t) => replaceValue(t, 'spec.state', 'Planning')),
      'spec:\n  state: Planning # hold\n',
    ));

  const entries: Array<[string, string, string]> = [
    [
      'adds a key before the first of a block mapping',
      'metadata:\n  name: a\n  labels:\n    app: x\n',
      'metadata:\n  name: a\n  labels:\n    k: v\n    app: x\n',
    ],
    ['adds a key to a flow mapping', 'metadata:\n  labels: { app: x }\n', 'metadata:\n  labels: { k: v, app: x }\n'],
    ['fills an empty flow mapping', 'metadata:\n  labels: {}\n', 'metadata:\n  labels: { k: v }\n'],
    ['fills a key with no value', 'metadata:\n  labels:\n  name: a\n', 'metadata:\n  labels: { k: v }\n  name: a\n'],
    ['creates the mapping on its parent', 'metadata:\n  name: a\n', 'metadata:\n  labels: { k: v }\n  name: a\n'],
    ['sets a key that is there', 'metadata:\n  labels:\n    k: old\n', 'metadata:\n  labels:\n    k: v\n'],
  ];
  for (const [what, before, after] of entries)
    it(what, () =>
      assert.equal(
        edited(before, (t) => setEntry(t, 'metadata.labels', 'k', 'v')),
        after,
      ),
    );

  it('removes an item or a key with its lines', () => {
    assert.equal(
      edited('plan:\n  - pod: a\n    node: n\n  - pod: b\n    node: m\n', (t) => removeItem(t, 'plan[0]')),
      'plan:\n  - pod: b\n    node: m\n',
    );
    assert.equal(
      edited('spec:\n  state: Planning\n  extra:\n    deep: 1\nkind: X\n', (t) => removeKey(t, 'spec.extra')),
      'spec:\n  state: Planning\nkind: X\n',
    );
  });

  it('appends items after the last one, or writes out an empty list', () => {
    const items = [{ pod: 'c', node: 'n3' }];
    assert.equal(
      edited('plan:\n  - pod: a\n    node: n1\n', (t) => appendItems(t, 'plan', items)),
      'plan:\n  - pod: a\n    node: n1\n  - pod: c\n    node: n3\n',
    );
    assert.equal(
      edited('spec:\n  plan: []\n', (t) => appendItems(t, 'spec.plan', items)),
      'spec:\n  plan:\n    - pod: c\n      node: n3\n',
    );
    assert.equal(
      edited('spec:\n  plan:\nkind: X\n', (t) => appendItems(t, 'spec.plan', items)),
      'spec:\n  plan:\n    - pod: c\n      node: n3\nkind: X\n',
    );
  });
});
