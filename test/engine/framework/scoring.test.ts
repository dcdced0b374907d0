// Score as scoring.ts runs it for a cycle: each plugin's raw score per feasible node, NormalizeScore
// when the plugin has it, × its weight, summed; the best total is the host. A score outside 0..100
// after normalizing, or a plugin that throws, is an Error naming the plugin at Score.
import assert from 'node:assert/strict';
import type { ScorePlugin } from '../../../src/engine/framework/interfaces';
import { Code } from '../../../src/engine/framework/status';
import { frameworkOf, scheduleOn, scores, throws } from './fakes';

describe('engine/framework/scoring', () => {
  const table: Array<{
    what: string;
    plugins: ScorePlugin[];
    weights?: Record<string, number>;
    totals: Record<string, number>;
    host: string;
  }> = [
    {
      what: 'one plugin, weight 1: the raw scores',
      plugins: [scores('A', { n0: 10, n1: 40, n2: 20 })],
      totals: { n0: 10, n1: 40, n2: 20 },
      host: 'n1',
    },
    {
      what: 'a weight multiplies',
      plugins: [scores('A', { n0: 10, n1: 40, n2: 20 })],
      weights: { A: 3 },
      totals: { n0: 30, n1: 120, n2: 60 },
      host: 'n1',
    },
    {
      what: 'NormalizeScore before the weight',
      plugins: [scores('A', { n0: 10, n1: 50, n2: 25 }, true)],
      weights: { A: 2 },
      totals: { n0: 40, n1: 200, n2: 100 },
      host: 'n1',
    },
    {
      what: 'plugins summed: a weight can turn the order',
      plugins: [scores('A', { n0: 100, n1: 0, n2: 50 }), scores('B', { n0: 0, n1: 60, n2: 30 })],
      weights: { B: 2 },
      totals: { n0: 100, n1: 120, n2: 110 },
      host: 'n1',
    },
  ];
  for (const { what, plugins, weights, totals, host } of table) {
    it(what, () => {
      const result = scheduleOn(frameworkOf(plugins, { recordScores: 10 }, weights ?? {}), 3);
      assert.ok(result.ok);
      assert.equal(result.suggestedHost, host);
      assert.deepEqual(Object.fromEntries(result.diagnosis.scores.map((s) => [s.node, s.total])), totals);
    });
  }

  const errors: Array<[what: string, plugin: ScorePlugin, reason: RegExp]> = [
    ['a score above 100', scores('Over', { n0: 101, n1: 5, n2: 5 }), /Over/],
    ['a negative score', scores('Under', { n0: -1, n1: 5, n2: 5 }), /Under/],
    ['a plugin that throws', { name: 'Thrower', score: throws }, /^plugin Thrower threw at Score: boom$/],
  ];
  for (const [what, plugin, reason] of errors) {
    it(`${what}: an Error naming the plugin at Score`, () => {
      const result = scheduleOn(frameworkOf([plugin]), 3);
      assert.equal(result.ok, false);
      assert.deepEqual(
        [result.diagnosis.status.code, result.diagnosis.status.plugin, result.diagnosis.status.stage],
        [Code.Error, plugin.name, 'Score'],
      );
      assert.match(result.diagnosis.status.reasons.join('; '), reason);
    });
  }
});
