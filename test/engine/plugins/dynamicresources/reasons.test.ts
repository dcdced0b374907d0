import assert from 'node:assert/strict';
import type { DeviceFailure, DeviceHolder } from '../../../../src/engine/api/device-failures';
import type { Device, DeviceClass, DeviceConstraint, DeviceRequest, ResourceClaim, ResourceSlice } from '../../../../src/engine/api/dra';
import type { Node } from '../../../../src/engine/api/types';
import { deviceFailureText } from '../../../../src/engine/explain/devices';
import { allocate, deviceId, SliceIndex } from '../../../../src/engine/plugins/dynamicresources/allocator';
import { deviceFailures } from '../../../../src/engine/plugins/dynamicresources/reasons';

// Why the allocator found nothing on a node, one row per cause: the data, and the one wording of it.
const DRIVER = 'gpu.example.com';
const node1: Node = { metadata: { name: 'node-1' } };
const gpu: DeviceClass = { metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } };
const nic: DeviceClass = {
  metadata: { name: 'nic' },
  spec: { selectors: [{ cel: { expression: 'device.driver == "nic.example.com"' } }] },
};
const dev = (name: string, numa: number, model = 'a100', extra: Partial<Device> = {}): Device => ({
  name,
  attributes: { numa: { int: numa }, model: { string: model } },
  capacity: { memory: { value: '80Gi' } },
  ...extra,
});
const slice = (devices: Device[]): ResourceSlice => ({
  metadata: { name: 'node-1-gpus' },
  spec: { driver: DRIVER, pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices },
});
const request = (name: string, count: number, extra: Partial<NonNullable<DeviceRequest['exactly']>> = {}): DeviceRequest => ({
  name,
  exactly: { deviceClassName: 'gpu', count, ...extra },
});
const claim = (name: string, requests: DeviceRequest[], constraints?: DeviceConstraint[]): ResourceClaim => ({
  metadata: { name, namespace: 'ml' },
  spec: { devices: { requests, ...(constraints ? { constraints } : {}) } },
});
const four = [dev('gpu-0', 0), dev('gpu-1', 0), dev('gpu-2', 1), dev('gpu-3', 1)];
const id = (d: string) => deviceId(DRIVER, 'node-1', d);
const holders: Record<string, DeviceHolder> = {
  [id('gpu-0')]: { claim: 'ml/trainer-0-gpus', pods: ['trainer-0'] },
  [id('gpu-1')]: { claim: 'ml/trainer-0-gpus', pods: ['trainer-0'] },
};

describe('engine/plugins/dynamicresources/reasons', () => {
  const table: Array<{
    name: string;
    claims: ResourceClaim[];
    slices: ResourceSlice[];
    allocated?: string[];
    failures: Array<Partial<DeviceFailure>>;
    words: string[];
  }> = [
    {
      name: 'a node without devices',
      claims: [claim('c', [request('gpus', 1)])],
      slices: [],
      failures: [{ code: 'noDevices', claim: 'ml/c', request: 'gpus', deviceClass: 'gpu', wanted: 1 }],
      words: ['claim ml/c, request gpus (1 × gpu): the node has no devices'],
    },
    {
      name: 'no device of the class: the class selector that is false',
      claims: [claim('c', [{ name: 'nic', exactly: { deviceClassName: 'nic' } }])],
      slices: [slice(four)],
      failures: [
        { code: 'noClassMatch', devices: 4, selector: { owner: 'class', index: 0, expression: 'device.driver == "nic.example.com"' } },
      ],
      words: [
        `claim ml/c, request nic (1 × nic): none of the node's 4 devices is of class nic: the class's selector #0 (device.driver == "nic.example.com") is false`,
      ],
    },
    {
      name: "the request's selector false for every device of the class (the first false one named)",
      claims: [
        claim('c', [
          request('gpus', 1, {
            selectors: [
              { cel: { expression: 'device.attributes["gpu.example.com"].numa >= 0' } },
              { cel: { expression: 'device.attributes["gpu.example.com"].model == "h100"' } },
            ],
          }),
        ]),
      ],
      slices: [slice(four)],
      failures: [
        {
          code: 'selectorFalse',
          devices: 4,
          selector: { owner: 'request', index: 1, expression: 'device.attributes["gpu.example.com"].model == "h100"' },
        },
      ],
      words: [
        `claim ml/c, request gpus (1 × gpu): of the node's 4 devices of class gpu none matches: the request's selector #1 (device.attributes["gpu.example.com"].model == "h100") is false`,
      ],
    },
    {
      name: 'matching devices tainted or too small',
      claims: [claim('c', [request('gpus', 1, { capacity: { requests: { memory: '100Gi' } } })])],
      slices: [slice([dev('gpu-0', 0, 'a100', { taints: [{ key: 'broken', effect: 'NoSchedule' }] }), dev('gpu-1', 0)])],
      failures: [{ code: 'unsuitable', devices: 2, tainted: 1, capacity: 1 }],
      words: [
        "claim ml/c, request gpus (1 × gpu): the node's 2 matching devices: 1 tainted without a toleration, 1 without the capacity asked for",
      ],
    },
    {
      name: 'more wanted than the node has',
      claims: [claim('c', [request('gpus', 8)])],
      slices: [slice(four)],
      failures: [{ code: 'notEnough', matching: 4, free: 4, holders: [], planned: 0 }],
      words: ['claim ml/c, request gpus (8 × gpu): only 4 matching devices on the node'],
    },
    {
      name: 'taken: the claims and pods that hold them, and those a plan placed earlier',
      claims: [claim('c', [request('gpus', 2)])],
      slices: [slice(four)],
      allocated: [id('gpu-0'), id('gpu-1'), id('gpu-2')],
      failures: [{ code: 'notEnough', matching: 4, free: 1, holders: [{ claim: 'ml/trainer-0-gpus', pods: ['trainer-0'] }], planned: 1 }],
      words: [
        "claim ml/c, request gpus (2 × gpu): 1 of the node's 4 matching devices free, 3 taken by ml/trainer-0-gpus (trainer-0), 1 device for pods placed earlier in this plan",
      ],
    },
    {
      name: 'matchAttribute unmet: free devices per value',
      claims: [claim('c', [request('gpus', 2)], [{ matchAttribute: `${DRIVER}/numa` }])],
      slices: [slice(four)],
      allocated: [id('gpu-0'), id('gpu-2')],
      failures: [
        {
          code: 'constraintUnmet',
          constraint: 'matchAttribute',
          index: 0,
          attribute: `${DRIVER}/numa`,
          groups: [
            { value: '0', devices: 1 },
            { value: '1', devices: 1 },
          ],
          requests: ['gpus'],
          wanted: 2,
        },
      ],
      words: [
        'claim ml/c, request gpus (2 devices): constraint #0 matchAttribute gpu.example.com/numa: no value shared by 2 free devices (free devices per value: 0: 1, 1: 1)',
      ],
    },
    {
      name: 'distinctAttribute unmet',
      claims: [claim('c', [request('gpus', 3)], [{ distinctAttribute: `${DRIVER}/numa` }])],
      slices: [slice(four)],
      failures: [
        {
          code: 'constraintUnmet',
          constraint: 'distinctAttribute',
          groups: [
            { value: '0', devices: 2 },
            { value: '1', devices: 2 },
          ],
        },
      ],
      words: [
        'claim ml/c, request gpus (3 devices): constraint #0 distinctAttribute gpu.example.com/numa: fewer than 3 distinct values among the free devices (free devices per value: 0: 2, 1: 2)',
      ],
    },
    {
      name: 'requests that compete: each alone fits',
      claims: [claim('a', [request('gpus', 3)]), claim('b', [request('gpus', 2)])],
      slices: [slice(four)],
      failures: [{ code: 'together', claim: 'ml/a', request: '*' }],
      words: [
        'the claims of the pod (ml/a): each request can be met alone, but not all of them at once (they compete for the same devices)',
      ],
    },
    {
      name: 'firstAvailable: each entry that could not be met',
      claims: [
        claim('c', [
          {
            name: 'gpu',
            firstAvailable: [
              { name: 'big', deviceClassName: 'gpu', count: 8 },
              { name: 'nic', deviceClassName: 'nic' },
            ],
          },
        ]),
      ],
      slices: [slice(four)],
      failures: [
        { code: 'notEnough', request: 'gpu/big' },
        { code: 'noClassMatch', request: 'gpu/nic' },
      ],
      words: [
        'claim ml/c, request gpu/big (8 × gpu): only 4 matching devices on the node',
        `claim ml/c, request gpu/nic (1 × nic): none of the node's 4 devices is of class nic: the class's selector #0 (device.driver == "nic.example.com") is false`,
      ],
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const input = {
        classes: new Map([
          ['gpu', gpu],
          ['nic', nic],
        ]),
        slices: new SliceIndex(row.slices),
        allocated: new Set(row.allocated ?? []),
      };
      // Every row is a node the allocator itself finds nothing on.
      assert.equal(allocate(input, node1, row.claims).kind, 'none');
      const failures = deviceFailures(input, node1, row.claims, (d) => holders[d]);
      assert.equal(failures.length, row.failures.length, JSON.stringify(failures));
      row.failures.forEach((want, i) => {
        const got = failures[i] as unknown as Record<string, unknown>;
        for (const [k, v] of Object.entries(want)) assert.deepEqual(got[k], v, `${k} of failure ${i}`);
      });
      assert.deepEqual(failures.map(deviceFailureText), row.words);
    });
  }
});
