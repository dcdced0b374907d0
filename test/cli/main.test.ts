import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cli } from './run-cli';

const COMMANDS = ['schedule', 'explain', 'plan', 'serve-planner', 'snapshot', 'crds', 'install-crds', 'run', 'claim', 'history', 'show', 'diff', 'export'];

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

  it('every example of every command\'s --help on examples/cluster runs as shown (no bad input)', async () => {
    const files = Object.fromEntries(readdirSync('examples/cluster').filter((f) => f.endsWith('.yaml')).map((f) => [path.join('examples/cluster', f), readFileSync(path.join('examples/cluster', f), 'utf8')]));
    const examples: string[] = [];
    for (const command of COMMANDS) {
      const help = (await cli([command, '--help'])).stdout;
      examples.push(...[...help.matchAll(/^ {2}podplan (.*examples\/cluster.*)$/gm)].map((m) => m[1]!));
    }
    assert.ok(examples.length >= 4, examples.join('\n'));
    for (const example of examples) {
      const { code, stderr } = await cli(example.split(' '), { ...files });
      assert.ok(code === 0 || code === 1, `podplan ${example}: exit ${code}\n${stderr}`);
    }
  });
});
