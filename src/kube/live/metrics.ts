// `podplan run`'s health and metrics: /livez, /readyz and /metrics (Prometheus text format, written
// by prom-client) on a plain HTTP listener. Metric names and labels follow kube-scheduler's where one
// applies (pkg/scheduler/metrics); Podplan's own are prefixed podplan_. The process metrics
// (process_cpu_seconds_total, process_resident_memory_bytes, …) are prom-client's defaults.
import { createServer, type Server } from 'node:http';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { isRejection } from '../../engine/framework/status';
import type { LiveCounts } from './scheduler';

/** Upstream's buckets: attempt durations 1 ms doubling 15 times; the SLI 10 ms doubling 20 times; victims 1 doubling 7 times. */
const exponential = (start: number, factor: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => start * factor ** i);

export class SchedulerMetrics {
  readonly registry = new Registry();
  private readonly attempts: Counter<'result' | 'profile'>;
  private readonly attemptDuration: Histogram<'result' | 'profile'>;
  private readonly sli: Histogram<'attempts'>;
  private readonly preemptionAttempts: Counter;
  private readonly preemptionVictims: Histogram;
  readonly plansWritten: Counter<'cause'>;
  readonly triggersScheduled: Counter;
  /** When each pending pod was first seen (namespace/name → ms), for the SLI. */
  private readonly firstSeen = new Map<string, number>();

  constructor(counts: () => LiveCounts) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.attempts = new Counter({
      name: 'scheduler_schedule_attempts_total',
      help: 'Number of attempts to schedule pods, by the result. unschedulable means a pod could not be scheduled, while error means an internal scheduler problem.',
      labelNames: ['result', 'profile'],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'scheduler_scheduling_attempt_duration_seconds',
      help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
      labelNames: ['result', 'profile'],
      buckets: exponential(0.001, 2, 15),
      registers,
    });
    this.sli = new Histogram({
      name: 'scheduler_pod_scheduling_sli_duration_seconds',
      help: 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
      labelNames: ['attempts'],
      buckets: exponential(0.01, 2, 20),
      registers,
    });
    this.preemptionAttempts = new Counter({
      name: 'scheduler_preemption_attempts_total',
      help: 'Total preemption attempts in the cluster till now',
      registers,
    });
    this.preemptionVictims = new Histogram({
      name: 'scheduler_preemption_victims',
      help: 'Number of selected preemption victims',
      buckets: exponential(1, 2, 7),
      registers,
    });
    new Gauge({
      name: 'scheduler_pending_pods',
      help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods; 'gated' means number of pods gated.",
      labelNames: ['queue'],
      registers,
      collect() {
        const c = counts();
        this.set({ queue: 'active' }, c.active);
        this.set({ queue: 'backoff' }, c.backoff);
        this.set({ queue: 'unschedulable' }, c.unschedulable);
        this.set({ queue: 'gated' }, c.gated);
      },
    });
    new Counter({
      name: 'scheduler_queue_incoming_pods_total',
      help: 'Number of pods added to scheduling queues by event and queue type.',
      labelNames: ['queue', 'event'],
      registers,
      collect() {
        this.reset();
        for (const { queue, event, count } of counts().queueIncoming.values()) this.inc({ queue, event }, count);
      },
    });
    this.plansWritten = new Counter({
      name: 'podplan_plans_total',
      help: 'SchedulePlans made for pod sets, by what made them',
      labelNames: ['cause'],
      registers,
    });
    this.triggersScheduled = new Counter({
      name: 'podplan_triggers_scheduled_total',
      help: 'ScheduleTriggers set to Schedule once their quiet time passed',
      registers,
    });
    new Gauge({
      name: 'podplan_bindings_in_flight',
      help: 'Bindings posted and not answered yet',
      registers,
      collect() {
        this.set(counts().bindingsInFlight);
      },
    });
  }

  /** A pending pod was seen (the SLI starts at its first sighting). */
  podSeen(key: string, now: number): void {
    if (!this.firstSeen.has(key)) this.firstSeen.set(key, now);
  }

  podGone(key: string): void {
    this.firstSeen.delete(key);
  }

  /** One scheduling attempt's outcome, `elapsedMs` from its start to its end (binding included). */
  attempt(outcome: ScheduleOutcome, profile: string, elapsedMs: number, now: number): void {
    const result = outcome.node !== undefined ? 'scheduled' : isRejection(outcome.diagnosis.status) ? 'unschedulable' : 'error';
    this.attempts.inc({ result, profile });
    this.attemptDuration.observe({ result, profile }, elapsedMs / 1000);
    if (outcome.diagnosis.preemption) this.preemptionAttempts.inc();
    if (outcome.nominatedNode !== undefined && outcome.victims?.length) this.preemptionVictims.observe(outcome.victims.length);
    if (outcome.node !== undefined) {
      const seen = this.firstSeen.get(outcome.pod);
      if (seen !== undefined) this.sli.observe({ attempts: String(Math.min(outcome.attempts, 15)) }, Math.max(0, now - seen) / 1000);
      this.firstSeen.delete(outcome.pod);
    }
  }
}

export interface HealthState {
  /** The informers have listed everything. */
  readonly synced: () => boolean;
  /** 'leading', 'standby' (another copy leads) or 'starting'. */
  readonly leadership: () => 'leading' | 'standby' | 'starting';
}

/**
 * Serves /livez (the process answers), /readyz (informers synced and leader election running:
 * leading or standing by) and /metrics. Resolves with the server once it listens.
 */
export function serveHealth(
  address: { readonly host: string; readonly port: number },
  metrics: SchedulerMetrics,
  state: HealthState,
): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const text = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'method not allowed\n');
    if (path === '/livez' || path === '/healthz') return text(200, 'ok\n');
    if (path === '/readyz') {
      const synced = state.synced();
      const leadership = state.leadership();
      const ready = synced && leadership !== 'starting';
      return text(
        ready ? 200 : 503,
        `[${synced ? '+' : '-'}]informers synced\n[${leadership !== 'starting' ? '+' : '-'}]leader election: ${leadership}\nreadyz check ${ready ? 'passed' : 'failed'}\n`,
      );
    }
    if (path === '/metrics') {
      metrics.registry.metrics().then(
        (body) => {
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(body);
        },
        (e: unknown) => text(500, `${String(e)}\n`),
      );
      return;
    }
    text(404, 'not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** host:port (":port" listens on every address). */
export function parseAddress(text: string): { host: string; port: number } | undefined {
  const m = /^(.*):(\d{1,5})$/.exec(text);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port > 65535) return undefined;
  const host = (m[1] ?? '').replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port };
}
