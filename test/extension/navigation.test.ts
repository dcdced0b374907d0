// The panel's back/forward history (src/extension/webview/navigation.ts).
import assert from 'node:assert/strict';
import { PanelHistory } from '../../src/extension/webview/navigation';

/** Runs steps on a history of at most `limit` entries; what is current and where it is after each. */
function walk(limit: number, steps: ReadonlyArray<string | -1 | 1>): string[] {
  const history = new PanelHistory<string>(limit);
  return steps.map((step) => {
    if (typeof step === 'string') history.push(step);
    else history.go(step);
    const entry = history.current;
    if (!entry) return '(none)';
    const nav = history.nav(entry);
    return `${entry.value}#${nav.entry}${nav.back ? ' ←' : ''}${nav.forward ? ' →' : ''}`;
  });
}

describe('extension/webview/navigation: the panel’s back/forward history', () => {
  const cases: Array<[string, number, ReadonlyArray<string | -1 | 1>, string[]]> = [
    ['one entry: neither back nor forward', 10, ['plan'], ['plan#1']],
    ['back and forward between two entries, the ids stay', 10, ['plan', 'why', -1, 1], ['plan#1', 'why#2 ←', 'plan#1 →', 'why#2 ←']],
    ['nothing before the first or after the last', 10, ['plan', -1, 1, 1], ['plan#1', 'plan#1', 'plan#1', 'plan#1']],
    [
      'showing something new after going back drops what was ahead',
      10,
      ['plan', 'why-a', -1, 'why-b', 1],
      ['plan#1', 'why-a#2 ←', 'plan#1 →', 'why-b#3 ←', 'why-b#3 ←'],
    ],
    ['the oldest entry goes once the budget is reached', 2, ['a', 'b', 'c', -1, -1], ['a#1', 'b#2 ←', 'c#3 ←', 'b#2 →', 'b#2 →']],
  ];
  for (const [what, limit, steps, expected] of cases) it(what, () => assert.deepEqual(walk(limit, steps), expected));

  it('clear forgets every entry', () => {
    const history = new PanelHistory<string>(5);
    history.push('plan');
    history.clear();
    assert.equal(history.current, undefined);
    assert.equal(history.go(-1), undefined);
  });
});
