import assert from 'node:assert/strict';
import { exactSearch, nodesLowerBound } from '../../../../src/engine/planner/search/branch-and-bound';
import { greedy } from '../../../../src/engine/planner/planners/greedy';
import { makeNode } from '../../../builders';
import { request, setPod } from '../fixtures';

const node = (name: string, cpu = '4', memory = '16Gi') => makeNode(name).alloc({ cpu, memory, pods: '110' });
const HOSTNAME = 'kubernetes.io/hostname';
const avoidEachOther = { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'db' } } };

describe('engine/planner/search/branch-and-bound', () => {
  it('proves the optimum: 3 + 3 + 2 + 2 cpu on 5-cpu nodes takes two nodes, paired across', () => {
    const req = request(
      [node('n1', '5'), node('n2', '5'), node('n3', '5')],
      [setPod('a').req({ cpu: '3' }), setPod('b').req({ cpu: '3' }), setPod('c').req({ cpu: '2' }), setPod('d').req({ cpu: '2' })],
    );
    const outcome = exactSearch(req, { budget: 100_000 });
    assert.equal(outcome.proven, true);
    assert.deepEqual([outcome.quality.placed, outcome.quality.nodes], [4, 2]);
    const byNode = new Map<string, string[]>();
    for (const [pod, n] of outcome.targets) byNode.set(n, [...(byNode.get(n) ?? []), pod.pod.metadata.name]);
    assert.deepEqual([...byNode.values()].map((pods) => pods.sort().join('+')).sort(), ['a+c', 'b+d']);
  });

  it('proves that no more pods can be placed: three 3-cpu pods on two 4-cpu nodes', () => {
    const req = request(
      [node('n1'), node('n2')],
      ['a', 'b', 'c'].map((n) => setPod(n).req({ cpu: '3' })),
    );
    const outcome = exactSearch(req, { budget: 100_000 });
    assert.deepEqual([outcome.proven, outcome.quality.placed], [true, 2]);
  });

  it('starting from a placement that is already optimal finds nothing better, and proves it', () => {
    const req = request([node('n1'), node('n2')], [setPod('a').req({ cpu: '2' }), setPod('b').req({ cpu: '2' })]);
    const outcome = exactSearch(req, { budget: 100_000, incumbent: greedy.plan(req) });
    assert.deepEqual(
      [outcome.improved, outcome.proven, outcome.quality.placed],
      [true, true, 2],
      'greedy spread them: packing both on one node is better',
    );
    const again = exactSearch(req, {
      budget: 100_000,
      incumbent: { placed: [...outcome.targets].map(([pod, n]) => ({ pod, node: n })), unplaced: [] },
    });
    assert.deepEqual([again.improved, again.proven], [false, true]);
  });

  it('stops at its budget without a proof', () => {
    const pods = [5, 4, 4, 3, 3, 3, 2, 2].map((cpu, i) => setPod(`p${i}`).req({ cpu: String(cpu) }));
    const req = request(
      ['6', '7', '8', '9', '10', '6', '7'].map((cpu, i) => node(`n${i}`, cpu)),
      pods,
    );
    const cut = exactSearch(req, { budget: 10 });
    const full = exactSearch(req, { budget: 100_000 });
    assert.deepEqual([cut.proven, full.proven, full.quality.placed, full.quality.nodes], [false, true, 8, 3]);
  });

  describe('the lower bound on nodes', () => {
    const table = [
      {
        name: 'by resource: the largest nodes first until the requests are covered',
        nodes: [node('small', '2'), node('big', '8'), node('mid', '4')],
        pods: ['a', 'b', 'c'].map((n) => setPod(n).req({ cpu: '3' })),
        bound: 2,
      },
      {
        name: 'by memory when memory binds',
        nodes: [node('n1', '8', '4Gi'), node('n2', '8', '4Gi'), node('n3', '8', '4Gi')],
        pods: ['a', 'b', 'c'].map((n) => setPod(n).req({ cpu: '1', memory: '3Gi' })),
        bound: 3,
      },
      {
        name: 'pods of one shape that must not share a hostname need a node each',
        nodes: [node('n1', '32'), node('n2', '32'), node('n3', '32')],
        pods: ['db-0', 'db-1', 'db-2'].map((n) =>
          setPod(n).labels({ app: 'db' }).req({ cpu: '1' }).requirePods('podAntiAffinity', avoidEachOther),
        ),
        bound: 3,
      },
      {
        name: 'nodes a pod can never use (an untolerated taint) do not count for it; disjoint groups add up',
        nodes: [
          node('n1', '4'),
          node('n2', '4'),
          makeNode('gpu').alloc({ cpu: '64', memory: '64Gi', pods: '110', 'nvidia.com/gpu': '4' }).taint('nvidia.com/gpu', 'present'),
        ],
        pods: [
          setPod('cpu-0').req({ cpu: '3' }),
          setPod('cpu-1').req({ cpu: '3' }),
          setPod('gpu-0').req({ cpu: '1', 'nvidia.com/gpu': '1' }).tolerate({ key: 'nvidia.com/gpu', operator: 'Exists' }),
        ],
        bound: 3,
      },
    ];
    for (const { name, nodes, pods, bound } of table)
      it(`${name}: ${bound}`, () => assert.equal(nodesLowerBound(request(nodes, pods)), bound));
  });
});
