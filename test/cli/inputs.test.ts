import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { useTempDir } from '../store/helpers';
import { ManualClock } from '../../src/engine/api/clock';
import { cli } from './run-cli';
import { runPodplan } from './run-cli-process';

const NODE = `apiVersion: v1
kind: Node
metadata: { name: n1 }
status: { allocatable: { cpu: "4", memory: 8Gi, pods: "110" } }
`;

describe('cli inputs (child process)', () => {
  const dir = useTempDir();

  describe('a kubectl dump (kubectl get deploy,rs,pods -o yaml)', () => {
    it('takes the pods that exist as they are and makes up none for the Deployment and its ReplicaSet', async () => {
      const { code, stdout, stderr } = await runPodplan(['schedule', 'test/fixtures/kubectl', '--no-history']);
      assert.equal(code, 0, stderr);
      assert.equal(stderr, '', 'a real dump reads without a warning');
      assert.match(stdout, /^shop\/web-5d9f8c7b6-q2w8r\s+worker-2\s+\d+$/m);
      assert.match(stdout, /^1 of 1 pending pods placed\.$/m);
      assert.doesNotMatch(stdout, /\*/);
    });

    it('makes up pods only for the replicas without one, marked as made up', async () => {
      const file = path.join(dir.path, 'scaled.yaml');
      const dump = (await import('node:fs'))
        .readFileSync('test/fixtures/kubectl/deploy-rs-pods.yaml', 'utf8')
        .replaceAll('replicas: 3', 'replicas: 5');
      writeFileSync(file, dump);
      const { code, stdout } = await runPodplan(['schedule', file, 'test/fixtures/kubectl/nodes.yaml', '--json', '--no-history']);
      assert.equal(code, 0, stdout);
      const outcomes = stdout
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; pod: string; generated?: boolean })
        .filter((o) => o.type === 'outcome');
      assert.deepEqual(
        outcomes.map((o) => [o.pod, o.generated ?? false]),
        [
          ['shop/web-5d9f8c7b6-0', true],
          ['shop/web-5d9f8c7b6-1', true],
          ['shop/web-5d9f8c7b6-q2w8r', false],
        ],
      );
    });
  });

  describe('validation like kubectl', () => {
    const BAD = `${NODE}---
apiVersion: v1
kind: Nodee
metadata: { name: n2 }
---
apiVersion: v1
kind: Pod
metadata: { name: p, labelz: { app: x } }
spec:
  nodeSelectr: { disk: ssd }
  containers:
    - name: main
      resourcez: { requests: { cpu: "1" } }
`;

    it('reports unknown kinds and fields as warnings at file:line:column, and schedules', async () => {
      const file = path.join(dir.path, 'bad.yaml');
      writeFileSync(file, BAD);
      const { code, stderr } = await runPodplan(['schedule', file, '--no-history']);
      assert.equal(code, 0, stderr);
      assert.deepEqual(stderr.trimEnd().split('\n'), [
        `${file}:7:7: warning unknown-kind: kind: "Nodee" is not a kind of v1 (did you mean Node?); the object is ignored`,
        `${file}:12:22: warning unknown-field: metadata.labelz: unknown field "labelz" (did you mean "labels"?); it is ignored`,
        `${file}:14:3: warning unknown-field: spec.nodeSelectr: unknown field "nodeSelectr" (did you mean "nodeSelector"?); it is ignored`,
        `${file}:17:7: warning unknown-field: spec.containers[0].resourcez: unknown field "resourcez" (did you mean "resources"?); it is ignored`,
      ]);
    });

    it('makes them errors under --strict (exit 2), all in one run', async () => {
      const file = path.join(dir.path, 'bad.yaml');
      writeFileSync(file, BAD);
      const { code, stderr } = await runPodplan(['schedule', file, '--strict', '--no-history']);
      assert.equal(code, 2);
      assert.equal(stderr.match(/ error unknown-(kind|field):/g)?.length, 4, stderr);
    });

    it('refuses an invalid name with its code', async () => {
      const file = path.join(dir.path, 'names.yaml');
      writeFileSync(file, NODE.replace('name: n1', 'name: Node_1'));
      const { code, stderr } = await runPodplan(['schedule', file, '--no-history']);
      assert.equal(code, 2);
      assert.match(stderr, /:3:19: error invalid-name: metadata\.name: "Node_1" is not a valid name/);
    });
  });

  it('shows progress on stderr while it reads a large file', async () => {
    const file = path.join(dir.path, 'large.yaml');
    writeFileSync(file, `${'# a comment line that pads the file out to a large size\n'.repeat(160_000)}${NODE}`);
    const { code, stderr } = await runPodplan(['schedule', file, '--no-history']);
    assert.equal(code, 0, stderr);
    assert.match(stderr, new RegExp(`^reading ${file} \\(8\\.5 MB\\)…\nread ${file}: 1 documents, 1 nodes, 0 pods in \\d+\\.\\d s$`, 'm'));
  });

  it('on a terminal, redraws how much of a large file is parsed while it parses, then finishes the line', async () => {
    // A kubectl List of 10 MB; the clock moves 250 ms each time it is read, so every progress call is drawn.
    const pods = Array.from(
      { length: 40000 },
      (_, i) =>
        `- apiVersion: v1\n  kind: Pod\n  metadata: { name: p-${i}, namespace: ns, annotations: { note: ${'x'.repeat(150)} } }\n  spec:\n    nodeName: n1\n    containers: [{ name: main }]\n`,
    );
    const text = `apiVersion: v1\nitems:\n- ${NODE.replaceAll('\n', '\n  ').trimEnd()}\n${pods.join('')}kind: List\n`;
    const clock = new (class extends ManualClock {
      override now(): number {
        this.advance(250);
        return super.now();
      }
    })();
    const { code, stderr } = await cli(['schedule', 'dump.yaml', '--no-history'], { 'dump.yaml': text }, {}, { interactive: true, clock });
    assert.equal(code, 0, stderr);
    const drawn = [...stderr.matchAll(/\rreading dump\.yaml \(\d+\.\d MB\)… (\d+)%/g)].map((m) => Number(m[1]));
    assert.ok(drawn.length >= 5, JSON.stringify(stderr.slice(0, 600)));
    assert.deepEqual(
      [...drawn].sort((a, b) => a - b),
      drawn,
      'rising',
    );
    assert.match(
      stderr,
      /^reading dump\.yaml \(\d+\.\d MB\)…(\r.*)*\rreading dump\.yaml \(\d+\.\d MB\)… done\nread dump\.yaml: 1 documents, 1 nodes, 40000 pods in \d+\.\d s\n/,
    );
  });

  describe('directories', () => {
    it('reads .json files and reports a symbolic link loop', async () => {
      const root = path.join(dir.path, 'ws');
      mkdirSync(path.join(root, 'sub'), { recursive: true });
      writeFileSync(
        path.join(root, 'nodes.json'),
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: 'n1' },
          status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } },
        }),
      );
      writeFileSync(
        path.join(root, 'sub', 'pod.yaml'),
        'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec: { containers: [{ name: main }] }\n',
      );
      symlinkSync(root, path.join(root, 'sub', 'loop'));
      const { code, stdout, stderr } = await runPodplan(['schedule', root, '--no-history']);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^default\/p\s+n1\s+-$/m);
      assert.equal(stderr, `warning: ${path.join(root, 'sub', 'loop')}: symbolic link loop (it leads back to ${root}); skipped\n`);
    });
  });
});
