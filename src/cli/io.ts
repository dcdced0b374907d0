// What a command may touch of the outside world, passed in so tests run commands in-process.
import { mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../platform/clock';
import { colourRefused } from './colour';
import type { Clock } from '../engine/api/clock';
import type { DriverLoader } from '../store/driver';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readFile: (path: string) => Promise<string>;
  /** Writes a file, creating its directory (`podplan snapshot`). */
  readonly writeFile: (path: string, text: string) => Promise<void>;
  /**
   * The manifest files a path names: the file itself, or every *.yaml / *.yml / *.json below a
   * directory (following symbolic links), sorted. A problem met on the way (a symbolic link loop, a
   * broken link) goes to `onProblem` and the walk goes on.
   */
  readonly yamlFiles: (path: string, onProblem?: (message: string) => void) => Promise<string[]>;
  /** A file's size in bytes (for progress on large reads). */
  readonly fileSize?: (path: string) => Promise<number>;
  /** All of standard input (the path `-`). */
  readonly readStdin?: () => Promise<string>;
  /** Whether stdout may be coloured: a terminal, and NO_COLOR unset or empty. */
  readonly color?: boolean;
  /** The same for stderr (the severity of located problems). */
  readonly colorErrors?: boolean;
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
  yamlFiles: async (target, onProblem) => {
    if (!(await stat(target)).isDirectory()) return [target];
    const found: string[] = [];
    await walk(target, [await realpath(target)], found, onProblem ?? (() => undefined));
    return found.sort();
  },
  fileSize: async (file) => (await stat(file)).size,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
  color: Boolean(process.stdout.isTTY) && !colourRefused(process.env),
  colorErrors: Boolean(process.stderr.isTTY) && !colourRefused(process.env),
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

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/** Collects the manifest files below `dir`; `ancestors` are the real paths of the directories above, to tell a link back up (a loop). */
async function walk(dir: string, ancestors: readonly string[], found: string[], onProblem: (message: string) => void): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const at = path.join(dir, entry.name);
    if (entry.isFile()) {
      if (MANIFEST_FILE.test(entry.name)) found.push(at);
      continue;
    }
    if (entry.isDirectory()) {
      await walk(at, [...ancestors, await realpath(at)], found, onProblem);
      continue;
    }
    if (!entry.isSymbolicLink()) continue;
    let real: string;
    let isDirectory: boolean;
    try {
      real = await realpath(at);
      isDirectory = (await stat(real)).isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      onProblem(`${at}: ${code === 'ELOOP' ? 'symbolic link loop' : 'broken symbolic link'}; skipped`);
      continue;
    }
    if (!isDirectory) {
      if (MANIFEST_FILE.test(entry.name)) found.push(at);
    } else if (ancestors.includes(real)) {
      onProblem(`${at}: symbolic link loop (it leads back to ${real}); skipped`);
    } else {
      await walk(at, [...ancestors, real], found, onProblem);
    }
  }
}

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
