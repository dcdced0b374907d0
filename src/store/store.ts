// The plan history: every run and every plan, with failures kept compactly, compared and exported.
// One PlanStore owns one connection; a second process (the CLI beside the editor) opens its own and
// the two share the file through WAL and busy_timeout. Every method returns a Result: a database
// that cannot be read or written is an expected outcome the caller shows, not a crash.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import type { Clock } from '../engine/api/clock';
import type { PlanBound } from '../engine/planner/solver/bound';
import type { Objective } from '../engine/planner/planner';
import { err, ok, type Result } from '../engine/api/result';
import type { ClusterSnapshot } from '../engine/api/types';
import type { Diagnosis } from '../engine/framework/diagnosis';
import type { Profile } from '../engine/framework/profile';
import type { PlacedPod, Plan, PlanAssignment, PlanVictim, UnplacedPod } from '../engine/planner/plan';
import type { PlannedDevice } from '../engine/plugins/dynamicresources/plan-devices';
import { writeSchedulePlan, type WritePlanOptions } from '../manifests/schedule-plan';
import { systemClock } from '../platform/clock';
import { diffPlacements, type Placements } from './diff';
import { Chunk, packDiagnoses, readSummary, type DiagnosisSummary, type ReasonCount } from './diagnoses';
import {
  firstLine,
  immediate,
  isNotADatabase,
  openDatabase,
  type DriverName,
  type Row,
  type SqlDatabase,
  type SqlStatement,
  type SqlValue,
} from './driver';
import { hasForeignTables, migrate, SCHEMA_VERSION, userVersion } from './schema';
import type {
  ClaimOutcome,
  ClaimRecord,
  Page,
  Paging,
  HistoryQuery,
  PlanBasis,
  PlanDiff,
  PlanStatus,
  PlanSummary,
  RunKind,
  RunOutcome,
  RunSummary,
  Source,
  SourceKind,
  SourceRef,
  StoredBasis,
  StoredPlan,
  StoreError,
  StoreOptions,
  TriggerCause,
  TriggerTransition,
} from './types';

const DEFAULT_LIMIT = 50;
const PAGE_SIZE = 16384;
/** Rows per multi-row INSERT (well under SQLite's 32,766 parameters). */
const BATCH = 64;

/**
 * Opens (creating it and its directory if needed) and migrates the history at `file`. Never throws:
 * no loadable driver, a file that is not a history database, or one from a newer Podplan (refused
 * and left untouched) come back as errors the caller can show before running without history.
 */
export async function openStore(file: string, options: StoreOptions = {}): Promise<Result<PlanStore, StoreError>> {
  if (file !== ':memory:') {
    try {
      mkdirSync(dirname(file), { recursive: true });
    } catch (e) {
      return err({ kind: 'cannot-open', message: `cannot create the directory of ${file}: ${firstLine(e)}` });
    }
  }
  const opened = await openDatabase(file, options.loaders);
  if (!opened.ok) return opened;
  const db = opened.value;
  const ready = prepareDatabase(db, file, options.busyTimeoutMs ?? 5000);
  if (!ready.ok) {
    db.close();
    return ready;
  }
  return ok(new PlanStore(db, file, options));
}

function prepareDatabase(db: SqlDatabase, file: string, busyTimeoutMs: number): Result<void, StoreError> {
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // Read before anything writes: a refused file must be left exactly as it was. Both reads in one
    // read transaction: another process migrating a new file between them would otherwise make it
    // look foreign (version 0, yet tables).
    db.exec('BEGIN');
    let version: number;
    let foreign: boolean;
    try {
      version = userVersion(db);
      foreign = version === 0 && hasForeignTables(db);
    } finally {
      db.exec('COMMIT');
    }
    if (version > SCHEMA_VERSION) {
      return err({
        kind: 'newer-schema',
        message: `${file} was written by a newer Podplan (schema version ${version}, this one knows up to ${SCHEMA_VERSION}); it was left untouched. Use a newer Podplan or another database file.`,
      });
    }
    if (foreign) {
      return err({
        kind: 'not-a-database',
        message: `${file} is not a Podplan history: it holds another program's tables; it was left untouched.`,
      });
    }
    // Takes effect only on a new file (before WAL mode; an existing one keeps its size): a plan is
    // megabytes of rows and blobs, and 16 KB pages write it in a quarter of the WAL frames.
    db.exec(`PRAGMA page_size = ${PAGE_SIZE}`);
    const mode = db.prepare('PRAGMA journal_mode = WAL').get()?.['journal_mode'];
    if (mode !== 'wal' && file !== ':memory:')
      return err({ kind: 'cannot-open', message: `${file}: cannot switch to WAL mode (got ${String(mode)})` });
    // FULL: a committed plan survives power loss too, for one fsync per plan.
    db.exec('PRAGMA synchronous = FULL');
    db.exec('PRAGMA foreign_keys = ON');
    // A 10,000-pod plan is ~10 MB of pages in one transaction: a cache that holds it all saves
    // spilling and re-reading pages mid-transaction (2 MB by default; grown only as used).
    db.exec('PRAGMA cache_size = -65536');
    const migrated = migrate(db);
    if (!migrated.ok) return err({ kind: 'newer-schema', message: migrated.error });
    return ok(undefined);
  } catch (e) {
    const message = firstLine(e);
    return err({ kind: isNotADatabase(e) ? 'not-a-database' : 'sqlite', message: `${file}: ${message}` });
  }
}

/** Cuts user info, query and fragment from a server URL: the places a credential can hide. */
export function safeServer(server: string): string {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)?(?:[^/?#@]*@)?([^?#]*)/i.exec(server.trim());
  return `${match?.[1] ?? ''}${match?.[2] ?? ''}`;
}

/**
 * Pod set and namespace of a plan that covers every pending pod of a snapshot (a `podplan schedule`
 * run, pods named namespace/name) rather than one pod set: no label value can be "*", and such a
 * plan has no SchedulePlan.
 */
export const ALL_PENDING_PODS = '*';

const PLAN_COLUMNS = `p.id, p.run_id, p.pod_set, p.namespace, p.trigger_name, p.planner, p.objective, p.bound, p.profile, p.profile_hash,
  p.snapshot_hash, p.status, p.created_at, p.placed, p.unplaced, p.evicted, p.made_up, c.hash AS basis, r.kind AS run_kind, s.kind AS source_kind, s.name AS source_name, s.server AS source_server`;
const PLAN_FROM = 'plans p JOIN runs r ON r.id = p.run_id JOIN sources s ON s.id = r.source_id LEFT JOIN clusters c ON c.id = p.cluster_id';

export class PlanStore {
  readonly driver: DriverName;
  private readonly clock: Clock;
  private readonly keepPerPodSet: number;
  private readonly topScores: number;
  private readonly statements = new Map<string, SqlStatement>();

  constructor(
    private readonly db: SqlDatabase,
    readonly file: string,
    options: StoreOptions,
  ) {
    this.driver = db.driver;
    this.clock = options.clock ?? systemClock;
    this.keepPerPodSet = Math.max(1, options.keepPerPodSet ?? 100);
    this.topScores = Math.max(0, options.topScores ?? 3);
  }

  close(): void {
    this.db.close();
  }

  // ---- runs

  /** Starts a run (a preview, a trigger firing, a live session) on a source; its plans are saved under it. */
  startRun(source: SourceRef, kind: RunKind): Result<number, StoreError> {
    return this.attempt(() =>
      immediate(
        this.db,
        () =>
          this.sql('INSERT INTO runs (source_id, kind, started_at) VALUES (?, ?, ?)').run(this.sourceId(source), kind, this.clock.now())
            .lastInsertRowid,
      ),
    );
  }

  finishRun(runId: number, outcome: Exclude<RunOutcome, 'running'>, message?: string): Result<void, StoreError> {
    const changed = this.attempt(
      () =>
        this.sql('UPDATE runs SET finished_at = ?, outcome = ?, message = ? WHERE id = ?').run(
          this.clock.now(),
          outcome,
          message ?? null,
          runId,
        ).changes,
    );
    if (!changed.ok) return changed;
    return changed.value === 0 ? notFound(`run ${runId}`) : ok(undefined);
  }

  runs(query: Paging & { readonly source?: SourceRef } = {}): Result<Page<RunSummary>, StoreError> {
    return this.attempt(() => {
      const where: string[] = [];
      const params: SqlValue[] = [];
      if (query.source) {
        where.push('r.source_id = ?');
        params.push(this.existingSourceId(query.source));
      }
      return this.page(
        'SELECT r.*, s.kind AS source_kind, s.name AS source_name, s.server AS source_server FROM runs r JOIN sources s ON s.id = r.source_id',
        'r.id',
        where,
        params,
        query,
        (row) => ({
          id: row['id'] as number,
          source: sourceOf(row),
          kind: row['kind'] as RunKind,
          startedAt: row['started_at'] as number,
          ...optional('finishedAt', row['finished_at'] as number | null),
          outcome: row['outcome'] as RunOutcome,
          ...optional('message', row['message'] as string | null),
        }),
      );
    });
  }

  // ---- plans

  /**
   * Saves a plan under a run, in one transaction with its assignments, unplaced pods and diagnoses,
   * and prunes the pod set's history to the newest `keepPerPodSet` in the same transaction. Encoding
   * and compression happen before the write lock is taken. `basis`: what the plan was made from (the
   * cluster, and the pod-set profile), kept once per content (plans made from the same share it) for
   * planBasis; the pods other sets' plans placed before it (Plan.placedBefore) are kept on its own
   * row, so the cluster it saw is read back exactly without a second copy of the cluster.
   */
  savePlan(
    runId: number,
    plan: Plan,
    meta: { readonly profileHash: string; readonly madeUp?: readonly string[]; readonly basis?: PlanBasis },
  ): Result<number, StoreError> {
    const duplicate = firstDuplicate([...plan.assignments.map((a) => a.pod), ...plan.unplaced.map((u) => u.pod)]);
    if (duplicate !== undefined)
      return err({ kind: 'invalid', message: `plan for pod set ${plan.podSet} lists pod ${duplicate} more than once` });
    const victims = plan.victims ?? [];
    const evictedTwice = firstDuplicate(victims.map((v) => v.pod));
    if (evictedTwice !== undefined)
      return err({ kind: 'invalid', message: `plan for pod set ${plan.podSet} evicts pod ${evictedTwice} more than once` });
    return this.attempt(() => {
      const diagnosed: Array<{ pod: string; diagnosis: Diagnosis }> = [];
      for (const a of plan.assignments) if (a.diagnosis) diagnosed.push({ pod: a.pod, diagnosis: a.diagnosis });
      for (const u of plan.unplaced) diagnosed.push({ pod: u.pod, diagnosis: u.diagnosis });
      const packed = packDiagnoses(
        diagnosed.map((d) => d.diagnosis),
        this.topScores,
      );
      const basis = meta.basis ? basisText(meta.basis) : undefined;
      const data = basis ? deflateSync(basis.cluster) : undefined;
      // The pods placed before the plan: a delta on its cluster's row, which plans made from the same cluster share.
      const placedBefore = deflateSync(JSON.stringify((plan.placedBefore ?? []).map((p) => [p.namespace, p.pod, p.node])));
      return immediate(this.db, () => {
        let clusterId: number | null = null;
        if (basis && data) {
          this.sql('INSERT INTO clusters (hash, data, profile) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING').run(
            basis.hash,
            data,
            basis.profile ?? null,
          );
          clusterId = this.sql('SELECT id FROM clusters WHERE hash = ?').get(basis.hash)?.['id'] as number;
        }
        const id = this.sql(
          `INSERT INTO plans (run_id, pod_set, namespace, trigger_name, planner, objective, bound, profile, profile_hash, snapshot_hash, created_at, placed, unplaced, evicted, made_up, cluster_id, placed_before)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          runId,
          plan.podSet,
          plan.namespace,
          plan.trigger ?? null,
          plan.planner,
          plan.objective ?? null,
          plan.bound ? JSON.stringify(plan.bound) : null,
          plan.profile,
          meta.profileHash,
          plan.snapshotHash,
          plan.createdAt,
          plan.assignments.length,
          plan.unplaced.length,
          victims.length,
          meta.madeUp?.length ? JSON.stringify(meta.madeUp) : null,
          clusterId,
          placedBefore,
        ).lastInsertRowid;
        const insertChunk = this.sql('INSERT INTO diagnosis_chunks (plan_id, data) VALUES (?, ?)');
        const chunkIds = packed.chunks.map((data) => insertChunk.run(id, data).lastInsertRowid);
        this.insertMany('assignments', ['plan_id', 'pod', 'node', 'seq'], plan.assignments, (a, i) => [id, a.pod, a.node, i]);
        const devices = plan.assignments.flatMap((a) => (a.devices ?? []).map((d, seq) => ({ pod: a.pod, seq, d })));
        this.insertMany(
          'allocations',
          ['plan_id', 'pod', 'seq', 'claim', 'request', 'driver', 'pool', 'device', 'existing'],
          devices,
          ({ pod, seq, d }) => [id, pod, seq, d.claim, d.request, d.driver, d.pool, d.device, d.existing ? 1 : 0],
        );
        this.insertMany('unplaced', ['plan_id', 'pod', 'message', 'seq'], plan.unplaced, (u, i) => [id, u.pod, u.message, i]);
        this.insertMany('victims', ['plan_id', 'pod', 'node', 'preemptor', 'seq'], victims, (v, i) => [id, v.pod, v.node, v.by, i]);
        this.insertMany('diagnoses', ['plan_id', 'pod', 'reasons', 'top_scores', 'chunk_id', 'slot'], diagnosed, (d, i) => {
          const place = packed.places[i]!;
          const summary = packed.summaries[i]!;
          return [id, d.pod, summary.reasons, summary.topScores, chunkIds[place.chunk]!, place.slot];
        });
        this.sql(
          `DELETE FROM plans WHERE status != 'applied' AND id IN (
             SELECT id FROM plans WHERE namespace = ? AND pod_set = ? ORDER BY id DESC LIMIT -1 OFFSET ?)`,
        ).run(plan.namespace, plan.podSet, this.keepPerPodSet);
        // A cluster goes with the last plan made on it.
        this.sql('DELETE FROM clusters WHERE id NOT IN (SELECT cluster_id FROM plans WHERE cluster_id IS NOT NULL)').run();
        return id;
      });
    });
  }

  /** Plans newest first, filtered by any of pod set, namespace, trigger, source and status. */
  history(query: HistoryQuery = {}): Result<Page<PlanSummary>, StoreError> {
    return this.attempt(() => {
      const where: string[] = [];
      const params: SqlValue[] = [];
      const filter = (clause: string, value: SqlValue | undefined): void => {
        if (value === undefined) return;
        where.push(clause);
        params.push(value);
      };
      filter('p.namespace = ?', query.namespace);
      filter('p.pod_set = ?', query.podSet);
      filter('p.trigger_name = ?', query.trigger);
      filter('p.status = ?', query.status);
      if (query.source) filter('r.source_id = ?', this.existingSourceId(query.source));
      return this.page(`SELECT ${PLAN_COLUMNS} FROM ${PLAN_FROM}`, 'p.id', where, params, query, summaryOf);
    });
  }

  summary(id: number): Result<PlanSummary, StoreError> {
    const row = this.attempt(() => this.sql(`SELECT ${PLAN_COLUMNS} FROM ${PLAN_FROM} WHERE p.id = ?`).get(id));
    if (!row.ok) return row;
    return row.value ? ok(summaryOf(row.value)) : notFound(`plan ${id}`);
  }

  /** The whole plan in the planner's order, each pod with its reason histogram and top scores. */
  getPlan(id: number): Result<StoredPlan, StoreError> {
    const summary = this.summary(id);
    if (!summary.ok) return summary;
    return this.attempt(() => {
      const summaries = new Map<string, DiagnosisSummary>();
      for (const row of this.sql('SELECT pod, reasons, top_scores FROM diagnoses WHERE plan_id = ?').all(id)) {
        summaries.set(row['pod'] as string, readSummary({ reasons: row['reasons'] as string, topScores: row['top_scores'] as string }));
      }
      const withSummary = <T extends { pod: string }>(item: T): T & { diagnosis?: DiagnosisSummary } => {
        const diagnosis = summaries.get(item.pod);
        return diagnosis ? { ...item, diagnosis } : item;
      };
      return {
        summary: summary.value,
        assignments: this.assignmentRows(id).map(withSummary),
        unplaced: this.unplacedRows(id).map(withSummary),
        victims: this.victimRows(id),
      };
    });
  }

  /**
   * What plan `id` was made from, as savePlan kept it: its cluster, its pod-set profile (absent on
   * plans kept before schema version 9) and the pods other sets' plans placed before it (absent on
   * plans kept before schema version 10); undefined when the plan was recorded without its cluster
   * (before schema version 8, or a live scheduler's plans and decisions, made on a cluster that moves).
   */
  planBasis(id: number): Result<StoredBasis | undefined, StoreError> {
    const row = this.attempt(() =>
      this.sql(
        'SELECT p.cluster_id, p.placed_before, c.data, c.profile FROM plans p LEFT JOIN clusters c ON c.id = p.cluster_id WHERE p.id = ?',
      ).get(id),
    );
    if (!row.ok) return row;
    if (!row.value) return notFound(`plan ${id}`);
    const { data, profile } = row.value;
    return this.attempt(() => {
      if (data === null || data === undefined) return undefined;
      const cluster = JSON.parse(inflateSync(data as Uint8Array).toString('utf8')) as ClusterSnapshot;
      const placedBefore = placedBeforeOf(row.value?.['placed_before']);
      return {
        cluster,
        ...(typeof profile === 'string' ? { profile: JSON.parse(profile) as Profile } : {}),
        ...(placedBefore ? { placedBefore } : {}),
      };
    });
  }

  /** One pod's full diagnosis, decompressed; undefined when the plan kept none for it. */
  diagnosis(planId: number, pod: string): Result<Diagnosis | undefined, StoreError> {
    return this.attempt(() => {
      const row = this.sql(
        'SELECT c.data, d.slot FROM diagnoses d JOIN diagnosis_chunks c ON c.id = d.chunk_id WHERE d.plan_id = ? AND d.pod = ?',
      ).get(planId, pod);
      return row ? Chunk.open(row['data'] as Uint8Array).diagnosis(row['slot'] as number) : undefined;
    });
  }

  /** The plan as the planner made it, every diagnosis decompressed. */
  loadPlan(id: number): Result<Plan, StoreError> {
    const summary = this.summary(id);
    if (!summary.ok) return summary;
    return this.attempt(() => {
      const chunks = new Map<number, Chunk>();
      for (const row of this.sql('SELECT id, data FROM diagnosis_chunks WHERE plan_id = ?').all(id))
        chunks.set(row['id'] as number, Chunk.open(row['data'] as Uint8Array));
      const full = new Map<string, Diagnosis>();
      for (const row of this.sql('SELECT pod, chunk_id, slot FROM diagnoses WHERE plan_id = ?').all(id)) {
        const d = chunks.get(row['chunk_id'] as number)?.diagnosis(row['slot'] as number);
        if (d) full.set(row['pod'] as string, d);
      }
      const assignments: PlanAssignment[] = this.assignmentRows(id).map((a) => {
        const diagnosis = full.get(a.pod);
        return diagnosis ? { ...a, diagnosis } : a;
      });
      const unplaced: UnplacedPod[] = [];
      for (const u of this.unplacedRows(id)) {
        const diagnosis = full.get(u.pod);
        if (!diagnosis) throw new Error(`plan ${id}: the diagnosis of unplaced pod ${u.pod} is missing`);
        unplaced.push({ ...u, diagnosis });
      }
      const placedBefore = placedBeforeOf(this.sql('SELECT placed_before FROM plans WHERE id = ?').get(id)?.['placed_before']);
      return {
        ...planHeader(summary.value),
        assignments,
        unplaced,
        ...this.victimsOf(id),
        ...(placedBefore?.length ? { placedBefore } : {}),
      };
    });
  }

  /** What changed from plan `a` to plan `b`: pods moved, newly placed, newly unplaced (with why). */
  diffPlans(a: number, b: number): Result<PlanDiff, StoreError> {
    const from = this.summary(a);
    if (!from.ok) return from;
    const to = this.summary(b);
    if (!to.ok) return to;
    return this.attempt(() =>
      diffPlacements(from.value, to.value, this.placements(a), this.placements(b), (pod) => {
        const row = this.sql('SELECT reasons FROM diagnoses WHERE plan_id = ? AND pod = ?').get(b, pod);
        return row ? (JSON.parse(row['reasons'] as string) as ReasonCount[]) : [];
      }),
    );
  }

  /**
   * The plan as SchedulePlan YAML under Pallet's name rule, as src/manifests writes it; with
   * `diagnoses` every pod's full diagnosis goes in too, so reading it back gives the plan saved.
   */
  exportPlan(id: number, options: WritePlanOptions & { readonly madeUpNames?: boolean } = {}): Result<string, StoreError> {
    const summary = this.summary(id);
    if (!summary.ok) return summary;
    if (summary.value.podSet === ALL_PENDING_PODS)
      return err({
        kind: 'invalid',
        message: `plan ${id} is a podplan schedule run over every pending pod, not a pod set's plan: it has no SchedulePlan`,
      });
    const madeUp = summary.value.madeUp ?? [];
    if (madeUp.length > 0 && !options.madeUpNames)
      return err({
        kind: 'invalid',
        message: `plan ${id} places pods whose names were made up for workload replicas with no pod in the files (${madeUp.join(', ')}): a SchedulePlan naming them matches no real pod (Pallet matches pods by name); --made-up-names writes it anyway`,
      });
    if (options.diagnoses) {
      const plan = this.loadPlan(id);
      return plan.ok ? ok(writeSchedulePlan(plan.value, options)) : plan;
    }
    return this.attempt(() =>
      writeSchedulePlan({
        ...planHeader(summary.value),
        assignments: this.assignmentRows(id),
        unplaced: this.unplacedRows(id),
        ...this.victimsOf(id),
      }),
    );
  }

  latestApplied(podSet: string, namespace: string): Result<PlanSummary | undefined, StoreError> {
    return this.attempt(() => {
      const row = this.sql(
        `SELECT ${PLAN_COLUMNS} FROM ${PLAN_FROM} WHERE p.namespace = ? AND p.pod_set = ? AND p.status = 'applied' ORDER BY p.id DESC LIMIT 1`,
      ).get(namespace, podSet);
      return row ? summaryOf(row) : undefined;
    });
  }

  /** Marks the plan applied; the pod set's previously applied plan becomes superseded, in one transaction. */
  markApplied(id: number): Result<void, StoreError> {
    const summary = this.summary(id);
    if (!summary.ok) return summary;
    const { namespace, podSet } = summary.value;
    return this.attempt(() =>
      immediate(this.db, () => {
        this.sql("UPDATE plans SET status = 'superseded' WHERE namespace = ? AND pod_set = ? AND status = 'applied' AND id != ?").run(
          namespace,
          podSet,
          id,
        );
        this.sql("UPDATE plans SET status = 'applied' WHERE id = ?").run(id);
      }),
    );
  }

  /** The bound its solver proved for plan `id` after it was kept (the editor keeps a preview before its bound). */
  setBound(id: number, bound: PlanBound): Result<void, StoreError> {
    const changed = this.attempt(() => this.sql('UPDATE plans SET bound = ? WHERE id = ?').run(JSON.stringify(bound), id).changes);
    if (!changed.ok) return changed;
    return changed.value === 0 ? notFound(`plan ${id}`) : ok(undefined);
  }

  markSuperseded(id: number): Result<void, StoreError> {
    const changed = this.attempt(() => this.sql("UPDATE plans SET status = 'superseded' WHERE id = ?").run(id).changes);
    if (!changed.ok) return changed;
    return changed.value === 0 ? notFound(`plan ${id}`) : ok(undefined);
  }

  // ---- triggers and claims

  recordTriggerTransition(t: Omit<TriggerTransition, 'id'>): Result<number, StoreError> {
    return this.attempt(
      () =>
        this.sql(
          'INSERT INTO trigger_transitions (namespace, trigger_name, from_state, to_state, cause, at) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(t.namespace, t.trigger, t.from ?? null, t.to, t.cause, t.at).lastInsertRowid,
    );
  }

  triggerHistory(
    query: Paging & { readonly namespace?: string; readonly trigger?: string } = {},
  ): Result<Page<TriggerTransition>, StoreError> {
    return this.attempt(() => {
      const [where, params] = equalities({ namespace: query.namespace, trigger_name: query.trigger });
      return this.page('SELECT * FROM trigger_transitions', 'id', where, params, query, (row) => ({
        id: row['id'] as number,
        namespace: row['namespace'] as string,
        trigger: row['trigger_name'] as string,
        ...optional('from', row['from_state'] as string | null),
        to: row['to_state'] as string,
        cause: row['cause'] as TriggerCause,
        at: row['at'] as number,
      }));
    });
  }

  recordClaim(c: Omit<ClaimRecord, 'id'>): Result<number, StoreError> {
    return this.attempt(
      () =>
        this.sql('INSERT INTO claims (namespace, pool, request, pod, outcome, message, at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          c.namespace,
          c.pool,
          c.request,
          c.pod ?? null,
          c.outcome,
          c.message ?? null,
          c.at,
        ).lastInsertRowid,
    );
  }

  claims(query: Paging & { readonly namespace?: string; readonly pool?: string } = {}): Result<Page<ClaimRecord>, StoreError> {
    return this.attempt(() => {
      const [where, params] = equalities({ namespace: query.namespace, pool: query.pool });
      return this.page('SELECT * FROM claims', 'id', where, params, query, (row) => ({
        id: row['id'] as number,
        namespace: row['namespace'] as string,
        pool: row['pool'] as string,
        request: row['request'] as string,
        ...optional('pod', row['pod'] as string | null),
        outcome: row['outcome'] as ClaimOutcome,
        ...optional('message', row['message'] as string | null),
        at: row['at'] as number,
      }));
    });
  }

  // ---- internals

  /** Statements are prepared once per SQL text and reused. */
  private sql(text: string): SqlStatement {
    let st = this.statements.get(text);
    if (!st) {
      st = this.db.prepare(text);
      this.statements.set(text, st);
    }
    return st;
  }

  /** SQLite's own failures (a locked or full disk, a damaged file) as values. */
  /** Rows go in BATCH to a statement: one call into SQLite per batch rather than per row. */
  private insertMany<T>(table: string, columns: readonly string[], items: readonly T[], row: (item: T, index: number) => SqlValue[]): void {
    const one = `(${columns.map(() => '?').join(', ')})`;
    const head = `INSERT INTO ${table} (${columns.join(', ')}) VALUES `;
    const batch = this.sql(head + Array<string>(BATCH).fill(one).join(', '));
    let i = 0;
    for (; i + BATCH <= items.length; i += BATCH) {
      const params: SqlValue[] = [];
      for (let j = i; j < i + BATCH; j++) params.push(...row(items[j]!, j));
      batch.run(...params);
    }
    const single = this.sql(head + one);
    for (; i < items.length; i++) single.run(...row(items[i]!, i));
  }

  private attempt<T>(body: () => T): Result<T, StoreError> {
    try {
      return ok(body());
    } catch (e) {
      return err({ kind: 'sqlite', message: firstLine(e) });
    }
  }

  private sourceId(source: SourceRef): number {
    const server = safeServer(source.server ?? '');
    this.sql('INSERT INTO sources (kind, name, server) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(source.kind, source.name, server);
    return this.sql('SELECT id FROM sources WHERE kind = ? AND name = ? AND server = ?').get(source.kind, source.name, server)![
      'id'
    ] as number;
  }

  /** The source's id, or -1 (matching nothing) when it was never recorded. */
  private existingSourceId(source: SourceRef): number {
    const row = this.sql('SELECT id FROM sources WHERE kind = ? AND name = ? AND server = ?').get(
      source.kind,
      source.name,
      safeServer(source.server ?? ''),
    );
    return row ? (row['id'] as number) : -1;
  }

  private page<T>(select: string, idColumn: string, where: string[], params: SqlValue[], paging: Paging, map: (row: Row) => T): Page<T> {
    const limit = Math.max(1, Math.floor(paging.limit ?? DEFAULT_LIMIT));
    const conditions = paging.before !== undefined ? [...where, `${idColumn} < ?`] : where;
    const values = paging.before !== undefined ? [...params, paging.before] : params;
    const text = `${select}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${idColumn} DESC LIMIT ?`;
    // One row more than asked tells whether another page follows.
    const rows = this.sql(text).all(...values, limit + 1);
    const items = rows.slice(0, limit).map(map);
    const last = rows.length > limit ? rows[limit - 1] : undefined;
    return last ? { items, next: last['id'] as number } : { items };
  }

  /** The placed pods in the plan's order, each with the devices its claims get when it has any. */
  private assignmentRows(planId: number): Array<{ pod: string; node: string; devices?: PlannedDevice[] }> {
    const devices = new Map<string, PlannedDevice[]>();
    for (const row of this.sql(
      'SELECT pod, claim, request, driver, pool, device, existing FROM allocations WHERE plan_id = ? ORDER BY pod, seq',
    ).all(planId)) {
      const pod = row['pod'] as string;
      let list = devices.get(pod);
      if (!list) devices.set(pod, (list = []));
      list.push({
        claim: row['claim'] as string,
        request: row['request'] as string,
        driver: row['driver'] as string,
        pool: row['pool'] as string,
        device: row['device'] as string,
        ...(row['existing'] ? { existing: true } : {}),
      });
    }
    const rows = this.sql('SELECT pod, node FROM assignments WHERE plan_id = ? ORDER BY seq').all(planId) as Array<{
      pod: string;
      node: string;
    }>;
    if (devices.size === 0) return rows;
    return rows.map((r) => {
      const got = devices.get(r.pod);
      return got ? { ...r, devices: got } : r;
    });
  }

  private unplacedRows(planId: number): Array<{ pod: string; message: string }> {
    return this.sql('SELECT pod, message FROM unplaced WHERE plan_id = ? ORDER BY seq').all(planId) as Array<{
      pod: string;
      message: string;
    }>;
  }

  private victimRows(planId: number): PlanVictim[] {
    return this.sql('SELECT pod, node, preemptor FROM victims WHERE plan_id = ? ORDER BY seq')
      .all(planId)
      .map((row) => ({ pod: row['pod'] as string, node: row['node'] as string, by: row['preemptor'] as string }));
  }

  /** A Plan's `victims`, left out when it evicts none (as the planner leaves it out). */
  private victimsOf(planId: number): { victims?: readonly PlanVictim[] } {
    const victims = this.victimRows(planId);
    return victims.length > 0 ? { victims } : {};
  }

  /** pod → node for placed pods, pod → message for unplaced ones, evicted pod → its eviction. */
  private placements(planId: number): Placements {
    const placed = new Map<string, string>();
    for (const row of this.sql('SELECT pod, node FROM assignments WHERE plan_id = ?').all(planId))
      placed.set(row['pod'] as string, row['node'] as string);
    const unplaced = new Map<string, string>();
    for (const row of this.sql('SELECT pod, message FROM unplaced WHERE plan_id = ?').all(planId))
      unplaced.set(row['pod'] as string, row['message'] as string);
    return { placed, unplaced, victims: new Map(this.victimRows(planId).map((v) => [v.pod, v])) };
  }
}

/** A basis as the clusters table keeps it: the cluster's JSON (deflated there), the profile's, and the hash it is named by. */
interface BasisText {
  readonly cluster: string;
  readonly profile?: string;
  readonly hash: string;
}

/**
 * The last basis written, by identity (a workspace hands the same cluster and profile objects to
 * every preview until they change): a preview asked again hashes nothing. Budget: one basis.
 */
let lastBasis: { readonly cluster: ClusterSnapshot; readonly profile: Profile | undefined; readonly text: BasisText } | undefined;

/**
 * The basis's JSON and its sha256: of the cluster's JSON alone without a profile (as schema version
 * 8 wrote every row), else of {"cluster":…,"profile":…}. The one place a basis is named.
 */
function basisText(basis: PlanBasis): BasisText {
  if (lastBasis && lastBasis.cluster === basis.cluster && lastBasis.profile === basis.profile) return lastBasis.text;
  const cluster = JSON.stringify(basis.cluster);
  const profile = basis.profile === undefined ? undefined : JSON.stringify(basis.profile);
  const named = profile === undefined ? cluster : `{"cluster":${cluster},"profile":${profile}}`;
  const text = {
    cluster,
    ...(profile !== undefined ? { profile } : {}),
    hash: `sha256:${createHash('sha256').update(named).digest('hex')}`,
  };
  lastBasis = { cluster: basis.cluster, profile: basis.profile, text };
  return text;
}

/**
 * The hash a plan made from `basis` is kept under (PlanSummary.basis): two plans made from the same
 * cluster and profile have the same, and any object or setting of either that differs changes it.
 */
export function basisHash(basis: PlanBasis): string {
  return basisText(basis).hash;
}

function summaryOf(row: Row): PlanSummary {
  return {
    id: row['id'] as number,
    runId: row['run_id'] as number,
    runKind: row['run_kind'] as RunKind,
    source: sourceOf(row),
    podSet: row['pod_set'] as string,
    namespace: row['namespace'] as string,
    ...optional('trigger', row['trigger_name'] as string | null),
    planner: row['planner'] as string,
    ...optional('objective', row['objective'] as Objective | null),
    ...optional('bound', row['bound'] === null || row['bound'] === undefined ? null : (JSON.parse(row['bound'] as string) as PlanBound)),
    profile: row['profile'] as string,
    profileHash: row['profile_hash'] as string,
    snapshotHash: row['snapshot_hash'] as string,
    status: row['status'] as PlanStatus,
    createdAt: row['created_at'] as number,
    placed: row['placed'] as number,
    unplaced: row['unplaced'] as number,
    evicted: row['evicted'] as number,
    ...optional('madeUp', typeof row['made_up'] === 'string' ? (JSON.parse(row['made_up']) as string[]) : null),
    ...optional('basis', row['basis'] as string | null),
  };
}

/** What a Plan says besides its pods. */
function planHeader(s: PlanSummary): Omit<Plan, 'assignments' | 'unplaced'> {
  return {
    podSet: s.podSet,
    namespace: s.namespace,
    ...optional('trigger', s.trigger),
    planner: s.planner,
    ...optional('objective', s.objective),
    ...optional('bound', s.bound),
    profile: s.profile,
    createdAt: s.createdAt,
    snapshotHash: s.snapshotHash,
  };
}

/** A plans row's placed_before: the pods placed before the plan, or undefined on a row kept before schema version 10. */
function placedBeforeOf(value: unknown): PlacedPod[] | undefined {
  if (value === null || value === undefined) return undefined;
  const rows = JSON.parse(inflateSync(value as Uint8Array).toString('utf8')) as Array<[string, string, string]>;
  return rows.map(([namespace, pod, node]) => ({ namespace, pod, node }));
}

function sourceOf(row: Row): Source {
  return { kind: row['source_kind'] as SourceKind, name: row['source_name'] as string, server: row['source_server'] as string };
}

function optional<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value === null || value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** `column = ?` for each given value. */
function equalities(values: Record<string, string | undefined>): [string[], SqlValue[]] {
  const entries = Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined);
  return [entries.map(([column]) => `${column} = ?`), entries.map(([, value]) => value)];
}

function firstDuplicate(names: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) return n;
    seen.add(n);
  }
  return undefined;
}

function notFound(what: string): Result<never, StoreError> {
  return err({ kind: 'not-found', message: `${what} is not in the history` });
}
