import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cli } from './run-cli';

const COMMANDS = [
  'schedule',
  'explain',
  'plan',
  'serve-planner',
  'snapshot',
  'crds',
  'install-crds',
  'run',
  'claim',
  'history',
  'show',
  'diff',
  'export',
  'completion',
];

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

  it('prints its version, and --help says so', async () => {
    const version = (await cli(['--version'])).stdout;
    assert.match(version, /^\d+\.\d+\.\d+\n$/);
    assert.ok((await cli(['--help'])).stdout.includes(`  --version   print the version (${version.trim()})`));
  });

  it("lines up every command's help: each option's text starts at one column, continuation lines too", async () => {
    for (const command of ['', ...COMMANDS]) {
      const help = (await cli(command ? [command, '--help'] : ['--help'])).stdout;
      const section = help.split('\nOptions:\n')[1]?.split('\n\n')[0];
      assert.ok(section, `${command || 'podplan'}: an Options section`);
      const columns = new Set<number>();
      for (const line of section.split('\n')) {
        const option = /^( {2}-\S.*?\S)( {2,})\S/.exec(line);
        if (option) columns.add((option[1] as string).length + (option[2] as string).length);
        else if (!/^ {2}-/.test(line)) columns.add(line.length - line.trimStart().length);
      }
      assert.equal(columns.size, 1, `${command || 'podplan'} --help, text at columns ${[...columns].join(', ')}:\n${section}`);
    }
  });

  it("every example of every command's --help on examples/cluster runs as shown (no bad input)", async () => {
    const files = Object.fromEntries(
      readdirSync('examples/cluster')
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [path.join('examples/cluster', f), readFileSync(path.join('examples/cluster', f), 'utf8')]),
    );
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
