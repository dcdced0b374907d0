import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/engine/api/random';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import { Framework } from '../../../src/engine/framework/runtime';
import { closestNodes, podReport, stageFunnel } from '../../../src/engine/explain/report';
import { nodeVerdicts, type NodeVerdict } from '../../../src/engine/explain/verdicts';
import { Code } from '../../../src/engine/framework/status';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import { makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../builders';

function cycle(pod: PodBuilder, nodes: NodeBuilder[]) {
  const registry = inTreeRegistry();
  assert.ok(registry.ok, 'registry builds');
  const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
  assert.ok(framework.ok, 'default profile builds');
  const snapshot = snapshotOf(nodes);
  const state = new CycleState();
  state.recordScores = Infinity;
  const verdicts = nodeVerdicts(framework.value, pod.info, snapshot);
  return { diagnosis: framework.value.scheduleOne(state, pod.info, snapshot).diagnosis, verdicts };
}

const SMALL = { cpu: '1', memory: '8Gi', pods: '110' };

describe('engine/explain/report', () => {
  it('the funnel: nodes left after each stage and Filter plugin, then the choice', () => {
    const { diagnosis } = cycle(makePod('web').req({ cpu: '2' }), [
      makeNode('a').alloc(SMALL),
      makeNode('b').taint('dedicated', 'gpu'),
      makeNode('c'),
      makeNode('d'),
    ]);
    const steps = stageFunnel(diagnosis).map((s) => [s.step, s.nodes]);
    assert.deepEqual(steps.slice(0, 2), [
      ['nodes in the snapshot', 4],
      ['PreFilter', 4],
    ]);
    assert.deepEqual(
      steps.filter(([step]) => step === 'TaintToleration' || step === 'NodeResourcesFit'),
      [
        ['TaintToleration', 3],
        ['NodeResourcesFit', 2],
      ],
    );
    assert.deepEqual(steps.slice(-3), [
      ['feasible', 2],
      ['scored', 2],
      ['selected', 1],
    ]);
  });

  it('every node’s complete verdict: a node failing two filters shows both, and the closest is the one that fails fewest, then lacks least', () => {
    const nodes = [
      makeNode('tainted-small').alloc(SMALL).taint('dedicated', 'gpu'),
      makeNode('half').alloc({ cpu: '1500m', memory: '8Gi', pods: '110' }),
      makeNode('small').alloc(SMALL),
    ];
    const { diagnosis, verdicts } = cycle(makePod('web').req({ cpu: '2' }), nodes);
    assert.equal(diagnosis.feasibleNodes, 0);
    assert.deepEqual(
      verdicts.find((v) => v.node === 'tainted-small')?.failures.map((f) => f.plugin),
      ['TaintToleration', 'NodeResourcesFit'],
    );
    const closest = closestNodes(verdicts, 3);
    assert.deepEqual(
      closest.map((c) => [c.node, c.failures.length, c.shortfall.map((s) => `${s.resource}:${s.missing}`).join()]),
      [
        ['half', 1, 'cpu:500'],
        ['small', 1, 'cpu:1000'],
        ['tainted-small', 2, 'cpu:1000'],
      ],
    );
  });

  describe('closestNodes: the one ranking of how close a rejected node came (podplan explain and the editor)', () => {
    const f = (plugin: string) => ({ plugin, stage: 'Filter' as const, code: Code.Unschedulable, reasons: [plugin] });
    const cpu = (share: number) => [{ resource: 'cpu', missing: share, share }];
    const table: Array<{ name: string; verdicts: NodeVerdict[]; order: string[] }> = [
      {
        name: 'fewer failing filters first',
        verdicts: [
          { node: 'a', failures: [f('NodeAffinity'), f('NodeResourcesFit')], shortfall: [] },
          { node: 'b', failures: [f('NodeAffinity')], shortfall: [] },
        ],
        order: ['b', 'a'],
      },
      {
        name: 'a lone untolerated taint before a lone shortfall, however small',
        verdicts: [
          { node: 'a', failures: [f('NodeResourcesFit')], shortfall: cpu(0.01) },
          { node: 'b', failures: [f('TaintToleration')], shortfall: [] },
        ],
        order: ['b', 'a'],
      },
      {
        name: 'a lone shortfall before any other plugin',
        verdicts: [
          { node: 'a', failures: [f('NodeAffinity')], shortfall: [] },
          { node: 'b', failures: [f('NodeResourcesFit')], shortfall: cpu(0.9) },
        ],
        order: ['b', 'a'],
      },
      {
        name: 'then the smallest shortfall',
        verdicts: [
          { node: 'a', failures: [f('NodeResourcesFit')], shortfall: cpu(0.5) },
          { node: 'b', failures: [f('NodeResourcesFit')], shortfall: cpu(0.25) },
        ],
        order: ['b', 'a'],
      },
      {
        name: 'then by name',
        verdicts: [
          { node: 'b', failures: [f('NodeAffinity')], shortfall: [] },
          { node: 'a', failures: [f('NodeAffinity')], shortfall: [] },
        ],
        order: ['a', 'b'],
      },
      {
        name: 'nodes that fit or that PreFilter left out are not ranked',
        verdicts: [
          { node: 'a', failures: [], shortfall: [] },
          { node: 'b', failures: [{ ...f('NodeAffinity'), stage: 'PreFilter' }], shortfall: [] },
        ],
        order: [],
      },
    ];
    for (const { name, verdicts, order } of table)
      it(name, () =>
        assert.deepEqual(
          closestNodes(verdicts).map((c) => c.node),
          order,
        ),
      );
  });

  it('lists are cut to the limit with the count of the rest; one node in full on request', () => {
    const nodes = Array.from({ length: 12 }, (_, i) => makeNode(`n${i}`).alloc(SMALL));
    const { diagnosis, verdicts } = cycle(makePod('web').req({ cpu: '2' }), nodes);
    const report = podReport(diagnosis, { limit: 3, verdicts, node: 'n5' });
    assert.equal(report.placed, false);
    assert.deepEqual(
      report.rejected.map((g) => [g.reason, g.count, g.nodes, g.more]),
      [['Insufficient cpu', 12, ['n0', 'n1', 'n2'], 9]],
    );
    assert.equal(report.closest.length, 3);
    assert.deepEqual(
      [report.detail?.standing, report.detail?.rejection?.plugin, report.detail?.shortfall?.[0]?.missing],
      ['rejected', 'NodeResourcesFit', 1000],
    );
  });

  it('a placed pod: its best nodes with the plugins’ parts, and a feasible node’s rank', () => {
    const { diagnosis } = cycle(makePod('web').req({ cpu: '1' }), [
      makeNode('a'),
      makeNode('b').alloc({ cpu: '2', memory: '8Gi', pods: '110' }),
    ]);
    const report = podReport(diagnosis, { limit: 10, node: 'b' });
    assert.equal(report.placed, true);
    assert.equal(report.best.length, 2);
    assert.ok(report.best[0]?.plugins.every((p) => p.weighted === p.normalized * p.weight));
    assert.equal(report.detail?.rank, report.best.findIndex((s) => s.node === 'b') + 1);
    assert.deepEqual(report.closest, []);
  });
});
