// Runs the CLI in-process against an in-memory file table (files a command writes land in it too),
// capturing what it prints: the built bundle's runCli (dist/cli.cjs, what bin/podplan.js runs),
// not src/. The plan
// history is a real file: by default under a temp home directory of the test process, so no test
// writes to the real user's data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../src/engine/api/clock';
import type { CliIO } from '../../src/cli/io';
import { bundledCli } from './bundle';

export interface CliSession {
  /** Called with each piece of stdout as it is written (a server's "serving on" line). */
  readonly onStdout?: (text: string) => void;
  /** What the command's stopSignal resolves with, when it does (never, if not given). */
  readonly stop?: Promise<string>;
  /** Whether stderr is a terminal (default: no). */
  readonly interactive?: boolean;
  /** The clock (default: a ManualClock at 2026-01-01 that stands still). */
  readonly clock?: CliIO['clock'];
  /** What standard input holds (the path -); none: it cannot be read. */
  readonly stdin?: string;
  /** Whether stdout and stderr are coloured, as on a terminal (default: no). */
  readonly color?: boolean;
}

let home: string | undefined;

/** A home directory of the test process's own, removed when it exits (the plan history's default place lies under it). */
export function testHome(): string {
  if (home === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'podplan-cli-home-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    home = dir;
  }
  return home;
}

/** Runs the CLI in-process with files from `files`, capturing its output. */
export async function cli(
  argv: string[],
  files: Record<string, string> = {},
  env: Record<string, string> = {},
  session: CliSession & Pick<CliIO, 'sqlite'> = {},
) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: (t) => {
      stdout += t;
      session.onStdout?.(t);
    },
    stderr: (t) => void (stderr += t),
    readFile: async (path) => {
      const text = files[path];
      if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
      return text;
    },
    writeFile: async (path, text) => {
      files[path] = text;
    },
    yamlFiles: async (path) => {
      if (files[path] !== undefined) return [path];
      const below = Object.keys(files)
        .filter((f) => f.startsWith(`${path.replace(/\/$/, '')}/`) && /\.(ya?ml|json)$/.test(f))
        .sort();
      if (below.length === 0) throw Object.assign(new Error(`ENOENT: no such file or directory, stat '${path}'`), { code: 'ENOENT' });
      return below;
    },
    fileSize: async (path) => Buffer.byteLength(files[path] ?? ''),
    cwd: '/work',
    env,
    homedir: testHome(),
    platform: process.platform,
    clock: session.clock ?? new ManualClock(Date.UTC(2026, 0, 1)),
    interactive: session.interactive ?? false,
    ...(session.stdin !== undefined ? { readStdin: async () => session.stdin ?? '' } : {}),
    ...(session.color ? { color: true, colorErrors: true } : {}),
    stopSignal: () => session.stop ?? new Promise<string>(() => undefined),
    ...(session.sqlite ? { sqlite: session.sqlite } : {}),
  };
  const code = await bundledCli().runCli(argv, io);
  return { code, stdout, stderr };
}

/**
 * Runs `podplan serve-planner <args> --port 0` until `stop` is called with a signal's name;
 * `address` resolves once it serves, `run` with what it printed when it stops.
 */
export function servePlanner(args: string[], files: Record<string, string> = {}) {
  let stop = (_signal: string): void => undefined;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  let serving = (_address: string): void => undefined;
  const address = new Promise<string>((resolve) => (serving = resolve));
  const run = cli(
    ['serve-planner', ...args, '--port', '0'],
    files,
    {},
    {
      stop: stopped,
      onStdout: (text) => {
        const match = /serving the planner API on (\S+)/.exec(text);
        if (match?.[1]) serving(match[1]);
      },
    },
  );
  return { address, run, stop };
}
