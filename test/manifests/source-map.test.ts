import assert from 'node:assert/strict';
import { concatPath, fieldRange, joinPath, readFile, splitPath } from '../../src/manifests';
import { at, covered, fixture } from './fixtures';

describe('manifests/source-map', () => {
  describe('paths', () => {
    const table: Array<[segments: Array<string | number>, path: string]> = [
      [['spec', 'containers', 0, 'resources', 'requests', 'cpu'], 'spec.containers[0].resources.requests.cpu'],
      [['metadata', 'labels', 'planner.ciena.io/pod-set'], 'metadata.labels["planner.ciena.io/pod-set"]'],
      [['status', 'allocatable', 'ephemeral-storage'], 'status.allocatable.ephemeral-storage'],
      [['items', 2, 'a "quoted] key'], 'items[2]["a \\"quoted] key"]'],
    ];
    for (const [segments, path] of table) {
      it(`${JSON.stringify(segments)} is written ${path} and split back`, () => {
        assert.equal(
          segments.reduce<string>((p, s) => joinPath(p, s), ''),
          path,
        );
        assert.deepEqual(splitPath(path), segments);
      });
    }

    it('joins a path relative to an object onto where the object is', () => {
      assert.equal(concatPath('spec.template', 'spec.containers[0]'), 'spec.template.spec.containers[0]');
      assert.equal(concatPath('items[1]', '[0]'), 'items[1][0]');
      assert.equal(concatPath('', 'spec'), 'spec');
      assert.equal(concatPath('items[1]', ''), 'items[1]');
    });

    it('refuses text that is not such a path', () => {
      for (const bad of ['.spec', 'spec[x]', 'spec["open', 'a..b', 'spec[0']) assert.equal(splitPath(bad), undefined, bad);
    });
  });

  describe('every field keeps its file, line and column', () => {
    const file = fixture('pod.yaml');
    const model = readFile(file);
    const pod = model.pods[0];
    assert.ok(pod);

    const table: Array<[path: string, position: string, text: string]> = [
      ['', '2:1', file.text.slice(file.text.indexOf('apiVersion'), file.text.length - 1)],
      ['metadata.name', '5:9', 'web'],
      ['metadata.labels["planner.ciena.io/pod-set"]', '9:31', 'checkout'],
      ['spec.containers[0].resources.requests.cpu', '17:16', '250m'],
      ['spec.containers[1].resources.requests.memory', '21:39', '64Mi'],
      ['spec.tolerations[0].effect', '26:15', 'NoSchedule'],
    ];
    for (const [path, position, text] of table) {
      it(`${path || '(the object)'} is at pod.yaml:${position}`, () => {
        const range = fieldRange(pod, path);
        assert.equal(range.file, 'pod.yaml');
        assert.equal(at(range), position);
        assert.equal(covered(file.text, range), text);
      });
    }

    it('a field that is not written is shown at its nearest written ancestor', () => {
      assert.equal(covered(file.text, fieldRange(pod, 'spec.containers[1].resources.limits.cpu')), 'requests: { cpu: 50m, memory: 64Mi }');
      assert.equal(pod.source.nearestPath('spec.containers[1].resources.limits.cpu'), 'spec.containers[1].resources');
      assert.equal(pod.source.has('spec.containers[1].resources.limits'), false);
    });

    it('a map entry also has the range of its key', () => {
      const key = pod.source.keyRange('spec.containers[0].resources');
      assert.ok(key);
      assert.equal(covered(file.text, key), 'resources');
      assert.equal(pod.source.keyRange('spec.containers[0]'), undefined, 'list items have no key');
    });

    it('finds the field under an offset, for hover and completion', () => {
      const offsetOf = (needle: string): number => file.text.indexOf(needle) + 1;
      assert.equal(pod.source.pathAt(offsetOf('250m')), 'spec.containers[0].resources.requests.cpu');
      assert.equal(pod.source.pathAt(offsetOf('schedulerName')), 'spec.schedulerName');
      assert.equal(pod.source.pathAt(offsetOf('dedicated')), 'spec.tolerations[0].key');
      assert.equal(pod.source.pathAt(0), undefined, 'the leading comment is outside the document');
    });

    it('an empty value is shown at its key, a missing-field error on one line', () => {
      const text = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n';
      const m = readFile({ name: 'empty.yaml', text });
      const [error] = m.errors;
      assert.ok(error);
      assert.equal(error.code, 'missing-field');
      assert.equal(covered(text, error.range), 'spec');
    });
  });

  it('positions stay right when an earlier document changes and the later ones are reused', () => {
    const doc = 'apiVersion: v1\nkind: Node\nmetadata:\n  name: n\nstatus:\n  allocatable: { cpu: "1", pods: "10" }\n';
    const first = readFile({ name: 'f.yaml', text: `${doc}---\n${doc.replace('name: n', 'name: m')}` });
    const edited = `# a comment\n# another\n${doc}---\n${doc.replace('name: n', 'name: m')}`;
    const second = readFile({ name: 'f.yaml', text: edited }, first);
    const [n, m] = second.nodes;
    assert.ok(n && m);
    assert.equal(m.value, first.nodes[1]?.value, 'the unchanged document is not parsed again');
    assert.notEqual(n.value, first.nodes[0]?.value);
    assert.equal(at(fieldRange(m, 'metadata.name')), '13:9');
    assert.equal(covered(edited, fieldRange(m, 'metadata.name')), 'm');
  });
});
