import assert from 'node:assert/strict';
import type { Diagnosis } from '../../src/engine/framework/diagnosis';
import { Code } from '../../src/engine/framework/status';
import { Chunk, packDiagnoses, readSummary, reasonHistogram, summaryColumns } from '../../src/store/diagnoses';
import { syntheticPlan } from './synthetic';

const base: Diagnosis = {
  pod: 'default/web-0',
  profile: 'default-scheduler',
  nodesTotal: 3,
  nodesEvaluated: 3,
  feasibleNodes: 0,
  status: { code: Code.Unschedulable, reasons: ['Insufficient cpu'], plugin: 'NodeResourcesFit', stage: 'Filter' },
  rejections: [],
  filters: [],
  scores: [],
  stages: [],
};

const rejection = (node: string, reasons: string[], plugin = 'NodeResourcesFit'): Diagnosis['rejections'][number] => ({ node, plugin, stage: 'Filter', code: Code.Unschedulable, reasons });

describe('store/diagnoses', () => {
  describe('reasonHistogram counts nodes per reason, most first', () => {
    const cases: Array<[string, Diagnosis, Array<[string, number]>]> = [
      [
        'each rejected node once per reason',
        { ...base, rejections: [rejection('n1', ['Insufficient cpu']), rejection('n2', ['Insufficient cpu', 'Insufficient memory']), rejection('n3', ['node(s) had untolerated taint {dedicated: gpu}'], 'TaintToleration')] },
        [
          ['Insufficient cpu', 2],
          ['Insufficient memory', 1],
          ['node(s) had untolerated taint {dedicated: gpu}', 1],
        ],
      ],
      [
        'a PreFilter rejection stands for every node',
        { ...base, nodesTotal: 5, status: { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match pod topology spread constraints"], plugin: 'PodTopologySpread', stage: 'PreFilter' } },
        [["node(s) didn't match pod topology spread constraints", 5]],
      ],
      ['a failure after a node was chosen counts once', { ...base, status: { code: Code.Error, reasons: ['binding rejected: conflict'], plugin: 'DefaultBinder', stage: 'Bind' } }, [['binding rejected: conflict', 1]]],
      ['a placed pod with no rejections has none', { ...base, status: { code: Code.Success, reasons: [] }, chosenNode: 'n1' }, []],
    ];
    for (const [name, d, expected] of cases) {
      it(name, () =>
        assert.deepEqual(
          reasonHistogram(d),
          expected.map(([reason, count]) => ({ reason, count })),
        ),
      );
    }
  });

  it('keeps in the summary columns the histogram and the best scored nodes with their breakdown', () => {
    const plugins = [
      { plugin: 'NodeResourcesFit', raw: 10, normalized: 50, weight: 2, weighted: 100 },
      { plugin: 'ImageLocality', raw: 3, normalized: 30, weight: 1, weighted: 30 },
    ];
    const d: Diagnosis = { ...base, rejections: [rejection('d', ['Insufficient cpu'])], scores: ['a', 'b', 'c'].map((node, i) => ({ node, total: 130 - i, plugins })) };
    const columns = summaryColumns(d, 2);
    assert.deepEqual(readSummary(columns), { reasons: [{ reason: 'Insufficient cpu', count: 1 }], topScores: d.scores.slice(0, 2) });
    assert.equal(JSON.parse(columns.topScores)[0].plugins.ImageLocality[3], 30, 'plain JSON, readable without Podplan');
  });

  describe('packed diagnoses read back exactly as written', () => {
    const cases: Array<[string, Diagnosis]> = [
      ['an unplaced pod with rejections and a message', { ...base, rejections: [rejection('n1', ['Insufficient cpu'])], message: '0/3 nodes are available: 1 Insufficient cpu.' }],
      [
        'a placed pod with scores, filters, stage outcomes and no optional status fields',
        {
          ...base,
          status: { code: Code.Success, reasons: [] },
          chosenNode: 'n2',
          feasibleNodes: 2,
          filters: [{ plugin: 'NodeResourcesFit', evaluated: 3, passed: 2 }],
          scores: [{ node: 'n2', total: 170.5, plugins: [{ plugin: 'ImageLocality', raw: 2 ** 40, normalized: -3, weight: 1, weighted: 0.1 }] }],
          stages: [{ stage: 'Reserve', plugin: 'VolumeBinding', status: { code: Code.Skip, reasons: [] } }],
        },
      ],
      ['names in any script', { ...base, pod: 'équipe/pod-名前', rejections: [rejection('nœud-1', ['Insufficient nvidia.com/gpu'])] }],
    ];
    for (const [name, d] of cases) {
      it(name, () => {
        const packed = packDiagnoses([d]);
        assert.deepEqual(Chunk.open(packed.chunks[0]!).diagnosis(0), d);
      });
    }
  });

  it('spreads many diagnoses over chunks and finds each one by chunk and slot', () => {
    const plan = syntheticPlan({ pods: 3000, unplaced: 40, nodes: 500, rejections: 10, scores: 4 });
    const all = [...plan.assignments.map((a) => a.diagnosis!), ...plan.unplaced.map((u) => u.diagnosis)];
    const packed = packDiagnoses(all);
    assert.ok(packed.chunks.length > 1, `expected several chunks, got ${packed.chunks.length}`);
    const opened = packed.chunks.map((c) => Chunk.open(c));
    all.forEach((d, i) => {
      const place = packed.places[i]!;
      assert.deepEqual(opened[place.chunk]!.diagnosis(place.slot), d);
    });
  });

  it('stores an unplaced pod that every node of a 5,000-node cluster rejected in a few kilobytes', () => {
    const plan = syntheticPlan({ pods: 1, unplaced: 1, nodes: 5000 });
    const d = plan.unplaced[0]!.diagnosis;
    const bytes = packDiagnoses([d]).chunks[0]!.length;
    assert.equal(d.rejections.length, 5000);
    assert.ok(bytes < JSON.stringify(d).length / 20, `${bytes} bytes for ${JSON.stringify(d).length} bytes of JSON`);
  });
});
