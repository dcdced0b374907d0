// One cycle's PreFilter and Filter as cycle.ts runs them: PreFilter narrows the nodes, each node
// stops at its first failing filter, the Diagnosis counts per filter what it saw and passed, and a
// filter that throws is an Error naming it at Filter (not a rejection).
import assert from 'node:assert/strict';
import type { FilterPlugin, Plugin } from '../../../src/engine/framework/interfaces';
import { Code, SUCCESS } from '../../../src/engine/framework/status';
import { frameworkOf, preFilter, rejects, scheduleOn, throws } from './fakes';

describe('engine/framework/cycle', () => {
  const table: Array<{
    what: string;
    plugins: Plugin[];
    feasible: number;
    rejected: Record<string, string>;
    filters: Array<[string, number, number]>;
  }> = [
    { what: 'no filter: every node is feasible', plugins: [], feasible: 3, rejected: {}, filters: [] },
    {
      what: 'one filter rejects one node',
      plugins: [rejects('A', ['n0'], 'no')],
      feasible: 2,
      rejected: { n0: 'A' },
      filters: [['A', 3, 2]],
    },
    {
      what: 'a node stops at its first failing filter: the second filter sees only what the first passed',
      plugins: [rejects('A', ['n0'], 'no'), rejects('B', ['n0', 'n1'], 'no')],
      feasible: 1,
      rejected: { n0: 'A', n1: 'B' },
      filters: [
        ['A', 3, 2],
        ['B', 2, 1],
      ],
    },
    {
      what: 'PreFilter narrows the nodes: the others are rejected at PreFilter and reach no filter',
      plugins: [preFilter('P', SUCCESS, ['n1', 'n2']), rejects('A', ['n2'], 'no')],
      feasible: 1,
      rejected: { n0: 'P', n2: 'A' },
      filters: [['A', 2, 1]],
    },
  ];
  for (const { what, plugins, feasible, rejected, filters } of table) {
    it(what, () => {
      const d = scheduleOn(frameworkOf(plugins), 3).diagnosis;
      assert.equal(d.feasibleNodes, feasible);
      assert.deepEqual(Object.fromEntries(d.rejections.map((r) => [r.node, r.plugin])), rejected);
      assert.deepEqual(
        d.filters.map((f) => [f.plugin, f.evaluated, f.passed]),
        filters,
      );
    });
  }

  it('a filter that throws is an Error naming it at Filter, not a rejection', () => {
    const thrower: FilterPlugin = { name: 'Thrower', filter: throws };
    const d = scheduleOn(frameworkOf([thrower]), 3).diagnosis;
    assert.deepEqual(
      [d.status.code, d.status.plugin, d.status.stage, d.status.reasons],
      [Code.Error, 'Thrower', 'Filter', ['plugin Thrower threw at Filter: boom']],
    );
    assert.equal(d.rejections.length, 0);
  });
});
