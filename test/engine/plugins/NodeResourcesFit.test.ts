import assert from 'node:assert/strict';
import type { ResourceList } from '../../../src/engine/api/types';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import type { NodeInfo } from '../../../src/engine/framework/node-info';
import { Code } from '../../../src/engine/framework/status';
import type { QueueingHint } from '../../../src/engine/framework/events';
import {
  brokenLinearFunction,
  factory,
  isSchedulableAfterAssignedPodDelete,
  isSchedulableAfterAssignedPodScaleDown,
  isSchedulableAfterDeviceClassEvent,
} from '../../../src/engine/plugins/NodeResourcesFit';
import { makeNode, makePod, nodeInfoOf, type PodBuilder } from '../../builders';
import { argsError, build, runFilter, runScore, type Verdict } from './harness';

const GPU = 'example.com/gpu';
const unschedulable = (...reasons: string[]): Verdict => ({ code: Code.Unschedulable, reasons });
const unresolvable = (...reasons: string[]): Verdict => ({ code: Code.UnschedulableAndUnresolvable, reasons });

/** A node offering 4 cpu, 8Gi, 10Gi of ephemeral storage, 2 GPUs and 3 pods, holding pods that request `used`. */
function node(used: ResourceList[] = []): NodeInfo {
  const n = makeNode('n').alloc({ cpu: '4', memory: '8Gi', 'ephemeral-storage': '10Gi', [GPU]: '2', pods: '3' });
  return nodeInfoOf(n, ...used.map((req, i) => makePod(`used-${i}`).req(req)));
}

describe('engine/plugins/NodeResourcesFit', () => {
  describe('Filter: requests must fit in allocatable minus what the node already holds', () => {
    const fit = build(factory);
    const table: Array<[why: string, pod: PodBuilder, node: NodeInfo, verdict: Verdict]> = [
      ['1 cpu into 4 - 2.5 = 1.5 free', makePod('p').req({ cpu: '1' }), node([{ cpu: '2500m' }]), 'ok'],
      ['2 cpu into 1.5 free', makePod('p').req({ cpu: '2' }), node([{ cpu: '2500m' }]), unschedulable('Insufficient cpu')],
      ['5 cpu exceed the whole node: no preemption can help', makePod('p').req({ cpu: '5' }), node(), unresolvable('Insufficient cpu')],
      [
        'every short resource is named, in upstream order',
        makePod('p').req({ cpu: '2', memory: '8Gi' }),
        node([{ cpu: '2500m', memory: '1Gi' }]),
        unschedulable('Insufficient cpu', 'Insufficient memory'),
      ],
      [
        'ephemeral storage',
        makePod('p').req({ 'ephemeral-storage': '6Gi' }),
        node([{ 'ephemeral-storage': '5Gi' }]),
        unschedulable('Insufficient ephemeral-storage'),
      ],
      // fit_test.go, TestEnoughRequests, the pod-level rows: the pod's own requests count, not its containers'.
      [
        'pod-level: 2 cpu for the pod although its container asks 500m, into 1.5 free',
        makePod('p').podResources({ cpu: '2' }).req({ cpu: '500m' }),
        node([{ cpu: '2500m' }]),
        unschedulable('Insufficient cpu'),
      ],
      [
        'pod-level: 1.5 cpu for the pod (its container asks 500m) into 1.5 free',
        makePod('p').podResources({ cpu: '1500m' }).req({ cpu: '500m' }),
        node([{ cpu: '2500m' }]),
        'ok',
      ],
      ['a full node (3 pods of 3) rejects even a pod requesting nothing', makePod('p'), node([{}, {}, {}]), unschedulable('Too many pods')],
      [
        'pods first, then resources',
        makePod('p').req({ cpu: '2' }),
        node([{ cpu: '1' }, { cpu: '1' }, { cpu: '1' }]),
        unschedulable('Too many pods', 'Insufficient cpu'),
      ],
      [
        'an extended resource in use',
        makePod('p').req({ [GPU]: '1' }),
        node([{ [GPU]: '2' }]),
        unschedulable('Insufficient example.com/gpu'),
      ],
      ['more GPUs than the node has', makePod('p').req({ [GPU]: '3' }), node(), unresolvable('Insufficient example.com/gpu')],
      [
        'a resource the node does not offer at all',
        makePod('p').req({ 'example.com/fpga': '1' }),
        node(),
        unresolvable('Insufficient example.com/fpga'),
      ],
      ['a zero request is not checked', makePod('p').req({ [GPU]: '0', cpu: '0' }), node([{ [GPU]: '2', cpu: '4' }]), 'ok'],
      [
        "an init container's peak counts: max(1, 3) cpu into 2 free",
        makePod('p').req({ cpu: '1' }).init({ cpu: '3' }),
        node([{ cpu: '2' }]),
        unschedulable('Insufficient cpu'),
      ],
    ];
    for (const [why, pod, n, expected] of table) {
      it(why, () => assert.deepEqual(runFilter(fit, pod.info, [n]), { preFilter: 'ok', filter: [expected] }));
    }

    it('nodes failing the same way share one status (one allocation per pattern, not per node)', () => {
      const state = new CycleState();
      const pod = makePod('q').req({ cpu: '2' }).info;
      fit.preFilter(state, pod);
      assert.equal(fit.filter(state, pod, node([{ cpu: '3' }])), fit.filter(state, pod, node([{ cpu: '3' }])));
    });

    it('ignoredResources and ignoredResourceGroups skip extended resources only', () => {
      const pod = makePod('p').req({ [GPU]: '3', 'hugepages-2Mi': '20Mi' }).info;
      const byName = build(factory, { ignoredResources: [GPU, 'hugepages-2Mi'] });
      const byGroup = build(factory, { ignoredResourceGroups: ['example.com'] });
      // hugepages are not an extended resource: they are checked whatever the args say.
      assert.deepEqual(runFilter(byName, pod, [node()]).filter, [unresolvable('Insufficient hugepages-2Mi')]);
      assert.deepEqual(runFilter(byGroup, pod, [node()]).filter, [unresolvable('Insufficient hugepages-2Mi')]);
      assert.deepEqual(runFilter(byGroup, makePod('q').req({ [GPU]: '9' }).info, [node()]).filter, ['ok']);
    });
  });

  describe('Score', () => {
    // A: 4 cpu, 8Gi holding 1 cpu, 2Gi.  B: 4 cpu, 8Gi, empty.  C: 3 cpu, 8Gi, empty.
    // D: 4 cpu, 8Gi, 4 GPUs holding a pod asking only 2 GPUs (it counts as 100m, 200Mi for scoring).
    const nodes = [
      nodeInfoOf(makeNode('A').alloc({ cpu: '4', memory: '8Gi', pods: '110' }), makePod('a').req({ cpu: '1', memory: '2Gi' })),
      nodeInfoOf(makeNode('B').alloc({ cpu: '4', memory: '8Gi', pods: '110' })),
      nodeInfoOf(makeNode('C').alloc({ cpu: '3', memory: '8Gi', pods: '110' })),
      nodeInfoOf(makeNode('D').alloc({ cpu: '4', memory: '8Gi', [GPU]: '4', pods: '110' }), makePod('d').req({ [GPU]: '2' })),
    ];
    const pod = makePod('p').req({ cpu: '1', memory: '2Gi' }).info;
    const scores = (args: unknown, p = pod) => runScore(build(factory, args), p, nodes).raw;

    it('LeastAllocated (default): mean of (capacity - requested) × 100 / capacity, truncated', () => {
      // A: cpu (4000-2000)×100/4000 = 50, memory (8-4)/8 → 50; (50+50)/2 = 50
      // B: cpu (4000-1000)×100/4000 = 75, memory (8-2)/8 → 75 → 75
      // C: cpu (3000-1000)×100/3000 = 66.7 → 66, memory 75; (66+75)/2 = 70.5 → 70
      // D: cpu 4000-(100+1000) → 72.5 → 72; memory 8192Mi-(200Mi+2048Mi) = 5944Mi → 72.6 → 72; GPUs not asked for: skipped → 72
      assert.deepEqual(scores(undefined), [50, 75, 70, 72]);
    });

    it('a pod requesting nothing is scored as 100m cpu and 200Mi', () => {
      // B: cpu (4000-100)×100/4000 = 97.5 → 97; memory (8192-200)×100/8192 = 97.6 → 97
      assert.deepEqual(runScore(build(factory), makePod('be').info, [nodes[1] as NodeInfo]).raw, [97]);
    });

    it('per-resource weights: (score × weight) summed over the weights', () => {
      // C with cpu×3, memory×1: (66×3 + 75×1) / 4 = 273/4 = 68.25 → 68
      assert.deepEqual(
        scores({
          scoringStrategy: {
            type: 'LeastAllocated',
            resources: [
              { name: 'cpu', weight: 3 },
              { name: 'memory', weight: 1 },
            ],
          },
        })[2],
        68,
      );
    });

    it('extended resources score when the pod asks for them and the node offers them', () => {
      const gpuPod = makePod('g').req({ cpu: '1', memory: '2Gi', [GPU]: '1' }).info;
      const args = {
        scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu' }, { name: 'memory' }, { name: GPU, weight: 2 }] },
      };
      // A: no GPUs offered → cpu and memory only → 50
      // D: GPUs (4 - (2+1))×100/4 = 25; (72 + 72 + 25×2) / 4 = 194/4 = 48.5 → 48
      const raw = runScore(build(factory, args), gpuPod, nodes).raw;
      assert.deepEqual([raw[0], raw[3]], [50, 48]);
    });

    it('MostAllocated: mean of requested × 100 / capacity (requests above capacity count as full)', () => {
      // A: 2000×100/4000 = 50, 4/8 → 50 → 50.  B: 25, 25 → 25.  C: 1000×100/3000 = 33, 25 → 29.  D: 1100 → 27, 2248Mi → 27 → 27
      assert.deepEqual(scores({ scoringStrategy: { type: 'MostAllocated' } }), [50, 25, 29, 27]);
      // 1 cpu on a 500m node: min(1000, 500)×100/500 = 100; memory 2Gi/8Gi = 25 → (100+25)/2 = 62
      const small = nodeInfoOf(makeNode('S').alloc({ cpu: '500m', memory: '8Gi', pods: '110' }));
      assert.deepEqual(runScore(build(factory, { scoringStrategy: { type: 'MostAllocated' } }), pod, [small]).raw, [62]);
    });

    describe('RequestedToCapacityRatio: utilization through the shape (scores ×10), zero scores left out, mean rounded', () => {
      const rtcr = (shape: Array<[number, number]>, resources?: Array<{ name: string; weight: number }>) => ({
        scoringStrategy: {
          type: 'RequestedToCapacityRatio',
          ...(resources ? { resources } : {}),
          requestedToCapacityRatio: { shape: shape.map(([utilization, score]) => ({ utilization, score })) },
        },
      });

      it('bin packing (0→0, 100→10): the score is the utilization', () => {
        // A: 50, 50 → 50.  B: 25, 25 → 25.  C: cpu 1000×100/3000 = 33, memory 25 → round(29) = 29.  D: 27, 27 → 27
        assert.deepEqual(
          scores(
            rtcr([
              [0, 0],
              [100, 10],
            ]),
          ),
          [50, 25, 29, 27],
        );
      });

      it('weights, rounded rather than truncated', () => {
        // C: (33×1 + 25×2) / 3 = 27.67 → 28
        assert.equal(
          scores(
            rtcr(
              [
                [0, 0],
                [100, 10],
              ],
              [
                { name: 'cpu', weight: 1 },
                { name: 'memory', weight: 2 },
              ],
            ),
          )[2],
          28,
        );
      });

      it('spreading (0→10, 100→0): the score is 100 - utilization', () => {
        // C: cpu 100 - 33 = 67, memory 75 → 71
        assert.equal(
          scores(
            rtcr([
              [0, 10],
              [100, 0],
            ]),
          )[2],
          71,
        );
      });

      it('a resource scoring 0 is left out of the mean', () => {
        // (0→10, 30→0), C: cpu at 33% is past the last point → 0, left out;
        // memory at 25%: 100 + trunc((0-100) × 25 / 30) = 100 - 83 = 17 (truncated toward zero, as Go) → 17
        assert.equal(
          scores(
            rtcr([
              [0, 10],
              [30, 0],
            ]),
          )[2],
          17,
        );
      });

      it('requests above capacity read as 100% utilization', () => {
        const small = nodeInfoOf(makeNode('S').alloc({ cpu: '500m', memory: '8Gi', pods: '110' }));
        // cpu 1000 > 500 → f(100) = 100; memory 25 → round(62.5) = 63
        assert.deepEqual(
          runScore(
            build(
              factory,
              rtcr([
                [0, 0],
                [100, 10],
              ]),
            ),
            pod,
            [small],
          ).raw,
          [63],
        );
      });
    });

    it('the broken-linear function holds its end values outside the points', () => {
      const f = brokenLinearFunction([
        { utilization: 50, score: 20 },
        { utilization: 80, score: 50 },
      ]);
      // below the first point: 20; between: 20 + (50-20)×(65-50)/(80-50) = 35; above the last: 50
      assert.deepEqual([f(10), f(50), f(65), f(80), f(95)], [20, 20, 35, 50, 50]);
    });
  });

  describe('args: upstream defaults and validation', () => {
    it('defaults to LeastAllocated over cpu and memory, weight 1; an absent or zero weight is 1', () => {
      assert.deepEqual(build(factory).args, {
        ignoredResources: [],
        ignoredResourceGroups: [],
        scoringStrategy: {
          type: 'LeastAllocated',
          resources: [
            { name: 'cpu', weight: 1 },
            { name: 'memory', weight: 1 },
          ],
        },
      });
      const args = build(factory, {
        scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 0 }, { name: GPU }] },
      }).args;
      assert.deepEqual(args.scoringStrategy.resources, [
        { name: 'cpu', weight: 1 },
        { name: GPU, weight: 1 },
      ]);
    });

    const shape = (points: unknown) => ({
      scoringStrategy: { type: 'RequestedToCapacityRatio', requestedToCapacityRatio: { shape: points } },
    });
    const table: Array<[args: unknown, error: string]> = [
      [
        { scoringStrategy: { type: 'Balanced' } },
        'scoringStrategy.type: Unsupported value: "Balanced": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
      ],
      [
        { scoringStrategy: {} },
        'scoringStrategy.type: Unsupported value: "": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
      ],
      [
        { scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: 101 }] } },
        'scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]',
      ],
      [
        { scoringStrategy: { type: 'MostAllocated', resources: [{ name: 'cpu', weight: -1 }] } },
        'scoringStrategy.resources[0].weight: Invalid value: -1: resource weight of cpu not in valid range (0, 100]',
      ],
      [
        { scoringStrategy: { type: 'RequestedToCapacityRatio' } },
        'scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio',
      ],
      [
        { scoringStrategy: { type: 'LeastAllocated', requestedToCapacityRatio: { shape: [] } } },
        'scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil when type is not RequestedToCapacityRatio',
      ],
      [shape([]), 'scoringStrategy.requestedToCapacityRatio.shape: Required value: at least one point must be specified'],
      [
        shape([
          { utilization: 50, score: 1 },
          { utilization: 50, score: 2 },
        ]),
        'scoringStrategy.requestedToCapacityRatio.shape[1].utilization: Invalid value: 50: values must be sorted in increasing order',
      ],
      [
        shape([{ utilization: 101, score: 1 }]),
        'scoringStrategy.requestedToCapacityRatio.shape[0].utilization: Invalid value: 101: not in valid range [0, 100]',
      ],
      [
        shape([{ utilization: 0, score: 11 }]),
        'scoringStrategy.requestedToCapacityRatio.shape[0].score: Invalid value: 11: not in valid range [0, 10]',
      ],
      [
        { ignoredResourceGroups: ['example.com/gpu'] },
        "ignoredResourceGroups[0]: Invalid value: \"example.com/gpu\": resource group name can't contain '/'",
      ],
      [
        { ignoredResources: ['bad name'] },
        "ignoredResources[0]: Invalid value: \"bad name\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
      ],
      [
        { scoringStrategy: { type: 'LeastAllocated', resources: 'cpu' } },
        'scoringStrategy.resources: Invalid value: "cpu": must be a list',
      ],
      [
        { scoringStrategy: { type: 'LeastAllocated', resources: [{ name: 'cpu', weight: 1.5 }] } },
        'scoringStrategy.resources[0].weight: Invalid value: 1.5: must be an integer',
      ],
      [{ ignoredResource: [] }, 'unknown field "ignoredResource"'],
      [{ scoringStrategy: { type: 'LeastAllocated', shape: [] } }, 'unknown field "scoringStrategy.shape"'],
      [7, 'args: Invalid value: 7: must be an object'],
      [
        { scoringStrategy: { type: 'X', resources: [{ name: 'cpu', weight: 0.5 }] } },
        '[scoringStrategy.type: Unsupported value: "X": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio", scoringStrategy.resources[0].weight: Invalid value: 0.5: must be an integer]',
      ],
    ];
    for (const [args, error] of table) {
      it(error, () => assert.equal(argsError(factory, args), `NodeResourcesFit: ${error}`));
    }
  });
});

// upstream noderesources/fit_test.go Test_isSchedulableAfterAssignedPodDelete,
// Test_isSchedulableAfterAssignedPodScaleDown, Test_isSchedulableAfterNodeChange and
// Test_isSchedulableAfterDeviceClassChange (the rows giving a hint an object of another kind are left
// out: the queue hands each its resource's objects; so are the deferred-resize rows:
// InPlacePodVerticalScalingSchedulerPreemption is off in 1.37; pod-level rows use container requests).
describe('NodeResourcesFit queueing hints', () => {
  describe('isSchedulableAfterAssignedPodDelete', () => {
    const pod = makePod('pod1').req({ cpu: '1' }).obj;
    const table: Array<[name: string, deleted: PodBuilder, hint: QueueingHint]> = [
      ['queue-on-other-pod-deleted', makePod('pod2').req({ cpu: '1' }).node('fake'), 'Queue'],
      ['skip-queue-on-unscheduled-pod-deleted', makePod('pod2').req({ cpu: '1' }), 'QueueSkip'],
      ['queue-on-nominated-pod-deleted', makePod('pod2').req({ cpu: '2' }).nominatedTo('fake'), 'Queue'],
    ];
    for (const [name, deleted, hint] of table) it(name, () => assert.equal(isSchedulableAfterAssignedPodDelete(pod, deleted.obj), hint));
  });

  describe('isSchedulableAfterAssignedPodScaleDown', () => {
    const table: Array<[name: string, pod: PodBuilder, oldObj: PodBuilder, newObj: PodBuilder, hint: QueueingHint]> = [
      [
        'skip-queue-on-other-unscheduled-pod',
        makePod('pod1').req({ cpu: '1' }),
        makePod('pod2').req({ cpu: '2' }),
        makePod('pod2').req({ cpu: '1' }),
        'QueueSkip',
      ],
      [
        'skip-queue-on-other-pod-unrelated-resource-scaled-down',
        makePod('pod1').req({ cpu: '1' }),
        makePod('pod2').req({ memory: '2' }).node('fake'),
        makePod('pod2').req({ memory: '1' }).node('fake'),
        'QueueSkip',
      ],
      [
        'queue-on-other-pod-some-resource-scale-down',
        makePod('pod1').req({ cpu: '1' }),
        makePod('pod2').req({ cpu: '2' }).node('fake'),
        makePod('pod2').req({ cpu: '1' }).node('fake'),
        'Queue',
      ],
    ];
    for (const [name, pod, oldObj, newObj, hint] of table)
      it(name, () => assert.equal(isSchedulableAfterAssignedPodScaleDown(pod.obj, oldObj.obj, newObj.obj), hint));
  });

  describe('isSchedulableAfterNodeChange', () => {
    const plugin = build(factory);
    const A = 'example.com/aaa';
    const B = 'example.com/bbb';
    /** upstream st.MakeNode().Capacity(...): the resources given, and 32 pods. */
    const node = (resources: ResourceList) => makeNode('n').alloc({ pods: '32', ...resources }).obj;
    const wants = (memory: string | undefined, a: string | undefined) =>
      makePod('p').req({ ...(memory ? { memory } : {}), ...(a ? { [A]: a } : {}) }).obj;
    const table: Array<[name: string, pod: ReturnType<typeof wants>, oldObj: unknown, newObj: unknown, hint: QueueingHint]> = [
      ['skip-queue-on-node-add-without-sufficient-resources', wants('2', undefined), undefined, node({ memory: '1' }), 'QueueSkip'],
      ['skip-queue-on-node-add-without-required-resource-type', wants(undefined, '1'), undefined, node({ [B]: '1' }), 'QueueSkip'],
      ['queue-on-node-add-with-sufficient-resources', wants('2', '1'), undefined, node({ memory: '4', [A]: '2' }), 'Queue'],
      [
        'skip-queue-on-node-unrelated-changes',
        wants('2', '1'),
        node({ memory: '2', [A]: '2' }),
        node({ memory: '2', [A]: '1', [B]: '2' }),
        'QueueSkip',
      ],
      [
        'queue-on-pod-requested-resources-increase',
        wants('2', '1'),
        node({ memory: '2', [A]: '1' }),
        node({ memory: '2', [A]: '2' }),
        'Queue',
      ],
      [
        'skip-queue-on-node-changes-from-suitable-to-unsuitable',
        wants('2', '1'),
        node({ memory: '4', [A]: '2' }),
        node({ memory: '1', [A]: '2' }),
        'QueueSkip',
      ],
      [
        'queue-on-node-changes-from-unsuitable-to-suitable',
        wants('2', '1'),
        node({ memory: '1', [A]: '2' }),
        node({ memory: '4', [A]: '2' }),
        'Queue',
      ],
    ];
    for (const [name, pod, oldObj, newObj, hint] of table)
      it(name, () => assert.equal(plugin.isSchedulableAfterNodeChange(pod, oldObj, newObj), hint));
  });

  describe('isSchedulableAfterDeviceClassEvent', () => {
    const cls = (name: string, extendedResourceName?: string) => ({
      metadata: { name },
      spec: extendedResourceName ? { extendedResourceName } : {},
    });
    const memory = makePod('p').req({ memory: '2' }).obj;
    const wants = (resource: string) => makePod('p').req({ [resource]: '1' }).obj;
    const table: Array<[name: string, pod: typeof memory, oldObj: unknown, newObj: unknown, hint: QueueingHint]> = [
      ['skip-queue-on-class-nil-extended-resource-name-pointer', memory, cls(''), cls(''), 'QueueSkip'],
      ['skip-queue-on-class-same-extended-resource-name', memory, cls('', 'example.com/gpu'), cls('', 'example.com/gpu'), 'QueueSkip'],
      [
        'queue-on-class-add-with-implicit-extended-resource-name',
        wants('deviceclass.resource.kubernetes.io/gpuclass'),
        undefined,
        cls('gpuclass', 'example.com/gpu'),
        'Queue',
      ],
      [
        'skip-on-class-add-with-implicit-extended-resource-name-not-matching',
        wants('deviceclass.resource.kubernetes.io/gpuclass'),
        undefined,
        cls('myclass', 'example.com/gpu'),
        'QueueSkip',
      ],
      [
        'skip-on-class-add-with-explicit-extended-resource-name-not-matching',
        wants('example.com/othergpu'),
        undefined,
        cls('myclass', 'example.com/gpu'),
        'QueueSkip',
      ],
      [
        'skip-on-class-update-with-implicit-extended-resource-name',
        wants('deviceclass.resource.kubernetes.io/gpuclass'),
        cls('gpuclass'),
        cls('gpuclass', 'example.com/gpu'),
        'QueueSkip',
      ],
      ['queue-on-class-add-with-extended-resource-name', wants('example.com/gpu'), undefined, cls('', 'example.com/gpu'), 'Queue'],
      [
        'queue-on-class-update-with-extended-resource-name',
        wants('example.com/gpu'),
        cls('', 'example.com/gpu1'),
        cls('', 'example.com/gpu'),
        'Queue',
      ],
    ];
    for (const [name, p, oldObj, newObj, hint] of table)
      it(name, () => assert.equal(isSchedulableAfterDeviceClassEvent(p, oldObj, newObj), hint));
  });
});
