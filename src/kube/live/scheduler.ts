// Podplan as a cluster's scheduler: the engine's pieces composed around the cluster's events.
//
// Events in (pods, nodes and ScheduleTriggers added, changed, removed, as informers deliver them);
// writes out (bindings through the Binder, SchedulePlans and trigger states through a PlanWriter).
// One ClusterCache holds the nodes and the bound and assumed pods; each profile has its Scheduler
// (queue + framework) over that cache: `podplan` with the default plugins, and the pod-set
// scheduler, whose PodSetPlanner is gated by the PodSetCoordinator that keeps the triggers and plans.
// Scheduling cycles run back to back while this process leads; each pod's binding runs off the loop
// (upstream's binding cycle), so up to `maxBindingsInFlight` are posted at once. A bound pod is only
// assumed until the watch shows it bound; one the watch never shows expires and is requeued.
import type { Clock, Timer } from '../../engine/api/clock';
import { podId, podKey, type ClusterObjects, type Node, type Pod } from '../../engine/api/types';
import { ClusterCache } from '../../engine/cache/cache';
import type { Framework } from '../../engine/framework/runtime';
import type { PlanCause, PodSetCoordinator } from '../../engine/planner/scheduler/coordinator';
import { POD_SET_LABEL, type Plan } from '../../engine/planner/plan';
import { resolvePodSet } from '../../engine/planner/podset/podset';
import type { TriggerSpec } from '../../engine/planner/podset/trigger';
import { ActionType, type ClusterEvent } from '../../engine/framework/events';
import type { DeliveredEvent } from '../../engine/scheduler/scheduler';
import {
  nodeId,
  parseNodeId,
  podSetProgress,
  TRIGGER_KIND,
  unmetDependencies,
  type DependencyProgress,
} from '../../engine/reconcile/triggers';
import { resolveDependency } from '../../engine/planner/placed-before';
import { Scheduler, type ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { explain } from '../../engine/explain/explain';
import { isRejection } from '../../engine/framework/status';
import { podPriority } from '../../engine/api/priority';
import type { SchedulingEffects } from './effects';

/** What the loop writes to the cluster besides bindings. Never rejects. */
export interface PlanWriter {
  /** Creates or replaces the pod set's SchedulePlan. */
  writePlan(plan: Plan): Promise<WriteOutcome>;
  /** Sets a ScheduleTrigger's spec.state (its quiet time has passed). */
  setTriggerState(namespace: string, name: string, state: 'Schedule'): Promise<WriteOutcome>;
}

export type WriteOutcome = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** Where decisions and plans are reported (the history, the log). Must not throw. */
export interface LiveReport {
  /** One cycle's outcome; `elapsedMs` from the cycle's start until its binding settled. */
  decision(outcome: ScheduleOutcome, scheduler: string, elapsedMs?: number): void;
  plan(plan: Plan, cause: PlanCause): void;
  triggerScheduled(trigger: TriggerSpec): void;
  /** A write that failed, or an assumed pod that expired: one line for a log. */
  warning(message: string): void;
}

/** What reads the cluster's other objects: a Framework, the planner's snapshot. */
export interface ObjectsReader {
  useObjects(objects: ClusterObjects): void;
}

export interface LiveProfile {
  readonly schedulerName: string;
  readonly framework: Framework;
}

export interface LiveSchedulerOptions {
  readonly clock: Clock;
  /** The default profile(s): schedulers for their schedulerName. */
  readonly profiles: readonly LiveProfile[];
  /** The pod-set scheduler: its framework gated by `coordinator`; `planning` is what the coordinator plans with. */
  readonly podSets?: { readonly profile: LiveProfile; readonly coordinator: PodSetCoordinator; readonly planning: ObjectsReader };
  readonly cache: ClusterCache;
  readonly writer: PlanWriter;
  readonly report: LiveReport;
  /** Bindings (scheduling cycles awaiting their binding) in flight at once. */
  readonly maxBindingsInFlight?: number;
  /** Cycles run in one turn of the event loop before informer events get a turn. */
  readonly cyclesPerTurn?: number;
  /** The queues' back-off (the configuration's podInitialBackoffSeconds / podMaxBackoffSeconds). */
  readonly backoff?: { readonly initialBackoffMs?: number; readonly maxBackoffMs?: number };
  /** How often expired assumed pods are swept (upstream: every second). */
  readonly expiryPeriodMs?: number;
  /** A plan changed this recently is written once it settles, so a burst of changes is one write. */
  readonly planWriteDelayMs?: number;
  /** 'binder' when nothing is really bound (a dry run): the binder's answer confirms the pod. Default 'watch'. */
  readonly confirmedBy?: 'binder' | 'watch';
  /**
   * What each outcome writes besides the binding (kube-scheduler's Events, PodScheduled condition,
   * nomination and preemption); none in a dry run.
   */
  readonly effects?: SchedulingEffects;
}

/**
 * Podplan's own event: the pod-set coordinator's plans or triggers changed. A wildcard (as upstream's
 * ForceActivate): every pod of the pod-set scheduler waiting among the unschedulable ones is tried again.
 */
const PLANS_CHANGED: ClusterEvent = { resource: '*', actionType: ActionType.All, customLabel: 'PodSetPlansChanged' };

export const LIVE_DEFAULTS = {
  maxBindingsInFlight: 256,
  cyclesPerTurn: 64,
  expiryPeriodMs: 1_000,
  planWriteDelayMs: 100,
  assumedPodTtlMs: 30_000,
} as const;

/** A cache for a live scheduler: assumed pods expire after the TTL unless the watch confirms them. */
export function liveCache(clock: Clock, assumedPodTtlMs: number = LIVE_DEFAULTS.assumedPodTtlMs): ClusterCache {
  return new ClusterCache({ clock, assumedPodTtlMs });
}

export interface LiveCounts {
  /** Pods waiting to be tried (activeQ and backoff) or in a cycle, over all profiles. */
  readonly pending: number;
  readonly active: number;
  readonly backoff: number;
  readonly gated: number;
  readonly unschedulable: number;
  readonly bindingsInFlight: number;
  /** Bound by this process, not yet seen bound through the watch. */
  readonly unconfirmed: number;
  readonly bound: number;
  /** Triggers whose quiet time is running. */
  readonly triggersWaiting: number;
  readonly writesInFlight: number;
  /** Victims of preemption asked to go and not yet seen deleted. */
  readonly preempting: number;
  /** Pods that entered each queue, by queue and event label, since the start (upstream scheduler_queue_incoming_pods_total). */
  readonly queueIncoming: ReadonlyMap<string, { readonly queue: string; readonly event: string; readonly count: number }>;
}

export class LiveScheduler {
  private readonly schedulers: Array<{ readonly name: string; readonly scheduler: Scheduler }>;
  private readonly settings: { readonly maxBindingsInFlight: number; readonly cyclesPerTurn: number; readonly planWriteDelayMs: number };
  /** The newest version of every pod seen, by id, so an expired assumption can be requeued as it is now. */
  private readonly latest = new Map<string, Pod>();
  /** Pod id by namespace/name (outcomes name pods by key). */
  private readonly ids = new Map<string, string>();
  /** ScheduleTriggers as written, by reconcile node id (ScheduleTrigger/namespace/name). */
  private readonly triggers = new Map<string, TriggerSpec>();
  /** SchedulePlans written in the cluster, by namespace/name. */
  private readonly written = new Map<string, Plan>();
  /** Triggers held back on their dependsOn. */
  private readonly held = new Set<string>();
  /** Plans changed and not written yet, by pod set (namespace/name). */
  private readonly pendingPlans = new Map<string, Plan>();
  private readonly unconfirmed = new Set<string>();
  /** Victims of a preemption this scheduler asked to delete, not yet seen deleted through the watch. */
  private readonly awaitingDeletion = new Set<string>();
  /** Preemptors whose victims are still being evicted (upstream Executor.preempting), with those victims. */
  private readonly preempting = new Map<string, readonly string[]>();
  private readonly cycles = new Set<Promise<void>>();
  private readonly writes = new Set<Promise<void>>();
  private readonly planTimers = new Map<string, Timer>();
  private readonly expiry: Timer;
  private leading = false;
  private stopped = false;
  private turn: Timer | undefined;
  /** scheduler_queue_incoming_pods_total over every profile's queue, by queue and event. */
  private readonly queueIncoming = new Map<string, { readonly queue: string; readonly event: string; count: number }>();
  private next = 0;
  private bound = 0;

  constructor(private readonly options: LiveSchedulerOptions) {
    this.settings = {
      maxBindingsInFlight: options.maxBindingsInFlight ?? LIVE_DEFAULTS.maxBindingsInFlight,
      cyclesPerTurn: options.cyclesPerTurn ?? LIVE_DEFAULTS.cyclesPerTurn,
      planWriteDelayMs: options.planWriteDelayMs ?? LIVE_DEFAULTS.planWriteDelayMs,
    };
    const profiles = [...options.profiles, ...(options.podSets ? [options.podSets.profile] : [])];
    this.schedulers = profiles.map(({ schedulerName, framework }) => {
      // A live scheduler deletes no pod: preemption only nominates, so a preemptor never lands on a node its victims still use.
      const scheduler: Scheduler = new Scheduler({
        framework,
        cache: options.cache,
        clock: options.clock,
        schedulerName,
        confirmedBy: options.confirmedBy ?? 'watch',
        preemption: 'nominate',
        preEnqueue: true,
        ...(options.backoff ? { backoff: options.backoff } : {}),
        onQueueIncoming: (queue, event) => {
          const key = `${queue}\u0000${event}`;
          const entry = this.queueIncoming.get(key);
          if (entry) entry.count++;
          else this.queueIncoming.set(key, { queue, event, count: 1 });
        },
        // A forgotten assumed pod (its binding failed) frees room for every profile's pods.
        onOwnEvent: (delivered) => this.deliverToOthers(scheduler, [delivered]),
      });
      return { name: schedulerName, scheduler };
    });
    for (const { scheduler } of this.schedulers) {
      scheduler.queue.onReady(() => this.kick());
      scheduler.queue.start();
    }
    this.expiry = options.cache.startExpiry(options.expiryPeriodMs ?? LIVE_DEFAULTS.expiryPeriodMs, (pods) => this.expired(pods));
  }

  /** Schedules only while leading (the Lease is ours); events are taken in either way, so a new leader starts warm. */
  setLeading(leading: boolean): void {
    this.leading = leading;
    if (leading) this.kick();
  }

  // ---- events in

  podAdded(pod: Pod): void {
    this.podEvent(pod, 'add');
  }

  podUpdated(pod: Pod): void {
    this.podEvent(pod, 'update');
  }

  podDeleted(pod: Pod): void {
    const id = podId(pod);
    this.latest.delete(id);
    this.ids.delete(podKey(pod));
    this.unconfirmed.delete(id);
    this.awaitingDeletion.delete(id);
    this.options.podSets?.coordinator.podDeleted(pod);
    this.fanOut(
      (s) => s.onPodDelete(pod),
      (s) => s.forgetPending(id),
    );
    this.podSetPodChanged(pod);
  }

  nodeAdded(node: Node): void {
    this.fanOut((s) => s.onNodeAdd(node));
  }

  nodeUpdated(node: Node): void {
    this.fanOut((s) => s.onNodeUpdate(node));
  }

  nodeDeleted(name: string): void {
    this.fanOut((s) => s.onNodeDelete(name));
  }

  /**
   * The cluster's other objects changed (all of them, as they are now): every framework reads these
   * from now on; then each change (a ResourceClaim updated, a DeviceClass added, …, with the object
   * before and after) is a cluster event for every queue, which the plugins' hints judge.
   */
  objectsChanged(objects: ClusterObjects, events: readonly DeliveredEvent[] = []): void {
    for (const { framework } of this.options.profiles) framework.useObjects(objects);
    if (this.options.podSets) {
      this.options.podSets.profile.framework.useObjects(objects);
      this.options.podSets.planning.useObjects(objects);
    }
    for (const { event, oldObj, newObj } of events)
      for (const { scheduler } of this.schedulers) scheduler.onObjectEvent(event, oldObj, newObj);
  }

  /**
   * A ScheduleTrigger added or changed. One whose `dependsOn` names triggers whose plans are not
   * complete yet (every pod placed) or, with `requireReady`, whose pods are not all Ready (from the
   * pods' status conditions the watch brings) is held: the coordinator sees it Planning with no
   * quiet time until they are, then gets it as written (a fresh trigger, so its quiet time starts then).
   */
  triggerApplied(spec: TriggerSpec): void {
    const id = nodeId({ kind: TRIGGER_KIND, namespace: spec.namespace, name: spec.name });
    this.triggers.set(id, spec);
    this.applyTrigger(id, spec);
  }

  /**
   * A SchedulePlan written in the cluster (by anyone, this scheduler too; `name` its metadata.name).
   * One of a set no trigger plans here is that set's plan: a trigger depending on it goes ahead once
   * it places every pod, and its pods are planned around (PodSetCoordinator.writtenPlans).
   */
  planWritten(name: string, plan: Plan): void {
    this.written.set(`${plan.namespace}/${name}`, plan);
    this.options.podSets?.coordinator.writtenPlans([...this.written.values()]);
    this.releaseHeld();
  }

  planDeleted(namespace: string, name: string): void {
    if (!this.written.delete(`${namespace}/${name}`)) return;
    this.options.podSets?.coordinator.writtenPlans([...this.written.values()]);
    this.releaseHeld();
  }

  triggerDeleted(namespace: string, name: string, podSet: string): void {
    this.triggers.delete(nodeId({ kind: TRIGGER_KIND, namespace, name }));
    this.held.delete(nodeId({ kind: TRIGGER_KIND, namespace, name }));
    this.options.podSets?.coordinator.deleteTrigger(namespace, podSet);
  }

  private applyTrigger(id: string, spec: TriggerSpec): void {
    const coordinator = this.options.podSets?.coordinator;
    if (!coordinator) return;
    const waitingOn = unmetDependencies(spec, (dep) => this.dependencyProgress(dep));
    const { quietTime: _quiet, ...withoutQuietTime } = spec;
    if (waitingOn.length > 0) {
      if (!this.held.has(id))
        this.options.report.warning(
          `ScheduleTrigger ${spec.namespace}/${spec.name} waits for ${waitingOn.join(', ')}${spec.requireReady ? ' (their pods Ready)' : ''}`,
        );
      this.held.add(id);
      coordinator.applyTrigger({ ...withoutQuietTime, state: 'Planning' });
      return;
    }
    if (this.held.delete(id)) coordinator.deleteTrigger(spec.namespace, spec.podSet);
    const applied = coordinator.applyTrigger(spec);
    if (!applied.ok) this.options.report.warning(applied.error);
    this.wakePodSets();
  }

  /**
   * How far the set a dependency `id` names has got: its coordinator plan and its pods as the watch
   * has them. A PodSet or SchedulePlan entry stands for the triggers of that set, as in plan-all and
   * the editor (engine/planner/placed-before resolveDependency); a set no trigger here plans has the
   * SchedulePlan written for it, if any, as its plan (as plan-all reads a written plan it does not
   * plan again), else is complete only once every pod is bound.
   */
  private dependencyProgress(id: string): DependencyProgress {
    const podSets = this.options.podSets;
    const dependency = parseNodeId(id);
    if (!podSets || !dependency.ok) return { complete: false, ready: false };
    const { kind, namespace, name } = dependency.value;
    const written = [...this.written.values()];
    const resolved = resolveDependency({ kind, namespace, name }, namespace, [...this.triggers.values()], written);
    const set = resolved.podSet;
    if (!set) return { complete: false, ready: false };
    const plan =
      resolved.triggers.length > 0
        ? podSets.coordinator.plan(set.namespace, set.name)
        : written.find((p) => p.namespace === set.namespace && p.podSet === set.name);
    const inPlan = new Set(plan?.assignments.map((a) => a.pod));
    const members = resolvePodSet([...this.latest.values()], set, podSets.profile.schedulerName).pods;
    return podSetProgress({ pods: members, planned: plan !== undefined, placed: (pod) => inPlan.has(pod.metadata.name) });
  }

  /** A pod of a pod set changed while triggers are held: those waiting on Ready pods look again. */
  private podSetPodChanged(pod: Pod): void {
    if (this.held.size > 0 && pod.metadata.labels?.[POD_SET_LABEL] !== undefined) this.releaseHeld();
  }

  /** A plan changed: held triggers whose dependencies are now complete go ahead. */
  private releaseHeld(): void {
    for (const id of [...this.held]) {
      const spec = this.triggers.get(id);
      if (spec) this.applyTrigger(id, spec);
    }
  }

  // ---- state

  counts(): LiveCounts {
    let pending = 0;
    let unschedulable = 0;
    let active = 0;
    let backoff = 0;
    let gated = 0;
    for (const { scheduler } of this.schedulers) {
      const c = scheduler.queue.counts();
      pending += c.active + c.backoff + c.inFlight;
      unschedulable += c.unschedulable;
      active += c.active;
      backoff += c.backoff;
      gated += c.gated;
    }
    const triggersWaiting = this.options.podSets?.coordinator.triggers().filter((t) => t.quietUntil !== undefined).length ?? 0;
    return {
      pending,
      active,
      backoff,
      gated,
      unschedulable,
      bindingsInFlight: this.cycles.size,
      unconfirmed: this.unconfirmed.size,
      bound: this.bound,
      triggersWaiting,
      writesInFlight: this.writes.size + this.planTimers.size + (this.options.effects?.inFlight() ?? 0),
      preempting: this.awaitingDeletion.size,
      queueIncoming: this.queueIncoming,
    };
  }

  /** Nothing of this scheduler's is pending, in flight, unconfirmed or about to be written. */
  idle(): boolean {
    const c = this.counts();
    return (
      c.pending === 0 &&
      c.bindingsInFlight === 0 &&
      c.unconfirmed === 0 &&
      c.triggersWaiting === 0 &&
      c.writesInFlight === 0 &&
      c.preempting === 0
    );
  }

  /** The latest outcome of each pod tried, by namespace/name. */
  outcomes(): Map<string, ScheduleOutcome> {
    const all = new Map<string, ScheduleOutcome>();
    for (const { scheduler } of this.schedulers) for (const [pod, outcome] of scheduler.outcomes) all.set(pod, outcome);
    return all;
  }

  /**
   * How many pods this process bound: a cycle whose binding was answered, or one whose binding
   * failed to answer but landed (the watch shows the pod on a node its Bind stage asked for).
   */
  boundHere(): number {
    let n = 0;
    for (const o of this.outcomes().values()) {
      if (o.node !== undefined) n++;
      else {
        const id = this.ids.get(o.pod);
        const node = id !== undefined ? this.latest.get(id)?.spec.nodeName : undefined;
        if (node !== undefined && o.diagnosis.stages.some((s) => s.stage === 'Bind' && s.node === node)) n++;
      }
    }
    return n;
  }

  /**
   * The pods whose latest outcome here placed them nowhere, less those the watch has shown bound
   * since (a binding whose answer was lost but which landed, or another scheduler's).
   */
  notPlaced(): ScheduleOutcome[] {
    return [...this.outcomes().values()].filter((o) => {
      if (o.node !== undefined) return false;
      const id = this.ids.get(o.pod);
      return !(id !== undefined && this.latest.get(id)?.spec.nodeName);
    });
  }

  /** Pods of this scheduler's waiting in activeQ or backoff that have not been tried yet (no outcome). */
  untried(): number {
    const tried = this.outcomes();
    let n = 0;
    for (const [id, pod] of this.latest) {
      if (pod.spec.nodeName || tried.has(podKey(pod))) continue;
      const where = this.schedulers.find((s) => s.scheduler.responsibleFor(pod))?.scheduler.queue.whereIs(id);
      if (where === 'active' || where === 'backoff' || where === 'inFlight') n++;
    }
    return n;
  }

  /** Stops scheduling and waits for the cycles and writes in flight (their bindings settle). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.turn?.cancel();
    this.expiry.cancel();
    for (const { scheduler } of this.schedulers) scheduler.queue.stop();
    for (const [key, timer] of this.planTimers) {
      timer.cancel();
      this.planTimers.delete(key);
      this.flushPlan(key);
    }
    while (this.cycles.size > 0 || this.writes.size > 0) await Promise.allSettled([...this.cycles, ...this.writes]);
  }

  // ---- plans and triggers (the coordinator's callbacks)

  /**
   * For CoordinatorOptions.onPlan: reports the plan and writes it once it settles. A plan taken from
   * the cluster ('written') is there already: it is not written back, and one of ours waiting to be
   * written is dropped.
   */
  planMade(plan: Plan, cause: PlanCause): void {
    this.options.report.plan(plan, cause);
    this.releaseHeld();
    const key = `${plan.namespace}/${plan.podSet}`;
    if (cause === 'written') {
      this.pendingPlans.delete(key);
      this.wakePodSets();
      return;
    }
    this.pendingPlans.set(key, plan);
    if (this.planTimers.has(key)) return;
    this.planTimers.set(
      key,
      this.options.clock.setTimer(this.settings.planWriteDelayMs, () => {
        this.planTimers.delete(key);
        this.flushPlan(key);
      }),
    );
    this.wakePodSets();
  }

  /** For CoordinatorOptions.onScheduled: the quiet time passed, so the trigger's object says Schedule. */
  triggerScheduled(trigger: TriggerSpec): void {
    this.options.report.triggerScheduled(trigger);
    this.track(
      this.options.writer.setTriggerState(trigger.namespace, trigger.name, 'Schedule'),
      `setting ScheduleTrigger ${trigger.namespace}/${trigger.name} to Schedule`,
    );
  }

  private flushPlan(key: string): void {
    const plan = this.pendingPlans.get(key);
    if (!plan) return;
    this.pendingPlans.delete(key);
    this.track(this.options.writer.writePlan(plan), `writing the SchedulePlan of pod set ${key}`);
  }

  private track(write: Promise<WriteOutcome>, what: string): void {
    const done = write.then((outcome) => {
      if (!outcome.ok) this.options.report.warning(`${what} failed: ${outcome.message}`);
    });
    this.writes.add(done);
    void done.finally(() => this.writes.delete(done));
  }

  // ---- the loop

  private podEvent(pod: Pod, event: 'add' | 'update'): void {
    const id = podId(pod);
    this.latest.set(id, pod);
    this.ids.set(podKey(pod), id);
    if (pod.spec.nodeName) {
      this.unconfirmed.delete(id);
      // An update that binds the pod (or confirms an assumed one) is, as for upstream's assigned-pod
      // handlers, an add (the scheduler tells AssignedPodAdd from a bound pod's update).
      this.fanOut(
        (s) => (event === 'add' ? s.onPodAdd(pod) : s.onPodUpdate(pod)),
        (s) => s.forgetPending(id),
      );
      this.podSetPodChanged(pod);
      return;
    }
    const owner = this.schedulers.find((s) => s.scheduler.responsibleFor(pod))?.scheduler;
    if (!owner) return;
    // As upstream's updatePodInSchedulingQueue: an unbound version of a pod assumed bound (a status
    // write that went out before its binding, seen now) does not put it back in the queue.
    if (event === 'update' && this.options.cache.getPod(id)?.state === 'Assumed') return;
    if (event === 'add') {
      this.options.podSets?.coordinator.podAdded(pod);
      owner.onPodAdd(pod);
    } else this.deliverToOthers(owner, owner.onPodUpdate(pod));
  }

  /**
   * A cluster event: the first scheduler applies it to the shared cache (and its queue), every other
   * scheduler's queue hears of the events it made (with the objects before and after), after
   * `forOthers` when given.
   */
  private fanOut(apply: (s: Scheduler) => readonly DeliveredEvent[], forOthers?: (s: Scheduler) => void): void {
    const [first, ...others] = this.schedulers;
    if (!first) return;
    const events = apply(first.scheduler);
    for (const { scheduler } of others) forOthers?.(scheduler);
    this.deliverToOthers(first.scheduler, events);
  }

  /** Events one scheduler's queue heard (with their preCheck) told to every other scheduler's queue. */
  private deliverToOthers(from: Scheduler, events: readonly DeliveredEvent[]): void {
    if (events.length === 0) return;
    for (const { scheduler } of this.schedulers) {
      if (scheduler === from) continue;
      for (const { event, oldObj, newObj, preCheck } of events) scheduler.queue.onEvent(event, oldObj, newObj, preCheck);
    }
  }

  /** Plans changed or triggers moved: pod-set pods held back are tried again. */
  private wakePodSets(): void {
    const podSets = this.options.podSets;
    if (!podSets) return;
    const entry = this.schedulers.find((s) => s.name === podSets.profile.schedulerName);
    if (!entry) return;
    entry.scheduler.queue.onEvent(PLANS_CHANGED);
    entry.scheduler.queue.flushBackoffCompleted();
  }

  private expired(pods: readonly Pod[]): void {
    for (const assumed of pods) {
      const id = podId(assumed);
      this.unconfirmed.delete(id);
      const now = this.latest.get(id);
      this.options.report.warning(
        `pod ${podKey(assumed)} was assumed on node ${assumed.spec.nodeName} but never seen bound; ${now && !now.spec.nodeName ? 'requeued' : 'dropped'}`,
      );
      if (now && !now.spec.nodeName) this.schedulers.find((s) => s.scheduler.responsibleFor(now))?.scheduler.onPodAdd(now);
    }
  }

  /**
   * Runs cycles on the next turn of the event loop (after the I/O that is ready: binding answers
   * and watch events), unless a turn is already due. setImmediate, not a 0 ms timer: a timer waits
   * at least a millisecond, which caps how often the loop can take up freed binding slots.
   */
  private kick(): void {
    if (this.turn || this.stopped || !this.leading) return;
    const immediate = setImmediate(() => {
      this.turn = undefined;
      this.runTurn();
    });
    this.turn = { cancel: () => clearImmediate(immediate) };
  }

  private runTurn(): void {
    let budget = this.settings.cyclesPerTurn;
    while (budget-- > 0 && this.leading && !this.stopped && this.cycles.size < this.settings.maxBindingsInFlight) {
      const entry = this.nextReady();
      if (!entry) return;
      // The cycle runs now, up to its binding request; the rest settles later.
      const started = this.options.clock.now();
      const cycle = entry.scheduler.scheduleNext().then((outcome) => {
        if (outcome) this.settled(entry.name, outcome, this.options.clock.now() - started);
      });
      this.cycles.add(cycle);
      void cycle.finally(() => {
        this.cycles.delete(cycle);
        this.kick();
      });
    }
    if (budget < 0) this.kick();
  }

  /** The next scheduler with a pod ready, round robin over the profiles. */
  private nextReady(): { readonly name: string; readonly scheduler: Scheduler } | undefined {
    for (let i = 0; i < this.schedulers.length; i++) {
      const entry = this.schedulers[(this.next + i) % this.schedulers.length];
      if (entry && entry.scheduler.queue.hasNext()) {
        this.next = (this.next + i + 1) % this.schedulers.length;
        return entry;
      }
    }
    return undefined;
  }

  private settled(scheduler: string, outcome: ScheduleOutcome, elapsedMs: number): void {
    const id = this.ids.get(outcome.pod);
    if (outcome.node !== undefined) {
      this.bound++;
      if (id !== undefined && this.options.cache.getPod(id)?.state === 'Assumed') this.unconfirmed.add(id);
    }
    this.options.report.decision(outcome, scheduler, elapsedMs);
    const pod = id !== undefined ? this.latest.get(id) : undefined;
    if (pod && this.options.effects) this.writeEffects(scheduler, pod, outcome, this.options.effects);
  }

  /**
   * Whether the pod's preemption is still being carried out (DefaultPreemption's PreEnqueue asks):
   * its evictions are being made and a victim is not seen deleted yet. Once every victim is gone the
   * pod goes ahead (upstream IsPodRunningPreemption's check of the last victim), so a deletion seen
   * before the evictions returned does not leave it held.
   */
  preemptionRunning(pod: Pod): boolean {
    const victims = this.preempting.get(podId(pod));
    return victims !== undefined && victims.some((v) => this.awaitingDeletion.has(v));
  }

  /** As kube-scheduler after a cycle: the Scheduled event, or FailedScheduling with the PodScheduled condition, and preemption's writes. */
  private writeEffects(scheduler: string, pod: Pod, outcome: ScheduleOutcome, effects: SchedulingEffects): void {
    if (outcome.node !== undefined) {
      effects.scheduled(pod, outcome.node, scheduler);
      return;
    }
    const { diagnosis } = outcome;
    const unschedulable = isRejection(diagnosis.status);
    const nominatedNode = outcome.nominatedNode;
    effects.failed(
      pod,
      {
        message: explain(diagnosis).message,
        reason: unschedulable ? 'Unschedulable' : 'SchedulerError',
        ...(nominatedNode !== undefined ? { nominatedNode } : {}),
        clearNomination: !unschedulable || (diagnosis.preemption !== undefined && nominatedNode === undefined),
      },
      scheduler,
    );
    if (nominatedNode === undefined || !outcome.victims?.length) return;
    const victims = outcome.victims.flatMap((key) => {
      const victimId = this.ids.get(key);
      const victim = victimId !== undefined ? this.latest.get(victimId) : undefined;
      return victim ? [victim] : [];
    });
    // Upstream getLowerPriorityNominatedPods: pods nominated to that node with a lower priority lose their nomination.
    const entry = this.schedulers.find((s) => s.name === scheduler);
    const priority = podPriority(pod);
    const lower = (entry?.scheduler.nominated.forNode(nominatedNode) ?? [])
      .filter((p) => p.id !== podId(pod) && podPriority(p.pod) < priority)
      .map((p) => this.latest.get(p.id) ?? p.pod);
    for (const v of victims) this.awaitingDeletion.add(podId(v));
    // Upstream's async preemption: DefaultPreemption's PreEnqueue holds the preemptor until its victims' evictions are made.
    const preemptor = podId(pod);
    this.preempting.set(
      preemptor,
      victims.map((v) => podId(v)),
    );
    let failures = 0;
    void effects
      .preempt(pod, nominatedNode, victims, lower)
      .then((failed) => {
        failures = failed.length;
        for (const v of failed) this.awaitingDeletion.delete(v);
      })
      .catch(() => (failures = victims.length))
      .finally(() => {
        this.preempting.delete(preemptor);
        // As upstream's async preemption: activated at once only when an eviction failed (no deletion
        // event will come); else its victims' events let it in once the cache shows them going, so
        // a retry never finds a victim not yet terminating and preempts it again.
        if (failures > 0) entry?.scheduler.queue.activate(preemptor);
      });
  }
}
