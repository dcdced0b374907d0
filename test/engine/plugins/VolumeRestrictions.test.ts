import assert from 'node:assert/strict';
import type { AccessMode, ClusterObjects, PersistentVolumeClaim, Pod } from '../../../src/engine/api/types';
import type { QueueingHint } from '../../../src/engine/framework/events';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import * as VolumeRestrictions from '../../../src/engine/plugins/VolumeRestrictions';
import { makeNode, makePod, snapshotOf, type PodBuilder, handleOf } from '../../builders';
import { build, runFilters, verdictText } from './harness';

const CONFLICT = `Unschedulable: ${VolumeRestrictions.ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT}`;
const claims = (mode: AccessMode): ClusterObjects => ({
  persistentVolumeClaims: [{ metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: [mode] } }],
});

// pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions_test.go, TestAccessModeConflicts
describe('engine/plugins/VolumeRestrictions', () => {
  const table: Array<
    [name: string, pod: PodBuilder, existing: PodBuilder[], objects: ClusterObjects, preFilter: string, verdicts: Record<string, string>]
  > = [
    [
      'nothing conflicts: the plugin skips (so pods nominated with the claim are not counted either)',
      makePod('p').claims('data'),
      [],
      claims('ReadWriteOncePod'),
      'Skip',
      {},
    ],
    [
      'conflict: another pod uses the ReadWriteOncePod claim (every node)',
      makePod('p').claims('data'),
      [makePod('other').claims('data').node('n1')],
      claims('ReadWriteOncePod'),
      'ok',
      { n1: CONFLICT, n2: CONFLICT },
    ],
    [
      'ReadWriteOnce is not restricted across pods',
      makePod('p').claims('data'),
      [makePod('other').claims('data').node('n1')],
      claims('ReadWriteOnce'),
      'Skip',
      {},
    ],
    [
      'PVC does not exist',
      makePod('p').claims('missing'),
      [],
      {},
      'UnschedulableAndUnresolvable: persistentvolumeclaim "missing" not found',
      {},
    ],
  ];
  for (const [name, pod, existing, objects, preFilter, verdicts] of table) {
    it(name, () => {
      const snapshot = snapshotOf([makeNode('n1'), makeNode('n2')], existing);
      const run = runFilters(build(VolumeRestrictions.factory, undefined, handleOf(snapshot, 1, objects)), snapshot, pod.info);
      assert.deepEqual([run.preFilter, run.verdicts], [preFilter, verdicts]);
    });
  }

  it('preemption removing the other pod lifts the conflict (RemovePod), adding it back restores it (AddPod)', () => {
    const other = makePod('other').claims('data').node('n1');
    const snapshot = snapshotOf([makeNode('n1')], [other]);
    const plugin = build<VolumeRestrictions.VolumeRestrictions>(
      VolumeRestrictions.factory,
      undefined,
      handleOf(snapshot, 1, claims('ReadWriteOncePod')),
    );
    const state = new CycleState();
    const pod = makePod('p').claims('data').info;
    plugin.preFilter(state, pod, snapshot.list());
    plugin.removePod(state, pod, other.info);
    assert.equal(verdictText(plugin.filter(state)), 'ok');
    plugin.addPod(state, pod, other.info);
    assert.equal(verdictText(plugin.filter(state)), CONFLICT);
  });
});

// upstream volumerestrictions/volume_restrictions_test.go Test_isSchedulableAfterAssignedPodDeleted
// (the claim rows; the GCE PD, EBS, RBD and iSCSI rows are left out: Podplan does not read those
// volume kinds) and Test_isSchedulableAfterPersistentVolumeClaimChange.
describe('VolumeRestrictions queueing hints', () => {
  const deleted: Array<[name: string, pod: Pod, oldObj: Pod, hint: QueueingHint]> = [
    ['queue-has-same-claim', makePod('pod1').claims('claim-rwop').obj, makePod('pod2').claims('claim-rwop').obj, 'Queue'],
    ['skip-no-same-claim', makePod('pod1').claims('claim-1-rwop').obj, makePod('pod2').claims('claim-2-rwop').obj, 'QueueSkip'],
  ];
  for (const [name, pod, oldObj, hint] of deleted)
    it(`isSchedulableAfterAssignedPodDeleted: ${name}`, () =>
      assert.equal(VolumeRestrictions.isSchedulableAfterAssignedPodDeleted(pod, oldObj), hint));

  const pvc = (name: string): PersistentVolumeClaim => ({
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteMany'] },
  });
  const one = makePod('pod-with-one-pvc').claims('claim-with-rwx-1').node('node-1').obj;
  const two = makePod('pod-with-two-pvcs').claims('claim-with-rwx-1', 'claim-with-rwx-2').node('node-1').obj;
  const otherNamespace = makePod('pod-with-one-pvc', 'kube-system').claims('claim-with-rwx-1').node('claim-with-rwx-2').obj;
  const added: Array<[name: string, pod: Pod, newObj: PersistentVolumeClaim, hint: QueueingHint]> = [
    ['queue-new-object-pvc-belong-pod', two, pvc('claim-with-rwx-1'), 'Queue'],
    ['skip-new-object-unused', one, pvc('claim-with-rwx-2'), 'QueueSkip'],
    ['skip-new-object-not-belong-pod', one, pvc('claim-with-rwx-2'), 'QueueSkip'],
    ['skip-new-object-namespace-not-equal-pod', otherNamespace, pvc('claim-with-rwx-1'), 'QueueSkip'],
  ];
  for (const [name, pod, newObj, hint] of added)
    it(`isSchedulableAfterPersistentVolumeClaimAdded: ${name}`, () =>
      assert.equal(VolumeRestrictions.isSchedulableAfterPersistentVolumeClaimAdded(pod, undefined, newObj), hint));
});
