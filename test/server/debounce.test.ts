import assert from 'node:assert/strict';
import { debounceDelay } from '../../src/server/debounce';

describe('debounce: the wait before validating follows the last validation’s cost', () => {
  const cases: ReadonlyArray<{ what: string; cost: number; fixed?: number; wait: number }> = [
    { what: 'nothing validated yet: at once', cost: 0, wait: 0 },
    { what: 'a cheap validation: at once', cost: 4, wait: 0 },
    { what: 'an expensive one: about its cost, so a burst is coalesced', cost: 42.4, wait: 42 },
    { what: 'a very expensive one: capped', cost: 900, wait: 150 },
    { what: 'the client’s fixed wait wins', cost: 900, fixed: 0, wait: 0 },
    { what: 'the client’s fixed wait wins when cheap too', cost: 1, fixed: 150, wait: 150 },
  ];
  for (const c of cases) it(c.what, () => assert.equal(debounceDelay(c.cost, c.fixed), c.wait));
});
