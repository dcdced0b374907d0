// The live scheduler's life cycle, the one `podplan run` and the editor's Run Podplan as scheduler
// both go through: the run recorded (every decision, plan and trigger, finished with the summary),
// the scheduler composed (bindings, plans, Events and conditions written to the cluster unless a
// dry run), the informers started, leader election on the one Lease once they have synced, and the
// stop: scheduling stops, the bindings in flight settle, the status writes finish, the Lease is
// released and the watches end, in that order, within a deadline past which what is still in flight
// is aborted (bindings reported not bound) so a stop always ends.
//
// A copy that loses its Lease (not renewed within the renew deadline, say under load) stops
// scheduling at that deadline and keeps trying to take the Lease back (src/kube/lease.ts); the
// summary says what it bound, what it could not place and what it never tried, so a caller can tell
// a run that finished from one that stopped while another copy led.
import { hostname } from 'node:os';
import type { Clock, Timer } from '../../engine/api/clock';
import { err, ok, type Result } from '../../engine/api/result';
import type { Binder } from '../../engine/framework/binder';
import type { Profile } from '../../engine/framework/profile';
import type { Plan } from '../../engine/planner/plan';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { KubeBinder } from '../binder';
import { resourceClaimWriter } from '../resource-claims';
import { KubeHttp } from '../http';
import type { KubeContext } from '../kubeconfig';
import { LeaderElector } from '../lease';
import type { ApiObject } from '../objects';
import { PlannerObjects } from '../planner-objects';
import { bindingPoster, boundNodeReader, leaseClient, planWriter, startInformers, type InformerSet } from './cluster';
import { composeLiveScheduler, type LiveComposition } from './compose';
import { KubeSchedulingEffects } from './effects';
import { liveCache, type LiveReport, type LiveScheduler, type PlanWriter } from './scheduler';

/** The Lease every copy of Podplan's scheduler (`podplan run`, the editor's) elects its leader with. */
export const LEASE_NAME = 'podplan-scheduler';
/** Where that Lease is unless a copy is told otherwise (in a cluster: the pod's own namespace). */
export const LEASE_NAMESPACE = 'kube-system';

/**
 * How long a stop waits for the bindings (and the Lease release) in flight before it aborts them:
 * under the 5 s a stopping scheduler is given, with room for the rest of the shutdown.
 */
export const STOP_DEADLINE_MS = 4_000;

export interface LeaseLocation {
  readonly namespace: string;
  readonly name: string;
}

/**
 * The Lease a copy elects its leader with: the namespace it is told (--lease-namespace, the editor's
 * setting), else the configuration's leaderElection.resourceNamespace, else (in a cluster) the pod's
 * namespace, else kube-system; the configuration's resourceName, else podplan-scheduler. Copies that
 * are to exclude each other must be given the same.
 */
export function leaseLocation(o: {
  readonly namespace?: string | undefined;
  readonly config?: { readonly resourceNamespace?: string; readonly resourceName?: string };
  readonly podNamespace?: string | undefined;
}): LeaseLocation {
  return {
    namespace: o.namespace || o.config?.resourceNamespace || o.podNamespace || LEASE_NAMESPACE,
    name: o.config?.resourceName || LEASE_NAME,
  };
}

/** Where a run is recorded (src/store/recording.ts's RunRecording). */
export interface LiveRecording {
  decision(outcome: ScheduleOutcome): void;
  savePlan(plan: Plan): unknown;
  triggerScheduled(namespace: string, trigger: string): void;
  finish(outcome: 'succeeded' | 'failed', message: string): void;
}

export type Leadership = 'starting' | 'leading' | 'standby';

export interface LiveRunOptions {
  readonly context: KubeContext;
  readonly clock: Clock;
  /** The caller's view of decisions and plans (log lines, metrics); the recording is kept here. */
  readonly report: LiveReport;
  readonly recording?: LiveRecording;
  readonly profiles?: { readonly profile?: Profile; readonly podSetProfile?: Profile };
  /** The queue's back-off (the configuration's podInitialBackoffSeconds / podMaxBackoffSeconds). */
  readonly backoff?: LiveComposition['backoff'];
  /** Nothing is written to the cluster: bindings and plans go to these (no Events, no Lease). */
  readonly dryRun?: { readonly binder: Binder; readonly writer: PlanWriter };
  /** Leader election on the Lease; left out, this copy leads at once. */
  readonly election?: {
    readonly lease: LeaseLocation;
    readonly identity: string;
    readonly timings?: { readonly leaseDurationMs?: number; readonly renewDeadlineMs?: number; readonly retryPeriodMs?: number };
  };
  /** Each pod as the watch shows it (metrics). */
  readonly onPod?: (object: ApiObject, deleted: boolean) => void;
  /** This copy started or stopped leading; `lost`: how often it has lost the Lease so far. */
  readonly onLeadership?: (leading: boolean, lost: number) => void;
  /** What went wrong talking to the cluster (informers, the Lease, status writes), for a log line. */
  readonly onError: (message: string) => void;
  /** Test seams. */
  readonly tuning?: LiveComposition['tuning'];
}

export interface LiveRunSummary {
  /** Pods this run bound (or, in a dry run, would have). */
  readonly bound: number;
  /** Pods whose last cycle here placed them nowhere and that are not bound now. */
  readonly notPlaced: readonly ScheduleOutcome[];
  /** Pods waiting for a first try when the run stopped. */
  readonly untried: number;
  /** How often this copy lost the Lease. */
  readonly lostLease: number;
  readonly leadership: Leadership;
  /** Bindings still in flight at the stop deadline, aborted (not bound). */
  readonly aborted: number;
}

/** The summary in words, as the CLI prints it and the history keeps it. */
export function describeSummary(s: LiveRunSummary, dryRun = false): string {
  return `${s.bound} pods ${dryRun ? 'would be ' : ''}bound, ${s.notPlaced.length} not placed${s.untried > 0 ? `, ${s.untried} not tried` : ''}`;
}

export class LiveRun {
  private leadershipNow: Leadership = 'starting';
  private lost = 0;
  /** Set when a stop begins: leadership given up from then on is not a lost Lease. */
  private stopped = false;
  private stopping: Promise<LiveRunSummary> | undefined;

  private constructor(
    private readonly options: LiveRunOptions,
    readonly live: LiveScheduler,
    private readonly http: KubeHttp,
    private readonly binder: Binder & { drain?: () => Promise<void>; abort?: () => number },
    private readonly effects: KubeSchedulingEffects | undefined,
    private readonly informers: InformerSet,
    private elector: LeaderElector | undefined,
    /** Settles once the informers hold the cluster (then election has started), or with why they cannot. */
    readonly synced: Promise<Result<void, string>>,
  ) {}

  /** Composes the scheduler and starts the informers; election starts once they have synced. */
  static start(options: LiveRunOptions): Result<LiveRun, string> {
    const { context, clock, recording, dryRun } = options;
    const http = new KubeHttp(context);
    const report: LiveReport = {
      decision: (outcome, scheduler, elapsedMs) => {
        options.report.decision(outcome, scheduler, elapsedMs);
        recording?.decision(outcome);
      },
      plan: (plan, cause) => {
        options.report.plan(plan, cause);
        // A plan taken from the cluster ('written') is not this run's: whoever made it keeps it (Apply records it applied).
        if (cause !== 'written') recording?.savePlan(plan);
      },
      triggerScheduled: (trigger) => {
        options.report.triggerScheduled(trigger);
        recording?.triggerScheduled(trigger.namespace, trigger.name);
      },
      warning: (message) => options.report.warning(message),
    };
    const binder = dryRun?.binder ?? new KubeBinder({ post: bindingPoster(http), readBoundNode: boundNodeReader(http), clock });
    const effects = dryRun ? undefined : new KubeSchedulingEffects({ http, clock, host: hostname(), warning: options.onError });
    const composed = composeLiveScheduler({
      clock,
      cache: liveCache(clock),
      binder,
      ...(dryRun ? {} : { claimWriter: resourceClaimWriter(http, { clock, onWarning: options.onError }) }),
      writer: dryRun?.writer ?? planWriter(new PlannerObjects(http)),
      report,
      ...options.profiles,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(effects ? { effects } : {}),
      ...(dryRun || options.tuning ? { tuning: { ...(dryRun ? { confirmedBy: 'binder' as const } : {}), ...options.tuning } } : {}),
    });
    if (!composed.ok) {
      recording?.finish('failed', 'the profile was refused');
      http.close();
      return err(composed.error.map((e) => e.message).join('; '));
    }
    const live = composed.value;
    const informers = startInformers(http, live, {
      clock,
      onError: options.onError,
      onPod: (o, deleted) => {
        effects?.podObserved(o, deleted);
        options.onPod?.(o, deleted);
      },
    });
    // Lead only once the informers hold the cluster: a pod seen before its trigger would be
    // scheduled alone instead of as planned. A cluster that cannot be listed is an answer, never a rejection.
    const holder: { run?: LiveRun } = {};
    const synced = informers.synced.then(
      () => {
        holder.run?.lead();
        return ok(undefined);
      },
      (e: unknown) => err(`cannot list the cluster: ${context.redactor.describe(e)}`),
    );
    const run = new LiveRun(options, live, http, binder, effects, informers, undefined, synced);
    holder.run = run;
    return ok(run);
  }

  leadership(): Leadership {
    return this.leadershipNow;
  }

  /** How often this copy has lost the Lease. */
  get lostLease(): number {
    return this.lost;
  }

  /**
   * Stops (once; later calls get the same summary): scheduling, then the bindings in flight, the
   * status writes, the Lease (released) and the watches, each awaited in that order. Past
   * `deadlineMs` (left out: no deadline, for a run whose work is done) what is in flight is aborted
   * and `onDeadline` told how many bindings were. The recording is finished with the summary.
   */
  stop(o: { readonly deadlineMs?: number; readonly onDeadline?: (abortedBindings: number) => void } = {}): Promise<LiveRunSummary> {
    this.stopping ??= this.stopNow(o);
    return this.stopping;
  }

  /** Stops at once because the run cannot go on (`why` is recorded as its failure). */
  async abandon(why: string): Promise<void> {
    this.stopping ??= this.stopNow({ deadlineMs: 0 }, why);
    await this.stopping;
  }

  private async stopNow(
    o: { readonly deadlineMs?: number; readonly onDeadline?: (abortedBindings: number) => void },
    failure?: string,
  ): Promise<LiveRunSummary> {
    this.stopped = true;
    let aborted = 0;
    const deadline: Timer | undefined =
      o.deadlineMs === undefined
        ? undefined
        : this.options.clock.setTimer(o.deadlineMs, () => {
            aborted = this.binder.abort?.() ?? 0;
            this.http.abort();
            o.onDeadline?.(aborted);
          });
    await this.live.stop();
    await this.binder.drain?.();
    await this.effects?.stop();
    await this.elector?.stop();
    await this.informers.stop();
    deadline?.cancel();
    this.http.close();
    const summary: LiveRunSummary = {
      bound: this.live.boundHere(),
      notPlaced: this.live.notPlaced(),
      untried: this.live.untried(),
      lostLease: this.lost,
      leadership: this.leadershipNow,
      aborted,
    };
    if (failure !== undefined) this.options.recording?.finish('failed', failure);
    else this.options.recording?.finish('succeeded', describeSummary(summary, this.options.dryRun !== undefined));
    return summary;
  }

  /** Takes part in the election (or leads at once without one). */
  private lead(): void {
    if (this.stopped) return;
    const { election } = this.options;
    if (!election || this.options.dryRun) {
      this.setLeading(true);
      return;
    }
    this.leadershipNow = 'standby';
    this.elector = new LeaderElector({
      client: leaseClient(this.http, election.lease.namespace, election.lease.name),
      identity: election.identity,
      clock: this.options.clock,
      ...election.timings,
      onStartedLeading: () => this.setLeading(true),
      onStoppedLeading: () => {
        if (!this.stopped) this.lost++;
        this.setLeading(false);
      },
      onError: (m) => this.options.onError(`lease: ${m}`),
    });
    this.elector.start();
  }

  private setLeading(leading: boolean): void {
    this.leadershipNow = leading ? 'leading' : 'standby';
    this.live.setLeading(leading);
    this.options.onLeadership?.(leading, this.lost);
  }
}
