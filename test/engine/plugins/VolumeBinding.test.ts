import assert from 'node:assert/strict';
import type { ClusterObjects, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../src/engine/api/types';
import { seededRandom } from '../../../src/engine/api/random';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import { Framework } from '../../../src/engine/framework/runtime';
import { Snapshot } from '../../../src/engine/framework/snapshot';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import * as VolumeBinding from '../../../src/engine/plugins/VolumeBinding';
import { makeNode, makePod, snapshotOf, type PodBuilder, handleOf } from '../../builders';
import { build, runFilters } from './harness';

const ZONE = 'topology.kubernetes.io/zone';
const claim = (name: string, spec: PersistentVolumeClaim['spec'] = {}): PersistentVolumeClaim => ({ metadata: { name, namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });
const volume = (name: string, spec: PersistentVolume['spec'] = {}, zone?: string): PersistentVolume => ({
  metadata: { name },
  spec: {
    capacity: { storage: '1Gi' },
    accessModes: ['ReadWriteOnce'],
    ...(zone ? { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: [zone] }] }] } } } : {}),
    ...spec,
  },
});
const wffc = (name: string, extra: Partial<StorageClass> = {}): StorageClass => ({ metadata: { name }, provisioner: 'csi.example.com', volumeBindingMode: 'WaitForFirstConsumer', ...extra });
const usingClaims = (...claims: string[]): PodBuilder => makePod('p').claims(...claims);

// pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go, TestVolumeBinding (the
// rows about claims and volumes of the snapshot), and binder_test.go's FindPodVolumes cases.
describe('engine/plugins/VolumeBinding', () => {
  const nodes = [makeNode('a1').labels({ [ZONE]: 'a' }), makeNode('b1').labels({ [ZONE]: 'b' })];
  const table: Array<[name: string, pod: PodBuilder, objects: ClusterObjects, preFilter: string, filter: Record<string, string>]> = [
    ['pod has not pvcs', makePod('p'), {}, 'Skip', {}],
    ['all bound', usingClaims('pvc-a'), { persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-a' })], persistentVolumes: [volume('pv-a')] }, 'ok', { a1: 'ok', b1: 'ok' }],
    ['PVC does not exist', usingClaims('pvc-a'), {}, 'UnschedulableAndUnresolvable: persistentvolumeclaim "pvc-a" not found', {}],
    ['Part of PVCs do not exist', usingClaims('pvc-a', 'pvc-b'), { persistentVolumeClaims: [claim('pvc-a', { volumeName: 'pv-a' })], persistentVolumes: [volume('pv-a')] }, 'UnschedulableAndUnresolvable: persistentvolumeclaim "pvc-b" not found', {}],
    ['immediate claims not bound', usingClaims('pvc-a'), { persistentVolumeClaims: [claim('pvc-a', { storageClassName: 'standard' })], storageClasses: [{ metadata: { name: 'standard' }, provisioner: 'csi.example.com' }] }, 'UnschedulableAndUnresolvable: pod has unbound immediate PersistentVolumeClaims', {}],
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
      { a1: 'UnschedulableAndUnresolvable: node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)', b1: 'UnschedulableAndUnresolvable: node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)' },
    ],
    [
      'unbound claim (WaitForFirstConsumer), no matching volume and no provisioner',
      usingClaims('pvc-w'),
      { persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'local' })], storageClasses: [wffc('local', { provisioner: 'kubernetes.io/no-provisioner' })] },
      'ok',
      { a1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind", b1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind" },
    ],
    [
      'unbound claim (WaitForFirstConsumer) matched by a local volume of zone a only',
      usingClaims('pvc-w'),
      { persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'local' })], persistentVolumes: [volume('pv-local', { storageClassName: 'local' }, 'a')], storageClasses: [wffc('local', { provisioner: 'kubernetes.io/no-provisioner' })] },
      'ok',
      { a1: 'ok', b1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind" },
    ],
    [
      'a volume smaller than the claim does not match',
      usingClaims('pvc-w'),
      { persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'local', resources: { requests: { storage: '2Gi' } } })], persistentVolumes: [volume('pv-local', { storageClassName: 'local' })], storageClasses: [wffc('local', { provisioner: 'kubernetes.io/no-provisioner' })] },
      'ok',
      { a1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind", b1: "UnschedulableAndUnresolvable: node(s) didn't find available persistent volumes to bind" },
    ],
    [
      'unbound claim (WaitForFirstConsumer) provisioned where allowedTopologies allow',
      usingClaims('pvc-w'),
      { persistentVolumeClaims: [claim('pvc-w', { storageClassName: 'fast' })], storageClasses: [wffc('fast', { allowedTopologies: [{ matchLabelExpressions: [{ key: ZONE, values: ['b'] }] }] })] },
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
