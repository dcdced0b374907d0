// The CLI tests run the bundle users run (dist/cli.cjs, behind bin/podplan.js), not src/ through
// tsx. It is built here when missing or older than any source file, once per test process, so a
// targeted `npx mocha test/cli/…` after an edit tests the edit.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { runCli } from '../../src/cli/main';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/podplan.js');
const BUNDLE = join(ROOT, 'dist/cli.cjs');

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

let checked = false;

/** Builds dist/ (npm run build) unless dist/cli.cjs is newer than src/ and the build script. */
export function ensureBuilt(): void {
  if (checked) return;
  checked = true;
  const sources = Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'scripts/build.mjs')));
  if (!existsSync(BUNDLE) || statSync(BUNDLE).mtimeMs < sources)
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
}

/** The bundle's exports, loaded as bin/podplan.js loads them. */
export function bundledCli(): { readonly runCli: typeof runCli } {
  ensureBuilt();
  return createRequire(import.meta.url)(BUNDLE) as { readonly runCli: typeof runCli };
}
