import assert from 'node:assert/strict';
import type { ResourceList } from '../../../src/engine/api/types';
import { factory } from '../../../src/engine/plugins/NodeResourcesBalancedAllocation';
import { makeNode, makePod, nodeInfoOf, type PodBuilder } from '../../builders';
import { argsError, build, runScore } from './harness';

const GPU = 'example.com/gpu';

/** A 4 cpu, 8Gi node (with 4 GPUs when asked) holding pods that request `used`. */
const node = (used: ResourceList[] = [], gpus = false) =>
  nodeInfoOf(
    makeNode('n').alloc({ cpu: '4', memory: '8Gi', pods: '110', ...(gpus ? { [GPU]: '4' } : {}) }),
    ...used.map((r, i) => makePod(`u${i}`).req(r)),
  );

describe('engine/plugins/NodeResourcesBalancedAllocation', () => {
  describe('Score = 50 + (50 + balance with the pod − balance without it) / 2 (1.36+), balance = trunc((1 − std of the fractions) × 100)', () => {
    const plugin = build(factory);
    // Transcribed from upstream 1.37 balanced_allocation_test.go TestNodeResourcesBalancedAllocation
    // (quantities in milli-cpu and bytes, as there); the comments give the balance without → with.
    const sized = (name: string, milliCpu: number, memory: number) =>
      makeNode(name).alloc({ cpu: `${milliCpu}m`, memory: `${memory}`, pods: '110' });
    const table: Array<[why: string, pod: PodBuilder, nodes: ReturnType<typeof nodeInfoOf>[], scores: number[]]> = [
      [
        'nothing scheduled, resources requested, differently sized nodes (100 → 87: 68; 100 → 100: 75)',
        makePod('p').req({ cpu: '1000m', memory: '2000' }).container({ cpu: '2000m', memory: '3000' }),
        [nodeInfoOf(sized('node1', 4000, 10000)), nodeInfoOf(sized('node2', 6000, 10000))],
        [68, 75],
      ],
      [
        'resources requested, pods scheduled with resources (85 → 82: 73; 97 → 95: 74)',
        makePod('p').req({ cpu: '1000m', memory: '2000' }).container({ cpu: '2000m', memory: '3000' }),
        [
          nodeInfoOf(sized('node1', 10000, 20000), makePod('e1').req({ cpu: '1000m' }).container({ cpu: '2000m' })),
          nodeInfoOf(
            sized('node2', 10000, 20000),
            makePod('e2').req({ cpu: '1000m', memory: '2000' }).container({ cpu: '2000m', memory: '3000' }),
          ),
        ],
        [73, 74],
      ],
      [
        'differently sized nodes (85 → 82: 73; 90 → 80: 70)',
        makePod('p').req({ cpu: '1000m', memory: '2000' }).container({ cpu: '2000m', memory: '3000' }),
        [
          nodeInfoOf(sized('node1', 10000, 20000), makePod('e1').req({ cpu: '1000m' }).container({ cpu: '2000m' })),
          nodeInfoOf(
            sized('node2', 10000, 50000),
            makePod('e2').req({ cpu: '1000m', memory: '2000' }).container({ cpu: '2000m', memory: '3000' }),
          ),
        ],
        [73, 70],
      ],
      [
        'nodes to reach min/max score (50 → 100: 100; 100 → 50: 50)',
        makePod('p').req({ memory: '2000' }).container({ memory: '3000' }),
        [
          nodeInfoOf(sized('node1', 3000, 5000), makePod('e1').req({ cpu: '1000m' }).container({ cpu: '2000m' })),
          nodeInfoOf(sized('node2', 3000, 5000)),
        ],
        [100, 50],
      ],
      [
        'requested resources at node capacity (75 → 50: 62; 100 → 75: 62)',
        makePod('p').req({ cpu: '1000m' }).container({ cpu: '2000m' }),
        [
          nodeInfoOf(sized('node1', 6000, 10000), makePod('e1').req({ cpu: '1000m' }).container({ cpu: '2000m' })),
          nodeInfoOf(
            sized('node2', 6000, 10000),
            makePod('e2').req({ cpu: '1000m', memory: '2000' }).container({ cpu: '2000m', memory: '3000' }),
          ),
        ],
        [62, 62],
      ],
    ];
    for (const [why, pod, nodes, scores] of table) {
      it(why, () => assert.deepEqual(runScore(plugin, pod.info, nodes).raw, scores));
    }

    it('plain requests: a best-effort pod on the node adds nothing (100 → 100: 75)', () => {
      assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '1', memory: '2Gi' }).info, [node([{}])]).raw, [75]);
    });

    it('a fraction above 1 counts as 1: cpu 8/4 → 1, memory 0.25: std 0.375 (100 → 62: 56)', () => {
      assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '8', memory: '2Gi' }).info, [node()]).raw, [56]);
    });

    it('a pod requesting nothing is not scored (PreScore skips it)', () => {
      assert.equal(runScore(plugin, makePod('be').info, [node()]).preScore, 'skip');
    });
  });

  describe('more than two resources: the full standard deviation', () => {
    const plugin = build(factory, {
      resources: [
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
        { name: GPU, weight: 1 },
      ],
    });

    it('0.25, 0.5, 0.75: mean 0.5, std sqrt(0.125/3) = 0.2041 → 79 (100 → 79: 64)', () => {
      assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '1', memory: '4Gi', [GPU]: '3' }).info, [node([], true)]).raw, [64]);
    });

    it('a GPU the pod does not ask for, or the node does not offer, is left out', () => {
      // cpu 0.25, memory 0.5 only: std 0.125 (100 → 87: 68)
      assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '1', memory: '4Gi' }).info, [node([], true)]).raw, [68]);
      assert.deepEqual(runScore(plugin, makePod('q').req({ cpu: '1', memory: '4Gi', [GPU]: '1' }).info, [node()]).raw, [68]);
    });
  });

  it('a single resource has no deviation (100 → 100: 75)', () => {
    const plugin = build(factory, { resources: [{ name: 'cpu' }] });
    assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '3', memory: '1Gi' }).info, [node()]).raw, [75]);
  });

  describe('args', () => {
    it('default to cpu and memory, weight 1', () =>
      assert.deepEqual(build(factory).args.resources, [
        { name: 'cpu', weight: 1 },
        { name: 'memory', weight: 1 },
      ]));
    const table: Array<[args: unknown, error: string]> = [
      [{ resources: [{ name: 'cpu', weight: 2 }] }, 'resources[0].weight: Invalid value: 2: must be 1'],
      [{ resources: [{ name: 'cpu' }, { name: 'cpu' }] }, 'resources[1].name: Duplicate value: "cpu"'],
      [{ resources: [{ weight: 1, nme: 'cpu' }] }, 'unknown field "resources[0].nme"'],
    ];
    for (const [args, error] of table) it(error, () => assert.equal(argsError(factory, args), `NodeResourcesBalancedAllocation: ${error}`));
  });
});
