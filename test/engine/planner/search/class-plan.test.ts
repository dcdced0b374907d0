import assert from 'node:assert/strict';
import { classPlan } from '../../../../src/engine/planner/search/class-plan';
import type { PlanRequest } from '../../../../src/engine/planner/planner';
import { makeNode } from '../../../builders';
import { assertEngineAccepts, nodesUsed, outcome, request, setPod } from '../fixtures';

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';
const GPU = 'nvidia.com/gpu';
const node = (name: string, cpu = '8', memory = '32Gi') => makeNode(name).alloc({ cpu, memory, pods: '110' });

describe('engine/planner/search/class-plan (packing on pod groups and node classes)', () => {
  describe('small instances whose optimum is known by construction', () => {
    const table: Array<{ name: string; req: () => PlanRequest; nodes: number }> = [
      {
        // 4 × (6 cpu, 8Gi) + 4 × (2 cpu, 24Gi) on 8-cpu/32Gi nodes: only cpu-heavy with memory-heavy fills a node, exactly.
        name: 'complementary requests fill nodes exactly: a cpu-heavy and a memory-heavy pod per node',
        req: () =>
          request(
            ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map((n) => node(n)),
            [0, 1, 2, 3].flatMap((i) => [
              setPod(`cpu-${i}`).req({ cpu: '6', memory: '8Gi' }),
              setPod(`mem-${i}`).req({ cpu: '2', memory: '24Gi' }),
            ]),
          ),
        nodes: 4,
      },
      {
        name: 'one big node rather than four small ones',
        req: () =>
          request(
            [node('s1', '4', '16Gi'), node('s2', '4', '16Gi'), node('s3', '4', '16Gi'), node('s4', '4', '16Gi'), node('big', '16', '64Gi')],
            ['a', 'b', 'c', 'd'].map((n) => setPod(n).req({ cpu: '4' })),
          ),
        nodes: 1,
      },
      {
        // The replicas avoid each other (a node each); the small pods fit beside them.
        name: 'anti-affine replicas take a node each, the rest fills in beside them',
        req: () =>
          request(
            ['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => node(n)),
            [
              ...['db-0', 'db-1', 'db-2'].map((n) =>
                setPod(n)
                  .labels({ app: 'db' })
                  .req({ cpu: '2' })
                  .requirePods('podAntiAffinity', { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'db' } } }),
              ),
              ...['a', 'b', 'c'].map((n) => setPod(n).req({ cpu: '6' })),
            ],
          ),
        nodes: 3,
      },
      {
        // Six pods spread over three zones with maxSkew 1: two per zone, so a node in each zone.
        name: 'zone spread: two pods in each of three zones',
        req: () =>
          request(
            ['a', 'b', 'c'].flatMap((z) => [
              node(`n-${z}1`).labels({ [ZONE]: `zone-${z}` }),
              node(`n-${z}2`).labels({ [ZONE]: `zone-${z}` }),
            ]),
            Array.from({ length: 6 }, (_, i) =>
              setPod(`web-${i}`)
                .labels({ app: 'web' })
                .req({ cpu: '1' })
                .spread({
                  maxSkew: 1,
                  topologyKey: ZONE,
                  whenUnsatisfiable: 'DoNotSchedule',
                  labelSelector: { matchLabels: { app: 'web' } },
                }),
            ),
          ),
        nodes: 3,
      },
      {
        // The GPU pods tolerate the GPU nodes' taint and need 2 GPUs each: both 4-GPU nodes; the others take one plain node.
        name: 'GPU pods on the tainted GPU nodes only, the others on a plain node',
        req: () =>
          request(
            [
              node('plain1'),
              node('plain2'),
              ...['g1', 'g2', 'g3'].map((n) =>
                makeNode(n)
                  .alloc({ cpu: '16', memory: '64Gi', pods: '110', [GPU]: '4' })
                  .taint(GPU, 'present'),
              ),
            ],
            [
              ...['t0', 't1', 't2', 't3'].map((n) =>
                setPod(n)
                  .req({ cpu: '1', [GPU]: '2' })
                  .tolerate({ key: GPU, operator: 'Exists' }),
              ),
              ...['p0', 'p1'].map((n) => setPod(n).req({ cpu: '4' })),
            ],
          ),
        nodes: 3,
      },
    ];
    for (const { name, req, nodes } of table) {
      it(`${name}: ${nodes} node${nodes === 1 ? '' : 's'}, every placement accepted by the filters`, () => {
        const r = req();
        const result = classPlan(r);
        assert.deepEqual(outcome(result).unplaced, []);
        assert.equal(nodesUsed(result), nodes);
        assertEngineAccepts(r, result);
      });
    }
  });

  it('leaves out what does not fit and says why (the engine diagnoses it)', () => {
    const r = request(
      [node('n1', '4')],
      ['a', 'b'].map((n) => setPod(n).req({ cpu: '3' })),
    );
    const result = classPlan(r);
    assert.equal(result.placed.length, 1);
    assert.match(result.unplaced[0]?.message ?? '', /Insufficient cpu/);
  });

  it('leaving pods out, it asks how many any plan places: smaller pods first then place more, unless no plan places more', () => {
    // 3 + 1 cpu fill the node largest first (2 pods); 1 + 1 + 1 + 1 smallest first (4 pods).
    const r = request(
      [node('n1', '4')],
      [setPod('big').req({ cpu: '3' }), ...['a', 'b', 'c', 'd'].map((n) => setPod(n).req({ cpu: '1' }))],
    );
    const asked: number[] = [];
    assert.equal(classPlan(r, undefined, undefined, (placed) => (asked.push(placed), undefined)).placed.length, 4);
    assert.deepEqual(asked, [2]);
    assert.equal(
      classPlan(r, undefined, undefined, () => 2).placed.length,
      2,
      'told no plan places more than 2, it keeps the largest-first packing',
    );
    assert.equal(classPlan(r).placed.length, 4);
  });

  it('is deterministic: the same request gives the same plan', () => {
    const req = () =>
      request(
        ['n1', 'n2', 'n3', 'n4'].map((n) => node(n)),
        Array.from({ length: 12 }, (_, i) => setPod(`p${i}`).req({ cpu: `${1 + (i % 4)}`, memory: `${2 + ((i * 5) % 7)}Gi` })),
      );
    assert.deepEqual(outcome(classPlan(req())), outcome(classPlan(req())));
  });
});
