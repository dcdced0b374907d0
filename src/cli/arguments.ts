// A command's arguments, parsed the same way by every command: node:util's parseArgs, strict, with
// one line in Podplan's words naming the command when they do not parse. As kubectl, `-n` is short
// for `--namespace` and `-o` for `--output` wherever a command has them; `-o json|yaml|wide` picks
// the output, `--json` and `--yaml` stay as its aliases.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage } from '../engine/api/errors';
import type { CliIO } from './io';

/** The options a command declares, as node:util's parseArgs takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;

/** The short forms kubectl gives these options. */
const SHORT: Readonly<Record<string, string>> = { namespace: 'n', output: 'o' };

/** -o/--output, as commands declare it. */
export const OUTPUT_OPTION = { output: { type: 'string' } } as const;

/** The output formats of `-o`; 'text' is the default table or report. */
export type OutputFormat = 'text' | 'json' | 'yaml' | 'wide';

/** The help line of -o for the formats a command offers. */
export function outputHelp(formats: readonly OutputFormat[], column: number, aliases: readonly ('json' | 'yaml')[]): string {
  const named = formats.filter((f) => f !== 'text');
  const head = `  -o, --output <${named.join('|')}>`;
  const what = `print the result as ${named.map((f) => (f === 'wide' ? 'a wider table' : f.toUpperCase())).join(' or ')}${aliases.length ? ` (${aliases.map((a) => `--${a} is -o ${a}`).join(', ')})` : ''}`;
  return head.length < column - 1 ? `${head.padEnd(column)}${what}` : `${head}\n${' '.repeat(column)}${what}`;
}

/**
 * The format `-o` names, or `--json` / `--yaml` (its aliases); 'text' when none is given;
 * undefined after printing why the choice is refused.
 */
export function outputFormat(
  command: string,
  values: { readonly output?: string | undefined; readonly json?: boolean | undefined; readonly yaml?: boolean | undefined },
  formats: readonly OutputFormat[],
  io: CliIO,
): OutputFormat | undefined {
  const asked = new Map<string, string>();
  if (values.output !== undefined) asked.set(values.output, `-o ${values.output}`);
  if (values.json) asked.set('json', asked.has('json') ? `${asked.get('json')} and --json` : '--json');
  if (values.yaml) asked.set('yaml', asked.has('yaml') ? `${asked.get('yaml')} and --yaml` : '--yaml');
  if (asked.size > 1) {
    io.stderr(`podplan ${command}: ${[...asked.values()].join(' and ')} ask for different outputs: give one\n`);
    return undefined;
  }
  const chosen = [...asked.keys()][0] ?? 'text';
  const offered = formats.filter((f) => f !== 'text');
  if (!(formats as readonly string[]).includes(chosen)) {
    io.stderr(`podplan ${command}: no output "${chosen}" here: -o takes ${offered.join(', ')}\n`);
    return undefined;
  }
  return chosen as OutputFormat;
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}

/** The option the user probably meant, among the command's. */
function nearest(written: string, options: CommandOptions): string | undefined {
  const name = written.replace(/^-+/, '').split('=')[0] ?? '';
  let best: [string, number] | undefined;
  for (const option of Object.keys(options)) {
    const d = distance(name, option);
    if (d <= Math.max(1, Math.floor(option.length / 3)) && (!best || d < best[1])) best = [option, d];
  }
  return best && `--${best[0]}`;
}

/** Why the arguments do not parse, in Podplan's words (node's own messages explain parseArgs, not the command). */
function explainError(command: string, error: unknown, options: CommandOptions): string {
  const code = (error as { code?: string }).code;
  const message = errorMessage(error);
  const quoted = /'(-[^']*)'/.exec(message)?.[1];
  const help = `podplan ${command} --help lists its options`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && quoted) {
    const meant = nearest(quoted, options);
    return `unknown option ${quoted}${meant ? ` (did you mean ${meant}?)` : ''}; ${help}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /--([\w-]+)/.exec(message)?.[1];
    const declared = option !== undefined ? options[option] : undefined;
    if (declared?.type === 'string') return `--${option} needs a value (--${option} <value>); ${help}`;
    if (declared?.type === 'boolean') return `--${option} takes no value; ${help}`;
  }
  return `${message}; ${help}`;
}

/** The command's options and (at most `positionals`) arguments, or undefined after printing why they do not parse. */
export function parseCommand<O extends CommandOptions>(
  command: string,
  args: readonly string[],
  options: O,
  positionals: number,
  io: CliIO,
) {
  const withShort: CommandOptions = {};
  for (const [name, option] of Object.entries(options)) {
    const short = SHORT[name];
    withShort[name] = short !== undefined && option.short === undefined ? { ...option, short } : option;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, options: withShort as O, strict: true });
  } catch (error) {
    io.stderr(`podplan ${command}: ${explainError(command, error, options)}\n`);
    return undefined;
  }
  const extra = parsed.positionals[positionals];
  if (extra === undefined) return parsed;
  io.stderr(`podplan ${command}: unexpected argument "${extra}"\n`);
  return undefined;
}
