// The pod set as a MILP's classes: pods of one shape in a group, alike empty nodes pooled into one
// bin when aggregated, and the engine's verdict per group and bin (the model's x columns exist only
// where the filters let a group go).
import assert from 'node:assert/strict';
import { avoidsItsOwnShape, nodeClass, placementClasses, placementModel } from '../../../../src/engine/planner/solver/milp';
import { makeNode, type NodeBuilder, type PodBuilder } from '../../../builders';
import { request, setPod } from '../fixtures';

const HOSTNAME = 'kubernetes.io/hostname';
const SMALL = { cpu: '2', memory: '8Gi', pods: '110' };
const BIG = { cpu: '8', memory: '32Gi', pods: '110' };

describe('engine/planner/solver/milp', () => {
  describe('nodeClass: nodes interchangeable while empty', () => {
    const table: Array<[what: string, a: NodeBuilder, b: NodeBuilder, alike: boolean]> = [
      [
        'the same capacity and labels but the hostname',
        makeNode('a').alloc(SMALL).labels({ zone: 'z1' }),
        makeNode('b').alloc(SMALL).labels({ zone: 'z1' }),
        true,
      ],
      ['another capacity', makeNode('a').alloc(SMALL), makeNode('b').alloc(BIG), false],
      ['another label', makeNode('a').alloc(SMALL).labels({ zone: 'z1' }), makeNode('b').alloc(SMALL).labels({ zone: 'z2' }), false],
      ['a taint', makeNode('a').alloc(SMALL), makeNode('b').alloc(SMALL).taint('dedicated', 'gpu'), false],
    ];
    for (const [what, a, b, alike] of table)
      it(`${what}: ${alike ? 'one class' : 'two classes'}`, () => assert.equal(nodeClass(a.obj) === nodeClass(b.obj), alike));
  });

  describe('avoidsItsOwnShape: required anti-affinity on the hostname against its own labels', () => {
    const table: Array<[what: string, pod: PodBuilder, avoids: boolean]> = [
      ['none', setPod('w-0').labels({ app: 'w' }), false],
      [
        'against its own app',
        setPod('w-0')
          .labels({ app: 'w' })
          .requirePods('podAntiAffinity', { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'w' } } }),
        true,
      ],
      [
        'against another app',
        setPod('w-0')
          .labels({ app: 'w' })
          .requirePods('podAntiAffinity', { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'db' } } }),
        false,
      ],
      [
        'by zone, not by node',
        setPod('w-0')
          .labels({ app: 'w' })
          .requirePods('podAntiAffinity', { topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchLabels: { app: 'w' } } }),
        false,
      ],
    ];
    for (const [what, pod, avoids] of table) it(`${what}: ${avoids}`, () => assert.equal(avoidsItsOwnShape(pod.info), avoids));
  });

  describe('placementClasses and the model over them', () => {
    const nodes = () => [
      makeNode('s1').alloc(SMALL),
      makeNode('s2').alloc(SMALL),
      makeNode('b1').alloc(BIG),
      makeNode('t1').alloc(BIG).taint('dedicated', 'gpu'),
    ];
    const pods = () => [setPod('a-0').req({ cpu: '1' }), setPod('a-1').req({ cpu: '1' }), setPod('b-0').req({ cpu: '4' })];
    const table: Array<[what: string, aggregate: boolean, bins: number[][], allowed: boolean[][]]> = [
      // Groups: the 1-cpu pods, the 4-cpu pod; bins in node order (s1 s2 b1 t1): the tainted node takes
      // neither group, the 2-cpu nodes not the 4-cpu pod.
      [
        'one bin per node',
        false,
        [[0], [1], [2], [3]],
        [
          [true, true, true, false],
          [false, false, true, false],
        ],
      ],
      [
        'alike empty nodes pooled',
        true,
        [[0, 1], [2], [3]],
        [
          [true, true, false],
          [false, true, false],
        ],
      ],
    ];
    for (const [what, aggregate, bins, allowed] of table) {
      it(what, () => {
        const classes = placementClasses(request(nodes(), pods()), aggregate);
        assert.deepEqual(
          classes.groups.map((g) => g.pods.map((p) => p.pod.metadata.name)),
          [['a-0', 'a-1'], ['b-0']],
        );
        assert.deepEqual(
          classes.bins.map((b) => [...b.nodes]),
          bins,
        );
        assert.deepEqual(
          classes.allowed.map((row) => [...row]),
          allowed,
        );
        const model = placementModel(request(nodes(), pods()), { aggregate }, classes);
        assert.equal(model.assignments.length, allowed.flat().filter(Boolean).length, 'an x column only where the filters let a group go');
        assert.equal(model.usage.length, bins.length, 'a y column per bin');
      });
    }
  });
});
