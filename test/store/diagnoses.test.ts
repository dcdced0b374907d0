import assert from 'node:assert/strict';
import type { Diagnosis } from '../../src/engine/framework/diagnosis';
import { Code } from '../../src/engine/framework/status';
import { Chunk, packDiagnoses, readSummary, type SummaryColumns } from '../../src/store/diagnoses';
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

/** The summary columns packing writes for one diagnosis, keeping `topScores` scored nodes. */
const summaryOf = (d: Diagnosis, topScores = 3): SummaryColumns => packDiagnoses([d], topScores).summaries[0]!;

const rejection = (node: string, reasons: string[], plugin = 'NodeResourcesFit'): Diagnosis['rejections'][number] => ({
  node,
  plugin,
  stage: 'Filter',
  code: Code.Unschedulable,
  reasons,
});

describe('store/diagnoses', () => {
  describe('the reason histogram counts nodes per reason, most first', () => {
    const cases: Array<[string, Diagnosis, Array<[string, number]>]> = [
      [
        'each rejected node once per reason',
        {
          ...base,
          rejections: [
            rejection('n1', ['Insufficient cpu']),
            rejection('n2', ['Insufficient cpu', 'Insufficient memory']),
            rejection('n3', ['node(s) had untolerated taint {dedicated: gpu}'], 'TaintToleration'),
          ],
        },
        [
          ['Insufficient cpu', 2],
          ['Insufficient memory', 1],
          ['node(s) had untolerated taint {dedicated: gpu}', 1],
        ],
      ],
      [
        'a PreFilter rejection stands for every node',
        {
          ...base,
          nodesTotal: 5,
          status: {
            code: Code.UnschedulableAndUnresolvable,
            reasons: ["node(s) didn't match pod topology spread constraints"],
            plugin: 'PodTopologySpread',
            stage: 'PreFilter',
          },
        },
        [["node(s) didn't match pod topology spread constraints", 5]],
      ],
      [
        'a failure after a node was chosen counts once',
        { ...base, status: { code: Code.Error, reasons: ['binding rejected: conflict'], plugin: 'DefaultBinder', stage: 'Bind' } },
        [['binding rejected: conflict', 1]],
      ],
      ['a placed pod with no rejections has none', { ...base, status: { code: Code.Success, reasons: [] }, chosenNode: 'n1' }, []],
    ];
    for (const [name, d, expected] of cases) {
      it(name, () =>
        assert.deepEqual(
          readSummary(summaryOf(d)).reasons,
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
    const d: Diagnosis = {
      ...base,
      rejections: [rejection('d', ['Insufficient cpu'])],
      scores: ['a', 'b', 'c'].map((node, i) => ({ node, total: 130 - i, plugins })),
    };
    const columns = summaryOf(d, 2);
    assert.deepEqual(readSummary(columns), { reasons: [{ reason: 'Insufficient cpu', count: 1 }], topScores: d.scores.slice(0, 2) });
    assert.deepEqual(JSON.parse(columns.topScores), {
      plugins: ['NodeResourcesFit', 'ImageLocality'],
      nodes: [
        ['a', 130, [10, 50, 2, 100], [3, 30, 1, 30]],
        ['b', 129, [10, 50, 2, 100], [3, 30, 1, 30]],
      ],
    });
  });

  it('writes each node with its plugin names when the best nodes were not scored by the same plugins', () => {
    const fit = { plugin: 'NodeResourcesFit', raw: 10, normalized: 50, weight: 2, weighted: 100 };
    const d: Diagnosis = {
      ...base,
      scores: [
        { node: 'a', total: 130, plugins: [fit, { plugin: 'ImageLocality', raw: 3, normalized: 30, weight: 1, weighted: 30 }] },
        { node: 'b', total: 100, plugins: [fit] },
      ],
    };
    const columns = summaryOf(d);
    assert.deepEqual(readSummary(columns).topScores, d.scores);
    assert.deepEqual(JSON.parse(columns.topScores)[1], { node: 'b', total: 100, plugins: { NodeResourcesFit: [10, 50, 2, 100] } });
  });

  it('reads the summary columns of rows written before scores shared their plugin names', () => {
    const columns = {
      reasons: '[{"reason":"Insufficient cpu","count":2}]',
      topScores: '[{"node":"n1","total":75,"plugins":{"NodeResourcesFit":[75,75,1,75]}}]',
    };
    assert.deepEqual(readSummary(columns), {
      reasons: [{ reason: 'Insufficient cpu', count: 2 }],
      topScores: [{ node: 'n1', total: 75, plugins: [{ plugin: 'NodeResourcesFit', raw: 75, normalized: 75, weight: 1, weighted: 75 }] }],
    });
  });

  describe('packed diagnoses read back exactly as written', () => {
    const cases: Array<[string, Diagnosis]> = [
      [
        'an unplaced pod with rejections and a message',
        { ...base, rejections: [rejection('n1', ['Insufficient cpu'])], message: '0/3 nodes are available: 1 Insufficient cpu.' },
      ],
      [
        'a placed pod with scores, filters, stage outcomes and no optional status fields',
        {
          ...base,
          status: { code: Code.Success, reasons: [] },
          chosenNode: 'n2',
          feasibleNodes: 2,
          filters: [{ plugin: 'NodeResourcesFit', evaluated: 3, passed: 2 }],
          scores: [
            { node: 'n2', total: 170.5, plugins: [{ plugin: 'ImageLocality', raw: 2 ** 40, normalized: -3, weight: 1, weighted: 0.1 }] },
          ],
          stages: [{ stage: 'Reserve', plugin: 'VolumeBinding', status: { code: Code.Skip, reasons: [] } }],
        },
      ],
      [
        'many kinds of rejection and nodes scored by different plugins',
        {
          ...base,
          rejections: Array.from({ length: 60 }, (_, i) =>
            rejection(`n${i}`, [`reason ${i % 25}`], i % 2 ? 'NodeResourcesFit' : 'NodeAffinity'),
          ),
          scores: Array.from({ length: 30 }, (_, i) => ({
            node: `n${i}`,
            total: i,
            plugins: Array.from({ length: 1 + (i % 20) }, (_, j) => ({
              plugin: `Plugin${j}`,
              raw: i,
              normalized: j,
              weight: 1,
              weighted: j,
            })),
          })),
        },
      ],
      ['names in any script', { ...base, pod: 'équipe/pod-名前', rejections: [rejection('nœud-1', ['Insufficient nvidia.com/gpu'])] }],
    ];
    for (const [name, d] of cases) {
      it(name, () => {
        const packed = packDiagnoses([d], 3);
        assert.deepEqual(Chunk.open(packed.chunks[0]!).diagnosis(0), d);
      });
    }
  });

  it('reads chunks written in format 1, before rejection kinds and score layouts', () => {
    // Written by the format-1 writer (each rejection and score with its own string references).
    const format1 =
      'eAE9jkFOwzAQRT1OCKGEO6BZu6KFXVcVi0pICNEi2KAuUmccLDk2im0QQtyhR8hxuuAgHAO5gv7V+6P5X58x9v2JyvVdHXA2FehDr23rcfaMDak6mnDxTpvxBMW/H3v5Qk001KNAe4kCH6KU5H2yUxR45xpakXexl+QXOqDAhTZh//9o/9L1xhAKvLE+KqWlJhvO5WtMp65u6dbJ2ujwkTqvUOCKPPVvKfHkTOzoWttG2xbXAp1SnkJaPFl/Aa+qMmM5YwyOiuMSTqCoSp7BnO5ZEi9gvhz2eID8QCO2zfJtdvrDeTHAAPkAI7aDfAdQnWWp9RfA31Ad';
    const fit = (raw: number): Diagnosis['scores'][number]['plugins'][number] => ({
      plugin: 'NodeResourcesFit',
      raw,
      normalized: raw,
      weight: 1,
      weighted: raw,
    });
    const image = (normalized: number): Diagnosis['scores'][number]['plugins'][number] => ({
      plugin: 'ImageLocality',
      raw: 0,
      normalized,
      weight: 1,
      weighted: normalized,
    });
    assert.deepEqual(Chunk.open(Buffer.from(format1, 'base64')).diagnosis(0), {
      ...base,
      feasibleNodes: 2,
      status: { code: Code.Success, reasons: [] },
      chosenNode: 'n2',
      rejections: [rejection('n1', ['Insufficient cpu'])],
      filters: [{ plugin: 'NodeResourcesFit', evaluated: 3, passed: 2 }],
      scores: [
        { node: 'n2', total: 170.5, plugins: [fit(70.5), image(100)] },
        { node: 'n3', total: 90, plugins: [fit(40), image(50)] },
      ],
      stages: [{ stage: 'Reserve', plugin: 'VolumeBinding', node: 'n2', status: { code: Code.Success, reasons: [] } }],
    });
  });

  it('spreads many diagnoses over chunks and finds each one by chunk and slot', () => {
    const plan = syntheticPlan({ pods: 3000, unplaced: 600, nodes: 500, rejections: 10, scores: 4 });
    const all = [...plan.assignments.map((a) => a.diagnosis!), ...plan.unplaced.map((u) => u.diagnosis)];
    const packed = packDiagnoses(all, 3);
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
    const bytes = packDiagnoses([d], 3).chunks[0]!.length;
    assert.equal(d.rejections.length, 5000);
    assert.ok(bytes < JSON.stringify(d).length / 20, `${bytes} bytes for ${JSON.stringify(d).length} bytes of JSON`);
  });
});
