import assert from 'node:assert/strict';
import { OBJECTIVE_LABEL, settingsFromLabels } from '../../../src/engine/planner/build';
import { exact } from '../../../src/engine/planner/planners/exact';
import { optimize } from '../../../src/engine/planner/planners/optimize';
import { NODE_COST_KEY, nodeCost, type Objective, type Planner, type PlanRequest } from '../../../src/engine/planner/planner';
import { quality } from '../../../src/engine/planner/search/quality';
import type { MilpSolver } from '../../../src/engine/planner/solver/solver';
import { highsSolver } from '../../../src/platform/highs';
import { makeNode, type NodeBuilder } from '../../builders';
import { outcome, request, setPod } from './fixtures';

const node = (name: string, cpu = '4') => makeNode(name).alloc({ cpu, memory: '64Gi', pods: '110' });
const pods = (count: number, cpu = '1') => Array.from({ length: count }, (_, i) => setPod(`p${i}`).req({ cpu }));

let highs: MilpSolver;

/** Each objective on a small table: what the plan minimizes, by the heuristic and by the solver alike. */
const table: Array<{
  objective: Objective;
  why: string;
  nodes: () => NodeBuilder[];
  pods: number;
  previous?: Record<string, string>;
  expect: (req: PlanRequest, placed: Record<string, string>) => void;
}> = [
  {
    objective: 'pack',
    why: 'four 1-cpu pods share one node',
    nodes: () => [node('n1'), node('n2'), node('n3'), node('n4')],
    pods: 4,
    expect: (_, placed) => assert.equal(new Set(Object.values(placed)).size, 1),
  },
  {
    objective: 'spread',
    why: 'four 1-cpu pods take a node each (fewest pods per node)',
    nodes: () => [node('n1'), node('n2'), node('n3'), node('n4')],
    pods: 4,
    expect: (_, placed) => assert.equal(new Set(Object.values(placed)).size, 4),
  },
  {
    objective: 'cost',
    why: 'eight 1-cpu pods on the two small nodes (cost 1 each) rather than the big one (cost 5)',
    nodes: () => [
      node('big', '8').labels({ [NODE_COST_KEY]: '5' }),
      node('small-1').labels({ [NODE_COST_KEY]: '1' }),
      node('small-2').labels({ [NODE_COST_KEY]: '1' }),
    ],
    pods: 8,
    expect: (_, placed) => assert.deepEqual([...new Set(Object.values(placed))].sort(), ['small-1', 'small-2']),
  },
  {
    objective: 'moves',
    why: 'replanning keeps the pods where the current plan put them (n3), though n1 comes first',
    nodes: () => [node('n1'), node('n2'), node('n3')],
    pods: 2,
    previous: { p0: 'n3', p1: 'n3' },
    expect: (_, placed) => assert.deepEqual(placed, { p0: 'n3', p1: 'n3' }),
  },
];

describe('engine/planner objectives (pack, spread, cost, moves)', function () {
  this.timeout(60_000);
  before(async () => {
    const loaded = await highsSolver();
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.error);
    highs = loaded.value;
  });

  for (const planner of [optimize, exact] as Planner[]) {
    for (const { objective, why, nodes, pods: count, previous, expect } of table) {
      it(`${planner.name}, ${objective}: ${why}`, () => {
        const req = request(nodes(), pods(count), { objective });
        const withPrevious: PlanRequest = {
          ...req,
          ...(previous ? { previous: new Map(Object.entries(previous).map(([pod, n]) => [`default/${pod}`, n])) } : {}),
          ...(planner === exact ? { solver: { solver: highs, timeLimitMs: 20_000, seed: 1 } } : {}),
        };
        const result = planner.plan(withPrevious);
        assert.equal(result.placed.length, count);
        expect(withPrevious, outcome(result).placed);
      });
    }
  }

  it('quality counts what each objective minimizes: crowding, node cost, pods moved', () => {
    const req = request([node('a').labels({ [NODE_COST_KEY]: '2.5' }), node('b')], pods(3));
    const previous = new Map([['default/p0', 'b']]);
    const [p0, p1, p2] = req.pods;
    const q = quality(
      { ...req, previous },
      {
        placed: [
          { pod: p0 as PlanRequest['pods'][number], node: 'a' },
          { pod: p1 as PlanRequest['pods'][number], node: 'a' },
          { pod: p2 as PlanRequest['pods'][number], node: 'b' },
        ],
        unplaced: [],
      },
    );
    assert.deepEqual({ crowd: q.crowd, cost: q.cost, moved: q.moved }, { crowd: 2, cost: 3.5, moved: 1 });
  });

  it('a node costs its annotation, else its label, else 1', () => {
    assert.equal(nodeCost(node('n').obj), 1);
    assert.equal(nodeCost(node('n').labels({ [NODE_COST_KEY]: '3' }).obj), 3);
    const annotated = node('n').labels({ [NODE_COST_KEY]: '3' }).obj;
    assert.equal(nodeCost({ ...annotated, metadata: { ...annotated.metadata, annotations: { [NODE_COST_KEY]: '0.5' } } }), 0.5);
    assert.equal(nodeCost(node('n').labels({ [NODE_COST_KEY]: 'cheap' }).obj), 1);
  });

  it(`the ${OBJECTIVE_LABEL} label chooses the objective; an unknown one is an error naming the label`, () => {
    assert.deepEqual(settingsFromLabels([{ [OBJECTIVE_LABEL]: 'spread' }]), { ok: true, value: { objective: 'spread' } });
    const bad = settingsFromLabels([{ [OBJECTIVE_LABEL]: 'cheapest' }]);
    assert.deepEqual(bad, {
      ok: false,
      error: {
        label: OBJECTIVE_LABEL,
        message: `label ${OBJECTIVE_LABEL}: unknown objective "cheapest" (one of pack, balance, spread, cost, moves)`,
      },
    });
  });
});
