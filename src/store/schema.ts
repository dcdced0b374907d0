// The history schema and its migrations. PRAGMA user_version holds the number of migrations applied;
// each migration runs in its own IMMEDIATE transaction with the version bump, so a crash leaves the
// database at the previous version, and two processes opening an old file at once migrate it once.
// A released migration is never edited: a change is a new one at the end.
import { err, ok, type Result } from '../engine/api/result';
import { immediate, type SqlDatabase } from './driver';

export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sources, runs, plans with assignments, unplaced pods and compact diagnoses, trigger transitions',
    sql: `
      -- Where a run's cluster state came from. Only what names it: never a user, token or key.
      CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('workspace', 'kube-context')),
        name TEXT NOT NULL,
        server TEXT NOT NULL,
        UNIQUE (kind, name, server)
      );
      CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources (id),
        kind TEXT NOT NULL CHECK (kind IN ('preview', 'trigger', 'live')),
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        outcome TEXT NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'succeeded', 'failed')),
        message TEXT
      );
      CREATE TABLE plans (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs (id),
        pod_set TEXT NOT NULL,
        namespace TEXT NOT NULL,
        trigger_name TEXT,
        planner TEXT NOT NULL,
        profile TEXT NOT NULL,
        profile_hash TEXT NOT NULL,
        snapshot_hash TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'applied', 'superseded')),
        created_at INTEGER NOT NULL,
        placed INTEGER NOT NULL,
        unplaced INTEGER NOT NULL
      );
      CREATE INDEX plans_by_pod_set ON plans (namespace, pod_set, id);
      -- seq keeps the planner's order of the pods.
      CREATE TABLE assignments (
        plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
        pod TEXT NOT NULL,
        node TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (plan_id, pod)
      ) WITHOUT ROWID;
      CREATE TABLE unplaced (
        plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
        pod TEXT NOT NULL,
        message TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (plan_id, pod)
      ) WITHOUT ROWID;
      -- Full diagnoses, many pods to a chunk: deflated JSON arrays.
      CREATE TABLE diagnosis_chunks (
        id INTEGER PRIMARY KEY,
        plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
        data BLOB NOT NULL
      );
      CREATE INDEX diagnosis_chunks_by_plan ON diagnosis_chunks (plan_id);
      -- Per pod: the reason histogram and the top scored nodes as JSON, and where its full diagnosis
      -- is (chunk, slot in the chunk). A rowid table: rows of a kilobyte or more would spill out of
      -- a WITHOUT ROWID b-tree's pages. chunk_id is not a foreign key: deleting a chunk would then
      -- scan this table, and chunks only go away with their plan, which cascades here too.
      CREATE TABLE diagnoses (
        id INTEGER PRIMARY KEY,
        plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
        pod TEXT NOT NULL,
        reasons TEXT NOT NULL,
        top_scores TEXT NOT NULL,
        chunk_id INTEGER NOT NULL,
        slot INTEGER NOT NULL,
        UNIQUE (plan_id, pod)
      );
      CREATE TABLE trigger_transitions (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        trigger_name TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT NOT NULL,
        cause TEXT NOT NULL CHECK (cause IN ('manual', 'quiet-time', 'dependency')),
        at INTEGER NOT NULL
      );
      CREATE INDEX trigger_transitions_by_trigger ON trigger_transitions (namespace, trigger_name, id);
    `,
  },
  {
    version: 2,
    description: 'claims handed out by the per-pool claim scheduler',
    sql: `
      CREATE TABLE claims (
        id INTEGER PRIMARY KEY,
        namespace TEXT NOT NULL,
        pool TEXT NOT NULL,
        request TEXT NOT NULL,
        pod TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN ('claimed', 'conflict', 'failed')),
        message TEXT,
        at INTEGER NOT NULL
      );
      CREATE INDEX claims_by_pool ON claims (namespace, pool, id);
    `,
  },
  {
    version: 3,
    description: 'indexes so history by trigger and by source does not scan every plan',
    sql: `
      CREATE INDEX plans_by_trigger ON plans (namespace, trigger_name, id) WHERE trigger_name IS NOT NULL;
      CREATE INDEX plans_by_run ON plans (run_id, id);
      CREATE INDEX runs_by_source ON runs (source_id, id);
    `,
  },
  {
    version: 4,
    description: "each plan's objective and the bound its solver proved (JSON: nodes, placeable, optimal, gap, solver)",
    sql: `
      ALTER TABLE plans ADD COLUMN objective TEXT;
      ALTER TABLE plans ADD COLUMN bound TEXT;
    `,
  },
  {
    version: 5,
    description: 'the running pods a plan evicts (a profile that lets plans preempt), and how many on the plan',
    sql: `
      ALTER TABLE plans ADD COLUMN evicted INTEGER NOT NULL DEFAULT 0;
      -- seq keeps the plan's order; preemptor is the pod of the plan it makes room for.
      CREATE TABLE victims (
        plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
        pod TEXT NOT NULL,
        node TEXT NOT NULL,
        preemptor TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (plan_id, pod)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 6,
    description: 'the pods of a plan whose names were made up for workload replicas (JSON list), which show marks and export refuses',
    sql: `
      ALTER TABLE plans ADD COLUMN made_up TEXT;
    `,
  },
  {
    version: 7,
    description: "the devices each placed pod's claims get (DRA), in the order the plan allocates them",
    sql: `
      -- seq keeps the order of a pod's devices; existing: the claim was allocated before the plan.
      CREATE TABLE allocations (
        plan_id INTEGER NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
        pod TEXT NOT NULL,
        seq INTEGER NOT NULL,
        claim TEXT NOT NULL,
        request TEXT NOT NULL,
        driver TEXT NOT NULL,
        pool TEXT NOT NULL,
        device TEXT NOT NULL,
        existing INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (plan_id, pod, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 8,
    description: 'the cluster each plan was made on (deflated JSON), once per content, so a stored plan is explained on it',
    sql: `
      -- hash: sha256 of the JSON; plans made on the same cluster share its row, which goes with the last of them.
      CREATE TABLE clusters (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        data BLOB NOT NULL
      );
      -- NULL: the plan was recorded without its cluster (before this version, or a live scheduler's decisions).
      ALTER TABLE plans ADD COLUMN cluster_id INTEGER REFERENCES clusters (id);
      CREATE INDEX plans_by_cluster ON plans (cluster_id) WHERE cluster_id IS NOT NULL;
    `,
  },
  {
    version: 9,
    description: 'the pod-set profile each plan was made with, kept with its cluster, so a stored plan is explained with that profile',
    sql: `
      -- JSON; NULL on rows kept before this version. With a profile, hash is the sha256 of
      -- {"cluster":…,"profile":…}: plans share a row only when both are the same.
      ALTER TABLE clusters ADD COLUMN profile TEXT;
    `,
  },
  {
    version: 10,
    description:
      "the pods the plans of other sets placed before each plan was made (a trigger's dependencies), so a stored plan is judged on the cluster it saw",
    sql: `
      -- Deflated JSON [[namespace, pod, node], …] in the order they were placed: a delta on the plan's
      -- shared clusters row, which stays one per content. [] when there were none; NULL on rows kept
      -- before this version, when it is not known.
      ALTER TABLE plans ADD COLUMN placed_before BLOB;
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function userVersion(db: SqlDatabase): number {
  return Number(db.prepare('PRAGMA user_version').get()?.['user_version'] ?? 0);
}

/** A file another program made: version 0 but tables already there. */
export function hasForeignTables(db: SqlDatabase): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' LIMIT 1").get() !== undefined;
}

/** Applies the migrations after the database's version, up to `target`; returns the versions passed through. */
export function migrate(db: SqlDatabase, target = SCHEMA_VERSION): Result<{ from: number; to: number }> {
  const from = userVersion(db);
  if (from > target) return err(`the database is at schema version ${from}, newer than ${target}`);
  for (const m of MIGRATIONS) {
    if (m.version <= from || m.version > target) continue;
    immediate(db, () => {
      // Another process may have migrated between our read and our lock.
      if (userVersion(db) >= m.version) return;
      db.exec(m.sql);
      db.exec(`PRAGMA user_version = ${m.version}`);
    });
  }
  return ok({ from, to: userVersion(db) });
}
