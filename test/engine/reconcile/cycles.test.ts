import assert from 'node:assert/strict';
import { cyclesThrough, leafComponents, stronglyConnected } from '../../../src/engine/reconcile/cycles';

/** Successors from an adjacency table ("a" → ["b"] means a waits on b). */
const graph =
  (edges: Record<string, string[]>) =>
  (id: string): readonly string[] =>
    edges[id] ?? [];

describe('engine/reconcile/cycles', () => {
  const table: Array<{ name: string; edges: Record<string, string[]>; components: string[][]; leaves: string[][] }> = [
    {
      name: 'a chain: one component a node, leaf first',
      edges: { a: ['b'], b: ['c'], c: [] },
      components: [['c'], ['b'], ['a']],
      leaves: [['c']],
    },
    {
      name: 'a ring and a node waiting on it',
      edges: { d: ['a'], a: ['b'], b: ['c'], c: ['a'] },
      components: [['a', 'b', 'c'], ['d']],
      leaves: [['a', 'b', 'c']],
    },
    { name: 'two separate leaves', edges: { a: ['b'], b: ['a'], c: [] }, components: [['a', 'b'], ['c']], leaves: [['a', 'b'], ['c']] },
    { name: 'a self-loop', edges: { a: ['a'] }, components: [['a']], leaves: [['a']] },
  ];
  for (const { name, edges, components, leaves } of table) {
    it(`strongly connected components and leaves: ${name}`, () => {
      const ids = Object.keys(edges);
      assert.deepEqual(stronglyConnected(ids, graph(edges)), components);
      assert.deepEqual(leafComponents(ids, graph(edges)), leaves);
    });
  }

  it('handles a chain of 100,000 without overflowing the stack', () => {
    const ids = Array.from({ length: 100_000 }, (_, i) => `n${i}`);
    const components = stronglyConnected(ids, (id) => (id === 'n99999' ? [] : [`n${Number(id.slice(1)) + 1}`]));
    assert.equal(components.length, 100_000);
    assert.deepEqual(components[0], ['n99999']);
  });

  it('names a shortest cycle through each member, starting from it', () => {
    // a → b → a is shorter than a → b → c → a; c only lies on the longer one.
    const cycles = cyclesThrough(['a', 'b', 'c'], graph({ a: ['b'], b: ['a', 'c'], c: ['a'] }));
    assert.deepEqual(Object.fromEntries(cycles), { a: ['a', 'b', 'a'], b: ['b', 'a', 'b'], c: ['c', 'a', 'b', 'c'] });
  });

  it('a single node without a self-loop is on no cycle', () => {
    assert.equal(cyclesThrough(['a'], graph({ a: [] })).size, 0);
    assert.deepEqual(cyclesThrough(['a'], graph({ a: ['a'] })).get('a'), ['a', 'a']);
  });
});
