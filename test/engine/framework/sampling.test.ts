import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/engine/api/random';
import { FRAMEWORK_DEFAULTS, type FrameworkSettings } from '../../../src/engine/framework/profile';
import { NodeSampler, numFeasibleNodesToFind } from '../../../src/engine/framework/sampling';

const settings = (s: Partial<FrameworkSettings>): FrameworkSettings => ({ ...FRAMEWORK_DEFAULTS, ...s });

describe('engine/framework/sampling', () => {
  describe('adaptive: upstream numFeasibleNodesToFind', () => {
    const table: Array<[nodes: number, percentage: number, expected: number, why: string]> = [
      [50, 0, 50, 'fewer than 100 nodes: all of them'],
      [100, 0, 100, '100 × 50% = 50, raised to the minimum of 100'],
      [1000, 0, 420, '50 − 1000/125 = 42%'],
      [5000, 0, 500, '50 − 40 = 10%'],
      [6000, 0, 300, '50 − 48 = 2%, raised to 5%'],
      [20000, 0, 1000, 'never below 5%'],
      [1000, 30, 300, 'percentageOfNodesToScore taken as given'],
      [1000, 5, 100, 'still at least 100 nodes'],
      [1000, 100, 1000, '100%: every node'],
    ];
    for (const [nodes, percentage, expected, why] of table) {
      it(`${nodes} nodes, percentage ${percentage} → ${expected} (${why})`, () => {
        assert.equal(numFeasibleNodesToFind(settings({ percentageOfNodesToScore: percentage }), nodes), expected);
      });
    }
  });

  describe('fixed: a share in basis points, at least one node', () => {
    const table: Array<[nodes: number, basisPoints: number, expected: number]> = [
      [1000, 250, 25],
      [5000, 1000, 500],
      [1000, 1, 1],
      [40, 10000, 40],
      [0, 500, 0],
    ];
    for (const [nodes, basisPoints, expected] of table) {
      it(`${basisPoints} bp of ${nodes} nodes → ${expected}`, () => {
        assert.equal(numFeasibleNodesToFind(settings({ strategy: 'fixed', basisPoints }), nodes), expected);
      });
    }
  });

  it('round robin starts each cycle where the previous one stopped, across the whole snapshot', () => {
    const sampler = new NodeSampler(settings({ order: 'roundRobin' }), seededRandom(1));
    const starts: number[] = [];
    for (const processed of [40, 40, 40]) {
      starts.push(sampler.start(100));
      sampler.advance(processed, 100);
    }
    assert.deepEqual(starts, [0, 40, 80]);
    assert.equal(sampler.start(100), 20, 'wraps around');
    assert.equal(sampler.start(7), 20 % 7, 'a narrower candidate list (after PreFilter) wraps the same cursor');
  });

  it('random starts anywhere, drawn from the injected source', () => {
    const sampler = new NodeSampler(settings({ order: 'random' }), seededRandom(7));
    const expected = seededRandom(7);
    const starts = Array.from({ length: 5 }, () => sampler.start(300));
    assert.deepEqual(
      starts,
      Array.from({ length: 5 }, () => expected.int(300)),
    );
  });
});
