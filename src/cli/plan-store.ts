// The plan store as commands reach it: where the database is (--db, else PODPLAN_DB, else the
// user's data directory), opening it with one clear line when it cannot be, plan ids, and the
// commands that read given plans (show, diff, export).
import { paint, type Paint } from './colour';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Result } from '../engine/api/result';
import { defaultDatabasePath } from '../store/paths';
import { ALL_PENDING_PODS, openStore, type PlanStore } from '../store/store';
import type { PlanSummary, StoreError } from '../store/types';
import { stringify } from 'yaml';
import { OUTPUT_OPTION, outputFormat, parseCommand, type CommandOptions, type OutputFormat } from './arguments';
import { optionHelp } from './help';
import { EXIT, type CliIO } from './io';

export const DB_OPTION = { db: { type: 'string' } } as const;

/** The help of --db, its text at `column` like the command's other options. */
export function dbHelp(column: number): string {
  return optionHelp(
    '--db <file>',
    [
      'the plan history (default: $PODPLAN_DB, else podplan/history.db in the',
      "user's data directory: ~/.local/share, ~/Library/Application Support, %APPDATA%)",
    ],
    column,
  );
}

export const DB_HELP = dbHelp(20);

export function databasePath(db: string | undefined, io: CliIO): string {
  return path.resolve(io.cwd, db ?? defaultDatabasePath(io.env, io.platform, io.homedir));
}

/** Opens (creating it if needed) the history a command writes to. */
export function openHistory(file: string, io: CliIO): Promise<Result<PlanStore, StoreError>> {
  return openStore(file, { clock: io.clock, ...(io.sqlite ? { loaders: io.sqlite } : {}) });
}

/**
 * Runs a read command's body on the history. Only an existing file is opened: a mistyped --db must
 * say so, not answer from a new empty history. Exit 2 with one line when it cannot be opened.
 */
export async function readHistory(command: string, db: string | undefined, io: CliIO, body: (store: PlanStore) => number): Promise<number> {
  const file = databasePath(db, io);
  if (!existsSync(file)) {
    io.stderr(
      `podplan ${command}: there is no plan history at ${file} (podplan schedule and podplan plan record one; --db or PODPLAN_DB name another file)\n`,
    );
    return EXIT.badInput;
  }
  const opened = await openHistory(file, io);
  if (!opened.ok) {
    io.stderr(`podplan ${command}: cannot open the plan history: ${opened.error.message}\n`);
    return EXIT.badInput;
  }
  try {
    return body(opened.value);
  } finally {
    opened.value.close();
  }
}

/** Why a run goes on without its history, in one clause (a missing driver's message says so itself). */
export function historyOff(error: StoreError): string {
  return error.kind === 'no-driver' ? error.message : `plan history is off: ${error.message}`;
}

/** The value of a store result, or undefined after printing its error. */
export function orReport<T>(command: string, result: Result<T, StoreError>, io: CliIO): T | undefined {
  if (result.ok) return result.value;
  io.stderr(`podplan ${command}: ${result.error.message}\n`);
  return undefined;
}

/** 1, 2, 3…, as typed; undefined for anything else. */
export function positiveInteger(text: string): number | undefined {
  return /^[1-9]\d*$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/** A plan id as typed, or undefined after printing why it is not one. */
export function planId(command: string, text: string | undefined, io: CliIO): number | undefined {
  const id = text === undefined ? undefined : positiveInteger(text);
  if (id !== undefined) return id;
  io.stderr(
    `podplan ${command}: ${text === undefined ? 'a plan id is needed' : `"${text}" is not a plan id (a whole number, as podplan history lists them)`}\n`,
  );
  return undefined;
}

/** An instant as the history prints it: UTC to the second. */
export function formatTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Option values by name: the text of a string option, true for a flag given. */
type Values = Readonly<Record<string, string | boolean | undefined>>;

/** What a command about given plans does: how many ids it takes, its options, its query and its output. */
export interface PlanCommand<T> {
  readonly ids: number;
  readonly options: CommandOptions;
  readonly query: (store: PlanStore, ids: readonly number[], values: Values) => Result<T, StoreError>;
  /** The formats of -o it offers besides its text ('json', 'yaml': the value as such); none: no -o. */
  readonly formats?: readonly OutputFormat[];
  /** The text: `paint` colours it on a terminal (colour.ts). */
  readonly print: (value: T, values: Values, paint: Paint) => string;
}

/** Runs a command about given plans (show, diff, export): ids and options checked, then the history opened and queried. */
export async function runPlanCommand<T>(command: string, args: readonly string[], io: CliIO, spec: PlanCommand<T>): Promise<number> {
  const structured = spec.formats !== undefined;
  const parsed = parseCommand(
    command,
    args,
    { ...DB_OPTION, ...(structured ? { ...OUTPUT_OPTION, json: { type: 'boolean' } } : {}), ...spec.options },
    spec.ids,
    io,
  );
  if (!parsed) return EXIT.badInput;
  const format = structured
    ? outputFormat(command, parsed.values as { output?: string; json?: boolean }, ['text', ...(spec.formats ?? [])], io)
    : 'text';
  if (!format) return EXIT.badInput;
  const ids: number[] = [];
  if (spec.ids > 1 && parsed.positionals.length < spec.ids) {
    const given = parsed.positionals.length;
    io.stderr(
      `podplan ${command}: ${spec.ids} plan ids are needed (as podplan history lists them), ${given === 0 ? 'none was' : `only ${given} was`} given\n`,
    );
    return EXIT.badInput;
  }
  for (let i = 0; i < spec.ids; i++) {
    const id = planId(command, parsed.positionals[i], io);
    if (id === undefined) return EXIT.badInput;
    ids.push(id);
  }
  const values: Values = parsed.values;
  const db = values['db'];
  return readHistory(command, typeof db === 'string' ? db : undefined, io, (store) => {
    const value = orReport(command, spec.query(store, ids, values), io);
    if (value === undefined) return EXIT.badInput;
    io.stdout(
      format === 'json'
        ? `${JSON.stringify(value, null, 2)}\n`
        : format === 'yaml'
          ? stringify(value)
          : spec.print(value, values, paint(io.color)),
    );
    return EXIT.ok;
  });
}

/** The preemptor a plan's victim was evicted for, namespace/name (a pod set's plan names its pods without the namespace). */
export function preemptorOf(p: PlanSummary, by: string): string {
  return p.podSet === ALL_PENDING_PODS ? by : `${p.namespace}/${by}`;
}

/** A plan's counts in prose: placed, not placed, and evicted when it evicts any. */
export function planCounts(p: PlanSummary): string {
  return `${p.placed} placed, ${p.unplaced} not placed${p.evicted > 0 ? `, ${p.evicted} evicted` : ''}`;
}

/** What a plan is of, in prose: a pod set, or every pending pod for a podplan schedule run. */
export function planScope(p: PlanSummary): string {
  return p.podSet === ALL_PENDING_PODS ? 'every pending pod (podplan schedule)' : `pod set ${p.podSet} in namespace ${p.namespace}`;
}
