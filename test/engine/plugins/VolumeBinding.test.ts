import assert from 'node:assert/strict';
import type {
  ClusterObjects,
  CSINode,
  CSIStorageCapacity,
  PersistentVolume,
  PersistentVolumeClaim,
  StorageClass,
} from '../../../src/engine/api/types';
import { seededRandom } from '../../../src/engine/api/random';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import { Framework } from '../../../src/engine/framework/runtime';
import { Snapshot } from '../../../src/engine/framework/snapshot';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import * as VolumeBinding from '../../../src/engine/plugins/VolumeBinding';
import type { QueueingHint } from '../../../src/engine/framework/events';
import { makeNode, makePod, snapshotOf, type PodBuilder, handleOf } from '../../builders';
import { build, runFilters } from './harness';

const ZONE = 'topology.kubernetes.io/zone';
const claim = (name: string, spec: PersistentVolumeClaim['spec'] = {}): PersistentVolumeClaim => ({
  metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const volume = (name: string, spec: PersistentVolume['spec'] = {}, zone?: string): PersistentVolume => ({
  metadata: { name },
  spec: {
    capacity: { storage: '1Gi' },
    accessModes: ['ReadWriteOnce'],
    ...(zone
      ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: [zone] }] }] } } }
      : {}),
    ...spec,
  },
});
const wffc = (name: string, extra: Partial<StorageClass> = {}): StorageClass => ({
  metadata: { name },
  provisioner: 'csi.example.com',
  volumeBindingMode: 'WaitForFirstConsumer',
  ...extra,
});
const usingClaims = (...claims: string[]): PodBuilder => makePod('p').claims(...claims);

// pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go, TestVolumeBinding (the
// rows about claims and volumes of the snapshot), and binder_test.go's FindPodVolumes cases.
describe('engine/plugins/VolumeBinding', () => {
  const nodes = [makeNode('a1').labels({ [ZONE]: 'a' }), makeNode('b1').labels({ [ZONE]: 'b' })];
  const table: Array<[name: string, pod: PodBuilder, objects: ClusterObjects, preFilter: string, filter: Record<string, string>]> = [
    ['pod has not pvcs', makePod('p'), {}, 'Skip', {}],
    [
      'all bound',
      usingClaims('pvc-a'),
      { persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-a' })], persistentVolumes: [volume('pv-a')] },
      'ok',
      { a1: 'ok', b1: 'ok' },
    ],
    ['PVC does not exist', usingClaims('pvc-a'), {}, 'UnschedulableAndUnresolvable: persistentvolumeclaim "pvc-a" not found', {}],
    [
      'Part of PVCs do not exist',
      usingClaims('pvc-a', 'pvc-b'),
      { persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-a' })], persistentVolumes: [volume('pv-a')] },
      'UnschedulableAndUnresolvable: persistentvolumeclaim "pvc-b" not found',
      {},
    ],
    [
      'immediate claims not bound',
      usingClaims('pvc-a'),
      {
        persistentVolumeClaims: [claim('pvc-a', { storageClassName: 'standard' })],
        storageClasses: [{ metadata: { name: 'standard' }, provisioner: 'csi.example.com' }],
      },
      'UnschedulableAndUnresolvable: pod has unbound immediate PersistentVolumeClaims',
      {},
    ],
    [
      'bound and the volume node affinity does not match',
      usingClaims('pvc-a'),
      { persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-a' })], persistentVolumes: [volume('pv-a', {}, 'a')] },
      'ok',
      { a1: 'ok', b1: 'UnschedulableAndUnresolvable: node(s) had volume node affinity conflict' },
    ],
    [
      'bound to a volume that does not exist',
      usingClaims('pvc-a'),
      { persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-gone' })] },
      'ok',
      {
        a1: 'UnschedulableAndUnresolvable: node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)',
        b1: 'UnschedulableAndUnresolvable: node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)',
      },
    ],
    [
      'unbound claim (WaitForFirstConsumer), no matching volume and no provisioner',
      usingClaims('pvc-w'),
      {
        persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'local' })],
        storageClasses: [wffc('local', { provisioner: 'kubernetes.io/no-provisioner' })],
      },
      'ok',
      {
        a1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind",
        b1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind",
      },
    ],
    [
      'unbound claim (WaitForFirstConsumer) matched by a local volume of zone a only',
      usingClaims('pvc-w'),
      {
        persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'local' })],
        persistentVolumes: [volume('pv-local', { storageClassName: 'local' }, 'a')],
        storageClasses: [wffc('local', { provisioner: 'kubernetes.io/no-provisioner' })],
      },
      'ok',
      { a1: 'ok', b1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind" },
    ],
    [
      'a volume smaller than the claim does not match',
      usingClaims('pvc-w'),
      {
        persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'local', resources: { requests: { storage: '2Gi' } } })],
        persistentVolumes: [volume('pv-local', { storageClassName: 'local' })],
        storageClasses: [wffc('local', { provisioner: 'kubernetes.io/no-provisioner' })],
      },
      'ok',
      {
        a1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind",
        b1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind",
      },
    ],
    [
      'unbound claim (WaitForFirstConsumer) provisioned where allowedTopologies allow',
      usingClaims('pvc-w'),
      {
        persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'fast' })],
        storageClasses: [wffc('fast', { allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: ['b'] }] }] })],
      },
      'ok',
      { a1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind", b1: 'ok' },
    ],
  ];
  for (const [name, pod, objects, preFilter, filter] of table) {
    it(name, () => {
      const snapshot = snapshotOf(nodes);
      const run = runFilters(build(VolumeBinding.factory, undefined, handleOf(snapshot, 1, objects)), snapshot, pod.info);
      assert.deepEqual([run.preFilter, run.verdicts], [preFilter, filter]);
    });
  }
});

// pkg/scheduler/framework/plugins/volumebinding/binder_test.go, TestCapacity: a claim of 1Gi to be
// provisioned on node1 by a CSI driver; the scenarios' CSIStorageCapacity objects, with the driver
// opting into capacity checks (CSIDriver storageCapacity: true) and not.
describe('engine/plugins/VolumeBinding: CSIStorageCapacity (upstream TestCapacity)', () => {
  const NODE_LABEL = 'kubernetes.io/hostname';
  const PROVISIONER = 'test-provisioner';
  const node1 = makeNode('node1').labels({ [NODE_LABEL]: 'node1' });
  /** upstream makeCapacity: nodeTopology {} (every node) or the node's label; empty strings leave a size out. */
  const capacity = (storageClassName: string, node: string | undefined, size: string, maximumVolumeSize = ''): CSIStorageCapacity => ({
    metadata: { name: 'net' },
    storageClassName,
    nodeTopology: node ? { matchLabels: { [NODE_LABEL]: node } } : {},
    ...(size ? { capacity: size } : {}),
    ...(maximumVolumeSize ? { maximumVolumeSize } : {}),
  });
  const WAIT_WITH_PROVISIONER = 'wait-w-provisioner';
  const classes: StorageClass[] = [
    wffc(WAIT_WITH_PROVISIONER, { provisioner: PROVISIONER }),
    wffc('wait', { provisioner: 'kubernetes.io/no-provisioner' }),
  ];
  const NOT_ENOUGH = 'UnschedulableAndUnresolvable: node(s) did not have enough free storage';
  const table: Array<[name: string, capacities: CSIStorageCapacity[], reason: string]> = [
    ['network-attached', [capacity(WAIT_WITH_PROVISIONER, undefined, '1Gi')], 'ok'],
    ['local-storage', [capacity(WAIT_WITH_PROVISIONER, 'node1', '1Gi')], 'ok'],
    [
      'multiple',
      [
        capacity(WAIT_WITH_PROVISIONER, undefined, '1Gi'),
        capacity(WAIT_WITH_PROVISIONER, 'node2', '1Gi'),
        capacity(WAIT_WITH_PROVISIONER, 'node1', '1Gi'),
      ],
      'ok',
    ],
    ['no-storage', [], NOT_ENOUGH],
    ['wrong-node', [capacity(WAIT_WITH_PROVISIONER, 'node2', '1Gi')], NOT_ENOUGH],
    ['wrong-storage-class', [capacity('wait', 'node1', '1Gi')], NOT_ENOUGH],
    ['insufficient-storage', [capacity(WAIT_WITH_PROVISIONER, 'node1', '1Mi')], NOT_ENOUGH],
    ['insufficient-volume-size', [capacity(WAIT_WITH_PROVISIONER, 'node1', '1Gi', '1Mi')], NOT_ENOUGH],
    ['zero-storage', [capacity(WAIT_WITH_PROVISIONER, 'node1', '0Mi')], NOT_ENOUGH],
    ['zero-volume-size', [capacity(WAIT_WITH_PROVISIONER, 'node1', '', '0Mi')], NOT_ENOUGH],
    ['nil-storage', [capacity(WAIT_WITH_PROVISIONER, 'node1', '')], NOT_ENOUGH],
  ];
  for (const optIn of [true, false]) {
    describe(`CSIDriver.StorageCapacity=${optIn}`, () => {
      for (const [name, capacities, reason] of table) {
        it(name, () => {
          const snapshot = snapshotOf([node1]);
          const objects: ClusterObjects = {
            persistentVolumeClaims: [claim('provisioned-pvc', { storageClassName: WAIT_WITH_PROVISIONER })],
            storageClasses: classes,
            csiDrivers: [{ metadata: { name: PROVISIONER }, spec: { storageCapacity: optIn } }],
            csiStorageCapacities: capacities,
          };
          const run = runFilters(
            build(VolumeBinding.factory, undefined, handleOf(snapshot, 1, objects)),
            snapshot,
            usingClaims('provisioned-pvc').info,
          );
          // Without the opt-in no capacity is checked: every scenario fits.
          assert.deepEqual(run.verdicts, { node1: optIn ? reason : 'ok' });
        });
      }
    });
  }

  it('a provisioner that is not a CSIDriver of the snapshot is not checked', () => {
    const snapshot = snapshotOf([node1]);
    const objects: ClusterObjects = {
      persistentVolumeClaims: [claim('provisioned-pvc', { storageClassName: WAIT_WITH_PROVISIONER })],
      storageClasses: classes,
      csiStorageCapacities: [],
    };
    const run = runFilters(
      build(VolumeBinding.factory, undefined, handleOf(snapshot, 1, objects)),
      snapshot,
      usingClaims('provisioned-pvc').info,
    );
    assert.deepEqual(run.verdicts, { node1: 'ok' });
  });
});

describe('engine/plugins/VolumeBinding in a whole cycle', () => {
  it('reads the claims the snapshot was taken with (Snapshot.fromCluster), as previews and planners build it', () => {
    const registry = inTreeRegistry();
    assert.ok(registry.ok);
    const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
    assert.ok(framework.ok);
    const snapshot = Snapshot.fromCluster({
      nodes: [makeNode('a1').labels({ [ZONE]: 'a' }).obj, makeNode('b1').labels({ [ZONE]: 'b' }).obj],
      pods: [],
      persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-a' })],
      persistentVolumes: [volume('pv-a', {}, 'b')],
    });
    assert.ok(snapshot.ok);
    const result = framework.value.scheduleOne(new CycleState(), usingClaims('pvc-a').info, snapshot.value);
    assert.deepEqual(result.ok ? result.suggestedHost : result.diagnosis.message, 'b1');
  });
});

// upstream volumebinding/volume_binding_test.go TestIsSchedulableAfterCSINodeChange,
// TestIsSchedulableAfterStorageClassChange and TestIsSchedulableAfterCSIStorageCapacityChange (the
// rows giving a hint an object of another kind are left out: the queue hands each its resource's objects).
describe('VolumeBinding queueing hints', () => {
  const pod = makePod('pod-a').obj;
  const MIGRATED = 'storage.alpha.kubernetes.io/migrated-plugins';
  const csiNode = (migrated?: string): CSINode => ({
    metadata: { name: 'node-a', ...(migrated ? { annotations: { [MIGRATED]: migrated } } : {}) },
    spec: {},
  });
  const nodes: Array<[name: string, oldObj: CSINode | undefined, newObj: CSINode, hint: QueueingHint]> = [
    ['CSINode is newly created', undefined, csiNode(), 'Queue'],
    ["CSINode's migrated-plugins annotations is added", csiNode(), csiNode('test1'), 'Queue'],
    ["CSINode's migrated-plugins annotation is updated", csiNode('test1'), csiNode('test1, test2'), 'Queue'],
    ['CSINode is updated but migrated-plugins annotation gets unchanged', csiNode('test1'), csiNode('test1'), 'QueueSkip'],
  ];
  for (const [name, oldObj, newObj, hint] of nodes)
    it(`isSchedulableAfterCSINodeChange: ${name}`, () =>
      assert.equal(VolumeBinding.isSchedulableAfterCSINodeChange(pod, oldObj, newObj), hint));

  const sc = (topologies?: StorageClass['allowedTopologies']): StorageClass => ({
    metadata: { name: 'sc-a' },
    provisioner: 'p',
    ...(topologies ? { allowedTopologies: topologies } : {}),
  });
  const classes: Array<[name: string, oldObj: StorageClass | undefined, newObj: StorageClass, hint: QueueingHint]> = [
    ['When a new StorageClass is created, it returns Queue', undefined, sc(), 'Queue'],
    [
      'When the AllowedTopologies are changed, it returns Queue',
      sc(),
      sc([{ matchLabelExpressions: [{ key: 'kubernetes.io/hostname', values: ['node-a'] }] }]),
      'Queue',
    ],
    ['When there are no changes to the StorageClass, it returns QueueSkip', sc(), sc(), 'QueueSkip'],
  ];
  for (const [name, oldObj, newObj, hint] of classes)
    it(`isSchedulableAfterStorageClassChange: ${name}`, () =>
      assert.equal(VolumeBinding.isSchedulableAfterStorageClassChange(pod, oldObj, newObj), hint));

  const cap = (capacity?: string, maximumVolumeSize?: string): CSIStorageCapacity => ({
    metadata: { name: 'cap-a' },
    storageClassName: 'sc-a',
    ...(capacity ? { capacity } : {}),
    ...(maximumVolumeSize ? { maximumVolumeSize } : {}),
  });
  const capacities: Array<[name: string, oldObj: CSIStorageCapacity | undefined, newObj: CSIStorageCapacity, hint: QueueingHint]> = [
    ['When a new CSIStorageCapacity is created, it returns Queue', undefined, cap(), 'Queue'],
    ['When the volume limit is increase(Capacity set), it returns Queue', cap(), cap('100'), 'Queue'],
    ['When the volume limit is increase(MaximumVolumeSize set), it returns Queue', cap(), cap(undefined, '100'), 'Queue'],
    ['When the volume limit is increase(Capacity increase), it returns Queue', cap('50'), cap('100'), 'Queue'],
    ['When the volume limit is increase(MaximumVolumeSize unset), it returns Queue', cap('100', '50'), cap('100'), 'Queue'],
    ['When the volume limit is increase(MaximumVolumeSize increase), it returns Queue', cap('100', '50'), cap('100', '60'), 'Queue'],
    ['When there are no changes to the CSIStorageCapacity, it returns QueueSkip', cap('100', '50'), cap('100', '50'), 'QueueSkip'],
  ];
  for (const [name, oldObj, newObj, hint] of capacities)
    it(`isSchedulableAfterCSIStorageCapacityChange: ${name}`, () =>
      assert.equal(VolumeBinding.isSchedulableAfterCSIStorageCapacityChange(pod, oldObj, newObj), hint));
});
