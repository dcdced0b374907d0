// A fake Dispatcher built from a small table (node → what it needs, how its body ends), and the
// helpers the reconcile tests and the benchmark share.
import { seededRandom } from '../../../src/engine/api/random';
import {
  blocked,
  DrainLevel,
  failed,
  Reconciler,
  terminal,
  type Dispatcher,
  type Outcome,
  type ReconcilerOptions,
} from '../../../src/engine/reconcile/reconciler';

export interface Row {
  /** Ids the body needs satisfied (a node that ended ready, or data the test provided). */
  readonly needs?: readonly string[];
  /** How the body ends once it has what it needs (default ready). */
  readonly ready?: boolean;
  /** Ready only when run at a drain level: a node that settles at the fixpoint. */
  readonly readyAtDrain?: boolean;
  /** The body throws this message. */
  readonly throws?: string;
  /** The body waits until the test calls `open(id)`. */
  readonly gated?: boolean;
}

/** node id → its row, or just the list of what it needs. */
export type Table = Readonly<Record<string, Row | readonly string[]>>;

interface Latch {
  readonly promise: Promise<void>;
  readonly open: () => void;
}

function latch(): Latch {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export class FakeDispatcher implements Dispatcher {
  /** Every dispatch, in order: [id, level]. */
  readonly calls: Array<readonly [string, DrainLevel]> = [];
  readonly satisfied = new Set<string>();
  inFlight = 0;
  maxInFlight = 0;
  private readonly gates = new Map<string, Latch>();
  private readonly starts = new Map<string, Latch>();
  private readonly begun = new Set<string>();

  /** `hops`: microtasks each body yields before it answers, so bodies overlap on the pool. */
  constructor(
    private readonly table: Table,
    private readonly hops = 2,
  ) {}

  async dispatch(id: string, level: DrainLevel): Promise<Outcome> {
    this.calls.push([id, level]);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      this.begun.add(id);
      this.starts.get(id)?.open();
      const entry = this.table[id];
      if (entry === undefined) return failed(`the table has no row for ${id}`);
      const row: Row = Array.isArray(entry) ? { needs: entry } : (entry as Row);
      // Like a real body, it looks at the world first and answers later: what it needs may become
      // satisfied in between, and the driver must not lose that wake-up.
      const missing = (row.needs ?? []).filter((need) => !this.satisfied.has(need));
      for (let i = 0; i < this.hops; i++) await Promise.resolve();
      if (row.gated) await this.latch(this.gates, id).promise;
      if (row.throws !== undefined) throw new Error(row.throws);
      if (missing.length > 0) return blocked(missing);
      const ready = row.readyAtDrain ? level !== DrainLevel.None : (row.ready ?? true);
      if (ready) this.satisfied.add(id);
      return terminal(ready);
    } finally {
      this.inFlight--;
    }
  }

  /** Resolves once the body of `id` has started (at least once). */
  started(id: string): Promise<void> {
    return this.begun.has(id) ? Promise.resolve() : this.latch(this.starts, id).promise;
  }

  /** Lets the gated body of `id` go on. */
  open(id: string): void {
    this.latch(this.gates, id).open();
  }

  /** How many times `id` was dispatched. */
  runs(id: string): number {
    return this.calls.filter(([called]) => called === id).length;
  }

  private latch(latches: Map<string, Latch>, id: string): Latch {
    const existing = latches.get(id);
    if (existing) return existing;
    const created = latch();
    latches.set(id, created);
    return created;
  }
}

/** A driver over a fake built from `table`, seeded with `seed` (default: the table's order). */
export function fixture(table: Table, options: ReconcilerOptions & { seed?: readonly string[]; hops?: number } = {}) {
  const fake = new FakeDispatcher(table, options.hops);
  const reconciler = new Reconciler(fake, options);
  reconciler.seed(options.seed ?? Object.keys(table));
  return { fake, reconciler };
}

/** Each node's status in one word or line: "ready", "not ready", "failed: …", "parked", "deleted". */
export function summary(reconciler: Reconciler): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of reconciler.statuses()) {
    if (s.state === 'terminal') out[s.id] = s.ready ? 'ready' : s.failed ? `failed: ${s.message ?? ''}` : 'not ready';
    else out[s.id] = s.state;
  }
  return out;
}

/** Lets pending microtasks run (and nothing else: no timer can fire in between). */
export async function flush(turns = 100): Promise<void> {
  for (let i = 0; i < turns; i++) await Promise.resolve();
}

/** Whether `promise` settles within `turns` microtask turns, i.e. without any timer or I/O. */
export async function settlesWithin(promise: Promise<unknown>, turns: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns && !settled; i++) await Promise.resolve();
  return settled;
}

/**
 * A random DAG of `size` nodes: node i needs up to `maxNeeds` of the nodes before it (mostly
 * recent ones, so chains run deep), and the ids are returned shuffled, so many nodes are seeded
 * before what they need and park.
 */
export function randomDag(size: number, seed: number, maxNeeds = 4): { table: Table; order: string[]; edges: number } {
  const random = seededRandom(seed);
  const table: Record<string, readonly string[]> = {};
  let edges = 0;
  for (let i = 0; i < size; i++) {
    const needs = new Set<string>();
    const count = i === 0 ? 0 : random.int(maxNeeds + 1);
    for (let k = 0; k < count; k++) needs.add(`n${Math.max(0, i - 1 - random.int(Math.min(i, 50)))}`);
    table[`n${i}`] = [...needs];
    edges += needs.size;
  }
  const order = Object.keys(table);
  for (let i = order.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [order[i], order[j]] = [order[j] ?? '', order[i] ?? ''];
  }
  return { table, order, edges };
}
