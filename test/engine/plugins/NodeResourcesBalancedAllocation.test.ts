import assert from 'node:assert/strict';
import type { ResourceList } from '../../../src/engine/api/types';
import { factory } from '../../../src/engine/plugins/NodeResourcesBalancedAllocation';
import { makeNode, makePod, nodeInfoOf, type PodBuilder } from '../../builders';
import { argsError, build, runScore } from './harness';

const GPU = 'example.com/gpu';

/** A 4 cpu, 8Gi node (with 4 GPUs when asked) holding pods that request `used`. */
const node = (used: ResourceList[] = [], gpus = false) =>
  nodeInfoOf(makeNode('n').alloc({ cpu: '4', memory: '8Gi', pods: '110', ...(gpus ? { [GPU]: '4' } : {}) }), ...used.map((r, i) => makePod(`u${i}`).req(r)));

describe('engine/plugins/NodeResourcesBalancedAllocation', () => {
  describe('Score = trunc((1 - std of requested/allocatable fractions) × 100), with the pod placed', () => {
    const plugin = build(factory);
    const table: Array<[why: string, pod: PodBuilder, used: ResourceList[], score: number]> = [
      ['equal fractions 0.25, 0.25: std 0', makePod('p').req({ cpu: '1', memory: '2Gi' }), [], 100],
      ['0.5 and 0.25: std |0.5-0.25|/2 = 0.125 → 87.5', makePod('p').req({ cpu: '2', memory: '2Gi' }), [], 87],
      ['with what the node holds: cpu 3/4, memory 2/8: std 0.25 → 75', makePod('p').req({ cpu: '1', memory: '1Gi' }), [{ cpu: '2', memory: '1Gi' }], 75],
      ['plain requests: a best-effort pod on the node adds nothing', makePod('p').req({ cpu: '1', memory: '2Gi' }), [{}], 100],
      ['a fraction above 1 counts as 1: cpu 8/4 → 1, memory 0.25: std 0.375 → 62.5', makePod('p').req({ cpu: '8', memory: '2Gi' }), [], 62],
    ];
    for (const [why, pod, used, score] of table) {
      it(why, () => assert.deepEqual(runScore(plugin, pod.info, [node(used)]).raw, [score]));
    }

    it('a pod requesting nothing is not scored (PreScore skips it)', () => {
      assert.equal(runScore(plugin, makePod('be').info, [node()]).preScore, 'skip');
    });
  });

  describe('more than two resources: the full standard deviation', () => {
    const plugin = build(factory, { resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }, { name: GPU, weight: 1 }] });

    it('0.25, 0.5, 0.75: mean 0.5, std sqrt(0.125/3) = 0.2041 → 79.58 → 79', () => {
      assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '1', memory: '4Gi', [GPU]: '3' }).info, [node([], true)]).raw, [79]);
    });

    it('a GPU the pod does not ask for, or the node does not offer, is left out', () => {
      // cpu 0.25, memory 0.5 only: std 0.125 → 87
      assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '1', memory: '4Gi' }).info, [node([], true)]).raw, [87]);
      assert.deepEqual(runScore(plugin, makePod('q').req({ cpu: '1', memory: '4Gi', [GPU]: '1' }).info, [node()]).raw, [87]);
    });
  });

  it('a single resource has no deviation: 100', () => {
    const plugin = build(factory, { resources: [{ name: 'cpu' }] });
    assert.deepEqual(runScore(plugin, makePod('p').req({ cpu: '3', memory: '1Gi' }).info, [node()]).raw, [100]);
  });

  describe('args', () => {
    it('default to cpu and memory, weight 1', () => assert.deepEqual(build(factory).args.resources, [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }]));
    const table: Array<[args: unknown, error: string]> = [
      [{ resources: [{ name: 'cpu', weight: 2 }] }, 'resources[0].weight: Invalid value: 2: must be 1'],
      [{ resources: [{ name: 'cpu' }, { name: 'cpu' }] }, 'resources[1].name: Duplicate value: "cpu"'],
      [{ resources: [{ weight: 1, nme: 'cpu' }] }, 'unknown field "resources[0].nme"'],
    ];
    for (const [args, error] of table) it(error, () => assert.equal(argsError(factory, args), `NodeResourcesBalancedAllocation: ${error}`));
  });
});
