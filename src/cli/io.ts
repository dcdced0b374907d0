// What a command may touch of the outside world, passed in so tests run commands in-process.
import { readFile } from 'node:fs/promises';
import { systemClock } from '../platform/clock';
import type { Clock } from '../engine/api/clock';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly readFile: (path: string) => Promise<string>;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clock: Clock;
  /** Whether stderr is a terminal (progress lines are only drawn there). */
  readonly interactive: boolean;
}

export const processIO: CliIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  readFile: (path) => readFile(path, 'utf8'),
  cwd: process.cwd(),
  env: process.env,
  clock: systemClock,
  interactive: Boolean(process.stderr.isTTY),
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
