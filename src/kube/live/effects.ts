// What kube-scheduler writes to the cluster besides bindings, written the way it writes them:
// - Events through events.k8s.io/v1 (core/v1 where that API is not served), folded into an event
//   series as client-go's tools/events recorder folds them (EventRecorder);
// - the PodScheduled condition and status.nominatedNodeName by strategic merge patch of the pod's
//   status subresource, only when they change (upstream updatePod), retried on conflicts and 5xx;
// - preemption (upstream's preemption Executor): the DisruptionTarget condition on each victim, its
//   deletion, the Preempted event, and the nominations of lower-priority pods on that node cleared.
// Every write runs off the scheduling loop and never throws; failures go to `warning`.
import type { Clock, Timer } from '../../engine/api/clock';
import { podId, podKey, type Pod } from '../../engine/api/types';
import type { PodEvent } from '../../engine/framework/interfaces';
import type { ApiError, KubeHttp } from '../http';
import type { ApiObject } from '../objects';

/** Upstream's validation.NoteLengthLimit: an event's note is cut to this many bytes. */
export const NOTE_LENGTH_LIMIT = 1024;

/** Upstream truncateMessage (pkg/scheduler/schedule_one.go): cut to the note limit, ending in " ...". */
export function truncateNote(message: string): string {
  const bytes = Buffer.from(message, 'utf8');
  if (bytes.length <= NOTE_LENGTH_LIMIT) return message;
  const suffix = ' ...';
  // Go slices bytes; a rune cut in half is dropped rather than kept as an invalid byte.
  return (
    bytes
      .subarray(0, NOTE_LENGTH_LIMIT - suffix.length)
      .toString('utf8')
      .replace(/\uFFFD$/, '') + suffix
  );
}

export interface ObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

export function podReference(pod: Pod): ObjectReference {
  const { namespace, name, uid, resourceVersion } = pod.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace: namespace ?? 'default',
    name,
    ...(uid ? { uid } : {}),
    ...(resourceVersion ? { resourceVersion } : {}),
  };
}

export interface EventSpec {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
  readonly regarding: ObjectReference;
  readonly related?: ObjectReference;
}

interface CachedEvent {
  readonly body: Record<string, unknown> & { metadata: { name: string; namespace: string } };
  series?: { count: number; lastObservedTime: string };
  readonly eventTime: number;
  lastObserved: number;
  /** Its creation: a series patch waits for it, as client-go's one writer sends them in order. */
  created?: Promise<void>;
}

/** client-go tools/events: series end after 6 minutes without a repeat; series counts are written again every 30 minutes. */
export const EVENT_SERIES = { finishAfterMs: 6 * 60_000, refreshEveryMs: 30 * 60_000 } as const;

/** RFC 3339 with microseconds (metav1.MicroTime). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const describe = (e: ApiError): string => (e.status ? `${e.status} ${e.message}` : e.message);

/**
 * Events as client-go's events recorder writes them: the first of a kind is created; an isomorphic
 * one (same action, reason, reporting controller, regarding and related object) within the series
 * window makes it a series of count 2 (one patch); later ones only count, and the counts are
 * patched on the refresh period. Events go to events.k8s.io/v1, or core/v1 when that is not served.
 */
export class EventRecorder {
  private readonly cache = new Map<string, CachedEvent>();
  private readonly writes = new Set<Promise<void>>();
  private readonly timers: Timer[] = [];
  private api: Promise<'events.k8s.io/v1' | 'v1'> | undefined;
  private lastNanos = 0n;
  private stopped = false;
  /** Events created, series patched (counters for metrics and tests). */
  readonly counts = { created: 0, seriesPatched: 0, folded: 0, failed: 0 };

  constructor(
    private readonly http: KubeHttp,
    private readonly clock: Clock,
    private readonly reportingController: string,
    private readonly reportingInstance: string,
    private readonly warning: (message: string) => void,
  ) {
    this.schedule(EVENT_SERIES.finishAfterMs, () => this.finishSeries());
    this.schedule(EVENT_SERIES.refreshEveryMs, () => this.refreshSeries());
  }

  record(spec: EventSpec): void {
    if (this.stopped) return;
    const key = JSON.stringify([spec.action, spec.reason, this.reportingController, spec.regarding, spec.related ?? null]);
    const now = this.clock.now();
    const cached = this.cache.get(key);
    if (cached) {
      cached.lastObserved = now;
      if (cached.series) {
        cached.series = { count: cached.series.count + 1, lastObservedTime: microTime(now) };
        this.counts.folded++;
        return;
      }
      cached.series = { count: 2, lastObservedTime: microTime(now) };
      this.track(this.patchSeries(cached));
      return;
    }
    const namespace = spec.regarding.namespace ?? 'default';
    const body = {
      metadata: { name: `${spec.regarding.name}.${this.nanos(now).toString(16)}`, namespace },
      eventTime: microTime(now),
      reportingController: this.reportingController,
      reportingInstance: this.reportingInstance,
      action: spec.action,
      reason: spec.reason,
      regarding: spec.regarding,
      ...(spec.related ? { related: spec.related } : {}),
      note: truncateNote(spec.note),
      type: spec.type,
    };
    const event: CachedEvent = { body, eventTime: now, lastObserved: now };
    this.cache.set(key, event);
    event.created = this.create(event);
    this.track(event.created);
  }

  /** Waits for the writes in flight. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  inFlight(): number {
    return this.writes.size;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    await this.flush();
  }

  /** UnixNano of `ms`, strictly increasing (two events of one object in a millisecond get distinct names). */
  private nanos(ms: number): bigint {
    let n = BigInt(ms) * 1_000_000n;
    if (n <= this.lastNanos) n = this.lastNanos + 1n;
    this.lastNanos = n;
    return n;
  }

  private schedule(every: number, run: () => void): void {
    const tick = () => {
      if (this.stopped) return;
      run();
      this.timers.push(this.clock.setTimer(every, tick));
    };
    this.timers.push(this.clock.setTimer(every, tick));
  }

  private finishSeries(): void {
    const now = this.clock.now();
    for (const [key, event] of this.cache) if (now - event.lastObserved > EVENT_SERIES.finishAfterMs) this.cache.delete(key);
  }

  private refreshSeries(): void {
    for (const event of this.cache.values()) if (event.series) this.track(this.patchSeries(event));
  }

  private track(write: Promise<void>): void {
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  private served(): Promise<'events.k8s.io/v1' | 'v1'> {
    this.api ??= this.http.request('/apis/events.k8s.io/v1').then((a) => (a.ok ? 'events.k8s.io/v1' : 'v1'));
    return this.api;
  }

  private path(api: 'events.k8s.io/v1' | 'v1', namespace: string, name?: string): string {
    const base =
      api === 'v1'
        ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`
        : `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`;
    return name === undefined ? base : `${base}/${encodeURIComponent(name)}`;
  }

  private async create(event: CachedEvent): Promise<void> {
    const api = await this.served();
    const body = api === 'v1' ? coreEvent(event) : { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...event.body };
    const answer = await this.http.request(this.path(api, event.body.metadata.namespace), { method: 'POST', body });
    if (answer.ok || answer.error.kind === 'conflict') {
      this.counts.created++;
      return;
    }
    this.counts.failed++;
    this.warning(
      `writing event ${event.body.metadata.namespace}/${event.body.metadata.name} (${String(event.body['reason'])}) failed: ${describe(answer.error)}`,
    );
  }

  /** The series as it is now, patched onto the event (created again when it is gone, as client-go does). */
  private async patchSeries(event: CachedEvent): Promise<void> {
    await event.created;
    const api = await this.served();
    const series = event.series;
    if (!series) return;
    const patch =
      api === 'v1'
        ? { count: series.count, lastTimestamp: new Date(event.lastObserved).toISOString().replace(/\.\d{3}Z$/, 'Z'), series }
        : { series };
    const { namespace, name } = event.body.metadata;
    const answer = await this.http.request(this.path(api, namespace, name), {
      method: 'PATCH',
      body: patch,
      contentType: 'application/strategic-merge-patch+json',
    });
    if (answer.ok) {
      this.counts.seriesPatched++;
      return;
    }
    if (answer.error.kind === 'not-found') {
      const body =
        api === 'v1'
          ? { ...coreEvent(event), count: series.count }
          : { apiVersion: 'events.k8s.io/v1', kind: 'Event', ...event.body, series };
      const created = await this.http.request(this.path(api, namespace), { method: 'POST', body });
      if (created.ok) return;
      this.warning(`writing event series ${namespace}/${name} failed: ${describe(created.error)}`);
    } else this.warning(`writing event series ${namespace}/${name} failed: ${describe(answer.error)}`);
    this.counts.failed++;
  }
}

/** The core/v1 shape of an events.k8s.io/v1 event (as the API server converts it). */
function coreEvent(event: CachedEvent): Record<string, unknown> {
  const b = event.body;
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: b.metadata,
    involvedObject: b['regarding'],
    ...(b['related'] ? { related: b['related'] } : {}),
    reason: b['reason'],
    message: b['note'],
    type: b['type'],
    action: b['action'],
    eventTime: b['eventTime'],
    reportingComponent: b['reportingController'],
    reportingInstance: b['reportingInstance'],
    source: { component: b['reportingController'] },
  };
}

// ---- the pod's status

interface RawCondition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: string;
  readonly lastProbeTime?: string | null;
}

interface ObservedPod {
  readonly generation?: number;
  readonly conditions: readonly RawCondition[];
  readonly nominatedNodeName?: string;
  readonly deleting: boolean;
}

export interface PodCondition {
  readonly type: 'PodScheduled' | 'DisruptionTarget';
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

export const STATUS_WRITE_DEFAULTS = { attempts: 5, initialBackoffMs: 100, maxBackoffMs: 2_000 } as const;

/**
 * Patches of pods' status subresource as upstream's updatePod/PatchPodStatus: a condition is
 * written only when it changes (its lastTransitionTime kept while its status does not), with
 * `observedGeneration` the pod's generation; nominatedNodeName only when it changes. Retried with
 * back-off on conflicts, 5xx and dropped connections; a pod that is gone is not an error.
 */
export class PodStatusWriter {
  /** What the watch last showed of each pod, by uid (generation, conditions, nomination). */
  private readonly observed = new Map<string, ObservedPod>();
  private readonly writes = new Set<Promise<void>>();
  readonly counts = { patched: 0, retried: 0, failed: 0 };

  constructor(
    private readonly http: KubeHttp,
    private readonly clock: Clock,
    private readonly warning: (message: string) => void,
  ) {}

  /** A pod as the watch shows it (raw API object); `deleted` when it is gone. */
  podObserved(object: ApiObject, deleted: boolean): void {
    const uid = typeof object.metadata['uid'] === 'string' ? object.metadata['uid'] : undefined;
    if (!uid) return;
    if (deleted) {
      this.observed.delete(uid);
      return;
    }
    const status = (object['status'] ?? {}) as { conditions?: RawCondition[]; nominatedNodeName?: string };
    const generation = object.metadata['generation'];
    this.observed.set(uid, {
      ...(typeof generation === 'number' ? { generation } : {}),
      conditions: Array.isArray(status.conditions) ? status.conditions : [],
      ...(status.nominatedNodeName ? { nominatedNodeName: status.nominatedNodeName } : {}),
      deleting: typeof object.metadata['deletionTimestamp'] === 'string',
    });
  }

  /** Whether the watch shows the pod being deleted. */
  deleting(pod: Pod): boolean {
    const uid = pod.metadata.uid;
    return uid !== undefined && this.observed.get(uid)?.deleting === true;
  }

  nominatedNodeName(pod: Pod): string | undefined {
    return pod.metadata.uid ? this.observed.get(pod.metadata.uid)?.nominatedNodeName : undefined;
  }

  /**
   * Sets the condition (when it differs from the pod's) and, when `nominate` is given, the
   * nominated node ('' clears it; only when it differs). Resolves with whether the pod is still there.
   */
  update(pod: Pod, condition: PodCondition | undefined, nominate?: string): Promise<boolean> {
    const seen = pod.metadata.uid ? this.observed.get(pod.metadata.uid) : undefined;
    const status: Record<string, unknown> = {};
    if (condition) {
      const current = seen?.conditions.find((c) => c.type === condition.type);
      const generation = seen?.generation;
      const next: RawCondition = {
        ...condition,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
        lastProbeTime: null,
        lastTransitionTime:
          current && current.status === condition.status && current.lastTransitionTime
            ? current.lastTransitionTime
            : new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
      const changed =
        !current ||
        current.status !== next.status ||
        current.reason !== next.reason ||
        current.message !== next.message ||
        current.observedGeneration !== next.observedGeneration;
      if (changed) {
        status['conditions'] = [next];
        status['$setElementOrder/conditions'] = [
          ...(seen?.conditions ?? []).map((c) => ({ type: c.type })),
          ...(current ? [] : [{ type: condition.type }]),
        ];
      }
    }
    if (nominate !== undefined && (seen?.nominatedNodeName ?? '') !== nominate)
      status['nominatedNodeName'] = nominate === '' ? null : nominate;
    if (Object.keys(status).length === 0) return Promise.resolve(true);
    const write = this.patch(pod, { status });
    const tracked = write.then(() => undefined);
    this.writes.add(tracked);
    void tracked.finally(() => this.writes.delete(tracked));
    return write;
  }

  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  inFlight(): number {
    return this.writes.size;
  }

  private async patch(pod: Pod, body: unknown): Promise<boolean> {
    const namespace = pod.metadata.namespace ?? 'default';
    const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.metadata.name)}/status`;
    let delay: number = STATUS_WRITE_DEFAULTS.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.http.request(path, { method: 'PATCH', body, contentType: 'application/strategic-merge-patch+json' });
      if (answer.ok) {
        this.counts.patched++;
        return true;
      }
      if (answer.error.kind === 'not-found') return false;
      const retriable =
        answer.error.kind === 'conflict' ||
        answer.error.kind === 'server' ||
        answer.error.kind === 'network' ||
        answer.error.status === 429;
      if (!retriable || attempt >= STATUS_WRITE_DEFAULTS.attempts) {
        this.counts.failed++;
        this.warning(`patching the status of pod ${podKey(pod)} failed: ${describe(answer.error)}`);
        return true;
      }
      this.counts.retried++;
      await new Promise<void>((resolve) => this.clock.setTimer(delay, resolve));
      delay = Math.min(delay * 2, STATUS_WRITE_DEFAULTS.maxBackoffMs);
    }
  }
}

// ---- what a scheduling outcome writes

export interface EffectsOptions {
  readonly http: KubeHttp;
  readonly clock: Clock;
  /** reportingInstance is `<scheduler name>-<host>`, as kube-scheduler's recorder names it. */
  readonly host: string;
  readonly warning: (message: string) => void;
}

/** The writes of one live scheduler's outcomes (for LiveScheduler's `effects`). */
/** Why a cycle left a pod unplaced, as the PodScheduled condition and the nomination say it. */
export interface SchedulingFailure {
  readonly message: string;
  readonly reason: 'Unschedulable' | 'SchedulerError';
  readonly nominatedNode?: string;
  readonly clearNomination: boolean;
}

export interface SchedulingEffects {
  /** The pod was bound to `node`: the Scheduled event. */
  scheduled(pod: Pod, node: string, schedulerName: string): void;
  /** The pod was not placed: the FailedScheduling event, the PodScheduled condition, the nomination. */
  failed(pod: Pod, failure: SchedulingFailure, schedulerName: string): void;
  /** A plugin's event about the pod (DynamicResources' BindingConditionsPending). */
  event(pod: Pod, event: PodEvent, schedulerName: string): void;
  /**
   * Preemption chose `node` for `preemptor`: the victims get DisruptionTarget and are deleted; `lower`
   * lose their nomination. Resolves with the ids of the victims whose deletion failed.
   */
  preempt(preemptor: Pod, node: string, victims: readonly Pod[], lower: readonly Pod[]): Promise<readonly string[]>;
  /** Writes in flight (events, status patches, deletions). */
  inFlight(): number;
  /** A raw pod from the watch. */
  podObserved(object: ApiObject, deleted: boolean): void;
  stop(): Promise<void>;
}

export class KubeSchedulingEffects implements SchedulingEffects {
  private readonly recorders = new Map<string, EventRecorder>();
  readonly status: PodStatusWriter;
  private readonly deletions = new Set<Promise<void>>();
  /** Victims being preempted (patch and delete in flight), by pod id. */
  private readonly preemptingNow = new Set<string>();
  readonly counts = { preemptions: 0, victims: 0 };

  constructor(private readonly options: EffectsOptions) {
    this.status = new PodStatusWriter(options.http, options.clock, options.warning);
  }

  recorder(schedulerName: string): EventRecorder {
    let r = this.recorders.get(schedulerName);
    if (!r) {
      r = new EventRecorder(
        this.options.http,
        this.options.clock,
        schedulerName,
        `${schedulerName}-${this.options.host}`,
        this.options.warning,
      );
      this.recorders.set(schedulerName, r);
    }
    return r;
  }

  podObserved(object: ApiObject, deleted: boolean): void {
    this.status.podObserved(object, deleted);
  }

  scheduled(pod: Pod, node: string, schedulerName: string): void {
    const namespace = pod.metadata.namespace ?? 'default';
    this.recorder(schedulerName).record({
      type: 'Normal',
      reason: 'Scheduled',
      action: 'Binding',
      note: `Successfully assigned ${namespace}/${pod.metadata.name} to ${node}`,
      regarding: podReference(pod),
    });
  }

  failed(pod: Pod, failure: SchedulingFailure, schedulerName: string): void {
    this.recorder(schedulerName).record({
      type: 'Warning',
      reason: 'FailedScheduling',
      action: 'Scheduling',
      note: failure.message,
      regarding: podReference(pod),
    });
    const nominate = failure.nominatedNode ?? (failure.clearNomination ? '' : undefined);
    void this.status.update(pod, { type: 'PodScheduled', status: 'False', reason: failure.reason, message: failure.message }, nominate);
  }

  event(pod: Pod, event: PodEvent, schedulerName: string): void {
    this.recorder(schedulerName).record({ ...event, regarding: podReference(pod) });
  }

  inFlight(): number {
    return this.deletions.size + this.status.inFlight() + [...this.recorders.values()].reduce((n, r) => n + r.inFlight(), 0);
  }

  async preempt(preemptor: Pod, node: string, victims: readonly Pod[], lower: readonly Pod[]): Promise<readonly string[]> {
    const schedulerName = preemptor.spec.schedulerName ?? 'default-scheduler';
    // Upstream skips a victim whose graceful deletion has started; one already being preempted is not asked twice.
    const todo = victims.filter((v) => !v.metadata.deletionTimestamp && !this.status.deleting(v) && !this.preemptingNow.has(podId(v)));
    if (todo.length === 0) return [];
    this.counts.preemptions++;
    this.counts.victims += todo.length;
    for (const p of lower) void this.status.update(p, undefined, '');
    const failed: string[] = [];
    const evict = (victim: Pod): Promise<void> => {
      const id = podId(victim);
      this.preemptingNow.add(id);
      const done = this.preemptOne(preemptor, victim, node, schedulerName)
        .then((ok) => {
          if (!ok) failed.push(id);
        })
        .finally(() => {
          this.preemptingNow.delete(id);
          this.deletions.delete(done);
        });
      this.deletions.add(done);
      return done;
    };
    // As upstream's async preemption: all but the last victim at once, then the last once they are
    // gone (skipped when one failed), so the watch shows the others going before the last's deletion.
    const last = todo[todo.length - 1] as Pod;
    await Promise.all(todo.slice(0, -1).map(evict));
    if (failed.length === 0) await evict(last);
    else failed.push(podId(last));
    return failed;
  }

  /** Whether the victim is deleted (or already gone). */
  private async preemptOne(preemptor: Pod, victim: Pod, node: string, schedulerName: string): Promise<boolean> {
    const there = await this.status.update(victim, {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'PreemptionByScheduler',
      message: `${schedulerName}: preempting to accommodate a higher priority pod`,
    });
    if (!there) return true;
    const namespace = victim.metadata.namespace ?? 'default';
    const deleted = await this.options.http.request(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(victim.metadata.name)}`,
      {
        method: 'DELETE',
        body: { apiVersion: 'v1', kind: 'DeleteOptions', ...(victim.metadata.uid ? { preconditions: { uid: victim.metadata.uid } } : {}) },
      },
    );
    if (!deleted.ok) {
      // Gone already, or replaced by another pod of that name (the uid precondition): nothing to wait for.
      if (deleted.error.kind === 'not-found' || deleted.error.kind === 'conflict') return true;
      this.options.warning(`deleting pod ${podKey(victim)} (preempted by ${podKey(preemptor)}) failed: ${describe(deleted.error)}`);
      return false;
    }
    this.recorder(schedulerName).record({
      type: 'Normal',
      reason: 'Preempted',
      action: 'Preempting',
      note: `Preempted by pod ${preemptor.metadata.uid ?? ''} on node ${node}`,
      regarding: podReference(victim),
      related: podReference(preemptor),
    });
    return true;
  }

  async stop(): Promise<void> {
    while (this.deletions.size > 0) await Promise.allSettled([...this.deletions]);
    await this.status.flush();
    await Promise.all([...this.recorders.values()].map((r) => r.stop()));
  }
}
