import assert from 'node:assert/strict';
import { cli } from './run-cli';

describe('cli/main', () => {
  it('lists every command with --help and exits 0', async () => {
    const { code, stdout } = await cli(['--help']);
    assert.equal(code, 0);
    assert.match(stdout, /Usage: podplan <command>/);
    assert.match(stdout, /Exit codes: 0 .* 1 .* 2 bad input/);
  });

  it('rejects an unknown command with exit 2 and the usage', async () => {
    const { code, stderr } = await cli(['frobnicate']);
    assert.equal(code, 2);
    assert.match(stderr, /unknown command "frobnicate"/);
  });

  it('prints its version', async () => {
    assert.match((await cli(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
