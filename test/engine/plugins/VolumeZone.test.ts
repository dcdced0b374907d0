import assert from 'node:assert/strict';
import type { ClusterObjects } from '../../../src/engine/api/types';
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
