// The scheduling queue (upstream pkg/scheduler/backend/queue): activeQ ordered by the profile's
// QueueSort plugin, backoffQ for pods that failed recently, and
// the unschedulable pods, which move back when a cluster event could make them schedulable (one of
// the plugins that rejected them cares about it) or after 5 minutes at the latest. Pods with
// scheduling gates wait, gated, until an update removes the gates; so do pods the framework's
// PreEnqueue plugins hold, until an update or a change of the other objects lets them in. A gated
// pod let in goes where any moved pod goes (upstream requeueEntityWithQueueingStrategy): to backoffQ
// while the back-off of its last failed attempt runs, else to activeQ; a pod never attempted has no
// back-off (upstream getBackoffTime with no attempts), so it goes to activeQ. Pods the QueueSort plugin ranks
// equal (same priority, same timestamp: a batch added at one instant of the injected clock) leave
// activeQ in the order they were added, as they would in a cluster, where each arrives at its own time.
//
// Back-off as upstream 1.37's backoffQueue (SchedulerPopFromBackoffQ on, its default): a pod counts
// its failures as upstream's QueuedPodInfo does (UnschedulableCount when plugins rejected it, which
// clears ConsecutiveErrorsCount; ConsecutiveErrorsCount when it failed with an error, and that count
// wins while it is not 0), backs off initial × 2^(count-1) capped at the maximum (1 s and 10 s by
// default; a maximum of 0 turns back-off off) from its last failure, and that expiry is truncated to
// its whole second (alignToWindow); it is backing off while its expiry is not before the current
// whole second (isEntityBackingoff), and backoffQ is flushed on whole seconds
// (waitUntilAlignedWithOrderingWindow), so a 1 s back-off ends 1 to 2 s after the failure.
// Each failure refreshes the pod's timestamp (upstream AddUnschedulablePodIfNotPresent), so among
// pods of one priority a pod that failed goes after the pods that were waiting before it failed.
// backoffQ is two heaps, as upstream's: pods rejected by plugins, ordered by back-off expiry and,
// within one whole second, as activeQ orders them (lessBackoffCompletedWithPriority); pods whose
// last attempt failed with an error, by expiry alone. When activeQ is empty, pop takes the head of
// the first heap without waiting for its back-off to end (SchedulerPopFromBackoffQ: activeQueue
// unlockedPop, backoffQueue popBackoff); a pod backing off for an error waits for the flush.
import type { Clock, Timer } from '../api/clock';
import type { QueuedPodInfo } from '../framework/interfaces';
import type { PodInfo } from '../framework/node-info';
import { KeyedHeap } from './heap';

/** `ObjectsUpdate`: one of the cluster's other objects (ClusterObjects: PVCs, PVs, Namespaces, PDBs, ...) changed. */
export type ClusterEvent = 'NodeAdd' | 'NodeUpdate' | 'NodeDelete' | 'PodAdd' | 'PodUpdate' | 'PodDelete' | 'ObjectsUpdate';

export interface SchedulingQueueOptions {
  readonly clock: Clock;
  /** The QueueSort plugin's order: whether `a` goes before `b`. */
  readonly less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** How long a pod may stay unschedulable before it is retried anyway. */
  readonly maxUnschedulableMs?: number;
  /**
   * The cluster events a plugin's rejection can be undone by; a plugin not listed is woken by every
   * event (safe default). Defaults to DEFAULT_EVENTS_OF_INTEREST.
   */
  readonly eventsOfInterest?: (plugin: string) => readonly ClusterEvent[] | undefined;
  /**
   * The framework's PreEnqueue plugins (a live scheduler's; upstream's DynamicResources): whether a
   * pod may enter activeQ. A pod they hold waits gated until its update, or a change of the other
   * objects (its claim created), lets it in.
   */
  readonly preEnqueue?: (info: PodInfo) => boolean;
}

/** Which events can make a pod rejected by an upstream plugin schedulable (upstream's EventsToRegister). */
export const DEFAULT_EVENTS_OF_INTEREST: Readonly<Record<string, readonly ClusterEvent[]>> = {
  NodeName: ['NodeAdd'],
  NodeUnschedulable: ['NodeAdd', 'NodeUpdate'],
  NodeResourcesFit: ['NodeAdd', 'NodeUpdate', 'PodDelete', 'PodUpdate'],
  NodeAffinity: ['NodeAdd', 'NodeUpdate'],
  TaintToleration: ['NodeAdd', 'NodeUpdate'],
  NodePorts: ['NodeAdd', 'PodDelete'],
  PodTopologySpread: ['NodeAdd', 'NodeUpdate', 'NodeDelete', 'PodAdd', 'PodUpdate', 'PodDelete'],
  InterPodAffinity: ['NodeAdd', 'NodeUpdate', 'PodAdd', 'PodUpdate', 'PodDelete'],
};

export type QueueName = 'active' | 'backoff' | 'unschedulable' | 'gated' | 'inFlight';

interface Entry {
  queued: QueuedPodInfo;
  /** When its last attempt failed (backoff and the 5-minute leftover count from here); for a pod never attempted, when it was added. */
  failedAt: number;
  /** Plugins that rejected it in its last attempt. */
  rejectors: ReadonlySet<string>;
}

/** upstream backoffQOrderingWindowDuration: back-off expiries are whole seconds, and backoffQ is flushed on them. */
const BACKOFF_FLUSH_MS = 1000;
const UNSCHEDULABLE_FLUSH_MS = 30_000;

export class SchedulingQueue {
  private readonly active: KeyedHeap<QueuedPodInfo>;
  /** backoffQ's pods rejected by plugins (upstream entityBackoffQ): pop takes its head when activeQ is empty. */
  private readonly backoff: KeyedHeap<Entry>;
  /** backoffQ's pods whose last attempt failed with an error (upstream entityErrorBackoffQ): they leave only when flushed. */
  private readonly errorBackoff: KeyedHeap<Entry>;
  private readonly unschedulable = new Map<string, Entry>();
  private readonly gated = new Map<string, Entry>();
  private readonly inFlight = new Map<string, QueuedPodInfo>();
  private schedulingCycle = 0;
  /** The scheduling cycle during which a cluster event last moved pods (upstream moveRequestCycle). */
  private moveRequestCycle = -1;
  private timers: Timer[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxUnschedulableMs: number;
  private readonly eventsOfInterest: (plugin: string) => readonly ClusterEvent[] | undefined;
  /** Each queued pod's place in the order pods were added (first come, first served among equals). */
  private readonly arrival = new Map<string, number>();
  private arrivals = 0;
  /** Per pod, upstream's QueuedPodInfo UnschedulableCount and ConsecutiveErrorsCount (absent: both 0). */
  private readonly failures = new Map<string, { readonly unschedulable: number; readonly errors: number }>();

  constructor(private readonly options: SchedulingQueueOptions) {
    this.initialBackoffMs = options.initialBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.maxUnschedulableMs = options.maxUnschedulableMs ?? 300_000;
    this.eventsOfInterest = options.eventsOfInterest ?? ((plugin) => DEFAULT_EVENTS_OF_INTEREST[plugin]);
    const arrived = (q: QueuedPodInfo) => this.arrival.get(q.info.id) ?? 0;
    const activeLess = (a: QueuedPodInfo, b: QueuedPodInfo) => options.less(a, b) || (!options.less(b, a) && arrived(a) < arrived(b));
    this.active = new KeyedHeap((q) => q.info.id, activeLess);
    // Equal expiries in the error heap (upstream leaves their order to its heap) go in arrival order.
    this.backoff = new KeyedHeap(
      (e) => e.queued.info.id,
      (a, b) => {
        const ea = this.backoffExpiry(a);
        const eb = this.backoffExpiry(b);
        return ea !== eb ? ea < eb : activeLess(a.queued, b.queued);
      },
    );
    this.errorBackoff = new KeyedHeap(
      (e) => e.queued.info.id,
      (a, b) => {
        const ea = this.backoffExpiry(a);
        const eb = this.backoffExpiry(b);
        return ea !== eb ? ea < eb : arrived(a.queued) < arrived(b.queued);
      },
    );
  }

  /** Calls `listener` whenever a pod becomes ready to pop; returns a function that stops it. */
  onReady(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Starts the periodic flushes on the injected clock: backoff on every whole second (the first at
   * the next one, as upstream's waitUntilAlignedWithOrderingWindow), leftovers every 30 s.
   */
  start(): void {
    if (this.timers.length) return;
    const every = (ms: number, fn: () => void, first = ms) => {
      const tick = () => {
        fn();
        this.timers[index] = this.options.clock.setTimer(ms, tick);
      };
      const index = this.timers.length;
      this.timers.push(this.options.clock.setTimer(first, tick));
    };
    const now = this.options.clock.now();
    every(BACKOFF_FLUSH_MS, () => this.flushBackoffCompleted(), window(now + BACKOFF_FLUSH_MS) - now);
    every(UNSCHEDULABLE_FLUSH_MS, () => this.flushUnschedulableLeftover());
  }

  stop(): void {
    for (const t of this.timers) t.cancel();
    this.timers = [];
  }

  /** A new pending pod: gated pods wait, others go to activeQ. */
  add(info: PodInfo): void {
    const queued: QueuedPodInfo = { info, timestamp: this.options.clock.now(), attempts: 0 };
    this.arrival.set(info.id, this.arrivals++);
    if (this.isGated(info)) {
      this.gated.set(info.id, { queued, failedAt: queued.timestamp, rejectors: new Set() });
      return;
    }
    this.active.upsert(queued);
    this.notify();
  }

  /** The pod changed: a gated pod whose gates are gone is let in (backoffQ or activeQ); elsewhere the new object replaces the old. */
  update(info: PodInfo): void {
    const id = info.id;
    const gated = this.gated.get(id);
    if (gated) {
      const entry = { ...gated, queued: { ...gated.queued, info } };
      if (this.isGated(info)) {
        this.gated.set(id, entry);
      } else {
        this.gated.delete(id);
        this.letIn(entry);
      }
      return;
    }
    const active = this.active.get(id);
    if (active) return this.active.upsert({ ...active, info });
    for (const heap of [this.backoff, this.errorBackoff]) {
      const backoff = heap.get(id);
      if (backoff) return heap.upsert({ ...backoff, queued: { ...backoff.queued, info } });
    }
    const unschedulable = this.unschedulable.get(id);
    if (unschedulable) {
      const entry = { ...unschedulable, queued: { ...unschedulable.queued, info } };
      // An update of the pod itself may make it schedulable when it changes what scheduling reads
      // (upstream PodSchedulingPropertiesChange); its status written after a failed attempt does not.
      if (!schedulingPropertiesChanged(unschedulable.queued.info.pod, info.pod)) {
        this.unschedulable.set(id, entry);
        return;
      }
      this.unschedulable.delete(id);
      this.requeue(entry);
      return;
    }
    if (!this.inFlight.has(id)) this.add(info);
  }

  delete(id: string): void {
    this.active.delete(id);
    this.backoff.delete(id);
    this.errorBackoff.delete(id);
    this.unschedulable.delete(id);
    this.gated.delete(id);
    this.inFlight.delete(id);
    this.arrival.delete(id);
    this.failures.delete(id);
  }

  /**
   * The next pod to schedule: activeQ's head; when activeQ is empty, the head of backoffQ's pods
   * rejected by plugins, backing off or not (upstream SchedulerPopFromBackoffQ); undefined when
   * neither has one.
   */
  pop(): QueuedPodInfo | undefined {
    const next = this.active.pop() ?? this.backoff.pop()?.queued;
    if (!next) return undefined;
    this.schedulingCycle++;
    const popped: QueuedPodInfo = { ...next, attempts: next.attempts + 1 };
    this.inFlight.set(popped.info.id, popped);
    return popped;
  }

  /** Whether pop has a pod to give (in activeQ, or among backoffQ's pods rejected by plugins). */
  hasNext(): boolean {
    return this.active.size > 0 || this.backoff.size > 0;
  }

  /** The popped pod was placed (or given up on): it leaves the queue. */
  done(id: string): void {
    this.inFlight.delete(id);
    this.arrival.delete(id);
    this.failures.delete(id);
  }

  /**
   * The popped pod could not be placed; `rejectors` are the plugins that rejected it. If a cluster
   * event arrived while it was being scheduled it backs off and retries, else it waits for an event.
   */
  addUnschedulable(queued: QueuedPodInfo, rejectors: ReadonlySet<string>): void {
    this.inFlight.delete(queued.info.id);
    this.countFailure(queued.info.id, rejectors.size === 0);
    const entry: Entry = { queued: this.refreshed(queued), failedAt: this.options.clock.now(), rejectors };
    if (this.moveRequestCycle >= this.schedulingCycle) this.requeue(entry);
    else this.unschedulable.set(queued.info.id, entry);
  }

  /** The popped pod failed for an internal reason (error, binding failure): it backs off and retries. */
  addBackoff(queued: QueuedPodInfo): void {
    this.inFlight.delete(queued.info.id);
    this.countFailure(queued.info.id, true);
    this.requeue({ queued: this.refreshed(queued), failedAt: this.options.clock.now(), rejectors: new Set() });
  }

  /** A cluster event: unschedulable pods that one of their rejecting plugins cares about move back. */
  onEvent(event: ClusterEvent): void {
    // A pod held by PreEnqueue (not by scheduling gates) may be let in by the other objects' change.
    if (event === 'ObjectsUpdate') this.recheckHeld();
    for (const [id, entry] of this.unschedulable) {
      if (this.couldHelp(entry, event)) {
        this.unschedulable.delete(id);
        this.requeue(entry);
      }
    }
    this.moveRequestCycle = this.schedulingCycle;
  }

  /** Asks the PreEnqueue plugins again about the pods they hold: those they let go now enter the queue. */
  recheckHeld(): void {
    if (!this.options.preEnqueue) return;
    for (const [id, entry] of this.gated) {
      if (this.isGated(entry.queued.info)) continue;
      this.gated.delete(id);
      this.letIn(entry);
    }
  }

  /** Moves pods whose backoff has ended to activeQ, from both heaps (also run every second once started). */
  flushBackoffCompleted(): void {
    const now = this.options.clock.now();
    let moved = false;
    for (const heap of [this.backoff, this.errorBackoff]) {
      for (let head = heap.peek(); head && !this.backingOff(head, now); head = heap.peek()) {
        heap.pop();
        this.active.upsert(head.queued);
        moved = true;
      }
    }
    if (moved) this.notify();
  }

  /** Retries pods that have been unschedulable for longer than the limit (also run every 30 s). */
  flushUnschedulableLeftover(): void {
    const now = this.options.clock.now();
    for (const [id, entry] of this.unschedulable) {
      if (now - entry.failedAt >= this.maxUnschedulableMs) {
        this.unschedulable.delete(id);
        this.requeue(entry);
      }
    }
  }

  /**
   * upstream calculateBackoffDuration: how long a pod backs off after `count` failures (its
   * UnschedulableCount, or its ConsecutiveErrorsCount when that is not 0): initial × 2^(count-1),
   * capped at the maximum; none for 0.
   */
  backoffDuration(count: number): number {
    if (count === 0) return 0;
    let duration = this.initialBackoffMs;
    for (let i = 1; i < count; i++) {
      duration *= 2;
      if (duration >= this.maxBackoffMs) return this.maxBackoffMs;
    }
    return Math.min(duration, this.maxBackoffMs);
  }

  /** The pod's failure counts, as upstream's QueuedPodInfo has them. */
  failureCounts(id: string): { readonly unschedulable: number; readonly errors: number } {
    return this.failures.get(id) ?? { unschedulable: 0, errors: 0 };
  }

  /** Where a pod is, for views and tests. */
  whereIs(id: string): QueueName | undefined {
    if (this.active.has(id)) return 'active';
    if (this.backoff.has(id) || this.errorBackoff.has(id)) return 'backoff';
    if (this.unschedulable.has(id)) return 'unschedulable';
    if (this.gated.has(id)) return 'gated';
    if (this.inFlight.has(id)) return 'inFlight';
    return undefined;
  }

  counts(): Readonly<Record<QueueName, number>> {
    return {
      active: this.active.size,
      backoff: this.backoff.size + this.errorBackoff.size,
      unschedulable: this.unschedulable.size,
      gated: this.gated.size,
      inFlight: this.inFlight.size,
    };
  }

  /** Held out of activeQ: by scheduling gates, or by the PreEnqueue plugins. */
  private isGated(info: PodInfo): boolean {
    return hasSchedulingGates(info) || (this.options.preEnqueue !== undefined && !this.options.preEnqueue(info));
  }

  /**
   * upstream getBackoffTime: the whole second the pod's back-off ends in (its last failure plus
   * backoffDuration, truncated: alignToWindow); -Infinity (upstream's zero time) for a pod that has
   * not failed, or when the maximum back-off is 0.
   */
  private backoffExpiry(entry: Entry): number {
    const { unschedulable, errors } = this.failureCounts(entry.queued.info.id);
    const count = errors > 0 ? errors : unschedulable;
    if (this.maxBackoffMs === 0 || count === 0) return -Infinity;
    return window(entry.failedAt + this.backoffDuration(count));
  }

  /** upstream isEntityBackingoff: its back-off expiry is not before the current whole second. */
  private backingOff(entry: Entry, now: number): boolean {
    return this.backoffExpiry(entry) >= window(now);
  }

  /**
   * upstream AddUnschedulablePodIfNotPresent refreshes the timestamp of a pod that failed: QueueSort
   * sees it as arriving now, after the pods already waiting.
   */
  private refreshed(queued: QueuedPodInfo): QueuedPodInfo {
    this.arrival.set(queued.info.id, this.arrivals++);
    return { ...queued, timestamp: this.options.clock.now() };
  }

  /** upstream AddUnschedulablePodIfNotPresent: an error counts in ConsecutiveErrorsCount, a rejection in UnschedulableCount (clearing the errors). */
  private countFailure(id: string, error: boolean): void {
    const { unschedulable, errors } = this.failureCounts(id);
    this.failures.set(id, error ? { unschedulable, errors: errors + 1 } : { unschedulable: unschedulable + 1, errors: 0 });
  }

  private couldHelp(entry: Entry, event: ClusterEvent): boolean {
    if (entry.rejectors.size === 0) return true;
    for (const plugin of entry.rejectors) {
      const events = this.eventsOfInterest(plugin);
      if (!events || events.includes(event)) return true;
    }
    return false;
  }

  /**
   * As upstream's moves into activeQ and backoffQ run the PreEnqueue plugins: a pod they hold now
   * (its claim deleted meanwhile) waits gated instead. A pod leaving backoffQ was checked on entry.
   */
  private heldBack(entry: Entry): boolean {
    if (!this.options.preEnqueue || this.options.preEnqueue(entry.queued.info)) return false;
    this.gated.set(entry.queued.info.id, entry);
    return true;
  }

  private requeue(entry: Entry): void {
    if (!this.heldBack(entry)) this.letIn(entry);
  }

  /**
   * A pod the PreEnqueue plugins let in: to backoffQ while its back-off runs (the error heap when its
   * last attempt failed with an error, as upstream's backoffQueue add; else the heap pop takes from,
   * so it is ready), else to activeQ.
   */
  private letIn(entry: Entry): void {
    if (this.backingOff(entry, this.options.clock.now())) {
      if (this.failureCounts(entry.queued.info.id).errors > 0) {
        this.errorBackoff.upsert(entry);
      } else {
        this.backoff.upsert(entry);
        this.notify();
      }
    } else {
      this.active.upsert(entry.queued);
      this.notify();
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/** upstream alignToWindow: the whole second (of the injected clock's milliseconds) `ms` falls in. */
function window(ms: number): number {
  return Math.floor(ms / BACKOFF_FLUSH_MS) * BACKOFF_FLUSH_MS;
}

/**
 * upstream PodSchedulingPropertiesChange's extractors: the pod's labels, requests (containers, init
 * containers, overhead), scheduling gates, tolerations or generated claims changed. Any other change
 * (its status, annotations) is upstream's general Pod/Update event, which no in-tree plugin's
 * rejection is undone by.
 */
function schedulingPropertiesChanged(before: PodInfo['pod'], after: PodInfo['pod']): boolean {
  const read = (pod: PodInfo['pod']) =>
    JSON.stringify([
      pod.metadata.labels ?? {},
      pod.spec.containers.map((c) => c.resources ?? {}),
      (pod.spec.initContainers ?? []).map((c) => c.resources ?? {}),
      pod.spec.overhead ?? {},
      pod.spec.schedulingGates ?? [],
      pod.spec.tolerations ?? [],
      pod.status?.resourceClaimStatuses ?? [],
    ]);
  return read(before) !== read(after);
}

function hasSchedulingGates(info: PodInfo): boolean {
  return (info.pod.spec.schedulingGates?.length ?? 0) > 0;
}
