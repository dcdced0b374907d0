import assert from 'node:assert/strict';
import type { DeviceClass, DeviceRequest, ResourceClaim, ResourceClaimTemplate, ResourceSlice } from '../../../src/engine/api/dra';
import type { Result } from '../../../src/engine/api/result';
import type { ClusterObjects, Pod } from '../../../src/engine/api/types';
import type { ClaimBinding, ClaimWriter, PodExtendedResourceClaimStatus } from '../../../src/engine/framework/binder';
import type { FrameworkHandle } from '../../../src/engine/framework/interfaces';
import type { QueueingHint } from '../../../src/engine/framework/events';
import { CycleState, PLANNED_PODS, type StateKey } from '../../../src/engine/framework/cycle-state';
import { podInfo, type PodInfo } from '../../../src/engine/framework/node-info';
import { deviceFailureText } from '../../../src/engine/explain/devices';
import { PREEMPTION_MODE } from '../../../src/engine/framework/preemption/record';
import * as DR from '../../../src/engine/plugins/DynamicResources';
import { madeUpClaimName } from '../../../src/engine/plugins/dynamicresources/claims';
import { ManualClock } from '../../../src/engine/api/clock';
import { handleOf, makeNode, snapshotOf } from '../../builders';
import { argsError, build, filterAll, runFilters } from './harness';

const GPU = 'gpu.example.com';
const gpuClass: DeviceClass = { metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${GPU}"` } }] } };
const slice = (node: string, devices: number, extra: Partial<ResourceSlice['spec']> = {}): ResourceSlice => ({
  metadata: { name: `${node}-gpu` },
  spec: {
    driver: GPU,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    nodeName: node,
    devices: Array.from({ length: devices }, (_, i) => ({ name: `gpu-${i}`, attributes: { numa: { int: i % 2 } } })),
    ...extra,
  },
});
const claim = (name: string, requests: DeviceRequest[], status?: ResourceClaim['status']): ResourceClaim => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { devices: { requests } },
  ...(status ? { status } : {}),
});
const exactly = (count = 1, deviceClassName = 'gpu'): DeviceRequest => ({
  name: 'req',
  exactly: { deviceClassName, allocationMode: 'ExactCount', count },
});
const podWith = (name: string, claims: NonNullable<Pod['spec']['resourceClaims']>, status?: Pod['status']): PodInfo => {
  const info = podInfo({
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'main' }], resourceClaims: claims },
    ...(status ? { status } : {}),
  });
  assert.ok(info.ok);
  return info.value;
};
const allocatedOn = (node: string, reservedFor: string[] = []): ResourceClaim['status'] => ({
  allocation: {
    devices: { results: [{ request: 'req', driver: GPU, pool: node, device: 'gpu-0' }] },
    nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
  },
  reservedFor: reservedFor.map((p) => ({ resource: 'pods', name: p, uid: `uid-${p}` })),
});
const NOT_AVAILABLE = 'UnschedulableAndUnresolvable: resourceclaim not available on the node';
const CANNOT = 'UnschedulableAndUnresolvable: cannot allocate all claims';

// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, TestPlugin: the rows
// about claims by name and from templates, classes, allocation and allocated claims (the messages
// as upstream words them; a missing claim as the scheduler's assume cache reports it).
describe('engine/plugins/DynamicResources', () => {
  const nodes = [makeNode('n1'), makeNode('n2')];
  const base: ClusterObjects = { deviceClasses: [gpuClass], resourceSlices: [slice('n1', 2)] };
  const table: Array<[name: string, pod: PodInfo, objects: ClusterObjects, preFilter: string, filter: Record<string, string>]> = [
    ['empty: a pod without claims is skipped', podWith('p', []), base, 'Skip', {}],
    [
      'claim does not exist',
      podWith('p', [{ name: 'c', resourceClaimName: 'gone' }]),
      base,
      'UnschedulableAndUnresolvable: could not find ResourceClaim "default/gone"',
      {},
    ],
    [
      'claim is being deleted',
      podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]),
      {
        ...base,
        resourceClaims: [
          { ...claim('c1', [exactly()]), metadata: { name: 'c1', namespace: 'default', deletionTimestamp: '2026-01-01T00:00:00Z' } },
        ],
      },
      'UnschedulableAndUnresolvable: resourceclaim "c1" is being deleted',
      {},
    ],
    [
      'missing class',
      podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]),
      { ...base, resourceClaims: [claim('c1', [exactly(1, 'nope')])] },
      'UnschedulableAndUnresolvable: request req: device class nope does not exist',
      {},
    ],
    [
      'structured allocation: the node with the devices',
      podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]),
      { ...base, resourceClaims: [claim('c1', [exactly()])] },
      'ok',
      { n1: 'ok', n2: CANNOT },
    ],
    [
      'structured allocation: more devices than any node has',
      podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]),
      { ...base, resourceClaims: [claim('c1', [exactly(3)])] },
      'ok',
      { n1: CANNOT, n2: CANNOT },
    ],
    [
      'allocated claim: only where its node selector allows',
      podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]),
      { ...base, resourceClaims: [claim('c1', [exactly()], allocatedOn('n1', ['other']))] },
      'ok',
      { n1: 'ok', n2: NOT_AVAILABLE },
    ],
    [
      "template with the claim the controller created (not the pod's: refused)",
      podWith('p', [{ name: 'c', resourceClaimTemplateName: 't' }], {
        resourceClaimStatuses: [{ name: 'c', resourceClaimName: 'p-c-abcde' }],
      }),
      { ...base, resourceClaims: [claim('p-c-abcde', [exactly()])] },
      'UnschedulableAndUnresolvable: ResourceClaim default/p-c-abcde was not created for Pod default/p (Pod is not owner)',
      {},
    ],
    [
      'template with no claim yet and no template: not created yet',
      podWith('p', [{ name: 'c', resourceClaimTemplateName: 't' }]),
      base,
      'UnschedulableAndUnresolvable: pod "default/p": ResourceClaim not created yet',
      {},
    ],
  ];
  for (const [name, pod, objects, preFilter, filter] of table) {
    it(name, () => {
      const snapshot = snapshotOf(nodes);
      const run = runFilters(build(DR.factory, undefined, handleOf(snapshot, 1, objects)), snapshot, pod);
      assert.deepEqual([run.preFilter, run.verdicts], [preFilter, filter]);
    });
  }

  it('a template without a claim: Podplan makes up the one the controller would create (named <pod>-<claim>-xxxxx)', () => {
    const template: ResourceClaimTemplate = {
      metadata: { name: 't', namespace: 'default' },
      spec: { spec: { devices: { requests: [exactly(2)] } } },
    };
    const snapshot = snapshotOf(nodes);
    const pod = podWith('p', [{ name: 'gpus', resourceClaimTemplateName: 't' }]);
    const run = runFilters(
      build(DR.factory, undefined, handleOf(snapshot, 1, { ...base, resourceClaimTemplates: [template] })),
      snapshot,
      pod,
    );
    assert.deepEqual([run.preFilter, run.verdicts], ['ok', { n1: 'ok', n2: CANNOT }]);
    assert.match(madeUpClaimName(pod.pod, 'gpus'), /^p-gpus-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('Reserve takes the devices: the next pod finds them in use; Unreserve gives them back', () => {
    const snapshot = snapshotOf(nodes);
    const objects: ClusterObjects = { ...base, resourceClaims: [claim('c1', [exactly(2)]), claim('c2', [exactly()])] };
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const first = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    const state = runFilters(plugin, snapshot, first).state;
    assert.equal(plugin.reserve(state, first, 'n1').code, 'Success');
    const second = podWith('p2', [{ name: 'c', resourceClaimName: 'c2' }]);
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: CANNOT, n2: CANNOT });
    plugin.unreserve(state, first, 'n1');
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: 'ok', n2: CANNOT });
  });

  it("a complete verdict adds which request was not met and who holds the devices; a cycle's Filter says upstream's message alone", () => {
    const snapshot = snapshotOf(nodes);
    const objects: ClusterObjects = { ...base, resourceClaims: [claim('c1', [exactly(2)]), claim('c2', [exactly()])] };
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const first = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    assert.equal(plugin.reserve(runFilters(plugin, snapshot, first).state, first, 'n1').code, 'Success');
    const second = podWith('p2', [{ name: 'c', resourceClaimName: 'c2' }]);
    const cycle = new CycleState();
    plugin.preFilter(cycle, second, snapshot.list());
    const plain = plugin.filter(cycle, second, snapshot.get('n1')!);
    assert.deepEqual([plain.reasons, plain.devices], [['cannot allocate all claims'], undefined]);
    const explaining = new CycleState();
    explaining.explainFilters = true;
    plugin.preFilter(explaining, second, snapshot.list());
    const full = plugin.filter(explaining, second, snapshot.get('n1')!);
    assert.deepEqual(full.reasons, ['cannot allocate all claims']);
    assert.deepEqual(full.devices, [
      {
        claim: 'default/c2',
        request: 'req',
        deviceClass: 'gpu',
        wanted: 1,
        code: 'notEnough',
        matching: 2,
        free: 0,
        holders: [{ claim: 'default/c1', pods: ['p1'] }],
        planned: 0,
      },
    ]);
    assert.deepEqual(plugin.filter(explaining, second, snapshot.get('n2')!).devices?.[0]?.code, 'noDevices');
  });

  it('a complete verdict on a node an allocated claim leaves out names where the claim is and whom it is reserved for', () => {
    const snapshot = snapshotOf(nodes);
    const objects: ClusterObjects = { ...base, resourceClaims: [claim('c1', [exactly()], allocatedOn('n1', ['other']))] };
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const pod = podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]);
    const explaining = new CycleState();
    explaining.explainFilters = true;
    plugin.preFilter(explaining, pod, snapshot.list());
    const full = plugin.filter(explaining, pod, snapshot.get('n2')!);
    assert.deepEqual(full.reasons, ['resourceclaim not available on the node']);
    assert.deepEqual(full.devices?.map(deviceFailureText), [
      'claim default/c1: allocated already on n1, reserved for other: the pod can only go where its devices are',
    ]);
    const cycle = new CycleState();
    plugin.preFilter(cycle, pod, snapshot.list());
    assert.equal(plugin.filter(cycle, pod, snapshot.get('n2')!).devices, undefined);
  });

  it("a shared claim: the second pod follows the first one's allocation", () => {
    const snapshot = snapshotOf(nodes);
    const objects: ClusterObjects = {
      deviceClasses: [gpuClass],
      resourceSlices: [slice('n1', 1), slice('n2', 1)],
      resourceClaims: [claim('shared', [exactly()])],
    };
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const first = podWith('p1', [{ name: 'c', resourceClaimName: 'shared' }]);
    const state = runFilters(plugin, snapshot, first).state;
    plugin.reserve(state, first, 'n2');
    const second = podWith('p2', [{ name: 'c', resourceClaimName: 'shared' }]);
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: NOT_AVAILABLE, n2: 'ok' });
  });

  it('PostFilter deallocates an allocated claim nobody else holds that kept the pod off', () => {
    const snapshot = snapshotOf(nodes);
    const objects: ClusterObjects = { ...base, resourceClaims: [claim('c1', [exactly()], allocatedOn('n3'))] };
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const pod = podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]);
    const run = runFilters(plugin, snapshot, pod);
    assert.deepEqual(run.verdicts, { n1: NOT_AVAILABLE, n2: NOT_AVAILABLE });
    // On a cluster a plan leaves (PLANNED_PODS), or in a plan that does not preempt, PostFilter leaves the claim as it is.
    for (const [key, value] of [
      [PLANNED_PODS, true],
      [PREEMPTION_MODE, 'report'],
    ] as const) {
      const whatIf = new CycleState();
      whatIf.write(key as StateKey<unknown>, value);
      plugin.preFilter(whatIf, pod, snapshot.list());
      filterAll(plugin, whatIf, pod, snapshot.list());
      assert.equal(plugin.postFilter(whatIf, pod).status.code, 'Skip');
    }
    assert.deepEqual(runFilters(plugin, snapshot, pod).verdicts, { n1: NOT_AVAILABLE, n2: NOT_AVAILABLE });
    assert.deepEqual(plugin.postFilter(run.state, pod).status.reasons, ['deallocation of ResourceClaim completed']);
    // Deallocated, the claim is allocated anew where devices are.
    assert.deepEqual(runFilters(plugin, snapshot, pod).verdicts, { n1: 'ok', n2: CANNOT });
  });

  it("on a cluster a plan leaves (a planner's what-if, PLANNED_PODS): the pods placed on a node take devices, and only while they are there", () => {
    const objects: ClusterObjects = { ...base, resourceClaims: ['c1', 'c2', 'c3'].map((c) => claim(c, [exactly()])) };
    const placed = (name: string, c: string) => ({
      ...podWith(name, [{ name: 'c', resourceClaimName: c }]).pod,
      spec: { ...podWith(name, [{ name: 'c', resourceClaimName: c }]).pod.spec, nodeName: 'n1' },
    });
    const snapshot = snapshotOf(nodes, [placed('p1', 'c1'), placed('p2', 'c2')]);
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const pod = podWith('p3', [{ name: 'c', resourceClaimName: 'c3' }]);
    const whatIf = () => {
      const state = new CycleState();
      state.write(PLANNED_PODS, true);
      assert.equal(plugin.preFilter(state, pod, snapshot.list()).status.code, 'Success');
      return filterAll(plugin, state, pod, snapshot.list());
    };
    // A cycle that is no what-if does not count them: their claims are not allocated.
    assert.deepEqual(runFilters(plugin, snapshot, pod).verdicts, { n1: 'ok', n2: CANNOT });
    // Two GPUs on n1, both taken by the pods the plan placed there; asked again, the same.
    assert.deepEqual(whatIf(), { n1: CANNOT, n2: CANNOT });
    assert.deepEqual(whatIf(), { n1: CANNOT, n2: CANNOT });
    // The plan takes p2 off n1 (its NodeInfo changes): one GPU is free again.
    const n1 = snapshot.get('n1')!;
    assert.ok(n1.removePod('uid-p2'));
    assert.deepEqual(whatIf(), { n1: 'ok', n2: CANNOT });
  });

  it('scores the prioritized list: 8 − the index of the subrequest chosen, normalized', () => {
    const snapshot = snapshotOf(nodes);
    const small: DeviceClass = { metadata: { name: 'any' }, spec: {} };
    const request: DeviceRequest = {
      name: 'req',
      firstAvailable: [
        { name: 'two', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 2 },
        { name: 'one', deviceClassName: 'any', allocationMode: 'ExactCount', count: 1 },
      ],
    };
    const objects: ClusterObjects = {
      deviceClasses: [gpuClass, small],
      resourceSlices: [slice('n1', 2), slice('n2', 1)],
      resourceClaims: [claim('c1', [request])],
    };
    const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
    const pod = podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]);
    const state = new CycleState();
    plugin.preFilter(state, pod);
    assert.deepEqual(filterAll(plugin, state, pod, snapshot.list()), { n1: 'ok', n2: 'ok' });
    const scores = snapshot.list().map((n) => ({ name: n.name, score: plugin.score(state, pod, n) as number }));
    assert.deepEqual(
      scores.map((s) => s.score),
      [8, 7],
    );
    plugin.normalizeScore(state, pod, scores);
    assert.deepEqual(
      scores.map((s) => s.score),
      [100, 87],
    );
  });
});

// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources_test.go, TestPlugin's
// extended resource rows: a DeviceClass with extendedResourceName serves example.com/gpu on nodes
// whose allocatable does not offer it (no device plugin); where a device plugin offers it,
// NodeResourcesFit checks it and DynamicResources has nothing to do.
// dynamicresources.go isClaimReadyForBinding / isClaimTimeout as Filter applies them to an allocated
// claim (DRADeviceBindingConditions with DRAResourceClaimDeviceStatus): its result's binding
// conditions, the status the driver reported per device, the allocation's time against the
// binding timeout (DynamicResourcesArgs bindingTimeout, 10 minutes by default).
describe('engine/plugins/DynamicResources: binding conditions', () => {
  const nodes = [makeNode('n1'), makeNode('n2')];
  const NOW = Date.parse('2026-06-01T12:00:00Z');
  const condition = (type: string, status: 'True' | 'False') => ({
    type,
    status,
    reason: 'R',
    message: '',
    lastTransitionTime: '2026-06-01T00:00:00Z',
  });
  const held = (conditions: ReturnType<typeof condition>[] | undefined, allocated: string | undefined, failure = true): ResourceClaim =>
    claim('held', [exactly()], {
      allocation: {
        devices: {
          results: [
            {
              request: 'req',
              driver: GPU,
              pool: 'n1',
              device: 'gpu-0',
              bindingConditions: ['attached'],
              ...(failure ? { bindingFailureConditions: ['failed'] } : {}),
            },
          ],
        },
        nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
        ...(allocated ? { allocationTimestamp: allocated } : {}),
      },
      reservedFor: [{ resource: 'pods', name: 'other', uid: 'uid-other' }],
      ...(conditions ? { devices: [{ driver: GPU, pool: 'n1', device: 'gpu-0', conditions }] } : {}),
    });
  const RECENT = '2026-06-01T11:55:00Z';
  const OLD = '2026-06-01T11:00:00Z';
  const table: Array<[name: string, claim: ResourceClaim, now: number | undefined, n1: string, args?: unknown]> = [
    ['bound: available', held([condition('attached', 'True')], OLD), NOW, 'ok'],
    ['failure condition True: unavailable', held([condition('attached', 'True'), condition('failed', 'True')], RECENT), NOW, NOT_AVAILABLE],
    [
      'a failure condition the result does not name: ignored',
      held([condition('attached', 'True'), condition('failed', 'True')], RECENT, false),
      NOW,
      'ok',
    ],
    ['not bound yet, within the timeout: available (PreBind would wait)', held([condition('attached', 'False')], RECENT), NOW, 'ok'],
    ['not bound, past the timeout: unavailable', held([condition('attached', 'False')], OLD), NOW, NOT_AVAILABLE],
    ['no status yet, past the timeout: unavailable', held(undefined, OLD), NOW, NOT_AVAILABLE],
    [
      'not bound, allocated 5 minutes ago, bindingTimeout 1m: past it, unavailable',
      held([condition('attached', 'False')], RECENT),
      NOW,
      NOT_AVAILABLE,
      { bindingTimeout: '1m' },
    ],
    [
      'not bound, allocated an hour ago, bindingTimeout 2h: within it, available',
      held([condition('attached', 'False')], OLD),
      NOW,
      'ok',
      { bindingTimeout: '2h' },
    ],
    ['not bound, no allocation time: never times out', held([condition('attached', 'False')], undefined), NOW, 'ok'],
    ['not bound, past the timeout, but no clock: not judged', held([condition('attached', 'False')], OLD), undefined, 'ok'],
  ];
  for (const [name, c, now, n1, args] of table) {
    it(name, () => {
      const snapshot = snapshotOf(nodes);
      const objects: ClusterObjects = { deviceClasses: [gpuClass], resourceSlices: [slice('n1', 2)], resourceClaims: [c] };
      const handle = { ...handleOf(snapshot, 1, objects), ...(now !== undefined ? { now: () => now } : {}) };
      const run = runFilters(build(DR.factory, args, handle), snapshot, podWith('p', [{ name: 'c', resourceClaimName: 'held' }]));
      assert.deepEqual(run.verdicts, { n1, n2: NOT_AVAILABLE });
    });
  }
});

describe('engine/plugins/DynamicResources: extended resources backed by DRA', () => {
  const served: DeviceClass = {
    ...gpuClass,
    metadata: { name: 'gpu-ext' },
    spec: { ...gpuClass.spec, extendedResourceName: 'example.com/gpu' },
  };
  const nodes = [makeNode('n1'), makeNode('n2').alloc({ cpu: '4', memory: '8Gi', pods: '110', 'example.com/gpu': '1' }), makeNode('n3')];
  const objects: ClusterObjects = { deviceClasses: [served], resourceSlices: [slice('n1', 2)] };
  const wanting = (count: string, name = 'example.com/gpu') => {
    const info = podInfo({
      metadata: { name: 'p', namespace: 'default', uid: 'uid-p' },
      spec: { containers: [{ name: 'main', resources: { requests: { [name]: count }, limits: { [name]: count } } }] },
    });
    assert.ok(info.ok);
    return info.value;
  };
  const table: Array<[name: string, pod: PodInfo, preFilter: string, filter: Record<string, string>]> = [
    ['one GPU: the node with slices, and the device plugin node', wanting('1'), 'ok', { n1: 'ok', n2: 'ok', n3: CANNOT }],
    ['three GPUs: no node has them by DRA', wanting('3'), 'ok', { n1: CANNOT, n2: 'ok', n3: CANNOT }],
    [
      'by the class name (deviceclass.resource.kubernetes.io/gpu-ext)',
      wanting('2', 'deviceclass.resource.kubernetes.io/gpu-ext'),
      'ok',
      { n1: 'ok', n2: CANNOT, n3: CANNOT },
    ],
    ["a resource no class serves: not this plugin's", wanting('1', 'example.com/fpga'), 'Skip', {}],
  ];
  for (const [name, pod, preFilter, filter] of table) {
    it(name, () => {
      const snapshot = snapshotOf(nodes);
      const run = runFilters(build(DR.factory, undefined, handleOf(snapshot, 1, objects)), snapshot, pod);
      assert.deepEqual([run.preFilter, run.verdicts], [preFilter, filter]);
    });
  }
});

// PreBind as upstream's bindClaim asks for it (dynamicresources.go, PreBind and bindClaim): each claim
// not reserved for the pod yet is written with the allocation Reserve chose and the pod in
// reservedFor; the claim stays in flight from Reserve to the write whatever the objects show.
describe('engine/plugins/DynamicResources PreBind', () => {
  const nodes = [makeNode('n1'), makeNode('n2')];

  /** A ClaimWriter over a table of claims, answering as an API server would (resourceVersion bumped). */
  class TableWriter implements ClaimWriter {
    readonly bound: ClaimBinding[] = [];
    readonly unreserved: ClaimBinding[] = [];
    failWith: string | undefined;
    private version = 10;
    constructor(private readonly claims: Map<string, ResourceClaim>) {}
    async bindClaim(b: ClaimBinding): Promise<Result<ResourceClaim, string>> {
      this.bound.push(b);
      if (this.failWith) return { ok: false, error: this.failWith };
      const current = this.claims.get(b.name);
      if (!current) return { ok: false, error: `claim ${b.namespace}/${b.name} got deleted in the meantime` };
      const written: ResourceClaim = {
        ...current,
        metadata: { ...current.metadata, resourceVersion: String(++this.version) },
        status: {
          ...(b.allocation ? { allocation: b.allocation } : current.status?.allocation ? { allocation: current.status.allocation } : {}),
          reservedFor: [...(current.status?.reservedFor ?? []), b.consumer],
        },
      };
      this.claims.set(b.name, written);
      return { ok: true, value: written };
    }
    unreserveClaim(b: ClaimBinding): void {
      this.unreserved.push(b);
    }
    readonly created: ResourceClaim[] = [];
    readonly patched: Array<[pod: string, status: PodExtendedResourceClaimStatus]> = [];
    readonly deleted: string[] = [];
    failPatchWith: string | undefined;
    async createClaim(c: ResourceClaim): Promise<Result<ResourceClaim, string>> {
      this.created.push(c);
      const name = `${c.metadata.generateName ?? ''}x7k2q`;
      const { generateName: _generated, ...metadata } = c.metadata;
      const made: ResourceClaim = { ...c, metadata: { ...metadata, name, uid: `uid-${name}`, resourceVersion: String(++this.version) } };
      this.claims.set(name, made);
      return { ok: true, value: made };
    }
    async patchPodExtendedResourceClaimStatus(pod: Pod, status: PodExtendedResourceClaimStatus): Promise<Result<void, string>> {
      this.patched.push([pod.metadata.name, status]);
      return this.failPatchWith ? { ok: false, error: this.failPatchWith } : { ok: true, value: undefined };
    }
    deleteClaim(namespace: string, name: string): void {
      this.deleted.push(`${namespace}/${name}`);
      this.claims.delete(name);
    }
  }

  /** A plugin whose objects can be replaced (as informers hand new ones over), with a writer or none. */
  const setup = (claims: ResourceClaim[], withWriter = true, extra: ClusterObjects = {}) => {
    const snapshot = snapshotOf(nodes);
    let objects: ClusterObjects = { deviceClasses: [gpuClass], resourceSlices: [slice('n1', 1)], resourceClaims: claims, ...extra };
    const writer = new TableWriter(new Map(claims.map((c) => [c.metadata.name, c])));
    const handle: FrameworkHandle = { ...handleOf(snapshot, 1), objects: () => objects, ...(withWriter ? { claimWriter: writer } : {}) };
    const plugin = build(DR.factory, undefined, handle);
    return {
      plugin,
      snapshot,
      writer,
      /** The objects as a watch would show them next: the claims replaced by these. */
      show: (...shown: ResourceClaim[]) => (objects = { ...objects, resourceClaims: shown }),
    };
  };

  it('writes the allocation and the reservation {resource: pods, name, uid}; a pod without claims has nothing to do (Skip)', async () => {
    const { plugin, snapshot, writer } = setup([claim('c1', [exactly()])]);
    const pod = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    const { state } = runFilters(plugin, snapshot, pod);
    assert.equal(plugin.reserve(state, pod, 'n1').code, 'Success');
    assert.equal((await plugin.preBind(state, pod, 'n1')).code, 'Success');
    assert.deepEqual(writer.bound, [
      {
        namespace: 'default',
        name: 'c1',
        uid: 'uid-c1',
        allocation: {
          devices: { results: [{ request: 'req', driver: GPU, pool: 'n1', device: 'gpu-0' }] },
          nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
        },
        consumer: { resource: 'pods', name: 'p1', uid: 'uid-p1' },
      },
    ]);
    const plain = podWith('plain', []);
    const plainState = runFilters(plugin, snapshot, plain).state;
    assert.equal((await plugin.preBind(plainState, plain, 'n1')).code, 'Skip');
  });

  it('an allocated claim reserved for the pod already is not written again; one allocated but not reserved gets the reservation only', async () => {
    const { plugin, snapshot, writer } = setup([
      claim('mine', [exactly()], allocatedOn('n1', ['p1'])),
      {
        ...claim('shared', [exactly()], allocatedOn('n1', ['other'])),
        metadata: { name: 'shared', namespace: 'default', uid: 'uid-shared' },
      },
    ]);
    const pod = podWith('p1', [
      { name: 'a', resourceClaimName: 'mine' },
      { name: 'b', resourceClaimName: 'shared' },
    ]);
    const { state, verdicts } = runFilters(plugin, snapshot, pod);
    assert.deepEqual(verdicts, { n1: 'ok', n2: NOT_AVAILABLE });
    plugin.reserve(state, pod, 'n1');
    assert.equal((await plugin.preBind(state, pod, 'n1')).code, 'Success');
    assert.deepEqual(
      writer.bound.map((b) => [b.name, b.allocation === undefined, b.consumer.name]),
      [['shared', true, 'p1']],
    );
  });

  it('in flight from Reserve to the write: a new object of the claim (its finalizer added) does not free its device; after the write, only that version or a newer one replaces it', async () => {
    const c1 = claim('c1', [exactly()]);
    const { plugin, snapshot, show } = setup([c1, claim('c2', [exactly()])]);
    const first = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    const second = podWith('p2', [{ name: 'c', resourceClaimName: 'c2' }]);
    const { state } = runFilters(plugin, snapshot, first);
    plugin.reserve(state, first, 'n1');
    // The watch shows c1 updated (the finalizer), without the allocation yet.
    show({ ...c1, metadata: { ...c1.metadata, resourceVersion: '5' } }, claim('c2', [exactly()]));
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: CANNOT, n2: CANNOT });
    assert.equal((await plugin.preBind(state, first, 'n1')).code, 'Success');
    // Written as version 11: a later object still at version 5 does not show the write.
    show(
      { ...c1, metadata: { ...c1.metadata, resourceVersion: '5' } },
      { ...claim('c2', [exactly()]), metadata: { ...c1.metadata, name: 'c2' } },
    );
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: CANNOT, n2: CANNOT });
    // The watch shows the write: the cluster's claim holds the device.
    show({ ...c1, metadata: { ...c1.metadata, resourceVersion: '11' }, status: allocatedOn('n1', ['p1']) }, claim('c2', [exactly()]));
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: CANNOT, n2: CANNOT });
    // Deleted and made again without an allocation (a newer version): the device is free again.
    show({ ...c1, metadata: { ...c1.metadata, resourceVersion: '12' } }, claim('c2', [exactly()]));
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: 'ok', n2: CANNOT });
  });

  it('a write that fails is an Error naming the claim; Unreserve then gives the device back', async () => {
    const { plugin, snapshot, writer } = setup([claim('c1', [exactly()]), claim('c2', [exactly()])]);
    writer.failWith = 'add allocation and reservation to claim default/c1: 403 forbidden';
    const first = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    const { state } = runFilters(plugin, snapshot, first);
    plugin.reserve(state, first, 'n1');
    const status = await plugin.preBind(state, first, 'n1');
    assert.equal(status.code, 'Error');
    assert.deepEqual(status.reasons, ['ResourceClaim default/c1: add allocation and reservation to claim default/c1: 403 forbidden']);
    plugin.unreserve(state, first, 'n1');
    assert.deepEqual(writer.unreserved, []);
    const second = podWith('p2', [{ name: 'c', resourceClaimName: 'c2' }]);
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: 'ok', n2: CANNOT });
  });

  it('Unreserve after a write (the binding failed): the allocation stays, the reservation is taken back out', async () => {
    const c1 = claim('c1', [exactly()]);
    const { plugin, snapshot, writer, show } = setup([c1, claim('c2', [exactly()])]);
    const first = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    const { state } = runFilters(plugin, snapshot, first);
    plugin.reserve(state, first, 'n1');
    await plugin.preBind(state, first, 'n1');
    plugin.unreserve(state, first, 'n1');
    // Objects that do not show the write yet (version 5 < 11) do not free the device either.
    show({ ...c1, metadata: { ...c1.metadata, resourceVersion: '5' } }, claim('c2', [exactly()]));
    assert.deepEqual(
      writer.unreserved.map((b) => [b.name, b.consumer.uid]),
      [['c1', 'uid-p1']],
    );
    const second = podWith('p2', [{ name: 'c', resourceClaimName: 'c2' }]);
    assert.deepEqual(runFilters(plugin, snapshot, second).verdicts, { n1: CANNOT, n2: CANNOT });
    // The pod tried again finds its claim allocated on n1, not reserved: only the reservation is written.
    const again = runFilters(plugin, snapshot, first);
    assert.deepEqual(again.verdicts, { n1: 'ok', n2: NOT_AVAILABLE });
    plugin.reserve(again.state, first, 'n1');
    assert.equal((await plugin.preBind(again.state, first, 'n1')).code, 'Success');
    assert.equal(writer.bound.at(-1)?.allocation, undefined);
  });

  // upstream PreEnqueue and PreFilter with resourceclaim.Name: a template entry's claim is the one
  // the pod's status names; until the resourceclaim controller names it, the pod waits with
  // `pod "<ns>/<name>": ResourceClaim not created yet` (ErrClaimNotFound). Without the cluster's
  // controllers (files, previews, planning) Podplan makes up the claim the controller would create.
  describe('a template entry whose claim the controller has not created yet', () => {
    const template: ResourceClaimTemplate = {
      metadata: { name: 'gpu-template', namespace: 'default' },
      spec: { spec: { devices: { requests: [exactly()] } } },
    };
    const waiting = podWith('p1', [{ name: 'gpus', resourceClaimTemplateName: 'gpu-template' }]);
    const created = claim('p1-gpus-x7k2p', [exactly()]);
    const owned: ResourceClaim = {
      ...created,
      metadata: { ...created.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: 'uid-p1', controller: true }] },
    };
    const named = podWith('p1', [{ name: 'gpus', resourceClaimTemplateName: 'gpu-template' }], {
      resourceClaimStatuses: [{ name: 'gpus', resourceClaimName: 'p1-gpus-x7k2p' }],
    });
    const NOT_CREATED = 'UnschedulableAndUnresolvable: pod "default/p1": ResourceClaim not created yet';
    const table: Array<[string, boolean, PodInfo, ResourceClaim[], string, string, Record<string, string>]> = [
      // name, clusterControllers, pod, claims, PreEnqueue, PreFilter, Filter verdicts
      ['with the controllers (live): held at PreEnqueue, and PreFilter says the same', true, waiting, [], NOT_CREATED, NOT_CREATED, {}],
      ['without them (files): the made-up claim is allocated', false, waiting, [], 'Success', 'ok', { n1: 'ok', n2: CANNOT }],
      [
        'with the controllers, once the claim is created and named: let in',
        true,
        named,
        [owned],
        'Success',
        'ok',
        { n1: 'ok', n2: CANNOT },
      ],
      [
        'with the controllers, a named claim not created yet: could not find it',
        true,
        named,
        [],
        'UnschedulableAndUnresolvable: could not find ResourceClaim "default/p1-gpus-x7k2p"',
        'UnschedulableAndUnresolvable: could not find ResourceClaim "default/p1-gpus-x7k2p"',
        {},
      ],
      ['a pod without claims is let in', true, podWith('p0', []), [], 'Success', 'Skip', {}],
    ];
    for (const [name, clusterControllers, pod, claims, preEnqueue, preFilter, verdicts] of table) {
      it(name, () => {
        const snapshot = snapshotOf(nodes);
        const objects: ClusterObjects = {
          deviceClasses: [gpuClass],
          resourceSlices: [slice('n1', 1)],
          resourceClaims: claims,
          resourceClaimTemplates: [template],
        };
        const plugin = build(DR.factory, undefined, { ...handleOf(snapshot, 1, objects), clusterControllers });
        const status = plugin.preEnqueue(pod.pod);
        const run = runFilters(plugin, snapshot, pod);
        assert.deepEqual(
          [status.code === 'Success' ? 'Success' : `${status.code}: ${status.reasons.join(', ')}`, run.preFilter, run.verdicts],
          [preEnqueue, preFilter, verdicts],
        );
      });
    }

    // A claim ResourceQuota admission refused (manifests/admission.ts) is never created: without the
    // controllers the claim is not made up for it, and the pod waits with upstream's words, as it would.
    it('without them (files), a claim the cluster lists as never created (claimsNotCreated): held at PreEnqueue, PreFilter says the same', () => {
      const snapshot = snapshotOf(nodes);
      const objects: ClusterObjects = {
        deviceClasses: [gpuClass],
        resourceSlices: [slice('n1', 1)],
        resourceClaimTemplates: [template],
        claimsNotCreated: [`default/${madeUpClaimName(waiting.pod, 'gpus')}`],
      };
      const plugin = build(DR.factory, undefined, handleOf(snapshot, 1, objects));
      const status = plugin.preEnqueue(waiting.pod);
      const run = runFilters(plugin, snapshot, waiting);
      assert.deepEqual([`${status.code}: ${status.reasons.join(', ')}`, run.preFilter, run.verdicts], [NOT_CREATED, NOT_CREATED, {}]);
      const other = build(DR.factory, undefined, handleOf(snapshot, 1, { ...objects, claimsNotCreated: ['default/p1-gpus-other'] }));
      assert.equal(runFilters(other, snapshot, waiting).preFilter, 'ok', "another pod's claim refused: this one's is made up");
    });

    it('with the controllers, PreBind writes the claim the status names, by its name', async () => {
      const snapshot = snapshotOf(nodes);
      const objects: ClusterObjects = {
        deviceClasses: [gpuClass],
        resourceSlices: [slice('n1', 1)],
        resourceClaims: [owned],
        resourceClaimTemplates: [template],
      };
      const writer = new TableWriter(new Map([[owned.metadata.name, owned]]));
      const plugin = build(DR.factory, undefined, { ...handleOf(snapshot, 1, objects), clusterControllers: true, claimWriter: writer });
      const { state } = runFilters(plugin, snapshot, named);
      plugin.reserve(state, named, 'n1');
      assert.equal((await plugin.preBind(state, named, 'n1')).code, 'Success');
      assert.deepEqual(
        writer.bound.map((b) => [b.name, b.consumer.uid]),
        [['p1-gpus-x7k2p', 'uid-p1']],
      );
    });
  });

  // upstream PreBind after bindClaim (DRADeviceBindingConditions and DRAResourceClaimDeviceStatus,
  // on by default in 1.37): a device with binding conditions makes the pod wait, looking every 5 s,
  // until its conditions are True in the claim's status; a failure condition or the binding timeout
  // (DynamicResourcesArgs bindingTimeout, 10 minutes by default; upstream's PollUntilContextTimeout)
  // is an Error (isClaimReadyForBinding, ErrDeviceBindingFailed, ErrDeviceBindingTimeout).
  describe('PreBind waits for the binding conditions of the devices it allocated, on the injected clock', () => {
    const START = Date.parse('2026-06-01T12:00:00Z');
    const attachable = (conditions = true): ResourceSlice => {
      const base = slice('n1', 1);
      return {
        ...base,
        spec: {
          ...base.spec,
          devices: [{ name: 'gpu-0', ...(conditions ? { bindingConditions: ['attached'], bindingFailureConditions: ['failed'] } : {}) }],
        },
      };
    };
    const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
    type Driver = Array<[afterMs: number, conditions: Record<string, 'True' | 'False'>]>;
    const table: Array<
      [name: string, conditions: boolean, clock: boolean, driver: Driver, expected: string, atMs: number, args?: unknown]
    > = [
      ['bound once the driver says attached: Success at the next look', true, true, [[12_000, { attached: 'True' }]], 'Success', 15_000],
      [
        'a failure condition True: Error, the pod is not bound',
        true,
        true,
        [
          [3_000, { attached: 'False' }],
          [7_000, { attached: 'False', failed: 'True' }],
        ],
        'Error: device binding failed: claim=c1, reason=R, message="the driver gave up"',
        10_000,
      ],
      [
        'never attached: Error at the binding timeout (10 minutes)',
        true,
        true,
        [[1_000, { attached: 'False' }]],
        `Error: ${DR.ERR_BINDING_DEADLINE}`,
        600_000,
      ],
      [
        'never attached, bindingTimeout 30s: Error after 30 s',
        true,
        true,
        [[1_000, { attached: 'False' }]],
        `Error: ${DR.ERR_BINDING_DEADLINE}`,
        30_000,
        { bindingTimeout: '30s' },
      ],
      [
        'bindingTimeout 12s: the deadline falls between the looks at 10 s and 15 s, the Error at 12 s',
        true,
        true,
        [[1_000, { attached: 'False' }]],
        `Error: ${DR.ERR_BINDING_DEADLINE}`,
        12_000,
        { bindingTimeout: '12s' },
      ],
      [
        'attached at 22 s, bindingTimeout 30s: Success at the look at 25 s',
        true,
        true,
        [[22_000, { attached: 'True' }]],
        'Success',
        25_000,
        { bindingTimeout: '30s' },
      ],
      [
        'attached just after the look at 25 s, bindingTimeout 30s: the look at 30 s would fall on the deadline, so Error at 30 s',
        true,
        true,
        [[25_000, { attached: 'True' }]],
        `Error: ${DR.ERR_BINDING_DEADLINE}`,
        30_000,
        { bindingTimeout: '30s' },
      ],
      ['a device without binding conditions: no wait', false, true, [], 'Success', 0],
      ['no clock (no live scheduler): no wait', true, false, [], 'Success', 0],
    ];
    for (const [name, conditions, withClock, driver, expected, atMs, args] of table) {
      it(name, async () => {
        const clock = new ManualClock(START);
        const events: string[] = [];
        const snapshot = snapshotOf(nodes);
        const c1 = claim('c1', [exactly()]);
        let objects: ClusterObjects = { deviceClasses: [gpuClass], resourceSlices: [attachable(conditions)], resourceClaims: [c1] };
        const writer = new TableWriter(new Map([['c1', c1]]));
        const handle: FrameworkHandle = {
          ...handleOf(snapshot, 1),
          objects: () => objects,
          claimWriter: writer,
          ...(withClock ? { clock, now: () => clock.now() } : {}),
          recordEvent: (p, e) => events.push(`${p.metadata.name} ${e.type} ${e.reason} ${e.action}: ${e.note}`),
        };
        const plugin = build(DR.factory, args, handle);
        const pod = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
        const { state } = runFilters(plugin, snapshot, pod);
        assert.equal(plugin.reserve(state, pod, 'n1').code, 'Success');
        let outcome: string | undefined;
        let at = 0;
        void plugin.preBind(state, pod, 'n1').then((s) => {
          outcome = s.code === 'Success' ? 'Success' : `${s.code}: ${s.reasons.join(', ')}`;
          at = clock.now() - START;
        });
        await flush();
        const written = writer.bound.length === 1 ? writer.bound[0]! : undefined;
        assert.ok(written?.allocation, 'the allocation is written first');
        // The driver's reports, as the objects show them (a newer version of the written claim).
        let version = 100;
        for (let t = 0; outcome === undefined && t < 700_000; t += 1_000) {
          for (const [after, report] of driver)
            if (after === t)
              objects = {
                ...objects,
                resourceClaims: [
                  {
                    ...c1,
                    metadata: { ...c1.metadata, resourceVersion: String(++version) },
                    status: {
                      allocation: written.allocation,
                      reservedFor: [written.consumer],
                      devices: [
                        {
                          driver: GPU,
                          pool: 'n1',
                          device: 'gpu-0',
                          conditions: Object.entries(report).map(([type, status]) => ({
                            type,
                            status,
                            reason: 'R',
                            message: status === 'True' && type === 'failed' ? 'the driver gave up' : '',
                            lastTransitionTime: '2026-06-01T12:00:00Z',
                          })),
                        },
                      ],
                    },
                  },
                ],
              };
          clock.advance(1_000);
          await flush();
        }
        // upstream records BindingConditionsPending when it starts to wait.
        const waited = withClock && conditions;
        assert.deepEqual(
          [outcome, at, events],
          [
            expected,
            atMs,
            waited ? ['p1 Normal BindingConditionsPending Scheduling: waiting for binding conditions for device on node n1'] : [],
          ],
        );
      });
    }
  });

  it('without a ClaimWriter (previews, planning) PreBind writes nothing and succeeds', async () => {
    const { plugin, snapshot, writer } = setup([claim('c1', [exactly()])], false);
    const pod = podWith('p1', [{ name: 'c', resourceClaimName: 'c1' }]);
    const { state } = runFilters(plugin, snapshot, pod);
    plugin.reserve(state, pod, 'n1');
    assert.equal((await plugin.preBind(state, pod, 'n1')).code, 'Success');
    assert.deepEqual(writer.bound, []);
  });
  describe('extended resources backed by DRA (upstream createExtendedResourceClaimInAPI, patchPodExtendedResourceClaimStatus)', () => {
    const served: DeviceClass = {
      ...gpuClass,
      metadata: { name: 'gpu-ext' },
      spec: { ...gpuClass.spec, extendedResourceName: 'example.com/gpu' },
    };
    const wanting = (name: string, count = '1') => {
      const info = podInfo({
        metadata: { name, namespace: 'default', uid: `uid-${name}` },
        spec: {
          containers: [
            { name: 'main', resources: { requests: { cpu: '1', 'example.com/gpu': count }, limits: { 'example.com/gpu': count } } },
          ],
        },
      });
      assert.ok(info.ok);
      return info.value;
    };
    const ownedBy = (pod: string) => [{ apiVersion: 'v1', kind: 'Pod', name: pod, uid: `uid-${pod}`, controller: true }];

    it("creates the claim (generateName <pod>-extended-resources-, the annotation, the pod its controller, the node's requests), writes allocation and reservation to it, then patches the pod's status", async () => {
      const { plugin, snapshot, writer } = setup([], true, { deviceClasses: [served] });
      const pod = wanting('p1');
      const { state, verdicts } = runFilters(plugin, snapshot, pod);
      assert.deepEqual(verdicts, { n1: 'ok', n2: CANNOT });
      assert.equal(plugin.reserve(state, pod, 'n1').code, 'Success');
      assert.equal((await plugin.preBind(state, pod, 'n1')).code, 'Success');
      assert.deepEqual(writer.created, [
        {
          metadata: {
            name: '',
            generateName: 'p1-extended-resources-',
            namespace: 'default',
            annotations: { 'resource.kubernetes.io/extended-resource-claim': 'true' },
            ownerReferences: ownedBy('p1'),
          },
          spec: {
            devices: {
              requests: [
                { name: 'container-0-request-1', exactly: { deviceClassName: 'gpu-ext', allocationMode: 'ExactCount', count: 1 } },
              ],
            },
          },
        },
      ]);
      assert.deepEqual(writer.bound, [
        {
          namespace: 'default',
          name: 'p1-extended-resources-x7k2q',
          uid: 'uid-p1-extended-resources-x7k2q',
          allocation: {
            devices: { results: [{ request: 'container-0-request-1', driver: GPU, pool: 'n1', device: 'gpu-0' }] },
            nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }] },
          },
          consumer: { resource: 'pods', name: 'p1', uid: 'uid-p1' },
        },
      ]);
      assert.deepEqual(writer.patched, [
        [
          'p1',
          {
            requestMappings: [{ containerName: 'main', resourceName: 'example.com/gpu', requestName: 'container-0-request-1' }],
            resourceClaimName: 'p1-extended-resources-x7k2q',
          },
        ],
      ]);
      // The created claim holds the device (assumed until the objects show it): the next pod finds none on n1.
      assert.deepEqual(runFilters(plugin, snapshot, wanting('p2')).verdicts, { n1: CANNOT, n2: CANNOT });
    });

    it('a patch of the pod that fails is an Error, the pod not bound; Unreserve deletes the created claim and gives the device back', async () => {
      const { plugin, snapshot, writer } = setup([], true, { deviceClasses: [served] });
      writer.failPatchWith = '403 pods "p1" is forbidden';
      const pod = wanting('p1');
      const { state } = runFilters(plugin, snapshot, pod);
      plugin.reserve(state, pod, 'n1');
      const status = await plugin.preBind(state, pod, 'n1');
      assert.equal(status.code, 'Error');
      assert.deepEqual(status.reasons, ['update pod default/p1 ExtendedResourceClaimStatus: 403 pods "p1" is forbidden']);
      plugin.unreserve(state, pod, 'n1');
      assert.deepEqual(writer.deleted, ['default/p1-extended-resources-x7k2q']);
      assert.deepEqual(writer.unreserved, []);
      assert.deepEqual(runFilters(plugin, snapshot, wanting('p2')).verdicts, { n1: 'ok', n2: CANNOT });
    });

    it('a claim write that fails after the create: an Error naming the created claim; Unreserve deletes it', async () => {
      const { plugin, snapshot, writer } = setup([], true, { deviceClasses: [served] });
      writer.failWith = 'claim default/p1-extended-resources-x7k2q got deleted in the meantime';
      const pod = wanting('p1');
      const { state } = runFilters(plugin, snapshot, pod);
      plugin.reserve(state, pod, 'n1');
      const status = await plugin.preBind(state, pod, 'n1');
      assert.deepEqual(
        [status.code, status.reasons],
        [
          'Error',
          ['ResourceClaim default/p1-extended-resources-x7k2q: claim default/p1-extended-resources-x7k2q got deleted in the meantime'],
        ],
      );
      assert.deepEqual(writer.patched, []);
      plugin.unreserve(state, pod, 'n1');
      assert.deepEqual(writer.deleted, ['default/p1-extended-resources-x7k2q']);
      assert.deepEqual(runFilters(plugin, snapshot, wanting('p2')).verdicts, { n1: 'ok', n2: CANNOT });
    });
  });
});

// upstream TestPlugin's rows "timeout", "timeout_zero" and "timeout_disabled" (DRASchedulerFilterTimeout,
// beta and on in 1.37): Filter gives each node's allocation the profile's filterTimeout (10 s by
// default, 0: none); past it, an Error naming the node (so the pod retries through the error
// back-off rather than waiting for a cluster event). The deadline is on the injected clock, which
// here moves `stepMs` each time it is read: once when Filter starts, then at every step of the
// allocator's search (one device for one request: four steps).
describe('engine/plugins/DynamicResources Filter timeout (DRASchedulerFilterTimeout) on the injected clock', () => {
  class SteppingClock {
    private t = Date.parse('2026-06-01T12:00:00Z');
    constructor(private readonly stepMs: number) {}
    now(): number {
      const t = this.t;
      this.t += this.stepMs;
      return t;
    }
    setTimer(): never {
      throw new Error('Filter sets no timer');
    }
  }
  const TIMED_OUT = 'Error: node n1: timed out trying to allocate devices';
  const table: Array<[name: string, args: unknown, stepMs: number | undefined, expected: string]> = [
    ['timeout: 1ns has passed at the first step', { filterTimeout: '1ns' }, 1, TIMED_OUT],
    ['timeout_zero: 0 applies no timeout', { filterTimeout: '0s' }, 5_000, 'ok'],
    ['the default, 10 s: 4 steps of 1 ms are within it', undefined, 1, 'ok'],
    ['the default, 10 s: steps of 5 s reach it at the second step', undefined, 5_000, TIMED_OUT],
    ['30s: 4 steps of 5 s are within it', { filterTimeout: '30s' }, 5_000, 'ok'],
    ['30s: steps of 10 s reach it at the third step', { filterTimeout: '30s' }, 10_000, TIMED_OUT],
    ['no clock (no time passes for the engine): no timeout', { filterTimeout: '1ns' }, undefined, 'ok'],
  ];
  for (const [name, args, stepMs, expected] of table) {
    it(name, () => {
      const snapshot = snapshotOf([makeNode('n1')]);
      const objects: ClusterObjects = {
        deviceClasses: [gpuClass],
        resourceSlices: [slice('n1', 2)],
        resourceClaims: [claim('c1', [exactly()])],
      };
      const handle: FrameworkHandle = {
        ...handleOf(snapshot, 1, objects),
        ...(stepMs === undefined ? {} : { clock: new SteppingClock(stepMs) }),
      };
      const run = runFilters(build(DR.factory, args, handle), snapshot, podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]));
      assert.deepEqual([run.preFilter, run.verdicts], ['ok', { n1: expected }]);
    });
  }
});

// upstream Filter's default case: the allocator's error (here cel-go's, past the runtime cost limit
// of a selector) is an Error status with its text, on every node it is met.
describe('engine/plugins/DynamicResources Filter: a selector past the runtime cost limit', () => {
  const table: Array<[name: string, expression: string, expected: string]> = [
    [
      'estimated within the limit (kube-apiserver accepts it), past it when evaluated: an Error',
      'lists.range(55554).all(i, [i][0] == i)',
      `Error: claim default/c1: selector #0 on device ${GPU}/n1/gpu-0: CEL runtime error: operation cancelled: actual cost limit exceeded`,
    ],
    ['within it: allocated', 'lists.range(166664).all(i, i >= 0)', 'ok'],
  ];
  for (const [name, expression, expected] of table) {
    it(name, function () {
      this.timeout(30_000);
      const snapshot = snapshotOf([makeNode('n1')]);
      const c1: ResourceClaim = {
        ...claim('c1', []),
        spec: {
          devices: {
            requests: [
              {
                name: 'req',
                exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1, selectors: [{ cel: { expression } }] },
              },
            ],
          },
        },
      };
      const objects: ClusterObjects = { deviceClasses: [gpuClass], resourceSlices: [slice('n1', 2)], resourceClaims: [c1] };
      const run = runFilters(
        build(DR.factory, undefined, handleOf(snapshot, 1, objects)),
        snapshot,
        podWith('p', [{ name: 'c', resourceClaimName: 'c1' }]),
      );
      assert.deepEqual([run.preFilter, run.verdicts], ['ok', { n1: expected }]);
    });
  }
});

// upstream TestValidateDynamicResourcesArgs (pkg/scheduler/apis/config/validation), with the 1.37
// defaults of its feature gates (DRASchedulerFilterTimeout, DRADeviceBindingConditions and
// DRAResourceClaimDeviceStatus on), and the defaults of SetDefaults_DynamicResourcesArgs.
describe('engine/plugins/DynamicResources args (upstream TestValidateDynamicResourcesArgs)', () => {
  const table: Array<[name: string, args: unknown, error: string | undefined, bindingTimeoutMs?: number, filterTimeoutMs?: number]> = [
    ['valid args (default)', { filterTimeout: '10s', bindingTimeout: '600s' }, undefined, 600_000, 10_000],
    ['absent: the defaults (filterTimeout 10 s, bindingTimeout 10 minutes)', undefined, undefined, DR.BINDING_TIMEOUT_MS, 10_000],
    ['negative FilterTimeout', { filterTimeout: '-1s' }, 'DynamicResources: filterTimeout: Invalid value: "-1s": must be zero or positive'],
    ['FilterTimeout zero (no timeout upstream)', { filterTimeout: '0s' }, undefined, DR.BINDING_TIMEOUT_MS, 0],
    ['FilterTimeout in another unit', { filterTimeout: '1m30s' }, undefined, DR.BINDING_TIMEOUT_MS, 90_000],
    [
      'FilterTimeout negative in another unit: shown as Go prints the duration',
      { filterTimeout: '-1500ms' },
      'DynamicResources: filterTimeout: Invalid value: "-1.5s": must be zero or positive',
    ],
    ['valid BindingTimeout', { bindingTimeout: '30s' }, undefined, 30_000],
    [
      'BindingTimeout < 1s (0s)',
      { bindingTimeout: '0s' },
      'DynamicResources: bindingTimeout: Invalid value: "0s": must be at least 1 second',
    ],
    [
      'BindingTimeout < 1s (negative)',
      { bindingTimeout: '-1s' },
      'DynamicResources: bindingTimeout: Invalid value: "-1s": must be at least 1 second',
    ],
    [
      'BindingTimeout < 1s, written in another unit: shown as Go prints the duration',
      { bindingTimeout: '0.5s' },
      'DynamicResources: bindingTimeout: Invalid value: "500ms": must be at least 1 second',
    ],
    ['BindingTimeout exactly 1s', { bindingTimeout: '1000ms' }, undefined, 1_000],
    [
      'not a duration',
      { bindingTimeout: 'ten minutes' },
      'DynamicResources: bindingTimeout: Invalid value: "ten minutes": time: invalid duration "ten minutes"',
    ],
    [
      'a number, not a duration text',
      { bindingTimeout: 30 },
      'DynamicResources: bindingTimeout: Invalid value: 30: must be a duration such as "30s"',
    ],
    [
      'both wrong: every error at once',
      { filterTimeout: '-5s', bindingTimeout: '0s' },
      'DynamicResources: [filterTimeout: Invalid value: "-5s": must be zero or positive, bindingTimeout: Invalid value: "0s": must be at least 1 second]',
    ],
    ['an unknown field is an error', { timeout: '1m' }, 'DynamicResources: unknown field "timeout"'],
    [
      'typed as in a KubeSchedulerConfiguration',
      { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'DynamicResourcesArgs', bindingTimeout: '2m' },
      undefined,
      120_000,
    ],
  ];
  for (const [name, args, error, bindingTimeoutMs, filterTimeoutMs = 10_000] of table) {
    it(name, () => {
      const read = DR.dynamicResourcesArgs(args);
      if (error === undefined) assert.deepEqual(read.ok ? read.value : read.error, { filterTimeoutMs, bindingTimeoutMs });
      else assert.equal(argsError(DR.factory, args), error);
    });
  }
});

// upstream dynamicresources/dynamicresources_test.go TestIsSchedulableAfterClaimChange (the claims
// known, and the claim added or updated, are in the plugin's objects as in upstream's claim cache;
// the rows giving the hint an object of another kind or a DeletedFinalStateUnknown are left out:
// Podplan's informers hand it claims only) and TestIsSchedulableAfterTargetPodUpdate.
describe('DynamicResources queueing hints', () => {
  const claimName = 'my-pod-my-resource';
  const owner = { apiVersion: 'v1', kind: 'Pod', name: 'my-pod', uid: '1234', controller: true };
  const pending: ResourceClaim = {
    ...claim(claimName, [exactly()]),
    metadata: { name: claimName, namespace: 'default', uid: 'uid-claim', ownerReferences: [owner] },
  };
  const allocated: ResourceClaim = { ...pending, status: allocatedOn('n1') };
  const other: ResourceClaim = { ...claim('not-my-claim', [exactly()]), status: allocatedOn('n1') };
  /** upstream podWithClaimName / podWithClaimTemplate (uid 1234, the claim's owner), with its status naming the claim when `named`. */
  const pod = (template: boolean, named = false): Pod => {
    const made = podWith(
      'my-pod',
      [template ? { name: 'my-resource', resourceClaimTemplateName: claimName } : { name: 'my-resource', resourceClaimName: claimName }],
      named ? { resourceClaimStatuses: [{ name: 'my-resource', resourceClaimName: claimName }] } : undefined,
    ).pod;
    return { ...made, metadata: { ...made.metadata, uid: '1234' } };
  };
  const plugin = (claims: readonly ResourceClaim[]) =>
    build(DR.factory, undefined, {
      ...handleOf(snapshotOf([]), 1, { deviceClasses: [gpuClass], resourceSlices: [slice('n1', 2)], resourceClaims: [...claims] }),
      clusterControllers: true,
    }) as DR.DynamicResources;
  const table: Array<
    [
      name: string,
      pod: Pod,
      claims: ResourceClaim[],
      oldObj: ResourceClaim | undefined,
      newObj: ResourceClaim | undefined,
      hint: QueueingHint,
    ]
  > = [
    ['skip-deletes', pod(true), [], pending, undefined, 'QueueSkip'],
    ['queue-on-delete-with-allocation', pod(true), [], allocated, undefined, 'Queue'],
    [
      'skip-wrong-claim',
      pod(true),
      [],
      undefined,
      { ...allocated, metadata: { ...allocated.metadata, ownerReferences: [{ ...owner, uid: '1234123' }] } },
      'QueueSkip',
    ],
    [
      'skip-unrelated-claim',
      pod(true),
      [allocated],
      undefined,
      { ...allocated, metadata: { ...allocated.metadata, name: `${claimName}-foo`, uid: 'uid-claim123' } },
      'QueueSkip',
    ],
    ['queue-on-add', pod(false), [], undefined, pending, 'Queue'],
    [
      'skip-adding-finalizer',
      pod(false),
      [pending],
      pending,
      { ...pending, metadata: { ...pending.metadata, finalizers: ['foo'] } as ResourceClaim['metadata'] },
      'QueueSkip',
    ],
    [
      'queue-on-status-change',
      pod(false),
      [pending],
      pending,
      { ...pending, status: { allocation: { devices: { results: [] } } } },
      'Queue',
    ],
    ['claim-deallocate', pod(false), [pending, other], other, { ...other, status: {} }, 'Queue'],
  ];
  for (const [name, p, claims, oldObj, newObj, hint] of table) {
    it(`isSchedulableAfterClaimChange: ${name}`, () => {
      // As upstream's claim cache: the claim added or updated is among those known.
      const known = newObj ? [...claims.filter((c) => c.metadata.name !== newObj.metadata.name), newObj] : claims;
      assert.equal(plugin(known).isSchedulableAfterClaimChange(p, oldObj, newObj), hint);
    });
  }

  // upstream TestIsSchedulableAfterTargetPodUpdate: the pod's update queues it once its claims can all be found.
  const twoTemplates = (): Pod => {
    const made = podWith(
      'my-pod',
      [
        { name: 'my-resource', resourceClaimTemplateName: claimName },
        { name: 'my-resource-2', resourceClaimTemplateName: `${claimName}-2` },
      ],
      { resourceClaimStatuses: [{ name: 'my-resource', resourceClaimName: claimName }] },
    ).pod;
    return { ...made, metadata: { ...made.metadata, uid: '1234' } };
  };
  const updates: Array<[name: string, newPod: Pod, claims: ResourceClaim[], hint: QueueingHint]> = [
    ['complete', pod(true, true), [pending], 'Queue'],
    ['missing-claim', pod(true, true), [], 'QueueSkip'],
    ['incomplete', twoTemplates(), [pending], 'QueueSkip'],
  ];
  for (const [name, newPod, claims, hint] of updates) {
    it(`isSchedulableAfterTargetPodUpdate: ${name}`, () =>
      assert.equal(plugin(claims).isSchedulableAfterTargetPodUpdate(pod(true), undefined, newPod), hint));
  }
});
