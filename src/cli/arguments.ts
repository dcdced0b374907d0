// A command's arguments, parsed the same way by every command: node:util's parseArgs, strict, with
// one line naming the command when they do not parse.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../engine/api/errors';
import type { CliIO } from './io';

/** The options a command declares, as node:util's parseArgs takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** The command's options and (at most `positionals`) arguments, or undefined after printing why they do not parse. */
export function parseCommand<O extends CommandOptions>(command: string, args: readonly string[], options: O, positionals: number, io: CliIO) {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, options, strict: true });
  } catch (error) {
    io.stderr(`podplan ${command}: ${errorMessage(error)}\n`);
    return undefined;
  }
  const extra = parsed.positionals[positionals];
  if (extra === undefined) return parsed;
  io.stderr(`podplan ${command}: unexpected argument "${extra}"\n`);
  return undefined;
}
