import assert from 'node:assert/strict';
import type { ResourceSlice } from '../../../src/engine/api/dra';
import { sameCluster, type ClusterSnapshot } from '../../../src/engine/api/types';

// sameCluster: what a cache of anything worked out from a cluster compares (the editor's engine).
describe('engine/api/types sameCluster', () => {
  const node = { metadata: { name: 'n1' } };
  const pod = { metadata: { name: 'p', namespace: 'default' }, spec: { containers: [] } };
  const slice = { metadata: { name: 's' }, spec: { driver: 'gpu.example.com', pool: { name: 'n1' } } } as unknown as ResourceSlice;
  const base: ClusterSnapshot = { nodes: [node], pods: [pod], resourceSlices: [slice] };
  const table: Array<[what: string, other: ClusterSnapshot, same: boolean]> = [
    ['the same snapshot', base, true],
    ['a new snapshot of the same objects', { nodes: [node], pods: [pod], resourceSlices: [slice] }, true],
    ['an absent part and an empty one', { ...base, resourceClaims: [] }, true],
    ['a node that is another object, equal or not', { ...base, nodes: [{ metadata: { name: 'n1' } }] }, false],
    ['a ResourceSlice changed, nodes and pods the same', { ...base, resourceSlices: [{ ...slice }] }, false],
    ['a ResourceSlice gone', { nodes: [node], pods: [pod] }, false],
    ['a claim admission did not create', { ...base, claimsNotCreated: ['default/p-gpu'] }, false],
    ['a PersistentVolumeClaim more', { ...base, persistentVolumeClaims: [{ metadata: { name: 'c' } } as never] }, false],
  ];
  for (const [what, other, same] of table)
    it(`${what}: ${same ? 'same' : 'not the same'}`, () => assert.equal(sameCluster(base, other), same));
});
