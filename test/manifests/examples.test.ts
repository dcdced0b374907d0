// examples/: the workspace a new user opens first must read cleanly and show what it promises.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { podKey } from '../../src/engine/api/types';
import { formatError, readSnapshot } from '../../src/manifests';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(e.name) ? [path] : [];
  });
}

describe('examples', () => {
  const files = yamlFiles(EXAMPLES).map((path) => ({ name: path.slice(EXAMPLES.length), text: readFileSync(path, 'utf8') }));

  it('every YAML file in examples/ reads without errors or warnings', () => {
    assert.ok(files.length >= 4);
    const model = readSnapshot(files);
    assert.deepEqual(model.errors.map(formatError), []);
    assert.deepEqual(model.others, [], 'every object is of a kind Podplan reads');
  });

  describe('examples/cluster', () => {
    const model = readSnapshot(files.filter((f) => f.name.startsWith('cluster/')));

    it('has six nodes in three zones, one of them a tainted GPU node', () => {
      assert.equal(model.nodes.length, 6);
      assert.equal(new Set(model.nodes.map((n) => n.value.metadata.labels?.['topology.kubernetes.io/zone'])).size, 3);
      const gpu = model.nodes.filter((n) => n.value.status?.allocatable?.['nvidia.com/gpu']);
      assert.deepEqual(
        gpu.map((n) => n.value.spec?.taints),
        [[{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }]],
      );
    });

    it('has a GPU pod without the toleration, and a pod larger than any node', () => {
      const pods = new Map(model.pods.map((p) => [podKey(p.value), p.value]));
      const trainer = pods.get('ml/trainer');
      assert.equal(trainer?.spec.containers[0]?.resources?.requests?.['nvidia.com/gpu'], '1');
      assert.equal(trainer?.spec.tolerations, undefined);
      assert.equal(pods.get('analytics/warehouse-loader')?.spec.containers[0]?.resources?.requests?.cpu, '20');
    });

    it('has a pod set held in Planning with a quiet time, and a profile', () => {
      const [trigger] = model.triggers;
      assert.deepEqual([trigger?.value.podSet, trigger?.value.state, trigger?.value.quietTime], ['nightly-batch', 'Planning', '2m0s']);
      const members = model.pods.filter((p) => p.value.metadata.labels?.['planner.ciena.io/pod-set'] === 'nightly-batch');
      assert.equal(members.length, 6);
      assert.ok(
        members.every((p) => p.value.spec.schedulerName === 'podset-planner-scheduler' && p.value.metadata.namespace === 'analytics'),
      );
      assert.deepEqual(
        model.profiles[0]?.value.profiles.map((p) => p.schedulerName),
        ['default-scheduler', 'podset-planner-scheduler'],
      );
    });
  });
});
