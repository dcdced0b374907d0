// The fast path (src/manifests/fast-yaml.ts) held to yaml's answers: for every document it reads,
// the value yaml's toJS gives and the range yaml gives, yaml finding no error or warning in it;
// everything outside its subset left to yaml. Checked on tables of cases, on every YAML and JSON
// file of the repository's examples and fixtures (LF and CRLF), on the 5,000-node workspace, on
// random documents written by hand and by yaml's stringify (and mutilated ones), and on where a
// kubectl List's items are.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments, stringify } from 'yaml';
import { seededRandom, type Random } from '../../src/engine/api/random';
import { fastParse } from '../../src/manifests/fast-yaml';
import { splitDocuments } from '../../src/manifests/parse';
import { scaleWorkspaceFiles } from '../e2e/scale-workspace';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** yaml's one document of `text`, when it has exactly one and no error or warning. */
function yamlDocument(text: string): { value: unknown; span: [number, number] } | undefined {
  const docs = parseAllDocuments(text, { prettyErrors: false, logLevel: 'silent' });
  const [doc] = docs;
  if (docs.length !== 1 || !doc || doc.errors.length > 0 || doc.warnings.length > 0) return undefined;
  return { value: doc.toJS({ maxAliasCount: 1000 }), span: [doc.range[0], doc.range[1]] };
}

/** Fails unless the fast path, where it reads `text`, reads it as yaml does; whether it read it. */
function agrees(text: string, where: string): boolean {
  const fast = fastParse(text);
  if (!fast) return false;
  const slow = yamlDocument(text);
  assert.ok(slow, `${where}: the fast path read a document yaml reads otherwise or with problems:\n${text}`);
  assert.deepEqual(fast.value, slow.value, `${where}: value\n${text}`);
  assert.deepEqual(fast.span, slow.span, `${where}: range\n${JSON.stringify(text)}`);
  return true;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.ya?ml$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

function manifestFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const at = path.join(dir, entry);
    if (statSync(at).isDirectory()) return manifestFiles(at);
    return /\.(ya?ml|json)$/.test(entry) ? [at] : [];
  });
}

describe('manifests/fast-yaml: the fast path reads what yaml reads, as yaml reads it, or gives up', () => {
  const read: Array<[what: string, text: string, value: unknown]> = [
    ['a block mapping', 'apiVersion: v1\nkind: Node\n', { apiVersion: 'v1', kind: 'Node' }],
    ['after a document marker and comments', '---\n# a node\napiVersion: v1 # the core group\n\n# trailing\n', { apiVersion: 'v1' }],
    [
      'nested mappings and sequences, items at the key’s indent',
      'spec:\n  containers:\n  - name: a\n    args: [x, "y", \'z\']\n  - name: b\nlist:\n- 1\n- -2\n',
      { spec: { containers: [{ name: 'a', args: ['x', 'y', 'z'] }, { name: 'b' }] }, list: [1, -2] },
    ],
    [
      'flow mappings, nested, empty',
      'metadata: { name: a, labels: { app: b }, annotations: {} }\nitems: []\n',
      { metadata: { name: 'a', labels: { app: 'b' }, annotations: {} }, items: [] },
    ],
    [
      'the core schema’s scalars',
      'a: ~\nb: null\nc: True\nd: 0o17\ne: 0x1F\nf: 1e3\ng: .5\nh: -.inf\ni: .NaN\nj: 007\nk: 1.50\nl: 2026-01-01\nm: "4"\nn:\n',
      { a: null, b: null, c: true, d: 15, e: 31, f: 1000, g: 0.5, h: -Infinity, i: NaN, j: 7, k: 1.5, l: '2026-01-01', m: '4', n: null },
    ],
    ['quoted scalars with escapes', 'a: "x\\"y\\\\z\\n\\u00e9"\nb: \'it\'\'s\'\n"c d": e\n', { a: 'x"y\\z\né', b: "it's", 'c d': 'e' }],
    [
      'plain scalars with colons, slashes and hashes',
      'image: registry.example/a:1.0\nurl: http://x/#top\nkey: a#b\n',
      { image: 'registry.example/a:1.0', url: 'http://x/#top', key: 'a#b' },
    ],
    ['CRLF line ends', 'a: 1\r\nb:\r\n  c: d\r\n', { a: 1, b: { c: 'd' } }],
    ['no newline at the end', 'a: 1\nb: two', { a: 1, b: 'two' }],
    ['block scalars', 'a: |\n  text\n', { a: 'text\n' }],
    ['multi-line plain scalars', 'a: one\n  two\n', { a: 'one two' }],
    ['multi-line quoted scalars', 'a: "one\n  two"\n', { a: 'one two' }],
  ];
  for (const [what, text, value] of read) {
    it(`reads ${what} as yaml does`, () => {
      assert.ok(agrees(text, what), 'not read by the fast path');
      assert.deepEqual(fastParse(text)?.value, value);
    });
  }

  const left: Array<[what: string, text: string]> = [
    ['anchors and aliases', 'a: &x 1\nb: *x\n'],
    ['merge keys', 'a: { b: 1 }\nc:\n  <<: { b: 2 }\n'],
    ['tags', 'a: !!str 1\n'],
    ['multi-line flow collections', 'a: [1,\n  2]\n'],
    ['duplicate keys (yaml reports them)', 'a: 1\na: 2\n'],
    ['keys that are not strings', 'true: 1\n'],
    ['tabs', 'a:\n\tb: 1\n'],
    ['a second document', 'a: 1\n---\nb: 2\n'],
    ['a document end marker', 'a: 1\n...\n'],
    ['directives', '%YAML 1.2\n---\na: 1\n'],
    ['a scalar document', '---\njust text\n'],
    ['an empty document', '---\n# only a comment\n'],
    ['a value after the marker', '--- { a: 1 }\n'],
    ['a pair in a flow sequence', 'a: [b: c]\n'],
    ['a mapping value on the key’s line', 'a: b: c\n'],
    ['__proto__', '__proto__: x\n'],
    ['a comment indented after the last line', 'a:\n  b: 1\n  # c\n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
  ];
  for (const [what, text] of left) {
    it(`leaves ${what} to yaml`, () => assert.equal(fastParse(text), undefined));
  }

  it('reads every document of the examples and fixtures as yaml does (LF and CRLF), and most of them', () => {
    let chunks = 0;
    let fast = 0;
    for (const file of [...yamlFiles(path.join(ROOT, 'examples')), ...yamlFiles(path.join(ROOT, 'test/fixtures'))]) {
      const text = readFileSync(file, 'utf8');
      for (const variant of [text, text.replace(/\r?\n/g, '\r\n')]) {
        for (const chunk of splitDocuments(variant)) {
          chunks++;
          if (agrees(chunk.text, path.relative(ROOT, file))) fast++;
        }
      }
    }
    assert.ok(chunks > 100 && fast > chunks / 2, `${fast} of ${chunks} documents read fast`);
  });

  it('reads every document of the 5,000-node workspace', () => {
    for (const [name, text] of Object.entries(scaleWorkspaceFiles())) {
      const chunks = splitDocuments(text);
      const unread = chunks.filter((c) => !agrees(c.text, name)).length;
      assert.equal(unread, 0, `${unread} of ${chunks.length} documents of ${name} left to yaml`);
    }
  });

  it('agrees with yaml on 3,000 random documents', () => {
    const random = seededRandom(20261127);
    let fast = 0;
    for (let i = 0; i < 3000; i++) {
      const text = (random.int(3) === 0 ? '---\n' : '') + randomMapping(random, 0, 0);
      if (agrees(random.int(5) === 0 ? text.replace(/\n/g, '\r\n') : text, `random document ${i}`)) fast++;
    }
    assert.ok(fast > 300, `${fast} of 3000 read fast`);
  });

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
      if (expected === undefined) assert.equal(fastParse(text), undefined);
      else {
        assert.ok(agrees(text, what), 'not read by the fast path');
        assert.deepEqual(fastParse(text)?.value, expected);
      }
    });
  }

  it('reads every example and fixture document (YAML and JSON) as yaml does, and nearly all of them', () => {
    let fast = 0;
    let all = 0;
    for (const file of [...manifestFiles(path.join(ROOT, 'examples')), ...manifestFiles(path.join(ROOT, 'test/fixtures'))]) {
      for (const chunk of splitDocuments(readFileSync(file, 'utf8'))) {
        all++;
        if (agrees(chunk.text, `${path.relative(ROOT, file)} at ${chunk.offset}`)) fast++;
      }
    }
    assert.ok(fast > all * 0.9, `${fast} of ${all} read by the fast path`);
  });

  it('agrees with yaml on random documents in every style yaml writes (LF and CRLF), and on mutilated ones gives up wherever yaml finds an error', () => {
    const random = seededRandom(25);
    const choose = <T>(list: readonly T[]): T => list[Math.floor(random.next() * list.length)] as T;
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
        return choose<unknown>([choose(words), Math.floor(random.next() * 1000) - 500, random.next() * 10, true, false, null]);
      if (r < 0.7)
        return Object.fromEntries(
          Array.from({ length: Math.floor(random.next() * 4) }, () => [choose(words.filter((w) => !w.includes('\n'))), value(depth + 1)]),
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
          lineWidth: choose([0, 20, 80]),
          minContentWidth: 0,
          indentSeq: random.next() < 0.5,
          defaultStringType: choose(['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL'] as const),
          collectionStyle: choose(['any', 'flow'] as const),
        },
      );
      const mutilate = n % 2 === 1;
      if (mutilate) {
        const at = Math.floor(random.next() * text.length);
        text =
          random.next() < 0.5
            ? text.slice(0, at) + choose(cuts) + text.slice(at)
            : text.slice(0, at) + text.slice(at + 1 + Math.floor(random.next() * 3));
      }
      // Every fifth pair with CRLF line ends.
      if (n % 10 >= 8) text = text.replace(/\n/g, '\r\n');
      if (!agrees(text, `stringified document ${n}`)) continue;
      if (mutilate) readMutilated++;
      else read++;
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

  it("gives a CRLF List's items and range where they are in the CRLF text", () => {
    const text = 'apiVersion: v1\r\nitems:\r\n- kind: Node\r\n  metadata: { name: a }\r\n\r\n- kind: Pod\r\nkind: List\r\n';
    assert.ok(agrees(text, 'a CRLF List'));
    assert.deepEqual(
      fastParse(text)?.items?.ranges.map(([s, e]) => text.slice(s, e)),
      ['- kind: Node\r\n  metadata: { name: a }', '- kind: Pod'],
    );
  });

  it('tells how far it got, about every megabyte, in order', () => {
    const item = '- kind: Pod\n  metadata:\n    name: p\n    labels: { app: a }\n';
    const text = `kind: List\nitems:\n${item.repeat(Math.ceil((3 << 20) / item.length))}`;
    const offsets: number[] = [];
    assert.ok(fastParse(text, (offset) => offsets.push(offset)));
    assert.ok(offsets.length >= 2 && offsets.length <= 3, `${offsets.length} reports`);
    assert.deepEqual(
      offsets,
      [...offsets].sort((a, b) => a - b),
    );
    assert.ok(offsets.every((o) => o > 0 && o < text.length));
  });
});

const pick = <T>(random: Random, items: readonly T[]): T => items[random.int(items.length)] as T;

/** Scalars as people write them, with the core schema's edge cases and a few the fast path must leave. */
const SCALARS = [
  'v1',
  'Node',
  '4',
  '"4"',
  "'4'",
  '100m',
  '1.5Gi',
  '-3',
  '+7',
  '0o17',
  '0o8',
  '0x1f',
  '1e3',
  '.5',
  '1.',
  '.inf',
  '-.Inf',
  '.nan',
  'null',
  '~',
  'Null',
  'true',
  'False',
  'TRUE',
  'yes',
  'no',
  'on',
  '2026-11-27',
  '"a \\"b\\""',
  "'it''s'",
  'a b',
  'a:b',
  'http://x:80/p',
  'a#b',
  'é',
  '"\\u00e9"',
  '"tab\\tx"',
  '- x',
  '? x',
  ': x',
  '[a, b]',
  '[a, [b, c], {d: e}]',
  '{a: 1, b: "2"}',
  '{}',
  '[]',
  '&a x',
  '*a',
  '!t x',
  '|',
  '>-',
  '"open',
  'a: b',
  'x # comment',
  '@x',
  '`x`',
  '%x',
];
const KEYS = ['name', 'app', 'a b', 'planner.ciena.io/pod-set', '"quoted key"', "'single'", 'true', '1', 'null', '<<', 'x:y', '-k', 'k#'];

function randomMapping(random: Random, indent: number, depth: number): string {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  const used = new Set<string>();
  for (let n = 1 + random.int(4); n > 0; n--) {
    let key = pick(random, KEYS);
    if (used.has(key) && random.int(4) > 0) key = `${key}${n}`;
    used.add(key);
    const comment = random.int(8) === 0 ? ' # note' : '';
    const shape = depth < 3 ? random.int(6) : 0;
    if (shape === 1) lines.push(`${pad}${key}:${comment}\n${randomMapping(random, indent + 2, depth + 1)}`);
    else if (shape === 2)
      lines.push(`${pad}${key}:${comment}\n${randomSequence(random, random.int(2) === 0 ? indent : indent + 2, depth + 1)}`);
    else if (shape === 3) lines.push(`${pad}${key}:${comment}\n`);
    else lines.push(`${pad}${key}: ${pick(random, SCALARS)}${comment}\n`);
    if (random.int(10) === 0) lines.push(random.int(2) === 0 ? '\n' : `${pad}# between\n`);
  }
  return lines.join('');
}

function randomSequence(random: Random, indent: number, depth: number): string {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  for (let n = 1 + random.int(3); n > 0; n--) {
    const shape = depth < 3 ? random.int(3) : 0;
    if (shape === 1) {
      const inner = randomMapping(random, indent + 2, depth + 1);
      lines.push(`${pad}- ${inner.slice(indent + 2)}`);
    } else if (shape === 2) lines.push(`${pad}-\n${randomMapping(random, indent + 2, depth + 1)}`);
    else lines.push(`${pad}- ${pick(random, SCALARS)}\n`);
  }
  return lines.join('');
}
