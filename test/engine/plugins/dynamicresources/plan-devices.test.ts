import assert from 'node:assert/strict';
import type { DeviceClass, ResourceClaimTemplate, ResourceSlice } from '../../../../src/engine/api/dra';
import type { ClusterObjects, Node, Pod } from '../../../../src/engine/api/types';
import { madeUpClaimName } from '../../../../src/engine/plugins/dynamicresources/claims';
import { planDevices } from '../../../../src/engine/plugins/dynamicresources/plan-devices';

// What each placed pod's claims get when the scheduler follows a plan pod by pod: the allocator on
// the devices the cluster and the earlier pods left.
const DRIVER = 'gpu.example.com';
const gpu: DeviceClass = { metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } };
const node: Node = { metadata: { name: 'n1' } };
const slice: ResourceSlice = {
  metadata: { name: 'n1-gpus' },
  spec: {
    driver: DRIVER,
    nodeName: 'n1',
    pool: { name: 'n1', generation: 1, resourceSliceCount: 1 },
    devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }],
  },
};
const template: ResourceClaimTemplate = {
  metadata: { name: 'one', namespace: 'default' },
  spec: { spec: { devices: { requests: [{ name: 'g', exactly: { deviceClassName: 'gpu', count: 1 } }] } } },
};
const pod = (name: string): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'main' }], resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one' }] },
});

describe('engine/plugins/dynamicresources/plan-devices', () => {
  const [a, b] = [pod('a'), pod('b')];
  const table: Array<{ name: string; notCreated: string[]; devices: Record<string, string[]> }> = [
    {
      name: 'each pod gets a device for the claim made up from its template, in plan order',
      notCreated: [],
      devices: { a: [`default/${madeUpClaimName(a, 'gpu')}:gpu-0`], b: [`default/${madeUpClaimName(b, 'gpu')}:gpu-1`] },
    },
    {
      name: 'a claim the cluster lists as never created (ResourceQuota refused it): its pod gets nothing, the next pod the first device',
      notCreated: [`default/${madeUpClaimName(a, 'gpu')}`],
      devices: { b: [`default/${madeUpClaimName(b, 'gpu')}:gpu-0`] },
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const objects: ClusterObjects = {
        deviceClasses: [gpu],
        resourceSlices: [slice],
        resourceClaimTemplates: [template],
        ...(row.notCreated.length > 0 ? { claimsNotCreated: row.notCreated } : {}),
      };
      const got = planDevices(objects, [
        { pod: a, node },
        { pod: b, node },
      ]);
      assert.deepEqual(
        Object.fromEntries([...got].map(([p, ds]) => [p.metadata.name, ds.map((d) => `${d.claim}:${d.device}`)])),
        row.devices,
      );
    });
  }
});
