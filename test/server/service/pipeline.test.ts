import assert from 'node:assert/strict';
import type { NodeVerdict } from '../../../src/engine/explain/verdicts';
import type { Diagnosis, NodeRejection } from '../../../src/engine/framework/diagnosis';
import { Code, SUCCESS } from '../../../src/engine/framework/status';
import { moveReason, podFunnel, podMatrix, podSetFunnel } from '../../../src/server/service/pipeline';

const fit = (node: string, ...reasons: string[]): NodeRejection => ({
  node,
  plugin: 'NodeResourcesFit',
  stage: 'Filter',
  code: Code.Unschedulable,
  reasons,
});
const taint = (node: string): NodeRejection => ({
  node,
  plugin: 'TaintToleration',
  stage: 'Filter',
  code: Code.UnschedulableAndUnresolvable,
  reasons: ['node(s) had untolerated taint {gpu: true}'],
});
const affinity = (node: string): NodeRejection => ({
  node,
  plugin: 'NodeAffinity',
  stage: 'PreFilter',
  code: Code.UnschedulableAndUnresolvable,
  reasons: ["node(s) didn't satisfy plugin(s) [NodeAffinity]"],
});
const score = (node: string, total: number) => ({
  node,
  total,
  plugins: [
    { plugin: 'NodeResourcesFit', raw: total, normalized: total, weight: 1, weighted: total },
    { plugin: 'ImageLocality', raw: 0, normalized: 0, weight: 1, weighted: 0 },
  ],
});

/** A cycle over n1…n6: n1 dropped at PreFilter, n2 tainted, n3 and n4 short of cpu, n5 and n6 scored (n5 chosen). */
const placed: Diagnosis = {
  pod: 'default/web-0',
  profile: 'default-scheduler',
  nodesTotal: 6,
  nodesEvaluated: 5,
  feasibleNodes: 2,
  status: SUCCESS,
  chosenNode: 'n5',
  rejections: [affinity('n1'), taint('n2'), fit('n3', 'Insufficient cpu'), fit('n4', 'Insufficient cpu', 'Insufficient memory')],
  filters: [
    { plugin: 'TaintToleration', evaluated: 5, passed: 4 },
    { plugin: 'NodeResourcesFit', evaluated: 4, passed: 2 },
  ],
  scores: [score('n5', 180), score('n6', 120)],
  stages: [{ stage: 'Reserve', plugin: 'VolumeBinding', status: SUCCESS, node: 'n5' }],
};

/** The same cluster with no room left: n5 and n6 short of cpu too. */
const unplaced: Diagnosis = {
  ...placed,
  pod: 'default/web-1',
  feasibleNodes: 0,
  status: { code: Code.Unschedulable, reasons: [], stage: 'Filter' },
  rejections: [
    affinity('n1'),
    taint('n2'),
    fit('n3', 'Insufficient cpu'),
    fit('n4', 'Insufficient cpu', 'Insufficient memory'),
    fit('n5', 'Insufficient cpu'),
    fit('n6', 'Insufficient cpu'),
  ],
  filters: [
    { plugin: 'TaintToleration', evaluated: 5, passed: 4 },
    { plugin: 'NodeResourcesFit', evaluated: 4, passed: 0 },
  ],
  scores: [],
  stages: [],
};
const { chosenNode: _chosen, ...unplacedWithoutChoice } = unplaced;
const nodes = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];

describe('server/service/pipeline: the stage funnel and the node × plugin matrix, from the Diagnosis', () => {
  it('a pod’s funnel: nodes left after Sort, PreFilter, each filter plugin, Score (ranks, rejects none), the pick and Reserve, chained', () => {
    const funnel = podFunnel('web-0', placed);
    assert.deepEqual(
      funnel.steps.map((s) => [s.stage, s.plugin ?? '', s.entered, s.left, s.skipped]),
      [
        ['Sort', '', 6, 6, 0],
        ['PreFilter', '', 6, 5, 0],
        ['Filter', 'TaintToleration', 5, 4, 0],
        ['Filter', 'NodeResourcesFit', 4, 2, 0],
        ['Score', '', 2, 2, 0],
        ['SelectHost', '', 2, 1, 0],
        ['Reserve', '', 1, 1, 0],
      ],
    );
    assert.deepEqual(funnel.steps[3]?.rejected, [
      { reason: 'Insufficient cpu', count: 2, nodes: ['n3', 'n4'] },
      { reason: 'Insufficient memory', count: 1, nodes: ['n4'] },
    ]);
    assert.deepEqual(funnel.steps[4]?.rejected, []);
    assert.equal(funnel.steps[5]?.picks, true);
    assert.deepEqual(funnel.steps[5]?.rejected, [{ reason: 'scored lower than the chosen node', count: 1, nodes: ['n6'] }]);
    assert.equal(funnel.unit, 'nodes');
  });

  it('a pod set’s funnel keeps the pipeline’s order and chains its counts when cycles ran different filter plugins', () => {
    // The first cycle ran no InterPodAffinity (PreFilter skipped it); the second did.
    const withAffinity: Diagnosis = {
      ...placed,
      filters: [...placed.filters.slice(0, 1), { plugin: 'InterPodAffinity', evaluated: 4, passed: 4 }, ...placed.filters.slice(1)],
    };
    const funnel = podSetFunnel('web', [
      { pod: 'web-0', diagnosis: placed },
      { pod: 'web-1', diagnosis: withAffinity },
    ]);
    assert.deepEqual(
      funnel.steps.map((s) => `${s.stage}${s.plugin ? ` · ${s.plugin}` : ''}`),
      [
        'Sort',
        'PreFilter',
        'Filter · TaintToleration',
        'Filter · InterPodAffinity',
        'Filter · NodeResourcesFit',
        'Score',
        'SelectHost',
        'Reserve',
      ],
    );
    funnel.steps
      .slice(1)
      .forEach((s, i) =>
        assert.equal(s.entered, funnel.steps[i]?.left, `${s.stage} ${s.plugin ?? ''} receives what the step before it kept`),
      );
  });

  it('a pod set’s funnel sums pod × node pairs and names the pods each step stopped', () => {
    const funnel = podSetFunnel('web', [
      { pod: 'web-0', diagnosis: placed },
      { pod: 'web-1', diagnosis: unplacedWithoutChoice },
    ]);
    const fitStep = funnel.steps.find((s) => s.plugin === 'NodeResourcesFit');
    assert.deepEqual([fitStep?.entered, fitStep?.left, fitStep?.podsStopped], [8, 2, ['web-1']]);
    assert.deepEqual(fitStep?.rejected[0], { reason: 'Insufficient cpu', count: 6, nodes: ['n3', 'n4', 'n5', 'n6'] });
    assert.deepEqual([funnel.unit, funnel.pods], ['pod × node pairs', 2]);
  });

  it('the matrix: every node, chosen first, then feasible by rank, rejected with the plugin that stopped it, per-plugin scores', () => {
    const m = podMatrix(placed, nodes);
    assert.deepEqual(m.filterPlugins, ['TaintToleration', 'NodeResourcesFit']);
    assert.deepEqual(m.scorePlugins, [
      { plugin: 'NodeResourcesFit', weight: 1 },
      { plugin: 'ImageLocality', weight: 1 },
    ]);
    assert.deepEqual(
      m.rows.map((r) => [r.node, r.verdict, r.rejectedAt ?? '', r.total ?? '', r.rank ?? '']),
      [
        ['n5', 'chosen', '', 180, 1],
        ['n6', 'feasible', '', 120, 2],
        ['n1', 'rejected', -1, '', ''],
        ['n2', 'rejected', 0, '', ''],
        ['n3', 'rejected', 1, '', ''],
        ['n4', 'rejected', 1, '', ''],
      ],
    );
    assert.deepEqual(m.rows[0]?.scores, [
      [180, 180, 180],
      [0, 0, 0],
    ]);
    assert.equal(m.closest, undefined);
  });

  describe('closest node of an unplaced pod: the ranking podplan explain prints (engine/explain/report closestNodes)', () => {
    const failure = (r: NodeRejection) => ({ plugin: r.plugin, stage: r.stage, code: r.code, reasons: r.reasons });
    const cpu = (share: number) => ({ resource: 'cpu', missing: share * 4000, share });
    const verdicts: NodeVerdict[] = [
      { node: 'n2', failures: [failure(taint('n2')), failure(fit('n2', 'Insufficient cpu'))], shortfall: [cpu(0.5)] },
      { node: 'n3', failures: [failure(fit('n3', 'Insufficient cpu'))], shortfall: [cpu(0.5)] },
      {
        node: 'n4',
        failures: [failure(fit('n4', 'Insufficient cpu', 'Insufficient memory'))],
        shortfall: [cpu(0.5), { resource: 'memory', missing: 1, share: 0.5 }],
      },
      { node: 'n5', failures: [failure(fit('n5', 'Insufficient cpu'))], shortfall: [cpu(0.25)] },
      { node: 'n6', failures: [failure(fit('n6', 'Insufficient cpu'))], shortfall: [cpu(0.75)] },
    ];
    const table: Array<{ name: string; complete?: NodeVerdict[]; rows: string[]; closest: { node: string; why: string } }> = [
      {
        name: 'over complete verdicts: fewest failing filters, then the smallest shortfall',
        complete: verdicts,
        rows: ['n5', 'n3', 'n6', 'n4', 'n2', 'n1'],
        closest: { node: 'n5', why: 'fails only NodeResourcesFit: Insufficient cpu (short by 1000m cpu)' },
      },
      {
        name: 'over the first rejections the cycle kept: an untolerated taint alone before a shortfall, then by name',
        rows: ['n2', 'n3', 'n4', 'n5', 'n6', 'n1'],
        closest: {
          node: 'n2',
          why: 'passed 0 of 2 filter plugins, then TaintToleration rejected it: node(s) had untolerated taint {gpu: true}',
        },
      },
    ];
    for (const { name, complete, rows, closest } of table) {
      it(name, () => {
        const m = podMatrix(
          unplacedWithoutChoice,
          nodes,
          complete ? { verdicts: complete, describe: (s) => `${s.missing}m ${s.resource}` } : undefined,
        );
        assert.deepEqual(
          m.rows.map((r) => r.node),
          rows,
          'the rejected nodes read closest first',
        );
        assert.deepEqual(m.closest, closest);
      });
    }
  });

  const cases: Array<[string, string, string, Diagnosis | undefined, string]> = [
    ['the old node now rejects the pod', 'n3', 'n5', placed, 'n3 now rejects it at Filter: NodeResourcesFit: Insufficient cpu'],
    ['both scored: the new one higher', 'n6', 'n5', placed, 'n5 scores 180, n6 120'],
    [
      'no diagnosis kept (a planner that places the set as a whole)',
      'n6',
      'n5',
      undefined,
      'the newer planner placed the set as a whole and keeps no cycle per pod',
    ],
  ];
  for (const [what, from, to, d, expected] of cases) it(`a move’s reason: ${what}`, () => assert.equal(moveReason(from, to, d), expected));
});
