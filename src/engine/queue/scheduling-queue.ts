// The scheduling queue (upstream pkg/scheduler/backend/queue): activeQ ordered by the profile's
// QueueSort plugin, backoffQ for pods that failed recently, and
// the unschedulable pods, which move back when a queueing hint of a plugin that rejected them says a
// cluster event may make them schedulable (upstream isPodWorthRequeuing: the event, with the object
// before and after, offered to the hints those plugins registered for it) or once they have waited
// more than 5 minutes. Pods with scheduling gates wait, gated, until an update removes the gates; so do pods the
// framework's PreEnqueue plugins hold, until their update or an event their gating plugin registered
// lets them in. Events that come while pods are being scheduled are replayed for a pod that fails
// (upstream's in-flight events). Each move into a queue is reported with the event's label. A gated
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
// within one whole second, as activeQ orders them (lessBackoffCompletedWithPriority); pods no plugin
// rejected or held (their last attempt failed with an error), by expiry alone. When activeQ is empty, pop takes the head of
// the first heap without waiting for its back-off to end (SchedulerPopFromBackoffQ: activeQueue
// unlockedPop, backoffQueue popBackoff); a pod backing off for an error waits for the flush.
import type { Clock, Timer } from '../api/clock';
import type { Pod } from '../api/types';
import {
  BackoffComplete,
  EventForceActivate,
  EventUnscheduledPodAdd,
  EventUnschedulableTimeout,
  eventLabel,
  isWildCard,
  matchAnyClusterEvent,
  matchClusterEvents,
  podSchedulingPropertiesChange,
  PopFromBackoffQ,
  ScheduleAttemptFailure,
  type ClusterEvent,
  type QueueingHint,
  type QueueingHintEntry,
} from '../framework/events';
import type { QueuedPodInfo } from '../framework/interfaces';
import type { PodInfo } from '../framework/node-info';
import { KeyedHeap } from './heap';

export type { ClusterEvent } from '../framework/events';

/** The plugin upstream's scheduling gates are held by (its PreEnqueue), which its queueing hints are registered under. */
export const SCHEDULING_GATES = 'SchedulingGates';

export interface SchedulingQueueOptions {
  readonly clock: Clock;
  /** The QueueSort plugin's order: whether `a` goes before `b`. */
  readonly less: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** How long a pod may stay unschedulable before it is retried anyway. */
  readonly maxUnschedulableMs?: number;
  /**
   * The profile's queueing hints (upstream QueueingHintMap, `Framework.queueingHints`): per plugin,
   * the events that could undo its rejection and the function that says whether one does. Without
   * them every event moves every rejected pod (as upstream for a plugin without EnqueueExtensions).
   */
  readonly queueingHints?: readonly QueueingHintEntry[];
  /**
   * The framework's PreEnqueue plugins (a live scheduler's; upstream's DynamicResources and
   * DefaultPreemption): the plugin that holds the pod out of activeQ, undefined when it may enter.
   * A pod held waits, gated, until its update or a cluster event its gating plugin's hints answer
   * Queue for lets it in.
   */
  readonly preEnqueue?: (info: PodInfo) => string | undefined;
  /**
   * A pod entered one of the queues (upstream's scheduler_queue_incoming_pods_total: the queue and
   * the event's label, e.g. active/UnscheduledPodAdd, unschedulable/ScheduleAttemptFailure,
   * backoff/NodeUpdateNodeLabel, active/BackoffComplete, active/PopFromBackoffQ).
   */
  readonly onIncoming?: (queue: 'active' | 'backoff' | 'unschedulable', event: string) => void;
}

export type QueueName = 'active' | 'backoff' | 'unschedulable' | 'gated' | 'inFlight';

/**
 * upstream queueingStrategy: stay, or to backoffQ (activeQ once the back-off is over). Upstream's
 * third, queueImmediately, answers a Pending plugin's Queue; no in-tree plugin of 1.37's default
 * profile returns Pending, and Podplan's statuses have no such code.
 */
type Strategy = 'skip' | 'afterBackoff';

interface Entry {
  queued: QueuedPodInfo;
  /** When its last attempt failed (backoff and the 5-minute leftover count from here); for a pod never attempted, when it was added. */
  failedAt: number;
  /** Plugins that rejected it in its last attempt, and the PreEnqueue plugin that held it since (upstream UnschedulablePlugins). */
  rejectors: ReadonlySet<string>;
  /** The PreEnqueue plugin holding it, while it is held (upstream GatingPlugin). */
  gatingPlugin?: string;
  /** When the 5-minute flush last moved it (upstream FlushTimestamp): a pod held again is not flushed again before another 5 minutes. */
  flushedAt?: number;
}

/** A cluster event seen while pods were being scheduled (upstream's inFlightEvents), replayed for them when they fail. */
interface InFlightEvent {
  readonly seq: number;
  readonly event: ClusterEvent;
  readonly oldObj: unknown;
  readonly newObj: unknown;
}

interface InFlight {
  queued: QueuedPodInfo;
  /** The sequence number of the last event recorded before it was popped: the events after it are its own. */
  readonly since: number;
}

/** upstream backoffQOrderingWindowDuration: back-off expiries are whole seconds, and backoffQ is flushed on them. */
const BACKOFF_FLUSH_MS = 1000;
const UNSCHEDULABLE_FLUSH_MS = 30_000;

export class SchedulingQueue {
  private readonly active: KeyedHeap<QueuedPodInfo>;
  /** backoffQ's pods rejected by plugins (upstream entityBackoffQ): pop takes its head when activeQ is empty. */
  private readonly backoff: KeyedHeap<Entry>;
  /** backoffQ's pods no plugin rejected or held: their last attempt failed with an error (upstream entityErrorBackoffQ); they leave only when flushed. */
  private readonly errorBackoff: KeyedHeap<Entry>;
  private readonly unschedulable = new Map<string, Entry>();
  /** Pods held by scheduling gates or a PreEnqueue plugin (upstream keeps them among the unschedulable ones, gated). */
  private readonly gated = new Map<string, Entry>();
  private readonly inFlight = new Map<string, InFlight>();
  private inFlightEvents: InFlightEvent[] = [];
  private eventSeq = 0;
  private timers: Timer[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly maxUnschedulableMs: number;
  /** Per plugin, the events it registered (upstream pluginToEventsMap: what may let in a pod it holds). */
  private readonly pluginEvents = new Map<string, ClusterEvent[]>();
  /** Each queued pod's place in the order pods were added (first come, first served among equals). */
  private readonly arrival = new Map<string, number>();
  private arrivals = 0;
  /** Per pod, upstream's QueuedPodInfo UnschedulableCount and ConsecutiveErrorsCount (absent: both 0). */
  private readonly failures = new Map<string, { readonly unschedulable: number; readonly errors: number }>();

  constructor(private readonly options: SchedulingQueueOptions) {
    this.initialBackoffMs = options.initialBackoffMs ?? 1000;
    this.maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.maxUnschedulableMs = options.maxUnschedulableMs ?? 300_000;
    for (const { plugin, event } of options.queueingHints ?? []) {
      const events = this.pluginEvents.get(plugin) ?? [];
      events.push(event);
      this.pluginEvents.set(plugin, events);
    }
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

  /** A new pending pod (upstream Add, event UnscheduledPodAdd): gated pods wait, others go to activeQ. */
  add(info: PodInfo): void {
    const queued: QueuedPodInfo = { info, timestamp: this.options.clock.now(), attempts: 0 };
    this.arrival.set(info.id, this.arrivals++);
    this.moveToActive({ queued, failedAt: queued.timestamp, rejectors: new Set() }, eventLabel(EventUnscheduledPodAdd), false);
  }

  /**
   * The pod changed (upstream Update). In flight, the update's events are recorded for its return;
   * in activeQ or backoffQ, the new object replaces the old; held or unschedulable, each part of it
   * that changed (TargetPod/UpdatePodLabel, …/UpdatePodSchedulingGatesEliminated, …) is offered to
   * the hints of the plugins that rejected or hold it, and the first that moves it wins.
   */
  update(info: PodInfo): void {
    const id = info.id;
    const flying = this.inFlight.get(id);
    if (flying) {
      const old = flying.queued.info.pod;
      flying.queued = { ...flying.queued, info };
      for (const event of podSchedulingPropertiesChange(info.pod, old, true)) this.recordInFlight(event, old, info.pod);
      return;
    }
    const active = this.active.get(id);
    if (active) return this.active.upsert({ ...active, info });
    for (const heap of [this.backoff, this.errorBackoff]) {
      const backoff = heap.get(id);
      if (backoff) return heap.upsert({ ...backoff, queued: { ...backoff.queued, info } });
    }
    const waiting = this.gated.get(id) ?? this.unschedulable.get(id);
    if (waiting) {
      const old = waiting.queued.info.pod;
      const entry: Entry = { ...waiting, queued: { ...waiting.queued, info } };
      (this.gated.has(id) ? this.gated : this.unschedulable).set(id, entry);
      for (const event of podSchedulingPropertiesChange(info.pod, old, true)) {
        const strategy = this.worthRequeuing(entry, event, old, info.pod, this.matchingHints(event)?.hints);
        if (strategy === 'skip') continue;
        this.takeOut(id);
        const where = this.requeue(entry, strategy, eventLabel(event));
        if (where !== 'unschedulable') break;
      }
      return;
    }
    this.add(info);
  }

  delete(id: string): void {
    this.active.delete(id);
    this.backoff.delete(id);
    this.errorBackoff.delete(id);
    this.unschedulable.delete(id);
    this.gated.delete(id);
    this.leaveFlight(id);
    this.arrival.delete(id);
    this.failures.delete(id);
  }

  /**
   * The next pod to schedule: activeQ's head; when activeQ is empty, the head of backoffQ's pods
   * rejected by plugins, backing off or not (upstream SchedulerPopFromBackoffQ, counted as entering
   * activeQ by PopFromBackoffQ); undefined when neither has one.
   */
  pop(): QueuedPodInfo | undefined {
    let next = this.active.pop();
    if (!next) {
      next = this.backoff.pop()?.queued;
      if (next) this.options.onIncoming?.('active', PopFromBackoffQ);
    }
    if (!next) return undefined;
    const popped: QueuedPodInfo = { ...next, attempts: next.attempts + 1 };
    this.inFlight.set(popped.info.id, { queued: popped, since: this.eventSeq });
    return popped;
  }

  /** Whether pop has a pod to give (in activeQ, or among backoffQ's pods rejected by plugins). */
  hasNext(): boolean {
    return this.active.size > 0 || this.backoff.size > 0;
  }

  /** The popped pod was placed (or given up on): it leaves the queue. */
  done(id: string): void {
    this.leaveFlight(id);
    this.arrival.delete(id);
    this.failures.delete(id);
  }

  /**
   * The popped pod could not be placed; `rejectors` are the plugins that rejected it (upstream
   * AddUnschedulablePodIfNotPresent). The events that came while it was being scheduled are offered
   * to their hints (upstream determineSchedulingHintForInFlightPod): one answered Queue, it goes to
   * backoffQ (activeQ once its back-off is over); none did, it waits among the unschedulable pods.
   * Without rejectors (an error) it backs off. A pod no longer in flight (deleted while it was being
   * scheduled or bound) is not added back (upstream handleSchedulingFailure drops a pod the informer
   * cache no longer has).
   */
  addUnschedulable(queued: QueuedPodInfo, rejectors: ReadonlySet<string>): void {
    const id = queued.info.id;
    const flying = this.inFlight.get(id);
    if (!flying) return;
    const latest = flying.queued.info;
    const events = this.eventsSince(id);
    this.leaveFlight(id);
    this.countFailure(id, rejectors.size === 0);
    const entry: Entry = { queued: this.refreshed({ ...queued, info: latest }), failedAt: this.options.clock.now(), rejectors };
    let strategy: Strategy = 'skip';
    if (rejectors.size === 0) strategy = 'afterBackoff';
    else {
      for (const e of events) {
        strategy = this.worthRequeuing(entry, e.event, e.oldObj, e.newObj, this.matchingHints(e.event)?.hints);
        if (strategy !== 'skip') break;
      }
    }
    this.requeue(entry, strategy, ScheduleAttemptFailure);
  }

  /** The popped pod failed for an internal reason (error, binding failure): it backs off and retries. */
  addBackoff(queued: QueuedPodInfo): void {
    this.addUnschedulable(queued, new Set());
  }

  /**
   * A cluster event with the object before (undefined for an add) and after (undefined for a
   * delete) (upstream MoveAllToActiveOrBackoffQueue): each unschedulable pod one of whose rejecting
   * plugins' hints answers Queue moves to backoffQ (activeQ once its back-off is over); a held pod is
   * asked about only for events its gating plugin registered. `preCheck` narrows the pods considered
   * (upstream's, for a nominated pod's deletion: those of lower or equal priority). The event is
   * recorded for the pods being scheduled.
   */
  onEvent(event: ClusterEvent, oldObj?: unknown, newObj?: unknown, preCheck?: (pod: Pod) => boolean): void {
    if (!this.isEventOfInterest(event)) return;
    const label = eventLabel(event);
    // The hints registered for the event, found once: a pod none of whose rejectors has one stays
    // (as worthRequeuing would say, without asking it). The pods to ask are taken first, as moving
    // one may hold it again among the held pods.
    const matching = isWildCard(event) ? undefined : this.matchingHints(event);
    const candidates: Array<readonly [string, Entry]> = [];
    for (const waiting of [this.unschedulable, this.gated]) {
      for (const [id, entry] of waiting) {
        if (matching && entry.rejectors.size > 0 && !hasAny(entry.rejectors, matching.plugins)) continue;
        if (preCheck && !preCheck(entry.queued.info.pod)) continue;
        if (entry.gatingPlugin !== undefined && !isWildCard(event) && !this.gatingPluginCares(entry.gatingPlugin, event)) continue;
        candidates.push([id, entry]);
      }
    }
    for (const [id, entry] of candidates) {
      const strategy = this.worthRequeuing(entry, event, oldObj, newObj, matching?.hints);
      if (strategy === 'skip') continue;
      this.takeOut(id);
      this.requeue(entry, strategy, label);
    }
    if (this.inFlight.size > 0) this.recordInFlight(event, oldObj, newObj);
  }

  /**
   * upstream Activate (after the pod's preemption was carried out, event ForceActivate): a pod
   * waiting among the unschedulable or held pods goes to activeQ, its PreEnqueue plugins asked again;
   * one in backoffQ goes to activeQ at once; one in flight has the event recorded for it alone, so
   * it is retried after its back-off when it fails. Returns whether it was moved.
   */
  activate(id: string): boolean {
    const label = eventLabel(EventForceActivate);
    const waiting = this.unschedulable.get(id) ?? this.gated.get(id);
    if (waiting) {
      this.takeOut(id);
      return this.moveToActive(waiting, label, false);
    }
    for (const heap of [this.backoff, this.errorBackoff]) {
      const backingOff = heap.get(id);
      if (!backingOff) continue;
      heap.delete(id);
      const moved = this.moveToActive(backingOff, label, true);
      this.notify();
      return moved;
    }
    const flying = this.inFlight.get(id);
    if (flying) this.recordInFlight(EventForceActivate, undefined, flying.queued.info.pod);
    return false;
  }

  /** Moves pods whose backoff has ended to activeQ, from both heaps (also run every second once started). */
  flushBackoffCompleted(): void {
    const now = this.options.clock.now();
    let moved = false;
    for (const heap of [this.backoff, this.errorBackoff]) {
      for (let head = heap.peek(); head && !this.backingOff(head, now); head = heap.peek()) {
        heap.pop();
        // PreEnqueue ran when it entered backoffQ (SchedulerPopFromBackoffQ).
        this.moveToActive(head, BackoffComplete, true);
        moved = true;
      }
    }
    if (moved) this.notify();
  }

  /**
   * Retries pods that have been unschedulable (or held) for longer than the limit, strictly (also
   * run every 30 s; upstream flushUnschedulableEntitiesLeftover, event UnschedulableTimeout). When
   * it moved one, the event is recorded for the pods in flight, as any event (a wildcard: they are
   * retried after their back-off when they fail).
   */
  flushUnschedulableLeftover(): void {
    const now = this.options.clock.now();
    const label = eventLabel(EventUnschedulableTimeout);
    let flushed = false;
    for (const [id, entry] of [...this.unschedulable, ...this.gated]) {
      if (now - Math.max(entry.failedAt, entry.flushedAt ?? -Infinity) > this.maxUnschedulableMs) {
        this.takeOut(id);
        this.requeue({ ...entry, flushedAt: now }, 'afterBackoff', label);
        flushed = true;
      }
    }
    if (flushed && this.inFlight.size > 0) this.recordInFlight(EventUnschedulableTimeout, undefined, undefined);
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

  /** The pod as the queue holds it now (its last version seen), wherever it is. */
  pendingPod(id: string): Pod | undefined {
    const entry = this.gated.get(id) ?? this.unschedulable.get(id) ?? this.backoff.get(id) ?? this.errorBackoff.get(id);
    return (entry?.queued ?? this.active.get(id) ?? this.inFlight.get(id)?.queued)?.info.pod;
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

  /** The plugin that holds the pod out of activeQ: SchedulingGates for a pod with gates, else the PreEnqueue plugins' (upstream runPreEnqueuePlugins). */
  private isGated(info: PodInfo): string | undefined {
    if ((info.pod.spec.schedulingGates?.length ?? 0) > 0) return SCHEDULING_GATES;
    return this.options.preEnqueue?.(info);
  }

  /** upstream isEventOfInterest: a wildcard, or an event some plugin registered (every event without hints). */
  private isEventOfInterest(event: ClusterEvent): boolean {
    if (isWildCard(event) || !this.options.queueingHints) return true;
    return this.options.queueingHints.some((h) => matchClusterEvents(h.event, event));
  }

  private gatingPluginCares(plugin: string, event: ClusterEvent): boolean {
    if (!this.options.queueingHints) return true;
    return matchAnyClusterEvent(event, this.pluginEvents.get(plugin) ?? []);
  }

  /**
   * upstream isPodWorthRequeuing: no rejectors or a wildcard event (a ForceActivate for another pod
   * aside), after back-off; else after back-off when a hint of a plugin that rejected it, registered
   * for a matching event, answers Queue (or fails: an error counts as Queue).
   */
  private worthRequeuing(
    entry: Entry,
    event: ClusterEvent,
    oldObj: unknown,
    newObj: unknown,
    /** The hints registered for the event (matchingHints); undefined without hints. */
    matching: readonly QueueingHintEntry[] | undefined,
  ): Strategy {
    if (entry.rejectors.size === 0) return 'afterBackoff';
    if (isWildCard(event)) {
      const target = newObj as Pod | undefined;
      if (target?.metadata?.uid !== undefined && target.metadata.uid !== entry.queued.info.pod.metadata.uid) return 'skip';
      return 'afterBackoff';
    }
    if (!matching) return 'afterBackoff';
    const pod = entry.queued.info.pod;
    for (const h of matching) {
      if (!entry.rejectors.has(h.plugin)) continue;
      if (askHint(h, pod, oldObj, newObj) === 'QueueSkip') continue;
      return 'afterBackoff';
    }
    return 'skip';
  }

  /**
   * The profile's hints registered for an event matching `event`, in their order, and their plugins;
   * undefined without hints (every event moves every rejected pod).
   */
  private matchingHints(
    event: ClusterEvent,
  ): { readonly hints: readonly QueueingHintEntry[]; readonly plugins: ReadonlySet<string> } | undefined {
    const all = this.options.queueingHints;
    if (!all) return undefined;
    const hints = all.filter((h) => matchClusterEvents(h.event, event));
    return { hints, plugins: new Set(hints.map((h) => h.plugin)) };
  }

  /** Takes a waiting pod out of the unschedulable or held pods. */
  private takeOut(id: string): void {
    this.unschedulable.delete(id);
    this.gated.delete(id);
  }

  /**
   * upstream requeueEntityWithQueueingStrategy: skip stays unschedulable; after back-off goes to
   * backoffQ while the back-off runs, else to activeQ. PreEnqueue may hold it instead. Returns
   * where it went.
   */
  private requeue(entry: Entry, strategy: Strategy, label: string): 'active' | 'backoff' | 'unschedulable' {
    if (strategy === 'skip') {
      this.toUnschedulable(entry, label);
      return 'unschedulable';
    }
    if (this.backingOff(entry, this.options.clock.now())) {
      return this.moveToBackoff(entry, label) ? 'backoff' : 'unschedulable';
    }
    return this.moveToActive(entry, label, false) ? 'active' : 'unschedulable';
  }

  /** Among the unschedulable pods, or the held ones when a plugin holds it; counted when it was not there yet. */
  private toUnschedulable(entry: Entry, label: string): void {
    const id = entry.queued.info.id;
    const present = this.unschedulable.has(id) || this.gated.has(id);
    this.takeOut(id);
    (entry.gatingPlugin !== undefined ? this.gated : this.unschedulable).set(id, entry);
    if (!present) this.options.onIncoming?.('unschedulable', label);
  }

  /** Runs the PreEnqueue plugins: the entry as held by the first that holds it, or as let in. */
  private gate(entry: Entry): Entry {
    const plugin = this.isGated(entry.queued.info);
    if (plugin === undefined) {
      if (entry.gatingPlugin === undefined) return entry;
      const { gatingPlugin: _gone, ...rest } = entry;
      return rest;
    }
    return { ...entry, gatingPlugin: plugin, rejectors: new Set([...entry.rejectors, plugin]) };
  }

  /** upstream moveToActiveQ: PreEnqueue first (unless it comes from backoffQ, checked on entry); held, it waits among the unschedulable pods. */
  private moveToActive(entry: Entry, label: string, fromBackoff: boolean): boolean {
    const checked = fromBackoff ? entry : this.gate(entry);
    if (checked.gatingPlugin !== undefined) {
      this.toUnschedulable(checked, label);
      return false;
    }
    this.active.upsert(checked.queued);
    this.options.onIncoming?.('active', label);
    if (!fromBackoff) this.notify();
    return true;
  }

  /**
   * upstream moveToBackoffQ: PreEnqueue runs on entry (SchedulerPopFromBackoffQ); the error heap when
   * no plugin rejected or held it (upstream backoffQueue.add: no unschedulable nor pending plugins),
   * else the heap pop takes from (so it is ready).
   */
  private moveToBackoff(entry: Entry, label: string): boolean {
    const checked = this.gate(entry);
    if (checked.gatingPlugin !== undefined) {
      this.toUnschedulable(checked, label);
      return false;
    }
    this.options.onIncoming?.('backoff', label);
    if (checked.rejectors.size === 0) this.errorBackoff.upsert(checked);
    else {
      this.backoff.upsert(checked);
      this.notify();
    }
    return true;
  }

  private recordInFlight(event: ClusterEvent, oldObj: unknown, newObj: unknown): void {
    this.inFlightEvents.push({ seq: ++this.eventSeq, event, oldObj, newObj });
  }

  /** The events recorded since the pod was popped. */
  private eventsSince(id: string): readonly InFlightEvent[] {
    const flying = this.inFlight.get(id);
    if (!flying) return [];
    return this.inFlightEvents.filter((e) => e.seq > flying.since);
  }

  /** The pod is no longer in flight: events no pod in flight needs are dropped. */
  private leaveFlight(id: string): void {
    if (!this.inFlight.delete(id)) return;
    let oldest = Infinity;
    for (const f of this.inFlight.values()) oldest = Math.min(oldest, f.since);
    this.inFlightEvents = this.inFlightEvents.filter((e) => e.seq > oldest);
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

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

/**
 * A hint's answer; one that fails (returns a HintError, or throws) is Queue, as upstream's
 * isPodWorthRequeuing takes a QueueingHintFn's error, so the pod is not stuck among the unschedulable ones.
 */
function askHint(entry: QueueingHintEntry, pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  try {
    const hint = entry.hint(pod, oldObj, newObj);
    return hint === 'QueueSkip' ? 'QueueSkip' : 'Queue';
  } catch {
    return 'Queue';
  }
}

function hasAny(set: ReadonlySet<string>, of: ReadonlySet<string>): boolean {
  for (const x of set) if (of.has(x)) return true;
  return false;
}

/** upstream alignToWindow: the whole second (of the injected clock's milliseconds) `ms` falls in. */
function window(ms: number): number {
  return Math.floor(ms / BACKOFF_FLUSH_MS) * BACKOFF_FLUSH_MS;
}
