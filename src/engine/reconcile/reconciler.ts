// The dependency fixpoint driver. Nodes (triggers, plans, pod sets) run their reconcile body on a
// bounded pool; a body that reports unsatisfied dependencies parks on them and runs again when one
// of them advances. Termination is structural, never a timeout: when nothing is in flight and
// nothing is runnable, the driver drains. Cascade fails what waits on an absent or failed
// dependency, leaf first, each dependent carrying its dependency's message; when a Cascade pass
// changes nothing, Force fails what is still blocked (a never-ready dependency, or a cycle, which
// it names), starting from the blocked nodes that wait on nothing else blocked.
import { cyclesThrough, leafComponents } from './cycles';
import { errorMessage } from '../api/errors';

/** How hard the driver is pushing towards the fixpoint; a body may be more lenient at a drain level. */
export const DrainLevel = { None: 0, Cascade: 1, Force: 2 } as const;
export type DrainLevel = (typeof DrainLevel)[keyof typeof DrainLevel];

/** The body is done for now: ready (dependents may proceed), not ready, or failed with a reason. */
export interface Terminal {
  readonly kind: 'terminal';
  readonly ready: boolean;
  readonly failed?: boolean;
  readonly message?: string;
}

/** The body cannot proceed until one of these node (or data) ids advances. */
export interface Blocked {
  readonly kind: 'blocked';
  readonly dependencies: readonly string[];
}

export type Outcome = Terminal | Blocked;

export const terminal = (ready: boolean, message?: string): Terminal =>
  message === undefined ? { kind: 'terminal', ready } : { kind: 'terminal', ready, message };
export const failed = (message: string): Terminal => ({ kind: 'terminal', ready: false, failed: true, message });
export const blocked = (dependencies: readonly string[]): Blocked => ({ kind: 'blocked', dependencies });

/** The seam to the bodies: runs node `id`'s reconcile body once. A body that throws fails its node. */
export interface Dispatcher {
  dispatch(id: string, level: DrainLevel): Promise<Outcome>;
}

export type NodeState = 'queued' | 'running' | 'parked' | 'terminal' | 'deleted';

export interface NodeStatus {
  readonly id: string;
  readonly state: NodeState;
  /** Only a terminal node is ready or failed. */
  readonly ready: boolean;
  readonly failed: boolean;
  readonly message?: string;
  /** While parked: the dependencies it waits on. */
  readonly waitingOn?: readonly string[];
}

export interface ReconcileCounters {
  /** Nodes by state. */
  readonly queued: number;
  readonly running: number;
  readonly parked: number;
  readonly ready: number;
  readonly failed: number;
  readonly notReady: number;
  readonly deleted: number;
  /** Bodies started, the most ever in flight at once, and bodies that threw. */
  readonly dispatched: number;
  readonly maxInFlight: number;
  readonly thrown: number;
  /** Times a node parked, and times a parked node was woken by a dependency advancing. */
  readonly parks: number;
  readonly wakes: number;
  /** Drain passes, and the nodes they failed. */
  readonly cascadePasses: number;
  readonly forcePasses: number;
  readonly drainFailed: number;
}

export interface RunSummary {
  readonly aborted: boolean;
  /** Every node is terminal (or deleted). */
  readonly complete: boolean;
}

export interface ReconcilerOptions {
  /** Most bodies in flight at once (default 8). */
  readonly poolSize?: number;
}

interface TerminalStatus {
  readonly ready: boolean;
  readonly failed: boolean;
  readonly message?: string;
}

interface NodeRecord {
  readonly id: string;
  /** Registration order: drains visit nodes in it, so runs replay. */
  readonly order: number;
  state: NodeState;
  /** The level its next body runs at, while queued. */
  level: DrainLevel;
  /** Only the queue entry holding the current ticket may start it; older entries are stale. */
  ticket: number;
  /** Bumped by a delete, so the outcome of a body already in flight is dropped. */
  generation: number;
  /** A body is in flight (possibly a stale one, for a node deleted meanwhile). */
  busy: boolean;
  /** Something changed while the body was in flight: run it again when it finishes. */
  again: boolean;
  /** The dependencies it is parked on, or that a drain failed it on. */
  links: readonly string[];
  /** Failed by a drain, so an arrival of what it waited on takes the failure back. */
  drainFailed: boolean;
  /** Already re-run at a drain since it last ran for another reason. */
  reranAtDrain: boolean;
  /** The cycle a Force pass found through it. */
  cycle: readonly string[] | undefined;
  status: TerminalStatus | undefined;
}

interface QueueEntry {
  readonly node: NodeRecord;
  readonly ticket: number;
}

const byOrder = (a: NodeRecord, b: NodeRecord): number => a.order - b.order;

const DELETED: TerminalStatus = { ready: false, failed: false, message: 'deleted' };

export class Reconciler {
  private readonly poolSize: number;
  private readonly nodes = new Map<string, NodeRecord>();
  /** Ids that arrived as pure data: present, but never run. */
  private readonly data = new Set<string>();
  /** dependency id → the nodes linked on it (parked, or failed by a drain). */
  private readonly waiters = new Map<string, Set<NodeRecord>>();
  private readonly parked = new Set<NodeRecord>();
  private queue: QueueEntry[] = [];
  private queueHead = 0;
  /** Advances of each id, stamped from `epoch`: a body that blocks on something that advanced while it ran runs again. */
  private readonly advancedAt = new Map<string, number>();
  private epoch = 0;
  /** Bumped by every terminal status change and external event: a drain pass that leaves it unchanged made no progress. */
  private progress = 0;
  private level: DrainLevel = DrainLevel.None;
  private lastPass: DrainLevel = DrainLevel.None;
  private progressAtPass = 0;
  private rerunAtDrain: (id: string) => boolean = () => false;
  private inFlight = 0;
  private active = false;
  private signal: AbortSignal | undefined;
  private idle: (() => void) | undefined;
  private stats = { dispatched: 0, maxInFlight: 0, thrown: 0, parks: 0, wakes: 0, cascadePasses: 0, forcePasses: 0, drainFailed: 0 };

  constructor(
    private readonly dispatcher: Dispatcher,
    options: ReconcilerOptions = {},
  ) {
    const poolSize = options.poolSize ?? 8;
    if (!Number.isInteger(poolSize) || poolSize < 1) throw new RangeError(`poolSize must be a whole number >= 1, got ${poolSize}`);
    this.poolSize = poolSize;
  }

  /** Registers the initial nodes, queued in the order given; ids already known are ignored. */
  seed(ids: Iterable<string>): void {
    for (const id of ids) if (!this.nodes.has(id)) this.register(id);
    this.external();
  }

  /**
   * Something arrived or changed. A schedulable node is registered and queued, or queued again if
   * it was known (a changed terminal node re-runs); pure data (a profile, a config) is not run,
   * only noted as present. Either way the nodes waiting on `id` run again: those parked on it, and
   * those a drain failed on it (with, transitively, the nodes that failed because of them).
   */
  onArrival(id: string, schedulable: boolean): void {
    if (!schedulable) {
      this.data.add(id);
    } else {
      const node = this.nodes.get(id);
      if (!node) this.register(id);
      else this.restart(node);
    }
    this.wake(id, true);
    this.external();
  }

  /**
   * The world reports node `id` ready or failed (pods became Ready, say). Only a terminal status
   * acts: a terminal node takes it, a node whose body is in flight runs again afterwards, and the
   * nodes waiting on `id` wake (even when the recorded status did not change: readiness may be
   * more than the driver records).
   */
  onStatusWake(id: string, ready: boolean, failed: boolean, message?: string): void {
    if (!ready && !failed) return;
    const node = this.nodes.get(id);
    if (node?.state === 'terminal') {
      // The world's word replaces any verdict a drain gave it.
      this.unlink(node);
      node.drainFailed = false;
      node.status = message === undefined ? { ready, failed } : { ready, failed, message };
    } else if (node?.state === 'running') node.again = true;
    this.wake(id, true);
    this.external();
  }

  /** `id` is gone: it becomes terminal at once (a body in flight is disregarded) and its waiters wake. */
  onDelete(id: string): void {
    this.data.delete(id);
    const node = this.nodes.get(id);
    if (node && node.state !== 'deleted') {
      this.unlink(node);
      this.setState(node, 'deleted');
      node.status = DELETED;
      node.generation++;
      node.again = false;
    }
    this.wake(id, false);
    this.external();
  }

  /** Nodes for which `predicate` holds run again (at the Cascade level) each time the driver reaches a fixpoint. */
  setRerunAtDrain(predicate: (id: string) => boolean): void {
    this.rerunAtDrain = predicate;
  }

  /**
   * Runs bodies until every node is terminal, or until `signal` aborts; either way it returns
   * only after the bodies in flight have finished. Not re-entrant.
   */
  async run(signal?: AbortSignal): Promise<RunSummary> {
    if (this.active) throw new Error('Reconciler.run is already running');
    this.active = true;
    this.signal = signal;
    try {
      for (;;) {
        this.fill();
        if (this.inFlight > 0) {
          await new Promise<void>((resolve) => (this.idle = resolve));
          continue;
        }
        if (signal?.aborted || !this.drain()) break;
      }
    } finally {
      this.active = false;
      this.signal = undefined;
      this.idle = undefined;
    }
    const counters = this.counters();
    return { aborted: signal?.aborted ?? false, complete: counters.queued + counters.running + counters.parked === 0 };
  }

  status(id: string): NodeStatus | undefined {
    const node = this.nodes.get(id);
    return node && this.describe(node);
  }

  /** Every node's status, in registration order. */
  statuses(): NodeStatus[] {
    return [...this.nodes.values()].map((node) => this.describe(node));
  }

  counters(): ReconcileCounters {
    const tally = { queued: 0, running: 0, parked: 0, ready: 0, failed: 0, notReady: 0, deleted: 0 };
    for (const node of this.nodes.values()) {
      if (node.state !== 'terminal') tally[node.state]++;
      else if (node.status?.ready) tally.ready++;
      else if (node.status?.failed) tally.failed++;
      else tally.notReady++;
    }
    return { ...tally, ...this.stats };
  }

  private describe(node: NodeRecord): NodeStatus {
    const { id, state } = node;
    if (state === 'parked') return { id, state, ready: false, failed: false, waitingOn: node.links };
    if (state !== 'terminal' && state !== 'deleted') return { id, state, ready: false, failed: false };
    return { id, state, ...node.status, ready: node.status?.ready ?? false, failed: node.status?.failed ?? false };
  }

  private register(id: string): void {
    const node: NodeRecord = {
      id,
      order: this.nodes.size,
      state: 'queued',
      level: DrainLevel.None,
      ticket: 0,
      generation: 0,
      busy: false,
      again: false,
      links: [],
      drainFailed: false,
      reranAtDrain: false,
      cycle: undefined,
      status: undefined,
    };
    this.nodes.set(id, node);
    this.enqueue(node, DrainLevel.None);
  }

  /** A known node changed: run it again, after its body in flight if there is one. */
  private restart(node: NodeRecord): void {
    if (node.state === 'deleted') node.status = undefined;
    if (node.busy) {
      node.again = true;
      this.setState(node, 'running');
    } else if (node.state !== 'queued') {
      this.enqueue(node, DrainLevel.None);
    }
  }

  /** The world changed: the next fixpoint starts from scratch, and new work may start at once. */
  private external(): void {
    this.level = DrainLevel.None;
    this.progress++;
    this.fill();
  }

  private setState(node: NodeRecord, state: NodeState): void {
    if (state === 'parked') this.parked.add(node);
    else this.parked.delete(node);
    node.state = state;
  }

  private enqueue(node: NodeRecord, level: DrainLevel): void {
    this.unlink(node);
    node.drainFailed = false;
    node.reranAtDrain = false;
    node.level = level;
    node.ticket++;
    this.setState(node, 'queued');
    this.queue.push({ node, ticket: node.ticket });
  }

  private dequeue(): NodeRecord | undefined {
    while (this.queueHead < this.queue.length) {
      const entry = this.queue[this.queueHead++];
      if (entry && entry.ticket === entry.node.ticket && entry.node.state === 'queued') return entry.node;
    }
    this.queue = [];
    this.queueHead = 0;
    return undefined;
  }

  private link(node: NodeRecord, dependencies: readonly string[]): void {
    node.links = dependencies;
    for (const dependency of dependencies) {
      const set = this.waiters.get(dependency) ?? new Set<NodeRecord>();
      this.waiters.set(dependency, set.add(node));
    }
  }

  private unlink(node: NodeRecord): void {
    for (const dependency of node.links) {
      const set = this.waiters.get(dependency);
      set?.delete(node);
      if (set?.size === 0) this.waiters.delete(dependency);
    }
    node.links = [];
  }

  /**
   * `id` advanced: the nodes parked on it run again. With `retract` (an external event), nodes a
   * drain failed on it run again too, and so, transitively, do the nodes failed because of them.
   */
  private wake(id: string, retract: boolean): void {
    this.advancedAt.set(id, ++this.epoch);
    const advanced = [id];
    for (let at = advanced.pop(); at !== undefined; at = advanced.pop()) {
      for (const waiter of [...(this.waiters.get(at) ?? [])]) {
        if (waiter.state === 'parked') {
          this.stats.wakes++;
          // Inside a drain, woken nodes run at Cascade so a failure climbs the whole chain in one pass.
          this.enqueue(waiter, this.level === DrainLevel.None ? DrainLevel.None : DrainLevel.Cascade);
        } else if (retract && waiter.drainFailed) {
          this.enqueue(waiter, DrainLevel.None);
          advanced.push(waiter.id);
        }
      }
    }
  }

  private fill(): void {
    if (!this.active || this.signal?.aborted) return;
    while (this.inFlight < this.poolSize) {
      const node = this.dequeue();
      if (!node) return;
      this.start(node);
    }
  }

  private start(node: NodeRecord): void {
    const { level, generation } = node;
    const since = this.epoch;
    node.busy = true;
    this.setState(node, 'running');
    this.inFlight++;
    this.stats.dispatched++;
    this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.inFlight);
    // Through a microtask, so a body that throws synchronously is caught like one that rejects.
    const body = Promise.resolve().then(() => this.dispatcher.dispatch(node.id, level));
    void body.then(
      (outcome) => this.settle(node, generation, level, since, outcome),
      (error: unknown) => {
        this.stats.thrown++;
        this.settle(node, generation, level, since, failed(errorMessage(error)));
      },
    );
  }

  private settle(node: NodeRecord, generation: number, level: DrainLevel, since: number, outcome: Outcome | undefined): void {
    node.busy = false;
    this.inFlight--;
    const cycle = node.cycle;
    node.cycle = undefined;
    if (generation === node.generation) {
      if (outcome?.kind === 'blocked') this.block(node, [...new Set(outcome.dependencies)], level, since, cycle);
      else if (outcome?.kind === 'terminal') this.finish(node, outcome);
      else this.finish(node, failed('reconcile body returned no outcome'));
    }
    if (node.again) {
      node.again = false;
      this.enqueue(node, DrainLevel.None);
    }
    this.fill();
    if (this.inFlight === 0) this.idle?.();
  }

  private finish(node: NodeRecord, outcome: Pick<Terminal, 'ready' | 'failed' | 'message'>): void {
    const status: TerminalStatus = {
      ready: outcome.ready,
      failed: outcome.failed ?? false,
      ...(outcome.message === undefined ? {} : { message: outcome.message }),
    };
    const previous = node.status;
    node.status = status;
    this.setState(node, 'terminal');
    if (previous && previous.ready === status.ready && previous.failed === status.failed && previous.message === status.message) return;
    this.progress++;
    this.wake(node.id, false);
  }

  private block(
    node: NodeRecord,
    dependencies: readonly string[],
    level: DrainLevel,
    since: number,
    cycle: readonly string[] | undefined,
  ): void {
    // A dependency advanced while the body ran: its verdict may already be stale.
    if (dependencies.some((dependency) => (this.advancedAt.get(dependency) ?? 0) > since)) {
      this.enqueue(node, level);
      node.cycle = cycle;
      return;
    }
    const failure = level === DrainLevel.None ? undefined : this.drainFailure(dependencies, level, cycle);
    if (failure === undefined) {
      this.stats.parks++;
      this.setState(node, 'parked');
      this.link(node, dependencies);
      return;
    }
    this.stats.drainFailed++;
    this.finish(node, failed(failure));
    node.drainFailed = true;
    this.link(node, dependencies);
  }

  /** Why a node still blocked on `dependencies` fails at `level`; at Cascade, undefined while none is absent or failed. */
  private drainFailure(dependencies: readonly string[], level: DrainLevel, cycle: readonly string[] | undefined): string | undefined {
    if (level === DrainLevel.Force && cycle?.[1] !== undefined && dependencies.includes(cycle[1]))
      return `dependency cycle: ${cycle.join(' → ')}`;
    for (const dependency of dependencies) {
      if (this.absent(dependency)) return `dependency not found: ${dependency}`;
      const status = this.terminalStatus(dependency);
      if (status?.failed)
        return status.message === undefined ? `dependency failed: ${dependency}` : `dependency failed: ${dependency}: ${status.message}`;
    }
    if (level !== DrainLevel.Force) return undefined;
    const waitingOn = dependencies.find((dependency) => !this.terminalStatus(dependency)?.ready) ?? dependencies[0];
    return waitingOn === undefined ? 'blocked without naming a dependency' : `dependency not ready: ${waitingOn}`;
  }

  private absent(id: string): boolean {
    const node = this.nodes.get(id);
    return (!node || node.state === 'deleted') && !this.data.has(id);
  }

  private terminalStatus(id: string): TerminalStatus | undefined {
    const node = this.nodes.get(id);
    return node?.state === 'terminal' ? node.status : undefined;
  }

  /**
   * Nothing is in flight and nothing is runnable: queue the next drain pass, or return false when
   * every node is terminal. Cascade first (with the nodes that re-run at drain); Force when a
   * Cascade pass changed nothing or has nothing to do.
   */
  private drain(): boolean {
    const parked = [...this.parked].sort(byOrder);
    const rerun = [...this.nodes.values()].filter(
      (node) => (node.state === 'terminal' || node.state === 'parked') && !node.reranAtDrain && this.rerunAtDrain(node.id),
    );
    const cascade = parked.filter((node) =>
      node.links.some((dependency) => this.absent(dependency) || this.terminalStatus(dependency)?.failed),
    );
    const stalled = this.lastPass === DrainLevel.Cascade && this.progress === this.progressAtPass;
    if (rerun.length > 0 || (cascade.length > 0 && !stalled)) {
      this.pass(DrainLevel.Cascade, [...new Set([...rerun, ...cascade])].sort(byOrder));
      rerun.forEach((node) => (node.reranAtDrain = true));
      this.stats.cascadePasses++;
      return true;
    }
    if (parked.length === 0) return false;
    const blockedOn = (id: string): readonly string[] => {
      const node = this.nodes.get(id);
      return node?.state === 'parked' ? node.links.filter((dependency) => this.nodes.get(dependency)?.state === 'parked') : [];
    };
    const forced: NodeRecord[] = [];
    for (const component of leafComponents(
      parked.map((node) => node.id),
      blockedOn,
    )) {
      const cycles = cyclesThrough(component, blockedOn);
      for (const id of component) {
        const node = this.nodes.get(id);
        if (!node) continue;
        forced.push(node);
        node.cycle = cycles.get(id);
      }
    }
    this.pass(DrainLevel.Force, forced.sort(byOrder));
    this.stats.forcePasses++;
    return true;
  }

  private pass(level: DrainLevel, nodes: readonly NodeRecord[]): void {
    this.level = level;
    this.lastPass = level;
    this.progressAtPass = this.progress;
    for (const node of nodes) this.enqueue(node, level);
  }
}
