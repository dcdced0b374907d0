import assert from 'node:assert/strict';
import { podInfo } from '../../../../src/engine/framework/node-info';
import { Snapshot } from '../../../../src/engine/framework/snapshot';
import { greedy } from '../../../../src/engine/planner/planners/greedy';
import { optimize } from '../../../../src/engine/planner/planners/optimize';
import type { PlanRequest } from '../../../../src/engine/planner/planner';
import { compareQuality, quality } from '../../../../src/engine/planner/search/quality';
import { generatePodSet } from '../../../../bench/workloads/podsets';
import { makeNode } from '../../../builders';
import { nodesUsed, outcome, planning, request, setPod } from '../fixtures';

const node = (name: string, cpu = '4') => makeNode(name).alloc({ cpu, memory: '16Gi', pods: '110' });
const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

describe('engine/planner/planners/optimize', () => {
  it('places strictly more pods than greedy where greedy fragments the nodes', () => {
    // Greedy spreads the two 2-cpu pods over both nodes and then has no room for the 4-cpu pod.
    const req = request(
      [node('n1'), node('n2')],
      [setPod('a').req({ cpu: '2' }), setPod('b').req({ cpu: '2' }), setPod('c').req({ cpu: '4' })],
    );
    assert.deepEqual(outcome(greedy.plan(req)).unplaced, ['c']);
    const result = optimize.plan(req);
    assert.deepEqual(outcome(result).unplaced, []);
    assert.equal(nodesUsed(result), 2);
  });

  it("Pallet's mutual anti-affinity example: two pods that must not share a hostname go to two nodes", () => {
    const term = { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'feature-store' } } };
    const pods = ['feature-store-0', 'feature-store-1'].map((name) =>
      setPod(name).labels({ app: 'feature-store' }).req({ cpu: '1' }).requirePods('podAntiAffinity', term),
    );
    const result = optimize.plan(request([node('n1', '8'), node('n2', '8')], pods));
    const placed = outcome(result).placed;
    assert.deepEqual(Object.keys(placed).sort(), ['feature-store-0', 'feature-store-1']);
    assert.notEqual(placed['feature-store-0'], placed['feature-store-1']);
  });

  it('pack: as few nodes as the pods fit in, where greedy spreads', () => {
    const req = request(
      [node('n1'), node('n2'), node('n3'), node('n4')],
      ['a', 'b', 'c', 'd'].map((n) => setPod(n).req({ cpu: '1' })),
    );
    assert.equal(nodesUsed(greedy.plan(req)), 4);
    assert.equal(nodesUsed(optimize.plan(req)), 1);
  });

  it('pack fills a node other pods already use before opening an empty one', () => {
    const req = request([node('n1'), node('n2')], [setPod('a').req({ cpu: '1' })], {
      bound: [setPod('other', 'other').req({ cpu: '2' }).node('n2')],
    });
    assert.deepEqual(outcome(optimize.plan(req)).placed, { a: 'n2' });
  });

  it('balance: keeps the busiest node as low as it can', () => {
    const req = request(
      [node('n1'), node('n2')],
      ['a', 'b', 'c', 'd'].map((n) => setPod(n).req({ cpu: '1' })),
      { objective: 'balance' },
    );
    const result = optimize.plan(req);
    assert.equal(quality(req, result).peak, 0.5);
  });

  it('by priority first: a high-priority pod is placed even when more low-priority pods would fit instead', () => {
    const pods = [
      setPod('low-0').req({ cpu: '1' }),
      setPod('low-1').req({ cpu: '1' }),
      setPod('low-2').req({ cpu: '1' }),
      setPod('high').req({ cpu: '3' }).priority(1000),
    ];
    const result = outcome(optimize.plan(request([node('n1')], pods)));
    assert.equal(result.placed['high'], 'n1');
    assert.equal(result.unplaced.length, 2);
  });

  it('honours topology spread: pack cannot put more than maxSkew over the emptiest zone', () => {
    const zones = ['a', 'b', 'c'].map((z) => node(`n-${z}`, '32').labels({ [ZONE]: `zone-${z}` }));
    const spread = {
      maxSkew: 1,
      topologyKey: ZONE,
      whenUnsatisfiable: 'DoNotSchedule' as const,
      labelSelector: { matchLabels: { app: 'web' } },
    };
    const pods = Array.from({ length: 6 }, (_, i) => setPod(`web-${i}`).labels({ app: 'web' }).req({ cpu: '1' }).spread(spread));
    const placed = Object.values(outcome(optimize.plan(request(zones, pods))).placed);
    assert.deepEqual(
      ['n-a', 'n-b', 'n-c'].map((n) => placed.filter((p) => p === n).length),
      [2, 2, 2],
    );
  });

  it('never uses a node a filter rejects: an untolerated taint', () => {
    const req = request(
      [node('n1', '1'), node('gpu', '64').taint('nvidia.com/gpu', 'present')],
      [setPod('a').req({ cpu: '1' }), setPod('b').req({ cpu: '1' })],
    );
    const result = optimize.plan(req);
    assert.deepEqual(outcome(result).placed, { a: 'n1' });
    assert.equal(result.unplaced[0]?.message, '0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).');
  });

  it('lists placements in queue order (priority, then the order given): the order the plan is carried out in', () => {
    const pods = [setPod('a').req({ cpu: '1' }), setPod('b').req({ cpu: '2' }).priority(5), setPod('c').req({ cpu: '1' })];
    assert.deepEqual(
      optimize.plan(request([node('n1')], pods)).placed.map((p) => p.pod.pod.metadata.name),
      ['b', 'a', 'c'],
    );
  });

  describe('is never worse than greedy on generated pod sets (seeded)', () => {
    for (const [pods, nodes] of [
      [30, 12],
      [60, 20],
      [120, 40],
    ] as const) {
      for (const seed of [1, 2, 3]) {
        it(`${pods} pods on ${nodes} nodes, seed ${seed}`, () => {
          const workload = generatePodSet({ pods, nodes, seed, load: 0.75 });
          const snapshot = Snapshot.fromCluster({ nodes: workload.nodes, pods: [] });
          assert.ok(snapshot.ok);
          const infos = workload.pods.map((p) => {
            const info = podInfo(p);
            assert.ok(info.ok);
            return info.value;
          });
          // Each planner on a framework of its own: their tie-breaking draws start alike.
          const req = (): PlanRequest => ({ pods: infos, snapshot: snapshot.value, framework: planning().framework, objective: 'pack' });
          const optimized = quality(req(), optimize.plan(req()));
          const baseline = quality(req(), greedy.plan(req()));
          assert.ok(optimized.placed >= baseline.placed, `optimize placed ${optimized.placed}, greedy ${baseline.placed}`);
          assert.ok(
            compareQuality(optimized, baseline, 'pack') <= 0,
            `optimize ${JSON.stringify(optimized)} vs greedy ${JSON.stringify(baseline)}`,
          );
        });
      }
    }
  });
});
