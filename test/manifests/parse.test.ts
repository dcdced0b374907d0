// parse.ts: a document the fast path reads has a LazySyntax that answers as yaml's own syntax tree
// does (its range, every field's location, the field under an offset), in a kubectl List through
// the item's text alone, with LF and CRLF line ends; a file mostly outside the fast path's subset
// is read by yaml.
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { LazySyntax, parseChunks, splitDocuments } from '../../src/manifests/parse';
import { DocumentSyntax } from '../../src/manifests/source-map';

/** yaml's syntax of the one document of `text`. */
function yamlSyntax(text: string): DocumentSyntax {
  const [doc] = parseAllDocuments(text);
  assert.ok(doc);
  return new DocumentSyntax(doc.contents, [doc.range[0], doc.range[1]]);
}

const LIST = [
  'apiVersion: v1',
  'kind: List',
  'items:',
  '- apiVersion: v1',
  '  kind: Node',
  '  metadata:',
  '    name: n1',
  '    labels: { zone: a, "kubernetes.io/hostname": n1 }',
  '# between the items',
  '- apiVersion: v1',
  '  kind: Pod',
  '  metadata: { name: p1 }',
  '  spec:',
  '    containers:',
  '    - name: main',
  '      args: [a, b]',
  '      command: |',
  '        run',
  '    nodeSelector:',
  'metadata: {}',
  '',
].join('\n');

describe('manifests/parse', () => {
  for (const [what, text] of [
    ['LF', LIST],
    ['CRLF', LIST.replace(/\n/g, '\r\n')],
  ] as const) {
    it(`a kubectl List read by the fast path (${what}) is located as yaml locates it, item by item`, () => {
      const read = parseChunks(text, splitDocuments(text));
      assert.equal(read.length, 1);
      const doc = read[0]?.[0];
      assert.ok(doc?.syntax instanceof LazySyntax, 'read by the fast path');
      const lazy = doc.syntax;
      const full = yamlSyntax(text);
      assert.deepEqual(lazy.span, full.span);
      const paths = [...full.spans().keys()];
      assert.ok(paths.includes('items[1].spec.containers[0].command'));
      for (const path of paths) assert.deepEqual(lazy.lookup(path), full.lookup(path), path);
      for (let offset = 0; offset <= text.length; offset++) assert.equal(lazy.pathAt(offset), full.pathAt(offset), `at ${offset}`);
    });
  }

  it('a file mostly outside the fast path is read by yaml, with the values and ranges yaml gives', () => {
    const text = 'a: &x 1\nb: *x\n---\nc: !!str 2\n---\nd: 3\n';
    const chunks = splitDocuments(text);
    const read = parseChunks(text, chunks);
    assert.deepEqual(
      read.map((docs) => docs.map((d) => d.value)),
      [[{ a: 1, b: 1 }], [{ c: '2' }], [{ d: 3 }]],
    );
    for (const [i, chunk] of chunks.entries()) {
      const doc = read[i]?.[0];
      assert.ok(doc && !(doc.syntax instanceof LazySyntax), `chunk ${i} parsed by yaml`);
      assert.deepEqual(doc.syntax.span, yamlSyntax(chunk.text).span);
    }
  });
});
