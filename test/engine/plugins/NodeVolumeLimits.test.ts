import assert from 'node:assert/strict';
import type { ClusterObjects } from '../../../src/engine/api/types';
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
