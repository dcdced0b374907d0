// Runs the real CLI as a child process (`node bin/podplan.js …`, the built bundle), as a user runs it:
// real files, real stdout/stderr pipes, the exit code. The plan history defaults to a file under a
// temp home directory (PODPLAN_DB), so no test writes to the real user's data directory.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, ROOT, ensureBuilt } from './bundle';
import { testHome } from './run-cli';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `podplan <argv>` in the repository root with `env` added; resolves when it exits. */
export function runPodplan(argv: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  ensureBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd: ROOT,
      env: {
        ...process.env,
        HOME: testHome(),
        XDG_DATA_HOME: join(testHome(), 'data'),
        PODPLAN_DB: join(testHome(), 'history.db'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
