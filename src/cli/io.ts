// What a command may touch of the outside world, passed in so tests run commands in-process.
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../platform/clock';
import type { Clock } from '../engine/api/clock';
import type { DriverLoader } from '../store/driver';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readFile: (path: string) => Promise<string>;
  /** Writes a file, creating its directory (`podplan snapshot`). */
  readonly writeFile: (path: string, text: string) => Promise<void>;
  /** The YAML files a path names: the file itself, or every *.yaml / *.yml below a directory, sorted. */
  readonly yamlFiles: (path: string) => Promise<string[]>;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** With env and platform, where the plan history lives by default (src/store/paths.ts). */
  readonly homedir: string;
  readonly platform: NodeJS.Platform;
  /** The SQLite bindings to try for the plan history, in order (default: better-sqlite3, then node:sqlite). */
  readonly sqlite?: readonly DriverLoader[];
  readonly clock: Clock;
  /** Whether stderr is a terminal (progress lines are only drawn there). */
  readonly interactive: boolean;
  /** Resolves with the signal's name when the process is asked to stop (SIGINT, SIGTERM): what a server waits for. */
  readonly stopSignal: () => Promise<string>;
}

export const processIO: CliIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readFile: (file) => readFile(file, 'utf8'),
  writeFile: async (file, text) => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text, 'utf8');
  },
  yamlFiles: async (target) => {
    if (!(await stat(target)).isDirectory()) return [target];
    const entries = await readdir(target, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name))
      .map((e) => path.join(e.parentPath, e.name))
      .sort();
  },
  cwd: process.cwd(),
  env: process.env,
  homedir: homedir(),
  platform: process.platform,
  clock: systemClock,
  interactive: Boolean(process.stderr.isTTY),
  stopSignal: () =>
    new Promise((resolve) => {
      const stop = (signal: NodeJS.Signals) => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve(signal);
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    }),
};

/** Exit codes every command shares. */
export const EXIT = { ok: 0, unplaced: 1, badInput: 2 } as const;

export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full help text: usage, options, examples. */
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}
