import assert from 'node:assert/strict';
import { readSnapshot } from '../../src/manifests/workspace';

const text = `
apiVersion: v1
kind: Namespace
metadata: { name: shop, labels: { team: web } }
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: { name: high }
value: 1000
globalDefault: false
preemptionPolicy: Never
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web, namespace: shop }
spec:
  minAvailable: 50%
  selector: { matchLabels: { app: web } }
status: { disruptionsAllowed: 1 }
`;

describe('manifests: the cluster kinds scheduling reads besides nodes and pods', () => {
  it('Namespaces, PriorityClasses and PodDisruptionBudgets reach the snapshot as the API server returns them', () => {
    const model = readSnapshot([{ name: 'c.yaml', text }]);
    assert.deepEqual(model.errors, []);
    assert.deepEqual(model.cluster.namespaces, [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels: { team: 'web' } } },
    ]);
    assert.deepEqual(model.cluster.priorityClasses, [
      {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'high' },
        value: 1000,
        globalDefault: false,
        preemptionPolicy: 'Never',
      },
    ]);
    assert.deepEqual(
      model.cluster.podDisruptionBudgets?.map((b) => [b.metadata.name, b.spec?.minAvailable, b.status?.disruptionsAllowed]),
      [['web', '50%', 1]],
    );
  });

  it('CSIDrivers and CSIStorageCapacities (VolumeBinding’s capacity check) reach the snapshot', () => {
    const storage = `apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: { name: hostpath.csi.k8s.io }
spec: { storageCapacity: true, attachRequired: false }
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: { name: node1-fast, namespace: kube-system }
storageClassName: fast
nodeTopology: { matchLabels: { kubernetes.io/hostname: node1 } }
capacity: 100Gi
maximumVolumeSize: 10Gi
`;
    const model = readSnapshot([{ name: 'c.yaml', text: storage }]);
    assert.deepEqual(model.errors, []);
    assert.deepEqual(
      model.cluster.csiDrivers?.map((d) => [d.metadata.name, d.spec.storageCapacity]),
      [['hostpath.csi.k8s.io', true]],
    );
    assert.deepEqual(
      model.cluster.csiStorageCapacities?.map((c) => [c.storageClassName, c.nodeTopology, c.capacity, c.maximumVolumeSize]),
      [['fast', { matchLabels: { 'kubernetes.io/hostname': 'node1' } }, '100Gi', '10Gi']],
    );
    const bad = readSnapshot([{ name: 'bad.yaml', text: storage.replace('capacity: 100Gi', 'capacity: lots') }]);
    assert.deepEqual(
      bad.errors.map((e) => [e.code, e.range.start.line]),
      [['bad-quantity', 11]],
    );
  });

  it('a system class read from a cluster is above one billion and fine', () => {
    const model = readSnapshot([
      {
        name: 'c.yaml',
        text: 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: system-node-critical }\nvalue: 2000001000\n',
      },
    ]);
    assert.deepEqual([model.errors, model.cluster.priorityClasses?.[0]?.value], [[], 2000001000]);
  });

  const bad: Array<[string, string, RegExp]> = [
    [
      'a PriorityClass without value',
      'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: x }\n',
      /missing required field "value"/,
    ],
    [
      'a user PriorityClass above one billion',
      'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: x }\nvalue: 2000000000\n',
      /must be no greater than 1000000000/,
    ],
    [
      'both minAvailable and maxUnavailable',
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: { name: x }\nspec: { minAvailable: 1, maxUnavailable: 1 }\n',
      /cannot be both set/,
    ],
    [
      'a percentage that is not one',
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: { name: x }\nspec: { minAvailable: half }\n',
      /percentage/,
    ],
  ];
  for (const [what, yaml, message] of bad) {
    it(`${what}: a located error`, () => {
      const model = readSnapshot([{ name: 'bad.yaml', text: yaml }]);
      assert.ok(
        model.errors.some((e) => message.test(e.message) && e.range.file === 'bad.yaml'),
        JSON.stringify(model.errors.map((e) => e.message)),
      );
    });
  }
});
