// Shared by the store's tests (and the CLI's history commands'): small hand-made plans, real
// database files in a temp dir, writer child processes, and the check that every plan in a file is whole.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { ManualClock } from '../../src/engine/api/clock';
import type { Diagnosis } from '../../src/engine/framework/diagnosis';
import { Code } from '../../src/engine/framework/status';
import type { Plan } from '../../src/engine/planner/plan';
import { openStore } from '../../src/store/store';
import type { PlanStore } from '../../src/store/store';
import type { StoreOptions } from '../../src/store/types';

export const NO_CPU = '0/4 nodes are available: 4 Insufficient cpu.';

/** Every one of 4 nodes short of cpu for `pod`. */
export function noCpu(pod: string): Diagnosis {
  return {
    pod: `default/${pod}`,
    profile: 'default-scheduler',
    nodesTotal: 4,
    nodesEvaluated: 4,
    feasibleNodes: 0,
    status: { code: Code.Unschedulable, reasons: ['Insufficient cpu'], plugin: 'NodeResourcesFit', stage: 'Filter' },
    rejections: ['n1', 'n2', 'n3', 'n4'].map((node) => ({
      node,
      plugin: 'NodeResourcesFit',
      stage: 'Filter',
      code: Code.Unschedulable,
      reasons: ['Insufficient cpu'],
    })),
    filters: [],
    scores: [],
    stages: [],
    message: NO_CPU,
  };
}

/** A plan placing pods as listed (`{ 'web-0': 'n1', 'web-1': null }`); unplaced pods lack cpu. */
export function planOf(pods: Record<string, string | null>, extra: Partial<Plan> = {}): Plan {
  const entries = Object.entries(pods);
  return {
    podSet: 'web',
    namespace: 'default',
    planner: 'default',
    profile: 'default-scheduler',
    createdAt: 5_000,
    snapshotHash: 'sha256:snap',
    assignments: entries.flatMap(([pod, node]) => (node ? [{ pod, node }] : [])),
    unplaced: entries.flatMap(([pod, node]) => (node ? [] : [{ pod, message: NO_CPU, diagnosis: noCpu(pod) }])),
    ...extra,
  };
}

export const WRITER = fileURLToPath(new URL('./children/write-plans.ts', import.meta.url));

/** A fresh directory for the enclosing suite's database files, removed after it. */
export function useTempDir(): { readonly path: string } {
  let dir: string | undefined;
  before(() => void (dir = mkdtempSync(join(tmpdir(), 'podplan-store-'))));
  after(() => dir && rmSync(dir, { recursive: true, force: true }));
  return {
    get path(): string {
      assert.ok(dir, 'useTempDir: the suite has not started');
      return dir;
    },
  };
}

export async function openTestStore(file: string, options: StoreOptions = {}): Promise<PlanStore> {
  const opened = await openStore(file, { clock: new ManualClock(1_000), ...options });
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.value;
}

/** The value of a Result the test expects to be ok. */
export function value<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) assert.fail(r.error.message);
  return r.value;
}

export interface Writer {
  readonly child: ChildProcess;
  /** Lines the writer printed so far. */
  readonly lines: string[];
  /** Resolves once a printed line matches. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Resolves with the exit code, or the signal that ended it, once all it printed is in `lines`. */
  readonly exited: Promise<number | NodeJS.Signals>;
}

/** Starts test/store/children/write-plans.ts under `node` (another Node's binary if given). */
export function startWriter(
  file: string,
  podSet: string,
  count: number,
  seed: number,
  options: { keep?: number; node?: string } = {},
): Writer {
  const args = ['--import', 'tsx', WRITER, file, podSet, String(count), String(seed), String(options.keep ?? 10_000)];
  const child = spawn(options.node ?? process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.pattern.test(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(line);
        }
      }
    }
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.on('close', (code, signal) => resolve(signal ?? code ?? -1)));
  const waitFor = (pattern: RegExp): Promise<string> => {
    const seen = lines.find((l) => pattern.test(l));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      waiters.push({ pattern, resolve });
      void exited.then((how) =>
        reject(new Error(`writer ended (${how}) before printing ${pattern}: ${lines.slice(-3).join(' | ')} ${stderr.slice(-500)}`)),
      );
    });
  };
  return { child, lines, waitFor, exited };
}

/** Ids the writer reported as committed. */
export function savedIds(lines: readonly string[]): number[] {
  return lines.flatMap((l) => (l.startsWith('saved ') ? [Number(l.slice(6))] : []));
}

/**
 * Checks the file the way a crash must leave it: integrity_check and foreign_key_check clean, and
 * every plan whole (as many assignments, unplaced pods, victims and diagnoses as its row says, each diagnosis
 * in a chunk of its own plan). Returns the plan ids present.
 */
export function assertWhole(file: string): number[] {
  const db = new Database(file);
  try {
    assert.deepEqual(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
    assert.deepEqual(db.pragma('foreign_key_check'), []);
    const plans = db
      .prepare(
        `SELECT p.id, p.placed, p.unplaced, p.evicted,
           (SELECT count(*) FROM assignments a WHERE a.plan_id = p.id) AS assignments,
           (SELECT count(*) FROM victims v WHERE v.plan_id = p.id) AS victims,
           (SELECT count(*) FROM unplaced u WHERE u.plan_id = p.id) AS unplacedRows,
           (SELECT count(*) FROM diagnoses d WHERE d.plan_id = p.id) AS diagnoses
         FROM plans p ORDER BY p.id`,
      )
      .all() as Array<{
      id: number;
      placed: number;
      unplaced: number;
      evicted: number;
      assignments: number;
      victims: number;
      unplacedRows: number;
      diagnoses: number;
    }>;
    for (const p of plans) {
      assert.equal(p.assignments, p.placed, `plan ${p.id}: assignments`);
      assert.equal(p.unplacedRows, p.unplaced, `plan ${p.id}: unplaced pods`);
      assert.equal(p.victims, p.evicted, `plan ${p.id}: evicted pods`);
      assert.equal(p.diagnoses, p.placed + p.unplaced, `plan ${p.id}: diagnoses`);
    }
    const stray = db
      .prepare(
        'SELECT count(*) AS n FROM diagnoses d LEFT JOIN diagnosis_chunks c ON c.id = d.chunk_id AND c.plan_id = d.plan_id WHERE c.id IS NULL',
      )
      .get() as { n: number };
    assert.equal(stray.n, 0, 'diagnoses pointing outside their plan');
    return plans.map((p) => p.id);
  } finally {
    db.close();
  }
}
