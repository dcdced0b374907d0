import assert from 'node:assert/strict';
import type { ClusterObjects, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../../src/engine/api/types';
import type { QueueingHint } from '../../../src/engine/framework/events';
import * as VolumeZone from '../../../src/engine/plugins/VolumeZone';
import { makeNode, makePod, snapshotOf, handleOf } from '../../builders';
import { build, runFilters } from './harness';

const CONFLICT = `UnschedulableAndUnresolvable: ${VolumeZone.ERR_REASON_CONFLICT}`;
const bound = (labels: Record<string, string>): ClusterObjects => ({
  persistentVolumeClaims: [{ metadata: { name: 'pvc', namespace: 'default' }, spec: { volumeName: 'pv' } }],
  persistentVolumes: [{ metadata: { name: 'pv', labels } }],
});

// pkg/scheduler/framework/plugins/volumezone/volume_zone_test.go, TestSingleZone and TestMultiZone
describe('engine/plugins/VolumeZone', () => {
  const table: Array<[name: string, node: Record<string, string>, volume: Record<string, string>, want: string]> = [
    ['node without labels', {}, { 'topology.kubernetes.io/zone': 'us-west1-a' }, 'ok'],
    [
      'beta zone label matched',
      { 'failure-domain.beta.kubernetes.io/zone': 'us-west1-a' },
      { 'failure-domain.beta.kubernetes.io/zone': 'us-west1-a' },
      'ok',
    ],
    [
      'beta zone label not matched',
      { 'failure-domain.beta.kubernetes.io/zone': 'us-west1-b' },
      { 'failure-domain.beta.kubernetes.io/zone': 'us-west1-a' },
      CONFLICT,
    ],
    ['GA zone label matched', { 'topology.kubernetes.io/zone': 'us-west1-a' }, { 'topology.kubernetes.io/zone': 'us-west1-a' }, 'ok'],
    [
      'GA region label not matched',
      { 'topology.kubernetes.io/region': 'us-east1' },
      { 'topology.kubernetes.io/region': 'us-west1' },
      CONFLICT,
    ],
    [
      'a volume of several zones ("__") matches any of them',
      { 'topology.kubernetes.io/zone': 'us-west1-b' },
      { 'topology.kubernetes.io/zone': 'us-west1-a__us-west1-b' },
      'ok',
    ],
    [
      "a beta label on the volume matches the node's GA label",
      { 'topology.kubernetes.io/zone': 'us-west1-a' },
      { 'failure-domain.beta.kubernetes.io/zone': 'us-west1-a' },
      'ok',
    ],
  ];
  for (const [name, nodeLabels, volumeLabels, want] of table) {
    it(name, () => {
      const snapshot = snapshotOf([makeNode('n').labels(nodeLabels)]);
      const run = runFilters(
        build(VolumeZone.factory, undefined, handleOf(snapshot, 1, bound(volumeLabels))),
        snapshot,
        makePod('p').claims('pvc').info,
      );
      assert.deepEqual(run.verdicts, { n: want });
    });
  }

  it('a pod without claims, or whose volumes carry no zone, is skipped', () => {
    const snapshot = snapshotOf([makeNode('n')]);
    assert.equal(runFilters(build(VolumeZone.factory, undefined, handleOf(snapshot)), snapshot, makePod('p').info).preFilter, 'Skip');
    assert.equal(
      runFilters(build(VolumeZone.factory, undefined, handleOf(snapshot, 1, bound({}))), snapshot, makePod('p').claims('pvc').info)
        .preFilter,
      'Skip',
    );
  });
});

// upstream volumezone/volume_zone_test.go TestIsSchedulableAfterPersistentVolumeClaimAdded,
// TestIsSchedulableAfterStorageClassAdded and TestIsSchedulableAfterPersistentVolumeChange (the rows
// giving a hint an object of another kind are left out: the queue hands each its resource's objects).
describe('VolumeZone queueing hints', () => {
  const withVolume = (claim: string) => makePod('pod_1').claims(claim).obj;
  const pvc = (namespace: string, volumeName: string): PersistentVolumeClaim => ({
    metadata: { name: 'PVC_1', namespace },
    spec: { volumeName },
  });
  const claims: Array<
    [name: string, pod: Pod, oldObj: PersistentVolumeClaim | undefined, newObj: PersistentVolumeClaim, hint: QueueingHint]
  > = [
    ['pvc-was-added-but-pod-refers-no-pvc', makePod('pod_1').obj, undefined, pvc('default', 'Vol_1'), 'QueueSkip'],
    ['pvc-was-added-and-pod-was-bound-to-different-pvc', withVolume('PVC_2'), undefined, pvc('default', 'Vol_1'), 'QueueSkip'],
    ['pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns', withVolume('PVC_1'), undefined, pvc('ns1', 'Vol_1'), 'QueueSkip'],
    ['pvc-was-added-and-pod-was-bound-to-the-pvc', withVolume('PVC_1'), undefined, pvc('default', 'Vol_1'), 'Queue'],
    ['pvc-was-updated-and-pod-was-bound-to-the-pvc', withVolume('PVC_1'), pvc('default', ''), pvc('default', 'Vol_1'), 'Queue'],
    ['pvc-was-updated-but-pod-refers-no-pvc', makePod('pod_1').obj, pvc('default', ''), pvc('default', 'Vol_1'), 'QueueSkip'],
  ];
  for (const [name, pod, oldObj, newObj, hint] of claims)
    it(`isSchedulableAfterPersistentVolumeClaimChange: ${name}`, () =>
      assert.equal(VolumeZone.isSchedulableAfterPersistentVolumeClaimChange(pod, oldObj, newObj), hint));

  const classes: Array<[name: string, cls: StorageClass, hint: QueueingHint]> = [
    ["sc-doesn't-have-volume-binding-mode", { metadata: { name: 'SC_1' }, provisioner: 'p' }, 'QueueSkip'],
    [
      'new-sc-is-wait-for-first-consumer-mode',
      { metadata: { name: 'SC_1' }, provisioner: 'p', volumeBindingMode: 'WaitForFirstConsumer' },
      'Queue',
    ],
  ];
  for (const [name, cls, hint] of classes)
    it(`isSchedulableAfterStorageClassAdded: ${name}`, () =>
      assert.equal(VolumeZone.isSchedulableAfterStorageClassAdded(withVolume('PVC_1'), undefined, cls), hint));

  const BETA_ZONE = 'failure-domain.beta.kubernetes.io/zone';
  const pv = (labels: Record<string, string>): PersistentVolume => ({ metadata: { name: 'Vol_1', labels }, spec: {} }) as PersistentVolume;
  const volumes: Array<[name: string, oldObj: PersistentVolume | undefined, newObj: PersistentVolume, hint: QueueingHint]> = [
    ['new-pv-was-added', undefined, pv({ [BETA_ZONE]: 'us-west1-b' }), 'Queue'],
    ['pv-was-updated-and-changed-topology', pv({ [BETA_ZONE]: 'us-west1-a' }), pv({ [BETA_ZONE]: 'us-west1-b' }), 'Queue'],
    [
      'pv-was-updated-and-added-topology-label',
      pv({ [BETA_ZONE]: 'us-west1-a' }),
      pv({ [BETA_ZONE]: 'us-west1-a', 'topology.kubernetes.io/zone': 'zone' }),
      'Queue',
    ],
    [
      'pv-was-updated-but-no-topology-is-changed',
      pv({ [BETA_ZONE]: 'us-west1-a', 'topology.kubernetes.io/zone': 'zone' }),
      pv({ [BETA_ZONE]: 'us-west1-a', 'topology.kubernetes.io/zone': 'zone' }),
      'QueueSkip',
    ],
  ];
  for (const [name, oldObj, newObj, hint] of volumes)
    it(`isSchedulableAfterPersistentVolumeChange: ${name}`, () =>
      assert.equal(VolumeZone.isSchedulableAfterPersistentVolumeChange(withVolume('PVC_1'), oldObj, newObj), hint));
});
