// The seam between the store and a SQLite binding. better-sqlite3 is native and loads only into
// the Node ABI it was built for; inside another host (an editor's bundled Node) it can fail to load,
// so the store falls back to Node's own node:sqlite (Node >= 22.5) and, when neither loads, reports
// one error value in plain words and the caller runs without history.
//
// The bundles in dist/ (the .vsix, the CLI) carry better-sqlite3's native addon under
// dist/native/, one file per platform, architecture and Node module version (scripts/build.mjs),
// because a .vsix holds no node_modules. Run from sources, better-sqlite3 finds its own build.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { err, ok, type Result } from '../engine/api/result';
import { errorMessage } from '../engine/api/errors';

export type SqlValue = string | number | bigint | Uint8Array | null;
export type Row = Record<string, unknown>;

export interface SqlStatement {
  run(...params: SqlValue[]): { changes: number; lastInsertRowid: number };
  get(...params: SqlValue[]): Row | undefined;
  all(...params: SqlValue[]): Row[];
}

export interface SqlDatabase {
  readonly driver: DriverName;
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

export type DriverName = 'better-sqlite3' | 'node:sqlite';

export interface DriverLoader {
  readonly name: DriverName;
  /** Loads the binding (throws when it cannot) and returns how to open a file with it. */
  load(): Promise<(path: string) => SqlDatabase>;
}

interface NativeStatement {
  run(...params: SqlValue[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

interface NativeDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): NativeStatement;
  close(): unknown;
}

function wrap(driver: DriverName, db: NativeDatabase): SqlDatabase {
  // better-sqlite3 binds an array as the parameter list, which spares spreading the multi-row
  // inserts' hundreds of values a second time; node:sqlite wants them spread.
  const bindsArrays = driver === 'better-sqlite3';
  return {
    driver,
    exec: (sql) => void db.exec(sql),
    prepare: (sql) => {
      const st = db.prepare(sql);
      return {
        run: (...params) => {
          const r = bindsArrays ? st.run(params as unknown as SqlValue) : st.run(...params);
          return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
        },
        get: (...params) => st.get(...params) as Row | undefined,
        all: (...params) => st.all(...params) as Row[],
      };
    },
    close: () => void db.close(),
  };
}

/** The addon's file name in dist/native/ for a Node: scripts/build.mjs writes it under this name. */
export function nativeAddonName(
  platform: string = process.platform,
  arch: string = process.arch,
  modules: string = process.versions.modules ?? '',
): string {
  return `better_sqlite3-${platform}-${arch}-node${modules}.node`;
}

/**
 * The shipped addon for this Node when running from a bundle in dist/; undefined when running from
 * sources (better-sqlite3 then finds its own build). Throws when the bundle carries none for this
 * Node, so that the failure says which build is missing rather than where `bindings` looked.
 */
function shippedAddon(): string | undefined {
  // A CommonJS bundle has __dirname; the sources run as ES modules, where it is not defined.
  const here = typeof __dirname === 'string' ? __dirname : undefined;
  const folder = here === undefined ? undefined : join(here, 'native');
  if (folder === undefined || !existsSync(folder)) return undefined;
  const addon = join(folder, nativeAddonName());
  if (!existsSync(addon))
    throw new Error(
      `this package has no better-sqlite3 build for Node ${process.version} (${process.platform}-${process.arch}, module version ${process.versions.modules})`,
    );
  return addon;
}

export const betterSqlite3: DriverLoader = {
  name: 'better-sqlite3',
  async load() {
    const nativeBinding = shippedAddon();
    const Database = (await import('better-sqlite3')).default;
    const options = nativeBinding === undefined ? {} : { nativeBinding };
    // The native addon loads on first construction: an in-memory probe surfaces an ABI mismatch
    // here, as a load failure, rather than as a failure to open the user's file.
    new Database(':memory:', options).close();
    return (path) => wrap('better-sqlite3', new Database(path, options) as unknown as NativeDatabase);
  },
};

// The specifier is a variable so the type checker (typed for Node 20, which lacks the module) and
// the bundler leave it to the runtime.
const NODE_SQLITE = 'node:sqlite';

export const nodeSqlite: DriverLoader = {
  name: 'node:sqlite',
  async load() {
    const { DatabaseSync } = (await import(NODE_SQLITE)) as { DatabaseSync: new (path: string) => NativeDatabase };
    return (path) => wrap('node:sqlite', new DatabaseSync(path));
  },
};

export const DEFAULT_LOADERS: readonly DriverLoader[] = [betterSqlite3, nodeSqlite];

export type OpenFailure = {
  readonly kind: 'no-driver' | 'cannot-open';
  readonly message: string;
  /** For a log: each driver tried and its own error. */
  readonly detail?: string;
};

/** What a user reads when no driver loads: this Node, and the two ways history can work. */
export function noDriverMessage(
  version: string = process.version,
  modules: string = process.versions.modules ?? '?',
  platform = `${process.platform}-${process.arch}`,
): string {
  return `no SQLite driver could be loaded in Node ${version} (${platform}): node:sqlite needs Node 22.5 or newer, and there is no better-sqlite3 built for this Node (module version ${modules})`;
}

/**
 * Opens `path` with the first driver whose binding loads. When none loads, the error says so in
 * plain words, with every driver tried and why as its detail; when one loads but the file cannot
 * be opened, it says so.
 */
export async function openDatabase(
  path: string,
  loaders: readonly DriverLoader[] = DEFAULT_LOADERS,
): Promise<Result<SqlDatabase, OpenFailure>> {
  const failures: string[] = [];
  for (const loader of loaders) {
    let open: (path: string) => SqlDatabase;
    try {
      open = await loader.load();
    } catch (e) {
      failures.push(`${loader.name}: ${firstLine(e)}`);
      continue;
    }
    try {
      return ok(open(path));
    } catch (e) {
      return err({ kind: 'cannot-open', message: `cannot open ${path} (${loader.name}): ${firstLine(e)}` });
    }
  }
  return err({ kind: 'no-driver', message: noDriverMessage(), detail: failures.join('; ') });
}

/** SQLite's SQLITE_NOTADB (26), by the code each driver carries: better-sqlite3's `code`, node:sqlite's `errcode`. */
export function isNotADatabase(e: unknown): boolean {
  const { code, errcode } = (e ?? {}) as { code?: unknown; errcode?: unknown };
  return code === 'SQLITE_NOTADB' || (typeof errcode === 'number' && (errcode & 0xff) === 26);
}

export function firstLine(e: unknown): string {
  const text = errorMessage(e);
  return text.split('\n')[0] ?? text;
}

/**
 * Runs `body` in a BEGIN IMMEDIATE transaction: the write lock is taken up front, so a second
 * process waits on busy_timeout instead of failing when a read transaction would need upgrading.
 * Any exception rolls everything back and is rethrown.
 */
export function immediate<T>(db: SqlDatabase, body: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = body();
    db.exec('COMMIT');
    return result;
  } catch (e) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // SQLite already rolled back (it does on some errors, e.g. a full disk); the first error is the one to report.
    }
    throw e;
  }
}
