// The one amount formatter: the server's hovers and messages, the CLI and the webview print with it.
import assert from 'node:assert/strict';
import { formatAmount, unitOf } from '../../src/protocol/amounts';
import type { AmountUnit } from '../../src/protocol/webview';

describe('protocol/amounts', () => {
  const table: Array<[AmountUnit, number, quantity: string, words: string]> = [
    ['millicores', 250, '250m', '250m'],
    ['millicores', 1000, '1', '1 core'],
    ['millicores', 2500, '2500m', '2.5 cores'],
    ['millicores', 3333, '3333m', '3.33 cores'],
    ['millicores', 4000, '4', '4 cores'],
    ['bytes', 512, '512', '512 B'],
    ['bytes', 1536, '1.5Ki', '1.5 KiB'],
    ['bytes', 256 * 1024 ** 2, '256Mi', '256 MiB'],
    ['bytes', 3 * 1024 ** 3, '3Gi', '3 GiB'],
    ['count', 17, '17', '17'],
  ];
  for (const [unit, amount, quantity, words] of table) {
    it(`${amount} ${unit}: "${quantity}" as a manifest writes it, "${words}" in words`, () => {
      assert.equal(formatAmount(amount, unit), quantity);
      assert.equal(formatAmount(amount, unit, 'words'), words);
    });
  }

  const units: Array<[string, AmountUnit]> = [
    ['cpu', 'millicores'],
    ['memory', 'bytes'],
    ['ephemeral-storage', 'bytes'],
    ['pods', 'count'],
    ['nvidia.com/gpu', 'count'],
  ];
  for (const [resource, unit] of units) it(`${resource} is counted in ${unit}`, () => assert.equal(unitOf(resource), unit));
});
