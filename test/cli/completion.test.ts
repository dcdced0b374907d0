import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { BIN, ensureBuilt } from './bundle';

// The scripts run in the real shells: bash's completion function is called as bash calls it
// (COMP_WORDS, COMP_CWORD); zsh's with its completion builtins stood in for by functions that
// print what they are given (zsh's own completion needs a terminal).
const podplan = `${process.execPath} ${BIN}`;

function bashComplete(words: string[]): string[] {
  const script = `source <(${podplan} completion bash)\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}\n_podplan\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

function zshComplete(words: string[]): string[] {
  const stubs = `compdef() { :; }\n_describe() { print -l -- \${(P)2}; }\ncompadd() { if [[ $1 == -a ]]; then print -l -- \${(P)2}; else [[ $1 == -- ]] && shift; print -l -- "$@"; fi; }\n_files() { print -- '<files>'; }`;
  const script = `${stubs}\nsource <(${podplan} completion zsh)\nwords=(${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length}\n_podplan`;
  return execFileSync('zsh', ['-f', '-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

describe('podplan completion (bash and zsh, in the shells)', () => {
  before(() => ensureBuilt());

  const table: Array<[what: string, words: string[], bash: (got: string[]) => void, zsh: (got: string[]) => void]> = [
    [
      'commands',
      ['podplan', 'sch'],
      (got) => assert.deepEqual(got, ['schedule']),
      (got) =>
        assert.ok(
          got.includes('schedule:schedule the pending pods of a snapshot and explain the failures') &&
            got.includes('completion:print a completion script for bash or zsh'),
          got.join('\n'),
        ),
    ],
    [
      "a command's options, from its help",
      ['podplan', 'schedule', '--se'],
      (got) => assert.deepEqual(got, ['--seed']),
      (got) =>
        assert.ok(
          ['--seed', '--output', '--namespace', '--strict', '--help'].every((o) => got.includes(o)),
          got.join('\n'),
        ),
    ],
    [
      'the formats of -o',
      ['podplan', 'schedule', '-o', ''],
      (got) => assert.deepEqual(got, ['json', 'yaml', 'wide']),
      (got) => assert.deepEqual(got, ['json', 'yaml', 'wide']),
    ],
    [
      'paths',
      ['podplan', 'schedule', 'examples/clu'],
      (got) => assert.deepEqual(got, ['examples/cluster']),
      (got) => assert.deepEqual(got, ['<files>']),
    ],
    [
      'the shells of completion',
      ['podplan', 'completion', ''],
      (got) => assert.deepEqual(got, ['bash', 'zsh']),
      (got) => assert.deepEqual(got, ['bash', 'zsh']),
    ],
  ];
  for (const [what, words, bash, zsh] of table) {
    it(`bash: ${what}`, () => bash(bashComplete(words)));
    it(`zsh: ${what}`, () => zsh(zshComplete(words)));
  }

  it('refuses a shell it has no script for', () => {
    assert.throws(
      () => execFileSync(process.execPath, [BIN, 'completion', 'fish'], { encoding: 'utf8', stdio: 'pipe' }),
      (e: { status: number; stderr: string }) => e.status === 2 && /no completion for "fish": bash or zsh/.test(e.stderr),
    );
  });
});
