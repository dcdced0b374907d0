// protocol/initialization: the options a client sends, read field by field: what has its declared
// type is kept, anything else is left out (another editor's client may send anything).
import assert from 'node:assert/strict';
import { readInitializationOptions } from '../../src/protocol/initialization';

describe('protocol/initialization: readInitializationOptions', () => {
  const cases: Array<[string, unknown, object]> = [
    ['nothing sent', undefined, {}],
    ['not an object', 'fast', {}],
    [
      'every option',
      { debounceMs: 0, plannerSchedulerName: 'mine', historyDatabase: '/tmp/h.db' },
      { debounceMs: 0, plannerSchedulerName: 'mine', historyDatabase: '/tmp/h.db' },
    ],
    ['the history turned off', { historyDatabase: false }, { historyDatabase: false }],
    ['wrong types left out', { debounceMs: '5', plannerSchedulerName: 3, historyDatabase: true }, {}],
    ['a negative wait and an empty name left out', { debounceMs: -1, plannerSchedulerName: '' }, {}],
    ['unknown options ignored', { colour: 'blue', debounceMs: 20 }, { debounceMs: 20 }],
  ];
  for (const [name, sent, expected] of cases) {
    it(name, () => assert.deepEqual(readInitializationOptions(sent), expected));
  }
});
