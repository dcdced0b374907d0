import assert from 'node:assert/strict';
import type { ClusterObjects, CSINode, PersistentVolumeClaim, Pod } from '../../../src/engine/api/types';
import type { QueueingHint } from '../../../src/engine/framework/events';
import * as NodeVolumeLimits from '../../../src/engine/plugins/NodeVolumeLimits';
import { makeNode, makePod, snapshotOf, type PodBuilder, handleOf } from '../../builders';
import { build, runFilters } from './harness';

const EXCEEDED = `Unschedulable: ${NodeVolumeLimits.ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED}`;
const DRIVER = 'ebs.csi.aws.com';

/** Claims c0…c4 bound to CSI volumes of DRIVER with handles h0…h4; the node's CSINode allows `limit`. */
function objects(limit?: number): ClusterObjects {
  const ids = [0, 1, 2, 3, 4];
  return {
    persistentVolumeClaims: ids.map((i) => ({ metadata: { name: `c${i}`, namespace: 'default' }, spec: { volumeName: `pv${i}` } })),
    persistentVolumes: ids.map((i) => ({ metadata: { name: `pv${i}` }, spec: { csi: { driver: DRIVER, volumeHandle: `h${i}` } } })),
    csiNodes: [
      { metadata: { name: 'n' }, spec: { drivers: [{ name: DRIVER, ...(limit !== undefined ? { allocatable: { count: limit } } : {}) }] } },
    ],
  };
}

// pkg/scheduler/framework/plugins/nodevolumelimits/csi_test.go, TestCSILimits (its CSI driver rows)
describe('engine/plugins/NodeVolumeLimits', () => {
  const table: Array<[name: string, pod: PodBuilder, existing: PodBuilder[], limit: number | undefined, want: string]> = [
    ['fits when the limit is not reached (2 + 1 ≤ 4)', makePod('p').claims('c0'), [makePod('e').claims('c1', 'c2').node('n')], 4, 'ok'],
    [
      "doesn't when the limit is exceeded (2 + 2 > 3)",
      makePod('p').claims('c0', 'c3'),
      [makePod('e').claims('c1', 'c2').node('n')],
      3,
      EXCEEDED,
    ],
    [
      'a volume already attached on the node counts once (2 + 0 ≤ 2)',
      makePod('p').claims('c1'),
      [makePod('e').claims('c1', 'c2').node('n')],
      2,
      'ok',
    ],
    [
      'a driver without a limit is not limited',
      makePod('p').claims('c0', 'c3', 'c4'),
      [makePod('e').claims('c1', 'c2').node('n')],
      undefined,
      'ok',
    ],
  ];
  for (const [name, pod, existing, limit, want] of table) {
    it(name, () => {
      const snapshot = snapshotOf([makeNode('n')], existing);
      const run = runFilters(build(NodeVolumeLimits.factory, undefined, handleOf(snapshot, 1, objects(limit))), snapshot, pod.info);
      assert.deepEqual(run.verdicts, { n: want });
    });
  }
});

// upstream nodevolumelimits/csi_test.go TestCSILimitsQHint (the EBS inline-volume row is left out:
// Podplan does not read in-tree volume kinds), TestCSILimitsAddedPVCQHint and
// TestCSILimitsAfterCSINodeUpdatedQHint.
describe('NodeVolumeLimits queueing hints', () => {
  const pod = makePod('p').claims('csi-ebs.csi.aws.com-2').obj;
  const deleted: Array<[name: string, deletedPod: Pod, hint: QueueingHint]> = [
    ['a scheduled pod with a claim', makePod('d').claims('placeholder').node('csiNode').obj, 'Queue'],
    ['a scheduled pod without volumes', makePod('d').node('csiNode').obj, 'QueueSkip'],
    ['a pod not scheduled', makePod('d').claims('csi-ebs.csi.aws.com-0').obj, 'QueueSkip'],
  ];
  for (const [name, deletedPod, hint] of deleted)
    it(`isSchedulableAfterAssignedPodDeleted: ${name}`, () =>
      assert.equal(NodeVolumeLimits.isSchedulableAfterAssignedPodDeleted(pod, deletedPod), hint));

  const pvc = (name: string, namespace: string): PersistentVolumeClaim => ({ metadata: { name, namespace }, spec: {} });
  const ephemeral: Pod = {
    ...makePod('pod1', 'ns1').obj,
    spec: { ...makePod('pod1', 'ns1').obj.spec, volumes: [{ name: 'ephemeral', ephemeral: {} }] },
  };
  const added: Array<[name: string, newPod: Pod, addedPvc: PersistentVolumeClaim, hint: QueueingHint]> = [
    ['a claim of another namespace', makePod('p', 'ns1').obj, pvc('', 'ns2'), 'QueueSkip'],
    ['the claim the pod names', makePod('p', 'ns1').claims('pvc1').obj, pvc('pvc1', 'ns1'), 'Queue'],
    ["the claim of the pod's ephemeral volume", ephemeral, pvc('pod1-ephemeral', 'ns1'), 'Queue'],
    ['another claim', makePod('p', 'ns1').claims('pvc1').obj, pvc('pvc2', 'ns1'), 'QueueSkip'],
    ['a pod without claims', makePod('p', 'ns1').obj, pvc('pvc2', 'ns1'), 'QueueSkip'],
  ];
  for (const [name, newPod, addedPvc, hint] of added)
    it(`isSchedulableAfterPVCAdded: ${name}`, () =>
      assert.equal(NodeVolumeLimits.isSchedulableAfterPVCAdded(newPod, undefined, addedPvc), hint));

  const csiNode = (count: number): CSINode => ({
    metadata: { name: 'n' },
    spec: { drivers: [{ name: 'ebs.csi.aws.com', nodeID: 'n', allocatable: { count } }] },
  });
  const nodes: Array<[name: string, oldObj: CSINode, newObj: CSINode, hint: QueueingHint]> = [
    ['the limit grew', csiNode(1), csiNode(2), 'Queue'],
    ['the limit shrank', csiNode(2), csiNode(1), 'QueueSkip'],
    ['the limit is the same', csiNode(1), csiNode(1), 'QueueSkip'],
  ];
  for (const [name, oldObj, newObj, hint] of nodes)
    it(`isSchedulableAfterCSINodeUpdated: ${name}`, () =>
      assert.equal(NodeVolumeLimits.isSchedulableAfterCSINodeUpdated(pod, oldObj, newObj), hint));
});
