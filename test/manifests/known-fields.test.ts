import assert from 'node:assert/strict';
import { readFile } from '../../src/manifests';

/** code, severity, path and line of each problem of one file. */
const problems = (text: string) =>
  readFile({ name: 'm.yaml', text }).errors.map((e) => [e.code, e.severity, e.path ?? '', e.range.start.line]);

describe('manifests/known-fields: validation like kubectl', () => {
  const table: Array<[what: string, text: string, expected: unknown[]]> = [
    ['a known kind of a custom group is not judged', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: { name: w }\n', []],
    [
      'a misspelt built-in kind, with a suggestion',
      'apiVersion: apps/v1\nkind: Deploymnet\nmetadata: { name: w }\n',
      [['unknown-kind', 'warning', 'kind', 2]],
    ],
    [
      'a kind without apiVersion is judged against every built-in group',
      'kind: Nodee\nmetadata: { name: n }\n',
      [['unknown-kind', 'warning', 'kind', 1]],
    ],
    ['kinds Podplan does not read but Kubernetes has are fine', 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }\n', []],
    [
      'an unknown field deep in a pod, at its key',
      'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec:\n  containers:\n    - name: main\n      resourcez: {}\n',
      [['unknown-field', 'warning', 'spec.containers[0].resourcez', 7]],
    ],
    [
      'fields scheduling ignores are known (volumes, probes, managedFields)',
      'apiVersion: v1\nkind: Pod\nmetadata: { name: p, managedFields: [] }\nspec:\n  volumes: [{ name: v, emptyDir: {} }]\n  containers:\n    - name: main\n      livenessProbe: { exec: { command: [true] } }\n',
      [],
    ],
    [
      'an invalid name and namespace are errors',
      'apiVersion: v1\nkind: Node\nmetadata: { name: Node_1, namespace: Not.A.Label }\n',
      [
        ['invalid-name', 'error', 'metadata.name', 3],
        ['invalid-name', 'error', 'metadata.namespace', 3],
      ],
    ],
  ];
  for (const [what, text, expected] of table)
    it(what, () =>
      assert.deepEqual(
        problems(text).filter(([code]) => code !== 'missing-field'),
        expected,
      ),
    );

  describe('label keys and values as the API server validates them (IsQualifiedName, IsValidLabelValue)', () => {
    const pod = (labels: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: ${labels}\nspec: { containers: [{ name: c }] }\n`;
    const labels: Array<[what: string, labels: string, expected: unknown[]]> = [
      [
        'prefixed keys, dots, dashes, underscores, an empty value, 63 characters',
        `{ app.kubernetes.io/name: web, a_b-c.d: "", x: ${'v'.repeat(63)} }`,
        [],
      ],
      ['a value with a space', '{ release: Spring 2026 }', [['invalid-label', 'error', 'metadata.labels.release', 5]]],
      ['a value of 64 characters', `{ x: ${'v'.repeat(64)} }`, [['invalid-label', 'error', 'metadata.labels.x', 5]]],
      ['a value starting with -', '{ v: -g1a2b3c }', [['invalid-label', 'error', 'metadata.labels.v', 5]]],
      ['a key with two slashes', '{ a/b/c: x }', [['invalid-label', 'error', 'metadata.labels["a/b/c"]', 5]]],
      ['an upper-case prefix', '{ Example.com/x: y }', [['invalid-label', 'error', 'metadata.labels["Example.com/x"]', 5]]],
      ['an empty name part', '{ example.com/: y }', [['invalid-label', 'error', 'metadata.labels["example.com/"]', 5]]],
    ];
    for (const [what, text, expected] of labels) it(what, () => assert.deepEqual(problems(pod(text)), expected));
  });

  it('a misspelling gets the nearest field name in its message', () => {
    const [error] = readFile({
      name: 'm.yaml',
      text: 'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec:\n  nodeSelectr: { a: b }\n  containers: [{ name: main }]\n',
    }).errors;
    assert.equal(error?.message, 'unknown field "nodeSelectr" (did you mean "nodeSelector"?); it is ignored');
  });

  it('an alias that holds itself is reported by the decoder, not walked forever', () => {
    for (const metadata of ['&a [*a]', '&a { name: p, labels: *a }']) {
      const found = problems(`apiVersion: v1\nkind: Pod\nmetadata: ${metadata}\nspec:\n  containers: [{ name: main }]\n`);
      assert.ok(found.length > 0, metadata);
    }
  });
});
