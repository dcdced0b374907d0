// The editor's live source: a kube context the user picked (never written back to the kubeconfig),
// mirrored by informers (ClusterMirror) into the same WorkspaceModel and Analysis the YAML files
// give, so previews, Explain, the Cluster view and the history work on it. Also what writes to
// that cluster on the user's request: Apply Plan (SchedulePlan + trigger state, or bindings) and
// Podplan as its scheduler (src/kube/live). Every message leaving here goes through the context's
// Redactor; nothing is written for a client that says its workspace is untrusted.
import type { Clock } from '../engine/api/clock';
import { err, ok, type Result } from '../engine/api/result';
import type { Plan } from '../engine/planner/plan';
import type { WorkspaceModel } from '../manifests';
import { schedulePlanName } from '../engine/planner/podset/name';
import { PLAN_STATUS_ANNOTATION } from '../kube/crds';
import type { KubeHttp } from '../kube/http';
import type { KubeconfigOptions, KubeContext } from '../kube/kubeconfig';
import type { LiveRun } from '../kube/live/lifecycle';
import type { ClusterMirror } from '../kube/mirror';
import type * as KubeModule from './kube';
import type {
  ApplyPlanParams,
  ApplyPlanResult,
  ContextList,
  SchedulerParams,
  SchedulerStatus,
  ScheduleWrite,
  SourceView,
} from '../protocol/requests';
import { noHistory, type History } from './history';
import { Analysis, EngineCache, type AnalysisOptions } from './service/analysis';
import { plural } from './service/words';
import { incompleteDependencies } from './service/dependencies';
import { planPodSet, planView, solverOf } from './service/planning';
import { keptView } from './service/requests';

/** The kube layer, loaded on first use (./kube.ts says why). */
type Kube = typeof KubeModule;
let kubeLoading: Promise<Kube> | undefined;
const loadKube = (): Promise<Kube> => (kubeLoading ??= import('./kube'));

/** Problems kept for the status (newest last). */
const KEPT_ERRORS = 20;
/** Informer events closer than this are one change for the client. */
const CHANGE_DEBOUNCE_MS = 200;

export interface LiveSourceOptions {
  /** Where the kubeconfig is found: KUBECONFIG of `env`, else `homedir`/.kube/config. */
  readonly kubeconfig: Omit<KubeconfigOptions, 'context' | 'kubeconfig'>;
  readonly clock: Clock;
  readonly analysis: AnalysisOptions;
  /** The live source changed (after a short debounce): views and previews may ask again. */
  readonly onChange: () => void;
  readonly log: (message: string) => void;
  /** Where the editor's scheduler records its run (the server's plan history once it is open). */
  readonly history?: () => History;
}

interface Connected {
  readonly context: KubeContext;
  readonly http: KubeHttp;
  readonly mirror: ClusterMirror;
}

interface PendingApply {
  readonly plan: Plan;
  readonly historyId?: number;
  readonly trigger?: { readonly namespace: string; readonly name: string };
}

class RunningScheduler {
  private constructor(
    readonly context: string,
    private readonly errors: string[],
    private readonly run: LiveRun,
    private readonly stopDeadlineMs: number,
  ) {}

  /**
   * Starts scheduling the cluster of `connected` through the live scheduler's one life cycle
   * (src/kube/live/lifecycle.ts, as `podplan run` does): every decision and plan recorded in
   * `history` as a live run of the context, Events and conditions written, leading on the Lease in
   * `leaseNamespace` (else where `podplan run` keeps it by default).
   */
  static start(
    kube: Kube,
    connected: Connected,
    clock: Clock,
    history: History,
    log: (message: string) => void,
    leaseNamespace?: string,
  ): Result<RunningScheduler> {
    const { context } = connected;
    const errors: string[] = [];
    const note = (message: string) => {
      errors.push(context.redactor.redact(message));
      if (errors.length > KEPT_ERRORS) errors.shift();
    };
    const recorded = history.record({ kind: 'kube-context', name: context.context, server: context.server }, 'live', {
      clock,
      onError: note,
      decisions: kube.LIVE_DECISIONS,
    });
    if (!recorded.ok) log(`the scheduler of ${context.context} runs unrecorded: ${recorded.error}`);
    const identity = `podplan-editor_${process.pid}`;
    const started = kube.LiveRun.start({
      context,
      clock,
      report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: note },
      ...(recorded.ok ? { recording: recorded.value } : {}),
      election: { lease: kube.leaseLocation({ namespace: leaseNamespace }), identity },
      onLeadership: (leading, lost) => {
        if (!leading && lost > 0) note(`${identity} lost the Lease; scheduling stopped until it takes it back`);
      },
      onError: note,
    });
    if (!started.ok) return started;
    const run = started.value;
    // A cluster that cannot be listed is reported in the status, never an unhandled rejection in the server.
    void run.synced.then((listed) => {
      if (!listed.ok) note(listed.error);
    });
    return ok(new RunningScheduler(context.context, errors, run, kube.STOP_DEADLINE_MS));
  }

  status(): SchedulerStatus {
    const counts = this.run.live.counts();
    return {
      running: true,
      context: this.context,
      bound: counts.bound,
      unplaced: this.run.live.notPlaced().length,
      pending: counts.pending,
      errors: [...this.errors],
    };
  }

  /** Lets the bindings in flight finish (aborted past the stop deadline), then releases the Lease and stops watching. */
  async stop(): Promise<SchedulerStatus> {
    const summary = await this.run.stop({
      deadlineMs: this.stopDeadlineMs,
      onDeadline: (aborted) =>
        this.errors.push(`still waiting after ${this.stopDeadlineMs / 1000} s: ${plural(aborted, 'binding')} in flight aborted, not bound`),
    });
    return { ...this.status(), running: false, unplaced: summary.notPlaced.length };
  }
}

export class LiveSource {
  private connected: Connected | undefined;
  private current: Analysis | undefined;
  private readonly engine = new EngineCache();
  private readonly pending = new Map<number, PendingApply>();
  private nextToken = 1;
  private running: RunningScheduler | undefined;
  private lastRun: SchedulerStatus | undefined;
  private changeTimer: ReturnType<Clock['setTimer']> | undefined;

  constructor(private readonly options: LiveSourceOptions) {}

  /** The cluster source in use, or undefined when the workspace files are the source. */
  source(): SourceView | undefined {
    const c = this.connected;
    return c ? { kind: 'cluster', name: c.context.context, server: c.context.server } : undefined;
  }

  async contexts(workspace: SourceView): Promise<Result<ContextList>> {
    const kube = await loadKube();
    const loaded = kube.loadKubeconfig(this.options.kubeconfig);
    if (!loaded.ok) return loaded;
    const contexts = kube.listContexts(loaded.value).map((c) => ({
      name: c.name,
      cluster: c.cluster,
      current: c.current,
      ...(c.namespace ? { namespace: c.namespace } : {}),
      ...(c.server ? { server: c.server } : {}),
    }));
    return ok({ contexts, source: this.source() ?? workspace });
  }

  /** Switches to `context` (listed before it answers), or back to the workspace files when undefined. */
  async select(context: string | undefined): Promise<Result<SourceView | undefined>> {
    if (this.running) return err(`Podplan runs as the scheduler of ${this.running.context}; stop it before switching the source`);
    const previous = this.connected;
    this.connected = undefined;
    this.current = undefined;
    this.pending.clear();
    await previous?.mirror.stop();
    if (context === undefined) return ok(undefined);
    const kube = await loadKube();
    const loaded = kube.loadKubeconfig(this.options.kubeconfig);
    if (!loaded.ok) return loaded;
    const chosen = kube.selectContext(loaded.value, context);
    if (!chosen.ok) return chosen;
    const http = new kube.KubeHttp(chosen.value);
    const redactor = chosen.value.redactor;
    const mirror = new kube.ClusterMirror(http, {
      clock: this.options.clock,
      onWarning: (m) => this.options.log(`${context}: ${redactor.redact(m)}`),
      onEvent: () => this.changed(),
    });
    try {
      await mirror.start();
      await mirror.synced;
    } catch (e) {
      await mirror.stop();
      return err(`cannot read context ${context}: ${redactor.describe(e)}`);
    }
    this.connected = { context: chosen.value, http, mirror };
    return ok(this.source());
  }

  /** The analysis of the cluster as mirrored now; undefined for the workspace source. */
  analysis(): Analysis | undefined {
    const c = this.connected;
    if (!c) return undefined;
    return (this.current ??= new Analysis(c.mirror.model(), () => undefined, this.engine, {
      ...this.options.analysis,
      where: `context ${c.context.context}`,
    }));
  }

  /** The cluster's objects as mirrored now (kept until the next informer event); undefined for the workspace source. */
  model(): WorkspaceModel | undefined {
    return this.connected?.mirror.model();
  }

  /**
   * Apply Plan. Without `confirm`: plans the pod set on the live cluster and says what would be
   * written (kept under a token, and as a draft in the history). With it: writes that plan.
   */
  async applyPlan(params: ApplyPlanParams, history: History): Promise<Result<ApplyPlanResult>> {
    const c = this.connected;
    const analysis = this.analysis();
    if (!c || !analysis) return err('Apply Plan needs a kube context as the source; pick one first');
    if (!params.trusted) return err('this workspace is not trusted: Podplan writes nothing to a cluster from it');
    if (params.confirm !== undefined) return this.write(c, params.confirm, history);
    const namespace = params.trigger?.namespace ?? params.podSet?.namespace ?? c.context.namespace;
    let request: { namespace: string; podSet: string; trigger?: string };
    if (params.trigger) {
      const trigger = analysis.trigger(namespace, params.trigger.name);
      if (!trigger) return err(`no ScheduleTrigger ${namespace}/${params.trigger.name} in context ${c.context.context}`);
      const waiting = incompleteDependencies(trigger.value, analysis);
      if (waiting.length > 0) return err(`${trigger.value.name} cannot be scheduled yet: it depends on ${waiting.join('; ')}`);
      request = { namespace, podSet: trigger.value.podSet, trigger: trigger.value.name };
    } else if (params.podSet) {
      request = { namespace, podSet: params.podSet.name };
    } else {
      return err('Apply Plan needs a trigger or a pod set');
    }
    const made = planPodSet(analysis, request, solverOf(analysis));
    if (!made.ok) return made;
    const plan = made.value;
    if (!request.trigger) {
      // A binding alone would leave their ResourceClaims unallocated: the scheduler writes them first (DynamicResources' PreBind).
      const claimed = plan.assignments
        .map((a) => a.pod)
        .filter((name) =>
          analysis.model.cluster.pods.some(
            (p) =>
              p.metadata.name === name &&
              (p.metadata.namespace ?? 'default') === plan.namespace &&
              (p.spec.resourceClaims ?? []).length > 0,
          ),
        );
      if (claimed.length > 0)
        return err(
          `Apply Plan binds pods without writing their ResourceClaims; ${claimed.map((n) => `${plan.namespace}/${n}`).join(', ')} use${claimed.length === 1 ? 's' : ''} claims: run Podplan as the scheduler (podplan run), which writes each claim's allocation before binding`,
        );
    }
    const view = keptView(plan, analysis, history);
    const token = this.nextToken++;
    const trigger = request.trigger !== undefined ? { namespace, name: request.trigger } : undefined;
    this.pending.set(token, {
      plan,
      ...(view.historyId !== undefined ? { historyId: view.historyId } : {}),
      ...(trigger ? { trigger } : {}),
    });
    return ok({ context: c.context.context, plan: view, writes: describeWrites(plan, analysis, trigger), token, applied: false });
  }

  private async write(c: Connected, token: number, history: History): Promise<Result<ApplyPlanResult>> {
    const pending = this.pending.get(token);
    if (!pending) return err('that plan is no longer pending (the source changed); preview it again');
    this.pending.delete(token);
    const { plan, trigger } = pending;
    const analysis = this.analysis() as Analysis;
    const kube = await loadKube();
    if (trigger) {
      const writer = kube.planWriter(new kube.PlannerObjects(c.http));
      const written = await writer.writePlan(plan);
      if (!written.ok)
        return err(
          `writing SchedulePlan ${plan.namespace}/${schedulePlanName(plan.namespace, plan.podSet)} failed: ${c.context.redactor.redact(written.message)}`,
        );
      const flipped = await writer.setTriggerState(trigger.namespace, trigger.name, 'Schedule');
      if (!flipped.ok)
        return err(
          `the SchedulePlan was written, but setting ScheduleTrigger ${trigger.namespace}/${trigger.name} to Schedule failed: ${c.context.redactor.redact(flipped.message)}`,
        );
    } else {
      // With the live scheduler's binder policy: its retries, and a 409 decided from the pod's node.
      const located = plan.assignments.map((a) => ({ name: a.pod, pod: analysis.pod(plan.namespace, a.pod)?.value, node: a.node }));
      const failed = located.filter((l) => !l.pod).map((l) => `${l.name}: no such pod in the cluster any more`);
      const refused = await kube.bindEach(
        { post: kube.bindingPoster(c.http), readBoundNode: kube.boundNodeReader(c.http), clock: this.options.clock },
        located.flatMap((l) => (l.pod ? [{ pod: l.pod, node: l.node }] : [])),
      );
      for (const r of refused) failed.push(`${r.pod.metadata.name}: ${c.context.redactor.redact(r.reasons.join('; '))}`);
      if (failed.length > 0) return err(`${failed.length} of ${plan.assignments.length} bindings failed: ${failed.join('; ')}`);
    }
    const marked = pending.historyId !== undefined ? history.markApplied(pending.historyId) : undefined;
    const view = planView(plan, analysis, pending.historyId);
    const recorded =
      marked && !marked.ok
        ? { ...view, historyError: `the plan is applied, but not recorded as applied in the plan history: ${marked.error}` }
        : view;
    return ok({ context: c.context.context, plan: recorded, writes: describeWrites(plan, analysis, trigger), token, applied: true });
  }

  async scheduler(params: SchedulerParams): Promise<Result<SchedulerStatus>> {
    const idle: SchedulerStatus = this.lastRun ?? { running: false, bound: 0, unplaced: 0, pending: 0, errors: [] };
    if (params.action === 'status') return ok(this.running?.status() ?? idle);
    if (params.action === 'stop') {
      const running = this.running;
      if (!running) return ok(idle);
      this.running = undefined;
      this.lastRun = await running.stop();
      return ok(this.lastRun);
    }
    if (!params.trusted) return err('this workspace is not trusted: Podplan does not schedule a cluster from it');
    if (this.running) return ok(this.running.status());
    const c = this.connected;
    if (!c) return err('Run Podplan as scheduler needs a kube context as the source; pick one first');
    const started = RunningScheduler.start(
      await loadKube(),
      c,
      this.options.clock,
      this.options.history?.() ?? noHistory('none was given'),
      this.options.log,
      params.leaseNamespace,
    );
    if (!started.ok) return started;
    this.running = started.value;
    return ok(this.running.status());
  }

  async close(): Promise<void> {
    this.changeTimer?.cancel();
    await this.running?.stop();
    this.running = undefined;
    await this.connected?.mirror.stop();
    this.connected = undefined;
  }

  private changed(): void {
    this.current = undefined;
    if (this.changeTimer) return;
    this.changeTimer = this.options.clock.setTimer(CHANGE_DEBOUNCE_MS, () => {
      this.changeTimer = undefined;
      this.options.onChange();
    });
  }
}

/** The objects and fields Apply Plan writes, for the confirmation. */
function describeWrites(plan: Plan, analysis: Analysis, trigger: { namespace: string; name: string } | undefined): ScheduleWrite[] {
  const placed = `${plan.assignments.length} pod${plan.assignments.length === 1 ? '' : 's'}`;
  if (!trigger)
    return plan.assignments.map((a) => ({
      uri: '',
      object: `Pod ${plan.namespace}/${a.pod}`,
      created: false,
      fields: [`binding: spec.nodeName → ${a.node}`],
    }));
  const name = schedulePlanName(plan.namespace, plan.podSet);
  const exists = analysis.model.plans.some((p) => p.value.namespace === plan.namespace && p.value.name === name);
  const state = analysis.trigger(trigger.namespace, trigger.name)?.value.state ?? 'Planning';
  return [
    {
      uri: '',
      object: `SchedulePlan ${plan.namespace}/${name}`,
      created: !exists,
      fields: [
        `spec.plan: ${placed} to nodes`,
        `metadata.annotations["${PLAN_STATUS_ANNOTATION}"]: planner ${plan.planner}${plan.unplaced.length > 0 ? `, ${plan.unplaced.length} unplaced` : ''}`,
      ],
    },
    ...(state === 'Schedule'
      ? []
      : [
          {
            uri: '',
            object: `ScheduleTrigger ${trigger.namespace}/${trigger.name}`,
            created: false,
            fields: [`spec.state: ${state} → Schedule`],
          },
        ]),
  ];
}
