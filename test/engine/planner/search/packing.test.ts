// Packing on the classes (milp.ts): the arithmetic the optimizing planner searches with. A pod goes
// to a node only when the engine's verdict for the node's class allows its group, the node has room
// for its requests and a pod slot, it is not a second replica of a self-anti-affine group there, and
// zone spread stays within maxSkew; moves keep the free amounts and the nodes in use exact.
import assert from 'node:assert/strict';
import { placementClasses } from '../../../../src/engine/planner/solver/milp';
import { Packing } from '../../../../src/engine/planner/search/packing';
import { makeNode, type NodeBuilder, type PodBuilder } from '../../../builders';
import { request, setPod } from '../fixtures';

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

function packing(nodes: NodeBuilder[], pods: PodBuilder[]): Packing {
  return new Packing(placementClasses(request(nodes, pods), false), 'pack');
}

describe('engine/planner/search/packing', () => {
  describe('fits: what the pod may take now', () => {
    const two = { cpu: '2', memory: '8Gi', pods: '110' };
    const antiAffine = (name: string) =>
      setPod(name)
        .labels({ app: 'w' })
        .req({ cpu: '100m' })
        .requirePods('podAntiAffinity', { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'w' } } });
    const spread = (name: string) =>
      setPod(name)
        .labels({ app: 's' })
        .req({ cpu: '100m' })
        .spread({ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 's' } } });
    // Each case places `before` (pod index → node index), then asks whether `pod` fits `node`.
    const table: Array<{
      what: string;
      nodes: NodeBuilder[];
      pods: PodBuilder[];
      before: Array<[number, number]>;
      pod: number;
      node: number;
      fits: boolean;
    }> = [
      {
        what: 'room for the requests',
        nodes: [makeNode('n0').alloc(two)],
        pods: [setPod('a').req({ cpu: '2' })],
        before: [],
        pod: 0,
        node: 0,
        fits: true,
      },
      {
        what: 'not once the room is taken',
        nodes: [makeNode('n0').alloc(two)],
        pods: [setPod('a').req({ cpu: '1500m' }), setPod('b').req({ cpu: '1' })],
        before: [[0, 0]],
        pod: 1,
        node: 0,
        fits: false,
      },
      {
        what: 'not beyond the pod slots',
        nodes: [makeNode('n0').alloc({ cpu: '2', memory: '8Gi', pods: '1' })],
        pods: [setPod('a').req({ cpu: '100m' }), setPod('b').req({ cpu: '100m' })],
        before: [[0, 0]],
        pod: 1,
        node: 0,
        fits: false,
      },
      {
        what: 'not where the engine says no (a taint)',
        nodes: [makeNode('n0').alloc(two).taint('dedicated', 'gpu')],
        pods: [setPod('a').req({ cpu: '100m' })],
        before: [],
        pod: 0,
        node: 0,
        fits: false,
      },
      {
        what: 'a second self-anti-affine replica: not on the same node',
        nodes: [makeNode('n0').alloc(two), makeNode('n1').alloc(two)],
        pods: [antiAffine('w-0'), antiAffine('w-1')],
        before: [[0, 0]],
        pod: 1,
        node: 0,
        fits: false,
      },
      {
        what: 'a second self-anti-affine replica: on another node',
        nodes: [makeNode('n0').alloc(two), makeNode('n1').alloc(two)],
        pods: [antiAffine('w-0'), antiAffine('w-1')],
        before: [[0, 0]],
        pod: 1,
        node: 1,
        fits: true,
      },
      {
        what: 'zone spread: not a second pod in a zone while the other has none (maxSkew 1)',
        nodes: [
          makeNode('a0')
            .alloc(two)
            .labels({ [ZONE]: 'a' }),
          makeNode('b0')
            .alloc(two)
            .labels({ [ZONE]: 'b' }),
        ],
        pods: [spread('s-0'), spread('s-1')],
        before: [[0, 0]],
        pod: 1,
        node: 0,
        fits: false,
      },
      {
        what: 'zone spread: in the other zone',
        nodes: [
          makeNode('a0')
            .alloc(two)
            .labels({ [ZONE]: 'a' }),
          makeNode('b0')
            .alloc(two)
            .labels({ [ZONE]: 'b' }),
        ],
        pods: [spread('s-0'), spread('s-1')],
        before: [[0, 0]],
        pod: 1,
        node: 1,
        fits: true,
      },
    ];
    for (const { what, nodes, pods, before, pod, node, fits } of table) {
      it(`${what}: ${fits}`, () => {
        const p = packing(nodes, pods);
        for (const [q, n] of before) p.place(q, n);
        assert.equal(p.fits(pod, node), fits);
      });
    }
  });

  it('place and remove keep the free amounts, the pods placed and the nodes in use exact', () => {
    const p = packing(
      [makeNode('n0').alloc({ cpu: '4', memory: '8Gi', pods: '110' }), makeNode('n1').alloc({ cpu: '4', memory: '8Gi', pods: '110' })],
      [setPod('a').req({ cpu: '3' }), setPod('b').req({ cpu: '1' })],
    );
    const freeCpu = () => [0, 1].map((n) => p.free[n * p.R]);
    const before = freeCpu();
    p.place(0, 0);
    p.place(1, 0);
    assert.deepEqual([p.placed(), p.usage().used, p.usage().opened], [2, 1, 1]);
    assert.equal(p.fits(1, 0), false, 'n0 is full');
    p.remove(1);
    assert.deepEqual([p.placed(), p.fits(1, 0)], [1, true]);
    p.remove(0);
    assert.deepEqual([p.placed(), p.usage().used, freeCpu()], [0, 0, before]);
  });

  it('choose: the tightest node in use before opening an empty one; none when nothing fits', () => {
    const four = { cpu: '4', memory: '8Gi', pods: '110' };
    const p = packing(
      [makeNode('n0').alloc(four), makeNode('n1').alloc(four), makeNode('n2').alloc(four)],
      [setPod('a').req({ cpu: '2' }), setPod('b').req({ cpu: '1' }), setPod('c').req({ cpu: '8' })],
    );
    p.place(0, 1);
    assert.equal(p.choose(1), 1, 'the node already in use');
    assert.ok(p.choose(2) < 0, 'an 8-cpu pod fits no 4-cpu node');
  });
});
