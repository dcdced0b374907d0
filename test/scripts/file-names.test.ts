// File names: kebab-case everywhere, except a plugin's file (and its test), which carries the
// plugin's upstream name (NodeResourcesFit.ts), as docs/CONTRIBUTING.md says.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { basename, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALL_PLUGIN_NAMES } from '../../src/engine/plugins/names';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+)*$/;
const PLUGIN_DIRS = new Set(['src/engine/plugins', 'test/engine/plugins']);
const plugins = new Set<string>(ALL_PLUGIN_NAMES);

/** Whether `path` is named as the project names files. */
function wellNamed(path: string): boolean {
  const name = basename(path);
  if (KEBAB.test(name)) return true;
  const stem = name.replace(/(\.test)?\.ts$/, '');
  return PLUGIN_DIRS.has(dirname(path)) && plugins.has(stem);
}

describe('file names', () => {
  it('are kebab-case, plugins under their upstream names', () => {
    const tracked = execFileSync('git', ['ls-files', 'src', 'test', 'bench', 'scripts', 'media/src'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((p) => p.endsWith('.ts'));
    assert.ok(tracked.length > 100, 'git ls-files listed the sources');
    assert.deepEqual(
      tracked.filter((p) => !wellNamed(p)),
      [],
    );
  });

  for (const [path, expected] of [
    ['src/engine/claims/ready-queue.ts', true],
    ['src/engine/claims/readyQueue.ts', false],
    ['src/engine/plugins/NodeResourcesFit.ts', true],
    ['test/engine/plugins/NodeResourcesFit.test.ts', true],
    ['src/engine/plugins/NodeFit.ts', false],
    ['src/cli/NodeResourcesFit.ts', false],
  ] as const) {
    it(`${path}: ${expected ? 'well named' : 'refused'}`, () => assert.equal(wellNamed(path), expected));
  }
});
