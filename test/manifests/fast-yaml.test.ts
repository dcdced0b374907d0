import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseAllDocuments, stringify } from 'yaml';
import { seededRandom } from '../../src/engine/api/random';
import { fastParse } from '../../src/manifests/fast-yaml';
import { splitDocuments } from '../../src/manifests/parse';

const ROOT = path.join(import.meta.dirname, '../..');

/** What `yaml` reads from a chunk: the one document's value, or '<error>'. */
function yamlValue(text: string): unknown {
  const docs = parseAllDocuments(text, { prettyErrors: false, logLevel: 'silent' });
  const only = docs.length === 1 ? docs[0] : undefined;
  return only && only.errors.length === 0 ? only.toJS({ maxAliasCount: 1000 }) : '<error>';
}

function manifestFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const at = path.join(dir, entry);
    if (statSync(at).isDirectory()) return manifestFiles(at);
    return /\.(ya?ml|json)$/.test(entry) ? [at] : [];
  });
}

describe('fast-yaml: the fast path reads what yaml reads, or gives up', () => {
  const table: Array<[what: string, text: string, expected: unknown]> = [
    [
      'kubectl style: sequences not indented, quoted numbers, empty strings',
      'a:\n- name: x\n  v: "8"\n- name: y\nb: ""\n',
      { a: [{ name: 'x', v: '8' }, { name: 'y' }], b: '' },
    ],
    [
      'core schema scalars',
      'n: ~\nt: true\nf: False\ni: -12\no: 0o17\nh: 0x1F\ne: 1e3\nx: .5\ninf: -.inf\ns: 1.2.3\n',
      { n: null, t: true, f: false, i: -12, o: 15, h: 31, e: 1000, x: 0.5, inf: -Infinity, s: '1.2.3' },
    ],
    [
      'flow collections on one line',
      'labels: { kubernetes.io/hostname: n1, zone: "a" }\nlist: [1, two, "3"]\nempty: {}\n',
      { labels: { 'kubernetes.io/hostname': 'n1', zone: 'a' }, list: [1, 'two', '3'], empty: {} },
    ],
    [
      'a plain scalar folded over lines, and comments',
      '# head\na: one\n  two\n\n  three # note\nb: http://x:80/y\n',
      { a: 'one two\nthree', b: 'http://x:80/y' },
    ],
    [
      'quoted scalars with escapes and folding',
      'a: \'it\'\'s\'\nb: "tab\\tend \\u00e9"\nc: "x\n  y"\n',
      { a: "it's", b: 'tab\tend é', c: 'x y' },
    ],
    [
      'literal block scalars and chomping',
      'a: |\n  one\n   two\n\nb: |-\n  x\nc: |+\n  y\n\nd: z\n',
      { a: 'one\n two\n', b: 'x', c: 'y\n\n', d: 'z' },
    ],
    [
      'a JSON document',
      '{"kind": "List", "items": [{"a": 1}, {"b": [true, null]}]}',
      { kind: 'List', items: [{ a: 1 }, { b: [true, null] }] },
    ],
    ['a document start line', '---\na: 1\n', { a: 1 }],
    ['an anchor: gives up', 'a: &x 1\nb: *x\n', undefined],
    ['a tag: gives up', 'a: !!str 1\n', undefined],
    ['a folded scalar: gives up', 'a: >\n  x\n', undefined],
    ['a duplicate key: gives up (yaml reports it)', 'a: 1\na: 2\n', undefined],
    ['a tab: gives up', 'a:\t1\n', undefined],
    ['a nested compact mapping: gives up', 'a: b: c\n', undefined],
    ['a bad indent: gives up', 'a:\n    b: 1\n  c: 2\n', undefined],
    ['a flow collection over lines: gives up', 'a: [1,\n  2]\n', undefined],
    ['an empty document: gives up (yaml tells null from none)', '# only a comment\n', undefined],
  ];
  for (const [what, text, expected] of table) {
    it(what, () => {
      const got = fastParse(text);
      if (expected === undefined) assert.equal(got, undefined);
      else {
        assert.deepEqual(got?.value, expected);
        assert.deepEqual(got.value, yamlValue(text), 'the same as yaml');
      }
    });
  }

  it('reads every example and fixture document as yaml does, and most of them at all', () => {
    let fast = 0;
    let all = 0;
    for (const file of [...manifestFiles(path.join(ROOT, 'examples')), ...manifestFiles(path.join(ROOT, 'test/fixtures'))]) {
      for (const chunk of splitDocuments(readFileSync(file, 'utf8'))) {
        all++;
        const got = fastParse(chunk.text);
        if (!got) continue;
        fast++;
        assert.deepEqual(got.value, yamlValue(chunk.text), `${file} at ${chunk.offset}`);
      }
    }
    assert.ok(fast > all * 0.9, `${fast} of ${all} read by the fast path`);
  });

  it('agrees with yaml on random documents in every style yaml writes, and on mutilated ones gives up wherever yaml finds an error', () => {
    const random = seededRandom(25);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random.next() * list.length)] as T;
    const words = [
      'a',
      'node-1',
      'true',
      'null',
      '1',
      '0x1F',
      '1.5',
      '1e3',
      'with space',
      'colon: inside',
      'hash # x',
      "it's",
      'quote"d',
      'multi\nline',
      'trail ',
      ' lead',
      '',
      '-dash',
      '- dash',
      'http://x:80/y',
      '~',
      '.inf',
      '0o17',
      'é ü',
      'a,b',
      '[x]',
      '{y}',
      '*star',
      '&amp',
      'long '.repeat(30),
      'line\n\nbreaks\n',
      'x\\y',
    ];
    const value = (depth: number): unknown => {
      const r = random.next();
      if (depth > 3 || r < 0.4)
        return pick<unknown>([pick(words), Math.floor(random.next() * 1000) - 500, random.next() * 10, true, false, null]);
      if (r < 0.7)
        return Object.fromEntries(
          Array.from({ length: Math.floor(random.next() * 4) }, () => [pick(words.filter((w) => !w.includes('\n'))), value(depth + 1)]),
        );
      return Array.from({ length: Math.floor(random.next() * 4) }, () => value(depth + 1));
    };
    const cuts = [' ', ':', '- ', '\n', '#', '"', "'", '|', '  ', '\n  ', ': ', ',', '{', '[', '\n-', 'x: y\n'];
    let read = 0;
    let readMutilated = 0;
    for (let n = 0; n < 4000; n++) {
      let text = stringify(
        { root: value(0), other: value(0) },
        {
          lineWidth: pick([0, 20, 80]),
          minContentWidth: 0,
          indentSeq: random.next() < 0.5,
          defaultStringType: pick(['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL'] as const),
          collectionStyle: pick(['any', 'flow'] as const),
        },
      );
      const mutilate = n % 2 === 1;
      if (mutilate) {
        const at = Math.floor(random.next() * text.length);
        text =
          random.next() < 0.5
            ? text.slice(0, at) + pick(cuts) + text.slice(at)
            : text.slice(0, at) + text.slice(at + 1 + Math.floor(random.next() * 3));
      }
      const got = fastParse(text);
      if (!got) continue;
      if (mutilate) readMutilated++;
      else read++;
      assert.ok(isDeepStrictEqual(got.value, yamlValue(text)), `${JSON.stringify(text)}: ${JSON.stringify(got.value)}`);
    }
    assert.ok(read > 1000 && readMutilated > 500, `read ${read} documents and ${readMutilated} mutilated ones`);
  });

  it("gives where a kubectl List's items are, in YAML and in JSON", () => {
    const yamlText = 'apiVersion: v1\nitems:\n- kind: Node\n  metadata: { name: a }\n# between\n- kind: Pod\n  spec: {}\nkind: List\n';
    const y = fastParse(yamlText);
    assert.deepEqual(
      y?.items?.ranges.map(([s, e]) => yamlText.slice(s, e)),
      ['- kind: Node\n  metadata: { name: a }', '- kind: Pod\n  spec: {}'],
    );
    assert.equal(y?.items?.prefix, '[0]');
    const jsonText = JSON.stringify({ apiVersion: 'v1', items: [{ kind: 'Node', x: '[,]' }, { kind: 'Pod' }], kind: 'List' }, null, 4);
    const j = fastParse(jsonText);
    assert.deepEqual(
      j?.items?.ranges.map(([s, e]) => JSON.parse(jsonText.slice(s, e)) as unknown),
      [{ kind: 'Node', x: '[,]' }, { kind: 'Pod' }],
    );
    assert.equal(j?.items?.prefix, '');
  });
});
