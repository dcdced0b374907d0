import assert from 'node:assert/strict';
import type {
  Device,
  DeviceClass,
  DeviceConstraint,
  DeviceRequest,
  DeviceTaintRule,
  ResourceClaim,
  ResourceSlice,
} from '../../../../src/engine/api/dra';
import type { Node } from '../../../../src/engine/api/types';
import type { Clock } from '../../../../src/engine/api/clock';
import { allocate, deviceId, SliceIndex, withDeviceTaintRules } from '../../../../src/engine/plugins/dynamicresources/allocator';
import type { AllocationDeadline } from '../../../../src/engine/plugins/dynamicresources/deadline';

// k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go, the
// rows named below (driver-a, pool-1, node-1, class-a as there).
const DRIVER = 'driver-a';
const node1: Node = { metadata: { name: 'node-1', labels: { region: 'region-1' } } };
const node2: Node = { metadata: { name: 'node-2', labels: { region: 'region-2' } } };
const classA: DeviceClass = {
  metadata: { name: 'class-a' },
  spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] },
};
const dev = (name: string, extra: Partial<Device> = {}): Device => ({ name, ...extra });
const slice = (name: string, devices: Device[], spec: Partial<ResourceSlice['spec']> = {}): ResourceSlice => ({
  metadata: { name },
  spec: { driver: DRIVER, pool: { name: 'pool-1', generation: 1, resourceSliceCount: 1 }, nodeName: 'node-1', devices, ...spec },
});
const request = (
  name: string,
  count = 1,
  expression?: string,
  extra: Partial<NonNullable<DeviceRequest['exactly']>> = {},
): DeviceRequest => ({
  name,
  exactly: {
    deviceClassName: 'class-a',
    allocationMode: 'ExactCount',
    count,
    ...(expression ? { selectors: [{ cel: { expression } }] } : {}),
    ...extra,
  },
});
const claim = (requests: DeviceRequest[], constraints?: DeviceConstraint[]): ResourceClaim => ({
  metadata: { name: 'claim-0', namespace: 'default' },
  spec: { devices: { requests, ...(constraints ? { constraints } : {}) } },
});
const memory = (m: string): Partial<Device> => ({ capacity: { memory: { value: m } } });
// Partitionable devices: a pool of two slices, one of them counter set counter-set-1.
const pool2: Partial<ResourceSlice['spec']> = { pool: { name: 'pool-1', generation: 1, resourceSliceCount: 2 } };
const consumes = (m: string): Partial<Device> => ({
  consumesCounters: [{ counterSet: 'counter-set-1', counters: { memory: { value: m } } }],
});
const counterSlice = (name: string, m: string, nodeName = 'node-1'): ResourceSlice => ({
  metadata: { name },
  spec: {
    driver: DRIVER,
    pool: { name: 'pool-1', generation: 1, resourceSliceCount: 2 },
    nodeName,
    sharedCounters: [{ name: 'counter-set-1', counters: { memory: { value: m } } }],
  },
});

function run(
  claims: ResourceClaim[],
  slices: ResourceSlice[],
  node = node1,
  allocated: string[] = [],
  deadline?: AllocationDeadline,
): string[][] | string | undefined {
  const outcome = allocate(
    { classes: new Map([[classA.metadata.name, classA]]), slices: new SliceIndex(slices), allocated: new Set(allocated) },
    node,
    claims,
    deadline,
  );
  if (outcome.kind === 'timeout') return 'timeout';
  if (outcome.kind === 'error') return outcome.message;
  if (outcome.kind === 'none') return undefined;
  return outcome.results.map((r) => (r.devices?.results ?? []).map((d) => `${d.request}=${d.device}${d.adminAccess ? ' (admin)' : ''}`));
}

describe('engine/plugins/dynamicresources/allocator', () => {
  const table: Array<
    [
      name: string,
      claims: ResourceClaim[],
      slices: ResourceSlice[],
      expected: string[][] | string | undefined,
      node?: Node,
      allocated?: string[],
    ]
  > = [
    ['simple', [claim([request('req-0')])], [slice('slice-1', [dev('device-1')])], [['req-0=device-1']]],
    ['other-node', [claim([request('req-0')])], [slice('slice-1', [dev('device-1')], { nodeName: 'node-2' })], undefined],
    [
      'small-and-large',
      [
        claim([
          request('req-0', 1, `device.capacity["${DRIVER}"].memory.compareTo(quantity("1Gi")) >= 0`),
          request('req-1', 1, `device.capacity["${DRIVER}"].memory.compareTo(quantity("2Gi")) >= 0`),
        ]),
      ],
      [slice('slice-1', [dev('device-1', memory('1Gi')), dev('device-2', memory('2Gi'))])],
      [['req-0=device-1', 'req-1=device-2']],
    ],
    [
      'small-and-large-backtrack-requests',
      [
        claim([
          request('req-0', 1, `device.capacity["${DRIVER}"].memory.compareTo(quantity("1Gi")) >= 0`),
          request('req-1', 1, `device.capacity["${DRIVER}"].memory.compareTo(quantity("2Gi")) >= 0`),
        ]),
      ],
      [slice('slice-1', [dev('device-2', memory('2Gi')), dev('device-1', memory('1Gi'))])],
      [['req-0=device-1', 'req-1=device-2']],
    ],
    [
      'obsolete-slice',
      [claim([request('req-0')])],
      [
        slice('slice-1-obsolete', [dev('device-1')], { pool: { name: 'pool-1', generation: 1, resourceSliceCount: 2 } }),
        slice('slice-1-obsolete', [dev('device-2')], { pool: { name: 'pool-1', generation: 2, resourceSliceCount: 2 } }),
      ],
      undefined,
    ],
    ['not-enough-suitable-devices', [claim([request('req-0', 2)])], [slice('slice-1', [dev('device-1')])], undefined],
    [
      'unknown-class',
      [claim([{ name: 'req-0', exactly: { deviceClassName: 'nope', allocationMode: 'ExactCount', count: 1 } }])],
      [slice('slice-1', [dev('device-1')])],
      'claim default/claim-0, request req-0: could not retrieve device class nope: deviceclass.resource.k8s.io "nope" not found',
    ],
    [
      'all-devices-many',
      [claim([request('req-0', 1, undefined, { allocationMode: 'All' })])],
      [slice('slice-1', [dev('device-1'), dev('device-2')])],
      [['req-0=device-1', 'req-0=device-2']],
    ],
    [
      'all-devices-of-the-incomplete-pool',
      [claim([request('req-0', 1, undefined, { allocationMode: 'All' })])],
      [slice('slice-1', [dev('device-1')], { pool: { name: 'pool-1', generation: 1, resourceSliceCount: 2 } })],
      'claim default/claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated',
    ],
    [
      'all-devices-some-allocated',
      [claim([request('req-0', 1, undefined, { allocationMode: 'All' })])],
      [slice('slice-1', [dev('device-1'), dev('device-2')])],
      undefined,
      node1,
      [deviceId(DRIVER, 'pool-1', 'device-1')],
    ],
    [
      'all-devices-some-allocated-admin-access',
      [claim([request('req-0', 1, undefined, { allocationMode: 'All', adminAccess: true })])],
      [slice('slice-1', [dev('device-1'), dev('device-2')])],
      [['req-0=device-1 (admin)', 'req-0=device-2 (admin)']],
      node1,
      [deviceId(DRIVER, 'pool-1', 'device-1')],
    ],
    [
      'already-allocated-devices',
      [claim([request('req-0')])],
      [slice('slice-1', [dev('device-1')])],
      undefined,
      node1,
      [deviceId(DRIVER, 'pool-1', 'device-1')],
    ],
    [
      'network-attached-device',
      [claim([request('req-0')])],
      [
        slice('slice-1', [dev('device-1')], {
          nodeName: undefined,
          nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'region', operator: 'In', values: ['region-1'] }] }] },
        }),
      ],
      [['req-0=device-1']],
    ],
    [
      'unsuccessful-allocation-network-attached-device',
      [claim([request('req-0')])],
      [
        slice('slice-1', [dev('device-1')], {
          nodeName: undefined,
          nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'region', operator: 'In', values: ['region-1'] }] }] },
        }),
      ],
      undefined,
      node2,
    ],
    [
      'with-constraint',
      [claim([request('req-0'), request('req-1')], [{ matchAttribute: `${DRIVER}/numa` }])],
      [
        slice('slice-1', [
          dev('device-1', { attributes: { numa: { int: 1 } } }),
          dev('device-2', { attributes: { numa: { int: 2 } } }),
          dev('device-3', { attributes: { numa: { int: 1 } } }),
        ]),
      ],
      [['req-0=device-1', 'req-1=device-3']],
    ],
    [
      'with-constraint-not-matching-int-attribute',
      [claim([request('req-0', 2)], [{ matchAttribute: `${DRIVER}/numa` }])],
      [slice('slice-1', [dev('device-1', { attributes: { numa: { int: 1 } } }), dev('device-2', { attributes: { numa: { int: 2 } } })])],
      undefined,
    ],
    [
      'tainted device (NoSchedule) is not allocated unless tolerated',
      [claim([request('req-0')])],
      [slice('slice-1', [dev('device-1', { taints: [{ key: 'k', effect: 'NoSchedule' }] }), dev('device-2')])],
      [['req-0=device-2']],
    ],
    [
      'prioritized list: the first subrequest that fits',
      [
        claim([
          {
            name: 'req-0',
            firstAvailable: [
              { name: 'big', deviceClassName: 'class-a', allocationMode: 'ExactCount', count: 3 },
              { name: 'small', deviceClassName: 'class-a', allocationMode: 'ExactCount', count: 1 },
            ],
          },
        ]),
      ],
      [slice('slice-1', [dev('device-1'), dev('device-2')])],
      [['req-0/small=device-1']],
    ],
    // Consumable capacity: a device that allows multiple allocations is shared by claims while its capacity lasts.
    [
      'consumable capacity: two claims share a device, 4Gi each of 10Gi',
      [
        claim([request('req-0', 1, undefined, { capacity: { requests: { memory: '4Gi' } } })]),
        claim([request('req-0', 1, undefined, { capacity: { requests: { memory: '4Gi' } } })]),
      ],
      [slice('slice-1', [dev('device-1', { allowMultipleAllocations: true, ...memory('10Gi') })])],
      [['req-0=device-1'], ['req-0=device-1']],
    ],
    [
      'consumable capacity: 6Gi each of 10Gi do not fit twice',
      [
        claim([request('req-0', 1, undefined, { capacity: { requests: { memory: '6Gi' } } })]),
        claim([request('req-0', 1, undefined, { capacity: { requests: { memory: '6Gi' } } })]),
      ],
      [slice('slice-1', [dev('device-1', { allowMultipleAllocations: true, ...memory('10Gi') })])],
      undefined,
    ],
    [
      'a device that does not allow multiple allocations is taken once',
      [
        claim([request('req-0', 1, undefined, { capacity: { requests: { memory: '4Gi' } } })]),
        claim([request('req-0', 1, undefined, { capacity: { requests: { memory: '4Gi' } } })]),
      ],
      [slice('slice-1', [dev('device-1', memory('10Gi'))])],
      undefined,
    ],
    // Partitionable devices (the partitionable-devices-* rows).
    [
      'partitionable-devices-single-device',
      [claim([request('req-0')])],
      [slice('slice-1', [dev('device-1', consumes('4Gi'))], pool2), counterSlice('slice-2', '8Gi')],
      [['req-0=device-1']],
    ],
    [
      'partitionable-devices-no-capacity-available: the counter left (18Gi − 16Gi) is short of 4Gi',
      [claim([request('req-0')])],
      [slice('slice-1', [dev('device-1', consumes('4Gi')), dev('device-2', consumes('16Gi'))], pool2), counterSlice('slice-2', '18Gi')],
      undefined,
      node1,
      [deviceId(DRIVER, 'pool-1', 'device-2')],
    ],
    [
      'partitionable-devices-overallocated-capacity-pool: a counter overdrawn by an allocated device leaves nothing',
      [claim([request('req-0')])],
      [slice('slice-1', [dev('device-1', consumes('4Gi')), dev('device-2', consumes('20Gi'))], pool2), counterSlice('slice-2', '18Gi')],
      undefined,
      node1,
      [deviceId(DRIVER, 'pool-1', 'device-2')],
    ],
    [
      'partitionable-devices-taint-releases-counter: the tainted device gives its counters back',
      [claim([request('req-0')])],
      [
        slice(
          'slice-1',
          [dev('device-1', { ...consumes('1'), taints: [{ key: 'k', effect: 'NoSchedule' }] }), dev('device-2', consumes('1'))],
          pool2,
        ),
        counterSlice('slice-2', '1'),
      ],
      [['req-0=device-2']],
    ],
    [
      'devices of one claim share the counters: two of 4Gi from 8Gi, not three',
      [claim([request('req-0', 3)])],
      [
        slice('slice-1', [dev('device-1', consumes('4Gi')), dev('device-2', consumes('4Gi')), dev('device-3', consumes('4Gi'))], pool2),
        counterSlice('slice-2', '8Gi'),
      ],
      undefined,
    ],
    [
      'a device consuming a counter set the pool does not have makes the pool invalid',
      [claim([request('req-0')])],
      [
        slice('slice-1', [dev('device-1', { consumesCounters: [{ counterSet: 'other', counters: { memory: { value: '1Gi' } } }] })], pool2),
        counterSlice('slice-2', '8Gi'),
      ],
      undefined,
    ],
    [
      'counters published on another node still count (the pool is complete with its slices that do not reach this node)',
      [claim([request('req-0', 2)])],
      [
        slice('slice-1', [dev('device-1', consumes('4Gi')), dev('device-2', consumes('4Gi'))], pool2),
        counterSlice('slice-2', '4Gi', 'node-2'),
      ],
      undefined,
    ],
  ];
  for (const [name, claims, slices, expected, node, allocated] of table) {
    it(name, () => assert.deepEqual(run(claims, slices, node, allocated), expected));
  }

  // DRADeviceTaintRules: what the slice tracker hands the allocator (resourceslice/tracker,
  // applyPatches) — the rule's taint appended to the devices its selector matches.
  describe('DeviceTaintRules', () => {
    const rule = (
      name: string,
      selector: DeviceTaintRule['spec']['deviceSelector'],
      effect: 'NoSchedule' | 'None' = 'NoSchedule',
    ): DeviceTaintRule => ({
      metadata: { name },
      spec: { ...(selector ? { deviceSelector: selector } : {}), taint: { key: 'k', value: 'v', effect } },
    });
    const slices = [slice('slice-1', [dev('device-1'), dev('device-2', { taints: [{ key: 'own', effect: 'None' }] })])];
    const taints = (rules: DeviceTaintRule[]) =>
      withDeviceTaintRules(slices, rules).flatMap((s) =>
        (s.spec.devices ?? []).map((d) => `${d.name}:${(d.taints ?? []).map((t) => t.key).join(',')}`),
      );
    const table: Array<[name: string, rules: DeviceTaintRule[], expected: string[]]> = [
      ['no selector: no device', [rule('r', undefined)], ['device-1:', 'device-2:own']],
      ['an empty selector: every device, after its own taints', [rule('r', {})], ['device-1:k', 'device-2:own,k']],
      ['by driver and pool', [rule('r', { driver: DRIVER, pool: 'pool-1' })], ['device-1:k', 'device-2:own,k']],
      ['another driver: none', [rule('r', { driver: 'driver-b' })], ['device-1:', 'device-2:own']],
      ['another pool: none', [rule('r', { pool: 'pool-2' })], ['device-1:', 'device-2:own']],
      ['by device name', [rule('r', { device: 'device-2' })], ['device-1:', 'device-2:own,k']],
      ['two rules on one device', [rule('a', { device: 'device-1' }), rule('b', {})], ['device-1:k,k', 'device-2:own,k']],
    ];
    for (const [name, rules, expected] of table) it(name, () => assert.deepEqual(taints(rules), expected));

    it('a slice no rule touches is the same object', () => {
      assert.equal(withDeviceTaintRules(slices, [rule('r', { pool: 'pool-2' })])[0], slices[0]);
    });

    it('a NoSchedule rule keeps its devices from a request that does not tolerate it; effect None does not', () => {
      const patched = (effect: 'NoSchedule' | 'None') =>
        withDeviceTaintRules(slices, [rule('r', { device: 'device-1' }, effect)]) as ResourceSlice[];
      assert.deepEqual(run([claim([request('req-0')])], patched('NoSchedule')), [['req-0=device-2']]);
      assert.deepEqual(run([claim([request('req-0')])], patched('None')), [['req-0=device-1']]);
      assert.deepEqual(
        run([claim([request('req-0', 1, undefined, { tolerations: [{ key: 'k', operator: 'Exists' }] })])], patched('NoSchedule')),
        [['req-0=device-1']],
      );
    });
  });

  // DRASchedulerFilterTimeout: upstream's allocateOne checks its context at every step of the search
  // (`filter operation aborted: context deadline exceeded`); Podplan's asks the injected clock there.
  // A clock that moves 1 ms each time it is read counts the steps: one device for one request is four
  // (the device, the request's end, the claim's end, the claims' end), as upstream's allocateOne calls.
  describe('a deadline on the injected clock, asked at every step of the search', () => {
    class TickingClock implements Clock {
      private t = 0;
      reads = 0;
      now(): number {
        this.reads++;
        return this.t++;
      }
      setTimer(): never {
        throw new Error('the allocator sets no timer');
      }
    }
    const three = [slice('slice-1', [dev('device-1'), dev('device-2'), dev('device-3')])];
    const table: Array<
      [
        name: string,
        claims: ResourceClaim[],
        slices: ResourceSlice[],
        at: number | undefined,
        expected: string[][] | string | undefined,
        reads: number,
      ]
    > = [
      ['no deadline: the clock is not read', [claim([request('req-0')])], three, undefined, [['req-0=device-1']], 0],
      ['the deadline after the last of 4 steps: allocated', [claim([request('req-0')])], three, 4, [['req-0=device-1']], 4],
      ['the deadline at the 4th step: timed out', [claim([request('req-0')])], three, 3, 'timeout', 4],
      ['the deadline at once: timed out at the first step', [claim([request('req-0')])], three, 0, 'timeout', 1],
      // 4 devices from 3: the search tries every combination before it fails (1 + 3 + 3 + 1 = 8 steps).
      ['an exhaustive search that fails, within the deadline: no devices', [claim([request('req-0', 4)])], three, 100, undefined, 8],
      ['the same search past the deadline: timed out, not "no devices"', [claim([request('req-0', 4)])], three, 5, 'timeout', 6],
    ];
    for (const [name, claims, slices, at, expected, reads] of table) {
      it(name, () => {
        const clock = new TickingClock();
        const outcome = run(claims, slices, node1, [], at === undefined ? undefined : { clock, at });
        assert.deepEqual([outcome, clock.reads], [expected, reads]);
      });
    }
  });
});
