// The scheduling loop (upstream scheduleOne): pop a pod from the queue, run the framework on a
// snapshot of the cache, assume the pod on the chosen node, run the binding pipeline through the
// Binder, then confirm the pod in the cache or forget it and requeue. Cluster events (pods and nodes
// added, updated, removed) feed the cache and wake the pods they could help.
import type { Clock, ManualClock } from '../api/clock';
import { podId, podKey, type Node, type Pod } from '../api/types';
import type { ClusterCache } from '../cache/cache';
import { CycleState } from '../framework/cycle-state';
import type { Diagnosis } from '../framework/diagnosis';
import { NominatedPods, NOMINATED_PODS } from '../framework/preemption/nominated';
import type { PreemptionRecord } from '../framework/preemption/record';
import { boundPodInfo, podInfo, type PodInfo } from '../framework/node-info';
import type { Framework } from '../framework/runtime';
import type { Snapshot } from '../framework/snapshot';
import { errorStatus, isRejection, isSuccess, SUCCESS, type Status } from '../framework/status';
import { SchedulingQueue } from '../queue/scheduling-queue';
import {
  EventAssignedPodAdd,
  EventAssignedPodDelete,
  EventNodeAdd,
  EventNodeDelete,
  nodeSchedulingPropertiesChange,
  podSchedulingPropertiesChange,
  type ClusterEvent,
} from '../framework/events';
import { podPriority } from '../api/priority';
import { EVENTS as SCHEDULING_GATES_EVENTS, NAME as SCHEDULING_GATES } from '../plugins/SchedulingGates';
import { DEFAULT_SCHEDULER_NAME } from '../framework/profile';

export interface ScheduleOutcome {
  /** namespace/name */
  readonly pod: string;
  /** Set when the pod was bound. */
  readonly node?: string;
  readonly diagnosis: Diagnosis;
  /** How many cycles the pod has been through. */
  readonly attempts: number;
  /**
   * The pods preempted for it (namespace/name): with `node` set, those evicted before it was placed
   * there; without, those to evict from `nominatedNode` (when the scheduler only nominates).
   */
  readonly victims?: readonly string[];
  /** The node preemption chose for it, while it waits for its victims to go. */
  readonly nominatedNode?: string;
}

/** A running pod evicted to make room for a higher-priority one. */
export interface Preempted {
  readonly pod: string;
  readonly node: string;
  /** The preemptor, namespace/name. */
  readonly by: string;
}

/** A cluster event as the queue was told of it, with the object before and after (another scheduler's queue on the same cache hears the same). */
export interface DeliveredEvent {
  readonly event: ClusterEvent;
  readonly oldObj: unknown;
  readonly newObj: unknown;
  /** The pods the event is for (upstream's PreEnqueueCheck: a nominated pod's room freed concerns those of lower or equal priority); all when absent. */
  readonly preCheck?: (pod: Pod) => boolean;
}

/** A pod the scheduler cannot take at all (malformed requests): reported, never queued. */
export interface RejectedPod {
  readonly pod: string;
  readonly error: string;
}

export interface SchedulerOptions {
  readonly framework: Framework;
  readonly cache: ClusterCache;
  readonly clock: Clock;
  /** Pods whose spec.schedulerName names another scheduler are left alone. */
  readonly schedulerName?: string;
  /** Called before each cycle with its fresh state and the snapshot it runs on (explain looks at one pod's cycle). */
  readonly beforeCycle?: (state: CycleState, pod: PodInfo, snapshot: Snapshot) => void;
  /**
   * What happens to the victims preemption chose: 'evict' removes them from the cache as their
   * deletion would (a simulation); 'nominate' leaves them and only reports the nominated node (a
   * scheduler that must not delete pods on its own); 'delete' nominates and deletes the victims as
   * kube-scheduler does, so the pod is tried again (on its nominated node first) once their deletion
   * wakes it. Default 'evict'.
   */
  readonly preemption?: 'evict' | 'nominate' | 'delete';
  /**
   * Who confirms a bound pod in the cache: the scheduler itself as soon as the binder answers
   * (previews, where nothing else will), or the cluster's watch (a live scheduler: an assumed pod
   * the watch never shows expires). Default 'binder'.
   */
  readonly confirmedBy?: 'binder' | 'watch';
  /**
   * Whether the queue holds pods at the framework's PreEnqueue plugins, as kube-scheduler's does (a
   * live scheduler). A simulation reports such a pod with the same message as PreFilter's verdict.
   */
  readonly preEnqueue?: boolean;
  /** The queue's back-off (KubeSchedulerConfiguration podInitialBackoffSeconds / podMaxBackoffSeconds); default 1 s to 10 s. */
  readonly backoff?: { readonly initialBackoffMs?: number; readonly maxBackoffMs?: number };
  /** A pod entered one of the queues, by which event (upstream's scheduler_queue_incoming_pods_total). */
  readonly onQueueIncoming?: (queue: 'active' | 'backoff' | 'unschedulable', event: string) => void;
  /**
   * A cluster event the scheduler made itself, after its own queue heard it (an assumed pod
   * forgotten when its binding failed; its own confirmation of a bound pod): other schedulers'
   * queues on the same cache should hear it too.
   */
  readonly onOwnEvent?: (event: DeliveredEvent) => void;
}

export class Scheduler {
  readonly queue: SchedulingQueue;
  /** The latest outcome per pod (namespace/name). */
  readonly outcomes = new Map<string, ScheduleOutcome>();
  readonly rejected: RejectedPod[] = [];
  /** Pods evicted by preemption, in the order it happened. */
  readonly preempted: Preempted[] = [];
  /** Pods nominated to nodes (by preemption, or by their status.nominatedNodeName): Filter holds their room. */
  readonly nominated = new NominatedPods();
  /** Victims evicted for each preemptor not placed yet, by namespace/name. */
  private readonly evictedFor = new Map<string, string[]>();
  /** In 'delete' mode: what the preemption that nominated a pod weighed, until the pod is placed. */
  private readonly preemptionFor = new Map<string, PreemptionRecord>();
  /** Queue id (uid) of each pending pod by namespace/name. */
  private readonly pendingIds = new Map<string, string>();
  private snapshot: Snapshot;
  private readonly schedulerName: string;

  constructor(private readonly options: SchedulerOptions) {
    this.schedulerName = options.schedulerName ?? DEFAULT_SCHEDULER_NAME;
    const framework = options.framework;
    this.queue = new SchedulingQueue({
      clock: options.clock,
      less: framework.queueSortLess,
      ...options.backoff,
      // The queue holds pods with scheduling gates for every profile (SchedulingGates is upstream's PreEnqueue plugin).
      queueingHints: [
        ...framework.queueingHints(),
        ...SCHEDULING_GATES_EVENTS.map(({ event, hint }) => ({ plugin: SCHEDULING_GATES, event, hint: hint ?? (() => 'Queue' as const) })),
      ],
      ...(options.preEnqueue
        ? {
            preEnqueue: (info: PodInfo) => {
              const status = framework.preEnqueue(info.pod);
              return isSuccess(status) ? undefined : (status.plugin ?? 'PreEnqueue');
            },
          }
        : {}),
      ...(options.onQueueIncoming ? { onIncoming: options.onQueueIncoming } : {}),
    });
    this.snapshot = options.cache.snapshot();
  }

  /** Whether this scheduler is responsible for the pod (unbound, its scheduler, still pending). */
  responsibleFor(pod: Pod): boolean {
    const phase = pod.status?.phase;
    return (
      !pod.spec.nodeName &&
      (pod.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME) === this.schedulerName &&
      phase !== 'Succeeded' &&
      phase !== 'Failed'
    );
  }

  /** A pod seen added; returns the cluster events its queue was told of. */
  onPodAdd(pod: Pod): readonly DeliveredEvent[] {
    if (pod.spec.nodeName) {
      const events = this.cacheChanged(this.options.cache.addPod(pod), [EventAssignedPodAdd], undefined, pod);
      this.forgetPending(podId(pod));
      return events;
    }
    if (!this.responsibleFor(pod)) return [];
    const info = podInfo(pod);
    if (!info.ok) {
      this.rejected.push({ pod: podKey(pod), error: info.error });
      return [];
    }
    this.pendingIds.set(info.value.key, info.value.id);
    this.queue.add(info.value);
    if (pod.status?.nominatedNodeName) this.nominated.nominate(info.value, pod.status.nominatedNodeName);
    return [];
  }

  /** A pod seen changed; returns the cluster events its queue was told of. */
  onPodUpdate(pod: Pod): readonly DeliveredEvent[] {
    if (pod.spec.nodeName) {
      const known = this.options.cache.getPod(podId(pod));
      // An assumed pod's bound version confirms it, like an add; so is a pod first seen bound (upstream's
      // assigned-pod handlers see an update that binds a pod as an add: AssignedPodAdd, which frees no room).
      // A bound pod's update is split into the parts that changed (AssignedPod/UpdatePodLabel, …).
      const events =
        known?.state === 'Added'
          ? this.cacheChanged(this.options.cache.updatePod(pod), podSchedulingPropertiesChange(pod, known.pod, false), known.pod, pod)
          : this.cacheChanged(this.options.cache.addPod(pod), [EventAssignedPodAdd], undefined, pod);
      // Bound (by this scheduler or another): it is no longer anyone's to schedule.
      this.forgetPending(podId(pod));
      return events;
    }
    const info = podInfo(pod);
    const old = info.ok ? this.queue.pendingPod(info.value.id) : undefined;
    if (info.ok && this.responsibleFor(pod)) this.queue.update(info.value);
    const nominatedBefore = old?.status?.nominatedNodeName;
    // upstream UpdateNominatedPod: the nomination follows the pod's; one cleared is removed (a pod
    // nominated in memory only, by preemption, keeps it while the pod says none before and after).
    if (info.ok && pod.status?.nominatedNodeName) this.nominated.nominate(info.value, pod.status.nominatedNodeName);
    else if (info.ok && nominatedBefore) this.nominated.remove(info.value.id);
    // upstream updatePodInSchedulingQueue: a pod whose nominated node changed no longer holds room
    // there, for pods of lower or equal priority (as if it were deleted from it).
    if (old && nominatedBefore && nominatedBefore !== pod.status?.nominatedNodeName) return [this.nominationGone(old)];
    return [];
  }

  /**
   * The pod is bound, or deleted, and another scheduler applied the change to the shared cache: it
   * leaves this scheduler's queue and nominated pods (upstream's one queue and nominator).
   */
  forgetPending(id: string): void {
    this.queue.delete(id);
    this.nominated.remove(id);
  }

  /**
   * upstream getLEPriorityPreCheck: a pod nominated to a node lost it (deleted, or nominated
   * elsewhere); the room it held is freed for pods of lower or equal priority (AssignedPodDelete of
   * it as it was).
   */
  private nominationGone(pod: Pod): DeliveredEvent {
    const priority = podPriority(pod);
    const delivered: DeliveredEvent = {
      event: EventAssignedPodDelete,
      oldObj: pod,
      newObj: undefined,
      preCheck: (p) => podPriority(p) <= priority,
    };
    this.queue.onEvent(delivered.event, delivered.oldObj, delivered.newObj, delivered.preCheck);
    return delivered;
  }

  /** A pod seen deleted; returns the cluster events its queue was told of. */
  onPodDelete(pod: Pod): readonly DeliveredEvent[] {
    const events = pod.spec.nodeName ? this.cacheChanged(this.options.cache.removePod(pod), [EventAssignedPodDelete], pod, undefined) : [];
    const info = podInfo(pod);
    if (info.ok) this.queue.delete(info.value.id);
    this.nominated.remove(podId(pod));
    // upstream deletePodFromSchedulingQueue: a nominated pod's room is freed for pods of lower or equal priority.
    if (!pod.spec.nodeName && pod.status?.nominatedNodeName) return [...events, this.nominationGone(pod)];
    return events;
  }

  onNodeAdd(node: Node): readonly DeliveredEvent[] {
    return this.cacheChanged(this.options.cache.addNode(node), [EventNodeAdd], undefined, node);
  }

  /** A node changed: each part of it that changed (Node/UpdateNodeLabel, …/UpdateNodeTaint, …) is one event, with the node before and after. */
  onNodeUpdate(node: Node): readonly DeliveredEvent[] {
    const old = this.options.cache.getNode(node.metadata.name);
    const result = this.options.cache.updateNode(node);
    return this.cacheChanged(result, old ? nodeSchedulingPropertiesChange(node, old) : [EventNodeAdd], old, node);
  }

  onNodeDelete(name: string): readonly DeliveredEvent[] {
    const old = this.options.cache.getNode(name);
    return this.cacheChanged(this.options.cache.removeNode(name), [EventNodeDelete], old, undefined);
  }

  /** Another of the cluster's objects (a claim, a slice, a device class, a volume claim, …) was added, changed or deleted. */
  onObjectEvent(event: ClusterEvent, oldObj: unknown, newObj: unknown): void {
    this.queue.onEvent(event, oldObj, newObj);
  }

  /**
   * One scheduling cycle for the next pod the queue pops (activeQ's head, else backoffQ's when
   * activeQ is empty); undefined when there is none. A pod that fits nowhere waits among the
   * unschedulable pods; one that failed to bind backs off.
   */
  async scheduleNext(): Promise<ScheduleOutcome | undefined> {
    const queued = this.queue.pop();
    if (!queued) return undefined;
    const { info } = queued;
    const { framework, cache } = this.options;
    cache.updateSnapshot(this.snapshot);
    let state = this.cycleState();
    this.options.beforeCycle?.(state, info, this.snapshot);
    let result = framework.scheduleOne(state, info, this.snapshot);
    // Evicting victims makes room on the nominated node at once: the pod is tried again before any
    // other (upstream keeps the room for it by counting nominated pods in Filter). Each round evicts
    // at least one pod, so it ends.
    let preemption: PreemptionRecord | undefined;
    while (!result.ok && (this.options.preemption ?? 'evict') === 'evict' && result.nominatedNode && result.victims?.length) {
      preemption = result.diagnosis.preemption;
      this.evict(info.key, result.nominatedNode, result.victims);
      cache.updateSnapshot(this.snapshot);
      state = this.cycleState();
      this.options.beforeCycle?.(state, info, this.snapshot);
      result = framework.scheduleOne(state, info, this.snapshot);
    }
    if (!result.ok) {
      const rejectors = new Set(result.diagnosis.rejections.map((r) => r.plugin));
      if (result.status.plugin) rejectors.add(result.status.plugin);
      if (isRejection(result.status)) this.queue.addUnschedulable(queued, rejectors);
      else this.queue.addBackoff(queued);
      // As upstream's nominator: preemption's node holds the pod's room; preemption that found none clears it.
      if (result.nominatedNode) this.nominated.nominate(info, result.nominatedNode);
      else if (result.diagnosis.preemption) this.nominated.remove(info.id);
      // As a cluster: the victims are deleted now, and their deletion wakes the pod, which then
      // tries its nominated node first.
      if (this.options.preemption === 'delete' && result.nominatedNode && result.victims?.length) {
        this.evict(info.key, result.nominatedNode, result.victims);
        // The placing cycle will carry what this preemption weighed (explain shows it).
        if (result.diagnosis.preemption) this.preemptionFor.set(info.key, result.diagnosis.preemption);
      }
      const nominated =
        result.nominatedNode && result.victims ? { nominatedNode: result.nominatedNode, victims: result.victims.map((v) => v.key) } : {};
      return this.record({ pod: info.key, diagnosis: result.diagnosis, attempts: queued.attempts, ...nominated });
    }
    const commit = await framework.commit(state, info, result.candidates, result.diagnosis, {
      assume: (node) => statusOf(cache.assumePod(info.pod, node)),
      // upstream handleBindingCycleError: the forgotten pod's room is freed as by its deletion
      // (AssignedPodDelete of the assumed pod), for every pod but itself.
      forget: (node) => {
        if (cache.forgetPod(info.pod).ok)
          this.ownEvent({
            event: EventAssignedPodDelete,
            oldObj: boundPodInfo(info, node).pod,
            newObj: undefined,
            preCheck: (p) => p.metadata.uid !== info.pod.metadata.uid,
          });
      },
    });
    if (!commit.ok) {
      // Seen bound meanwhile (another scheduler won the binding): nothing is left to retry.
      if (cache.getPod(info.id)?.state === 'Added') this.queue.done(info.id);
      else this.queue.addBackoff(queued);
      return this.record({ pod: info.key, diagnosis: commit.diagnosis, attempts: queued.attempts });
    }
    cache.finishBinding(info.pod);
    // The binder has answered: confirm the pod as the watch would, so it stops being only assumed.
    if (this.options.confirmedBy !== 'watch') cache.addPod(boundPodInfo(info, commit.node).pod);
    this.queue.done(info.id);
    this.nominated.remove(info.id);
    // Where nothing watches, the scheduler's own confirmation is the AssignedPodAdd a watch would bring.
    if (this.options.confirmedBy !== 'watch')
      this.ownEvent({ event: EventAssignedPodAdd, oldObj: undefined, newObj: boundPodInfo(info, commit.node).pod });
    const victims = this.evictedFor.get(info.key);
    this.evictedFor.delete(info.key);
    preemption ??= this.preemptionFor.get(info.key);
    this.preemptionFor.delete(info.key);
    // The placing cycle's diagnosis, with what the preemption before it weighed.
    const diagnosis = victims && preemption ? { ...commit.diagnosis, preemption } : commit.diagnosis;
    return this.record({ pod: info.key, node: commit.node, diagnosis, attempts: queued.attempts, ...(victims ? { victims } : {}) });
  }

  /** An event the scheduler made itself: its queue hears it, then the other schedulers' (onOwnEvent). */
  private ownEvent(delivered: DeliveredEvent): void {
    this.queue.onEvent(delivered.event, delivered.oldObj, delivered.newObj, delivered.preCheck);
    this.options.onOwnEvent?.(delivered);
  }

  /** A cycle's state, carrying the nominated pods when there are any. */
  private cycleState(): CycleState {
    const state = new CycleState();
    if (this.nominated.size > 0) state.write(NOMINATED_PODS, this.nominated);
    return state;
  }

  /**
   * Preemption chose `node` for the preemptor: its victims are deleted as the API server would
   * (their deletion events wake the pods they could help). A victim this scheduler placed earlier
   * in the run loses its placement.
   */
  private evict(preemptor: string, node: string, victims: readonly PodInfo[]): void {
    const evicted = this.evictedFor.get(preemptor) ?? [];
    for (const victim of victims) {
      this.onPodDelete(victim.pod);
      if (this.outcomes.get(victim.key)?.node) this.outcomes.delete(victim.key);
      this.preempted.push({ pod: victim.key, node, by: preemptor });
      evicted.push(victim.key);
    }
    this.evictedFor.set(preemptor, evicted);
  }

  /**
   * Runs cycles until nothing more can happen without a cluster change: nothing to pop and no pod
   * backing off. A pod rejected by plugins is popped from backoffQ as soon as nothing else is ready
   * (as upstream's queue does); one backing off for an error is waited out by advancing `clock`. A pod that has
   * failed `maxAttempts` times is given up on (its last outcome stays). For previews and the CLI; a
   * live scheduler runs on the real clock instead.
   */
  async runUntilIdle(
    clock: ManualClock,
    { maxAttempts = 5, onCycle }: { maxAttempts?: number; onCycle?: (outcome: ScheduleOutcome) => void } = {},
  ): Promise<void> {
    for (;;) {
      const outcome = await this.scheduleNext();
      if (outcome) {
        if (!outcome.node && outcome.attempts >= maxAttempts) {
          const pod = this.pendingIds.get(outcome.pod);
          if (pod) this.queue.delete(pod);
        }
        onCycle?.(outcome);
        continue;
      }
      if (this.queue.counts().backoff === 0) return;
      clock.advance(BACKOFF_STEP_MS);
      this.queue.flushBackoffCompleted();
    }
  }

  private record(outcome: ScheduleOutcome): ScheduleOutcome {
    this.outcomes.set(outcome.pod, outcome);
    return outcome;
  }

  private cacheChanged(
    result: { ok: boolean },
    events: readonly ClusterEvent[],
    oldObj: unknown,
    newObj: unknown,
  ): readonly DeliveredEvent[] {
    if (!result.ok) return [];
    for (const event of events) this.queue.onEvent(event, oldObj, newObj);
    return events.map((event) => ({ event, oldObj, newObj }));
  }
}

/** How far simulated time moves while waiting for a backoff (the queue's flush period). */
const BACKOFF_STEP_MS = 1000;

function statusOf(result: { ok: true } | { ok: false; error: { message: string } }): Status {
  return result.ok ? SUCCESS : errorStatus(result.error.message);
}
