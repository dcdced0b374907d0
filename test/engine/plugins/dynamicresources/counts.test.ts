import assert from 'node:assert/strict';
import type { DeviceClass, DeviceRequest, ResourceClaim, ResourceClaimTemplate, ResourceSlice } from '../../../../src/engine/api/dra';
import type { ClusterObjects, Node, Pod } from '../../../../src/engine/api/types';
import { madeUpClaimName } from '../../../../src/engine/plugins/dynamicresources/claims';
import { deviceCounts } from '../../../../src/engine/plugins/dynamicresources/counts';

// What the pod-set planners count of devices: per kind a pod's own claims ask for, its demand, and
// each node's free and total devices of that kind (and sets sharing an attribute).
const DRIVER = 'gpu.example.com';
const gpu: DeviceClass = { metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } };
const node: Node = { metadata: { name: 'n1' } };
const slice: ResourceSlice = {
  metadata: { name: 'n1-gpus' },
  spec: {
    driver: DRIVER,
    nodeName: 'n1',
    pool: { name: 'n1', generation: 1, resourceSliceCount: 1 },
    devices: [0, 0, 0, 1, 1].map((numa, i) => ({
      name: `gpu-${i}`,
      attributes: { numa: { int: numa }, model: { string: i === 4 ? 'h100' : 'a100' } },
      ...(i === 3 ? { taints: [{ key: 'broken', effect: 'NoSchedule' as const }] } : {}),
    })),
  },
};
const template = (name: string, requests: DeviceRequest[], constraints?: Array<{ matchAttribute: string }>): ResourceClaimTemplate => ({
  metadata: { name, namespace: 'default' },
  spec: { spec: { devices: { requests, ...(constraints ? { constraints } : {}) } } },
});
const exactly = (count: number, extra: Partial<NonNullable<DeviceRequest['exactly']>> = {}): DeviceRequest => ({
  name: 'gpus',
  exactly: { deviceClassName: 'gpu', count, ...extra },
});
const pod = (name: string, claims: NonNullable<Pod['spec']['resourceClaims']>): Pod => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'main' }], resourceClaims: claims },
});
/** gpu-0 is allocated to another claim. */
const held: ResourceClaim = {
  metadata: { name: 'held', namespace: 'default' },
  spec: { devices: { requests: [exactly(1)] } },
  status: { allocation: { devices: { results: [{ request: 'gpus', driver: DRIVER, pool: 'n1', device: 'gpu-0' }] } } },
};

describe('engine/plugins/dynamicresources/counts', () => {
  const table: Array<{
    name: string;
    templates: ResourceClaimTemplate[];
    claims?: ResourceClaim[];
    /** ClusterObjects.claimsNotCreated */
    notCreated?: string[];
    pods: Pod[];
    names: string[] | undefined;
    demand?: Array<number[] | undefined>;
    free?: number[];
    total?: number[];
    shared?: Array<{ pods: string[]; demand: number[] }>;
  }> = [
    {
      name: 'two GPUs from a template: 2 wanted; the node has 4 untainted, 3 free',
      templates: [template('two', [exactly(2)])],
      pods: [pod('p', [{ name: 'g', resourceClaimTemplateName: 'two' }])],
      names: ['devices/gpu#0'],
      demand: [[2]],
      free: [3],
      total: [4],
    },
    {
      name: 'a request selector and a toleration make another kind',
      templates: [
        template('any', [exactly(1, { tolerations: [{ key: 'broken', operator: 'Exists' }] })]),
        template('h100', [exactly(1, { selectors: [{ cel: { expression: `device.attributes["${DRIVER}"].model == "h100"` } }] })]),
      ],
      pods: [pod('a', [{ name: 'g', resourceClaimTemplateName: 'any' }]), pod('b', [{ name: 'g', resourceClaimTemplateName: 'h100' }])],
      names: ['devices/gpu#0', 'devices/gpu#1'],
      demand: [
        [1, 0],
        [0, 1],
      ],
      free: [4, 1],
      total: [5, 1],
    },
    {
      name: 'two on one NUMA node: a set per two free devices of one value (NUMA 0: gpu-1, gpu-2; NUMA 1: gpu-4)',
      templates: [template('pair', [exactly(2)], [{ matchAttribute: `${DRIVER}/numa` }])],
      pods: [pod('p', [{ name: 'g', resourceClaimTemplateName: 'pair' }])],
      names: ['devices/gpu#0', `device-sets/gpu#0/${DRIVER}/numa×2`],
      demand: [[2, 1]],
      free: [3, 1],
      total: [4, 1],
    },
    {
      name: 'a claim two pods share: counted once, for both, not per pod',
      templates: [],
      claims: [{ metadata: { name: 'shared', namespace: 'default' }, spec: { devices: { requests: [exactly(2)] } } }],
      pods: [pod('a', [{ name: 'g', resourceClaimName: 'shared' }]), pod('b', [{ name: 'g', resourceClaimName: 'shared' }])],
      names: ['devices/gpu#0'],
      demand: [undefined, undefined],
      shared: [{ pods: ['a', 'b'], demand: [2] }],
      free: [3],
      total: [4],
    },
    {
      name: "a template claim ResourceQuota admission refused (claimsNotCreated): its pod wants nothing, the other pod's is counted",
      templates: [template('two', [exactly(2)])],
      notCreated: [`default/${madeUpClaimName(pod('refused', []), 'g')}`],
      pods: [
        pod('refused', [{ name: 'g', resourceClaimTemplateName: 'two' }]),
        pod('p', [{ name: 'g', resourceClaimTemplateName: 'two' }]),
      ],
      names: ['devices/gpu#0'],
      demand: [undefined, [2]],
      free: [3],
      total: [4],
    },
    {
      name: 'a firstAvailable list, All and admin access are left to Filter',
      templates: [
        template('list', [{ name: 'g', firstAvailable: [{ name: 'a', deviceClassName: 'gpu' }] }]),
        template('all', [exactly(1, { allocationMode: 'All' })]),
        template('admin', [exactly(1, { adminAccess: true })]),
      ],
      pods: [pod('c', [{ name: 'g', resourceClaimTemplateName: 'all' }]), pod('d', [{ name: 'g', resourceClaimTemplateName: 'admin' }])],
      names: undefined,
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const objects: ClusterObjects = {
        deviceClasses: [gpu],
        resourceSlices: [slice],
        resourceClaimTemplates: row.templates,
        resourceClaims: [held, ...(row.claims ?? [])],
        ...(row.notCreated ? { claimsNotCreated: row.notCreated } : {}),
      };
      const counts = deviceCounts(row.pods, objects);
      assert.deepEqual(counts?.names, row.names);
      if (!counts) return;
      assert.deepEqual(
        row.pods.map((p) => (counts.demand(p) ? [...(counts.demand(p) as Float64Array)] : undefined)),
        row.demand,
      );
      assert.deepEqual(
        counts.shared.map((c) => ({ pods: c.pods.map((p) => p.metadata.name), demand: [...c.demand] })),
        row.shared ?? [],
      );
      const supply = counts.supply(node);
      assert.deepEqual([[...supply.free], [...supply.total]], [row.free, row.total]);
    });
  }
});
