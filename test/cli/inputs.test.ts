import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { useTempDir } from '../store/helpers';
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
      const dump = (await import('node:fs')).readFileSync('test/fixtures/kubectl/deploy-rs-pods.yaml', 'utf8').replaceAll('replicas: 3', 'replicas: 5');
      writeFileSync(file, dump);
      const { code, stdout } = await runPodplan(['schedule', file, 'test/fixtures/kubectl/nodes.yaml', '--json', '--no-history']);
      assert.equal(code, 0, stdout);
      const outcomes = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; pod: string; generated?: boolean }).filter((o) => o.type === 'outcome');
      assert.deepEqual(outcomes.map((o) => [o.pod, o.generated ?? false]), [
        ['shop/web-5d9f8c7b6-0', true],
        ['shop/web-5d9f8c7b6-1', true],
        ['shop/web-5d9f8c7b6-q2w8r', false],
      ]);
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

  describe('directories', () => {
    it('reads .json files and reports a symbolic link loop', async () => {
      const root = path.join(dir.path, 'ws');
      mkdirSync(path.join(root, 'sub'), { recursive: true });
      writeFileSync(path.join(root, 'nodes.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } }));
      writeFileSync(path.join(root, 'sub', 'pod.yaml'), 'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec: { containers: [{ name: main }] }\n');
      symlinkSync(root, path.join(root, 'sub', 'loop'));
      const { code, stdout, stderr } = await runPodplan(['schedule', root, '--no-history']);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^default\/p\s+n1\s+-$/m);
      assert.equal(stderr, `warning: ${path.join(root, 'sub', 'loop')}: symbolic link loop (it leads back to ${root}); skipped\n`);
    });
  });
});
