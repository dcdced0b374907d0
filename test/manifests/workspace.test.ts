import assert from 'node:assert/strict';
import { podKey } from '../../src/engine/api/types';
import { combine, errorMessage, formatError, readFile, readSnapshot, type ManifestError } from '../../src/manifests';
import { at, covered, fixture } from './fixtures';

const brief = (e: ManifestError): string => `${e.severity} ${e.code} ${at(e.range)}`;

describe('manifests/workspace', () => {
  describe('a file with one broken document', () => {
    const file = fixture('broken.yaml');
    const model = readFile(file);

    it('reads the other documents', () => {
      assert.deepEqual(
        model.nodes.map((n) => n.value.metadata.name),
        ['node-a'],
      );
      assert.deepEqual(
        model.pods.map((p) => p.value.metadata.name),
        ['fine'],
      );
      assert.equal(model.documents.length, 4);
    });

    it('reports the YAML syntax errors where the parser stopped, and the bad quantity where it is written', () => {
      assert.deepEqual(model.errors.map(brief), ['error yaml-syntax 14:1', 'error yaml-syntax 14:1', 'error bad-quantity 24:16']);
      const quantity = model.errors[2];
      assert.ok(quantity);
      assert.equal(covered(file.text, quantity.range), '2 cores');
      assert.equal(quantity.path, 'spec.containers[0].resources.requests.cpu');
      assert.match(quantity.message, /^"2 cores" is not a quantity/);
    });

    it('prints errors the way compilers do', () => {
      assert.equal(
        formatError(model.errors[2] as ManifestError),
        'broken.yaml:24:16: error bad-quantity: spec.containers[0].resources.requests.cpu: "2 cores" is not a quantity (examples: 100m, 0.5, 1Gi, 500Mi, 1e3)',
      );
    });
  });

  describe('bad objects give located errors and are left out', () => {
    const table: Array<[what: string, yaml: string, expected: string[]]> = [
      ['no kind', 'apiVersion: v1\nmetadata: { name: x }\n', ['error missing-field 1:1']],
      ['a list, not an object', '- a\n- b\n', ['error wrong-type 1:1']],
      ['no name', 'apiVersion: v1\nkind: Pod\nmetadata: {}\nspec: { containers: [{ name: a }] }\n', ['error missing-field 3:1']],
      ['no containers', 'apiVersion: v1\nkind: Pod\nmetadata: { name: x }\nspec: { containers: [] }\n', ['error missing-field 4:9']],
      [
        'a number where a string goes',
        'apiVersion: v1\nkind: Pod\nmetadata: { name: x, labels: { v: 1 } }\nspec: { containers: [{ name: a }] }\n',
        ['error wrong-type 3:35'],
      ],
      [
        'a negative request',
        'apiVersion: v1\nkind: Pod\nmetadata: { name: x }\nspec: { containers: [{ name: a, resources: { requests: { memory: -1Gi } } }] }\n',
        ['error bad-quantity 4:66'],
      ],
      [
        'an unknown operator',
        'apiVersion: v1\nkind: Pod\nmetadata: { name: x }\nspec: { containers: [{ name: a }], tolerations: [{ operator: exists }] }\n',
        ['error bad-value 4:62'],
      ],
      [
        'a weight out of range',
        'apiVersion: v1\nkind: Pod\nmetadata: { name: x }\nspec:\n  containers: [{ name: a }]\n  affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }] } }\n',
        ['error bad-value 6:91'],
      ],
    ];
    for (const [what, yaml, expected] of table) {
      it(what, () => {
        const m = readFile({ name: 'x.yaml', text: yaml });
        assert.deepEqual(m.errors.map(brief), expected);
        assert.equal(m.pods.length + m.nodes.length, 0);
      });
    }

    it('says which value was meant when only the case is wrong', () => {
      const m = readFile({
        name: 'x.yaml',
        text: 'apiVersion: v1\nkind: Node\nmetadata: { name: n }\nspec: { taints: [{ key: k, effect: noschedule }] }\n',
      });
      assert.equal(m.errors[0]?.message, '"noschedule" is not one of NoSchedule, PreferNoSchedule, NoExecute (did you mean NoSchedule?)');
    });
  });

  describe('warnings keep the object', () => {
    it('a known kind under another apiVersion is read as the known one', () => {
      const m = readFile({
        name: 'x.yaml',
        text: 'apiVersion: apps/v1\nkind: Pod\nmetadata: { name: x }\nspec: { containers: [{ name: a }] }\n',
      });
      assert.deepEqual(m.errors.map(brief), ['warning bad-api-version 1:13']);
      assert.equal(m.pods.length, 1);
    });

    it('a node without allocatable or capacity is read, with a warning that nothing fits on it', () => {
      const m = readFile({ name: 'x.yaml', text: 'apiVersion: v1\nkind: Node\nmetadata: { name: n }\n' });
      assert.deepEqual(m.errors.map(brief), ['warning missing-field 1:1']);
      assert.equal(m.nodes.length, 1);
    });
  });

  it('reads the items of a kubectl List where they stand', () => {
    const text = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Node
    metadata: { name: n1 }
    status: { allocatable: { cpu: "2", pods: "10" } }
  - apiVersion: v1
    kind: Node
    metadata: { name: n2 }
    status: { allocatable: { cpu: two } }
`;
    const m = readFile({ name: 'list.yaml', text });
    assert.deepEqual(
      m.nodes.map((n) => [n.value.metadata.name, n.base]),
      [['n1', 'items[0]']],
    );
    assert.deepEqual(
      m.errors.map((e) => [e.path, at(e.range)]),
      [['items[1].status.allocatable.cpu', '11:35']],
    );
  });

  it('counts objects of other kinds without reading them', () => {
    const m = readFile({
      name: 'x.yaml',
      text: 'apiVersion: v1\nkind: Service\nmetadata: { name: web, namespace: shop }\n---\nkind: ConfigMap\n',
    });
    assert.deepEqual(
      m.others.map((o) => o.value),
      [{ apiVersion: 'v1', kind: 'Service', name: 'web', namespace: 'shop' }, { kind: 'ConfigMap' }],
    );
    assert.deepEqual(m.errors, []);
  });

  it('skips empty documents and comment-only documents', () => {
    const m = readFile({ name: 'x.yaml', text: '# nothing here\n---\n---\n# still nothing\n' });
    assert.deepEqual(m.errors, []);
    assert.equal(m.others.length + m.nodes.length + m.pods.length, 0);
  });

  describe('a large kubectl List (the fast path) gives the objects and locations a small one does', () => {
    const item = (i: number, extra = '') =>
      `- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p-${i}\n    namespace: ns\n  spec:\n    containers:\n    - name: main\n      resources:\n        requests: { cpu: 100m }\n${extra}`;
    const items = Array.from({ length: 12000 }, (_, i) =>
      item(i, i === 7000 ? '    nodeSelectr: {}\n' : i === 9000 ? '    priority: 1\n    overhead: { cpu: 2 cores }\n' : ''),
    );
    const yamlText = `apiVersion: v1\nitems:\n${items.join('')}kind: List\nmetadata: {}\n`;
    const position = (text: string, needle: string, from = 0) => {
      const offset = text.indexOf(needle, from);
      const before = text.slice(0, offset);
      return `${before.split('\n').length}:${offset - before.lastIndexOf('\n')}`;
    };

    it('reads every item, and locates an unknown field at its key and a bad quantity at its value', () => {
      assert.ok(yamlText.length > 1 << 20);
      const model = readFile({ name: 'dump.yaml', text: yamlText });
      assert.equal(model.pods.length, 11999, 'all but the one with the bad quantity');
      assert.deepEqual(model.errors.map(brief), [
        `warning unknown-field ${position(yamlText, 'nodeSelectr')}`,
        `error bad-quantity ${position(yamlText, '2 cores')}`,
      ]);
      const source = model.documents[0]?.source;
      assert.equal(source?.pathAt(yamlText.indexOf('nodeSelectr') + 2), 'items[7000].spec.nodeSelectr');
      // A field that is not written is shown at its nearest written ancestor, inside the item.
      const at = source?.locate('items[7000].spec.nodeSelectr.disk');
      assert.equal(`${at?.start.line}:${at?.start.column}`, position(yamlText, '{}', yamlText.indexOf('nodeSelectr')));
    });

    it('the same as JSON (kubectl get -o json)', () => {
      const jsonText = JSON.stringify(
        {
          apiVersion: 'v1',
          items: Array.from({ length: 12000 }, (_, i) => ({
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: { name: `p-${i}`, namespace: 'ns' },
            spec: { containers: [{ name: 'main' }], ...(i === 7000 ? { nodeSelectr: {} } : {}) },
          })),
          kind: 'List',
        },
        null,
        4,
      );
      const model = readFile({ name: 'dump.json', text: jsonText });
      assert.equal(model.pods.length, 12000);
      assert.deepEqual(model.errors.map(brief), [`warning unknown-field ${position(jsonText, '"nodeSelectr"')}`]);
      assert.equal(model.documents[0]?.source.pathAt(jsonText.indexOf('"nodeSelectr"') + 2), 'items[7000].spec.nodeSelectr');
    });
  });

  describe('combining files', () => {
    const nodes = {
      name: 'nodes.yaml',
      text: 'apiVersion: v1\nkind: Node\nmetadata: { name: n1 }\nstatus: { allocatable: { cpu: "4", pods: "10" } }\n',
    };
    const more = {
      name: 'more.yaml',
      text: `${nodes.text}---\napiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec: { nodeName: n1, containers: [{ name: a }] }\n`,
    };

    it('keeps the first of two objects with the same name and reports the second where it is', () => {
      const m = readSnapshot([nodes, more]);
      assert.equal(m.nodes.length, 1);
      assert.equal(m.nodes[0]?.file, 'nodes.yaml');
      assert.deepEqual(
        m.errors.map((e) => [e.code, e.range.file, at(e.range)]),
        [['duplicate-name', 'more.yaml', '3:19']],
      );
      const [error] = m.errors;
      assert.ok(error);
      // The first one's place travels as data; the text naming it is made where it is shown.
      assert.deepEqual([error.related?.range.file, error.related && at(error.related.range)], ['nodes.yaml', '3:19']);
      assert.equal(error.message, 'node "n1" is already defined');
      assert.equal(errorMessage(error), 'node "n1" is already defined at nodes.yaml:3:19; this one is left out');
      assert.equal(
        errorMessage(error, (f) => `<${f}>`),
        'node "n1" is already defined at <nodes.yaml>:3:19; this one is left out',
      );
      assert.equal(
        formatError(error),
        'more.yaml:3:19: error duplicate-name: metadata.name: node "n1" is already defined at nodes.yaml:3:19; this one is left out',
      );
    });

    it('gives the engine its snapshot: nodes and pods', () => {
      const m = readSnapshot([more]);
      assert.deepEqual(
        m.cluster.nodes.map((n) => n.metadata.name),
        ['n1'],
      );
      assert.deepEqual(m.cluster.pods.map(podKey), ['default/p']);
    });

    it('combines files read separately, so an edit re-reads one file only', () => {
      const a = readFile(nodes);
      const b = readFile(more);
      const before = combine([a, b]);
      const after = combine([a, readFile({ ...more, text: more.text.replace('name: p', 'name: q') }, b)]);
      assert.deepEqual(before.cluster.pods.map(podKey), ['default/p']);
      assert.deepEqual(after.cluster.pods.map(podKey), ['default/q']);
      assert.equal(after.nodes[0]?.value, before.nodes[0]?.value);
    });
  });

  describe('pods get their priority as admission gives it, for every reader of the workspace', () => {
    const classes = [
      'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: urgent }\nvalue: 1000\npreemptionPolicy: Never\n',
      'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: usual }\nvalue: 10\nglobalDefault: true\n',
    ].join('---\n');
    const pod = (name: string, spec: string) =>
      `---\napiVersion: v1\nkind: Pod\nmetadata: { name: ${name} }\nspec: { ${spec}containers: [{ name: a }] }\n`;
    const table: Array<[name: string, spec: string, priority: number | undefined, policy: string | undefined]> = [
      ['the named class', 'priorityClassName: urgent, ', 1000, 'Never'],
      ['the globalDefault class when none is named', '', 10, 'PreemptLowerPriority'],
      ['a system class, which every cluster has', 'priorityClassName: system-node-critical, ', 2000001000, 'PreemptLowerPriority'],
      ['spec.priority kept as written (a live cluster’s pod)', 'priority: 7, priorityClassName: urgent, ', 7, undefined],
    ];
    for (const [name, spec, priority, policy] of table) {
      it(name, () => {
        const m = readSnapshot([{ name: 'c.yaml', text: classes + pod('p', spec) }]);
        const [located] = m.pods;
        assert.deepEqual([located?.value.spec.priority, located?.value.spec.preemptionPolicy], [priority, policy]);
        assert.equal(m.cluster.pods[0], located?.value, 'the snapshot holds the same admitted pod');
        assert.deepEqual(m.errors, []);
      });
    }

    it('a class that does not exist: the pod is kept as written, with admission’s refusal as a warning at the name, once per template', () => {
      const deployment =
        '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec:\n  replicas: 3\n  selector: { matchLabels: { app: web } }\n  template:\n    metadata: { labels: { app: web } }\n    spec: { priorityClassName: nope, containers: [{ name: a }] }\n';
      const m = readSnapshot([{ name: 'c.yaml', text: pod('p', 'priorityClassName: nope, ').slice(4) + deployment }]);
      assert.equal(m.cluster.pods.length, 4);
      assert.equal(m.pods[0]?.value.spec.priority, undefined);
      assert.deepEqual(
        m.errors.map((e) => [e.severity, e.code, at(e.range), e.message]),
        [
          ['warning', 'refused', '4:28', 'pods "p" is forbidden: no PriorityClass with name nope was found'],
          ['warning', 'refused', '14:32', m.errors[1]?.message ?? ''],
        ],
      );
      assert.match(m.errors[1]?.message ?? '', /^pods "web-[a-z0-9-]+" is forbidden: no PriorityClass with name nope was found$/);
    });
  });

  describe('never throws, whatever the input', () => {
    const seeds = [fixture('pod.yaml').text, fixture('workloads.yaml').text, fixture('planner.yaml').text, fixture('daemonset.yaml').text];
    const odd = [
      '',
      '\u0000',
      '\uFEFF',
      '---',
      '...',
      '%YAML 1.2\n---\n',
      '&a [*a]',
      '*nope',
      '{',
      ']',
      'key: |\n  ---\n',
      '\t- x',
      'é: ü\n',
      '9'.repeat(400),
      '"\\u',
    ];
    const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    const aliases =
      'a: &a [x, x, x, x, x, x, x, x, x]\n' +
      Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ).join('\n');

    it('truncations, insertions, deep nesting and alias bombs give errors, not exceptions', () => {
      // A fixed linear congruential sequence: the same mutations on every run.
      let state = 42;
      const next = (n: number): number => (state = (state * 1103515245 + 12345) % 2147483648) % Math.max(n, 1);
      const inputs = [deep(1000), aliases, ...odd];
      for (const seed of seeds) {
        for (let i = 0; i < 25; i++) {
          const cut = next(seed.length);
          const insert = odd[next(odd.length)] ?? '';
          inputs.push(seed.slice(0, cut), seed.slice(0, cut) + insert + seed.slice(cut + next(20)));
        }
      }
      let errors = 0;
      for (const text of inputs) {
        const m = readSnapshot([{ name: 'fuzz.yaml', text }]);
        errors += m.errors.length;
        for (const e of m.errors) assert.ok(e.range.start.line >= 1 && e.range.start.offset <= text.length, formatError(e));
      }
      assert.ok(errors > 0);
    });

    it('an alias bomb is refused with a located error', () => {
      const m = readFile({ name: 'bomb.yaml', text: aliases });
      assert.equal(m.errors[0]?.code, 'yaml-syntax');
      assert.match(m.errors[0]?.message ?? '', /alias/i);
    });
  });
});
