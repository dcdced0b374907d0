// The framework runtime: builds a profile's plugins from the registry and runs them. A cycle
// (cycle.ts: PreFilter, sampling, Filter, PostFilter, PreScore; scoring.ts: Score and host
// selection) records its Diagnosis in a cycle log (cycle-log.ts); the binding pipeline (binding.ts)
// then tries the best candidates in order. Every plugin call goes through plugin-call.ts's guard;
// the verdicts and scores remembered across cycles live in memo.ts.
import { ALL_EVENTS, unrollPodEvent, type EnqueueExtensions, type QueueingHint, type QueueingHintEntry } from './events';
import type { Clock } from '../api/clock';
import type { Random } from '../api/random';
import type { ClusterObjects, Pod } from '../api/types';
import { errorMessage } from '../api/errors';
import { fieldErrorText, type ArgsError } from '../api/field';
import { err, ok, type Result } from '../api/result';
import { InMemoryBinder, type Binder, type ClaimWriter } from './binder';
import { BindingPipeline, type Assumption, type CommitResult } from './binding';
import { CycleHandle, SchedulingCycle } from './cycle';
import type { ScheduleFailure, ScheduleResult } from './cycle-log';
import type { CycleState } from './cycle-state';
import type { Diagnosis, StageOutcome } from './diagnosis';
import type {
  FrameworkHandle,
  Plugin,
  PodEvaluator,
  PodEvent,
  PreBindPlugin,
  PreEnqueuePlugin,
  QueuedPodInfo,
  QueueSortPlugin,
  ReservePlugin,
  SampleNodesPlugin,
  ScorePlugin,
} from './interfaces';
import { CycleMemos } from './memo';
import type { NodeInfo, NodeInfoLister, PodInfo } from './node-info';
import { guarded, type Entry } from './plugin-call';
import {
  frameworkSettings,
  pluginsNeeded,
  resolvePlugins,
  validateProfile,
  type ExtensionPoint,
  type FrameworkSettings,
  type Profile,
  type ProfileError,
  type ResolvedPlugins,
} from './profile';
import type { Registry } from './registry';
import { isSuccess, SUCCESS, type FilterStatus, type Status } from './status';

export type { Assumption, CommitResult } from './binding';
export type { ScheduleFailure, ScheduleResult } from './cycle-log';

export interface FrameworkOptions {
  /** Seeded: sampling's random start and tie-breaking replay exactly. */
  readonly random: Random;
  /** Where DefaultBinder binds; an in-memory binder when not given (previews, planning). */
  readonly binder?: Binder;
  /** Where DynamicResources' PreBind writes claims (a live scheduler's); none: nothing is written. */
  readonly claimWriter?: ClaimWriter;
  /** What plugins read the time from (DynamicResources: binding timeouts); without it they do without. */
  readonly clock?: Clock;
  /**
   * A cluster's kube-controller-manager runs beside this framework (a live scheduler): the claim of
   * a pod's ResourceClaimTemplate entry is waited for until the pod's status names it, not made up.
   */
  readonly clusterControllers?: boolean;
  /** Where plugins' events about pods go (a live scheduler's, for this profile's scheduler name). */
  readonly recordEvent?: (pod: Pod, event: PodEvent) => void;
  /** Whether a pod's own preemption is still being carried out (a live scheduler's executor). */
  readonly preemptionRunning?: (pod: Pod) => boolean;
}

/** The methods a plugin needs to take part in each extension point. */
const METHODS: { readonly [P in ExtensionPoint]: readonly string[] } = {
  queueSort: ['less'],
  sampleNodes: ['sampleNodes'],
  preFilter: ['preFilter'],
  filter: ['filter'],
  postFilter: ['postFilter'],
  preScore: ['preScore'],
  score: ['score'],
  reserve: ['reserve', 'unreserve'],
  permit: ['permit'],
  checkConflicts: ['checkConflicts'],
  bind: ['bind'],
};

/** upstream defaultQueueingHintFn: a registration without a hint queues on every matching event. */
const queueAlways = (): QueueingHint => 'Queue';

export class Framework implements PodEvaluator {
  /** Whether `a` leaves the queue before `b`: the profile's queueSort plugin. */
  readonly queueSortLess: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  private readonly cycle: SchedulingCycle;
  private readonly binding: BindingPipeline;
  /** The PreFilter plugins that are also PreEnqueue plugins (upstream's DynamicResources), in profile order. */
  private readonly preEnqueuers: readonly Entry<PreEnqueuePlugin>[];
  /** upstream buildQueueingHintMap's input: the plugins whose rejections the queue asks about, with their registrations. */
  private readonly hints: readonly QueueingHintEntry[];

  private constructor(
    readonly profileName: string,
    readonly settings: FrameworkSettings,
    private readonly cycleHandle: CycleHandle,
    readonly plugins: ResolvedPlugins,
    instances: ReadonlyMap<string, Plugin>,
  ) {
    const at = <T>(point: ExtensionPoint): Entry<T>[] => plugins.points[point].map((name) => ({ name, plugin: instances.get(name) as T }));
    const [queueSort] = at<QueueSortPlugin>('queueSort');
    this.queueSortLess = (a, b) => {
      // A comparator cannot return a Status, and the queue must keep moving: fall back to FIFO.
      try {
        return (queueSort as Entry<QueueSortPlugin>).plugin.less(a, b);
      } catch {
        return a.timestamp < b.timestamp;
      }
    };
    this.cycle = new SchedulingCycle(
      profileName,
      settings,
      cycleHandle,
      {
        sampleNodes: at<SampleNodesPlugin>('sampleNodes')[0],
        preFilter: at('preFilter'),
        filter: at('filter'),
        postFilter: at('postFilter'),
        preScore: at('preScore'),
        score: at<ScorePlugin>('score').map((e) => ({ ...e, weight: plugins.weights.get(e.name) ?? 1 })),
      },
      new CycleMemos(),
    );
    this.binding = new BindingPipeline(
      {
        reserve: at('reserve'),
        permit: at('permit'),
        checkConflicts: at('checkConflicts'),
        preBind: at<ReservePlugin>('reserve').filter((e): e is Entry<PreBindPlugin> => 'preBind' in e.plugin),
        bind: at('bind'),
      },
      settings.bindRetries,
    );
    // PreEnqueue is offered by PreFilter plugins and by DefaultPreemption (PostFilter), as upstream's multiPoint enables them.
    this.preEnqueuers = [...at<Plugin>('preFilter'), ...at<Plugin>('postFilter')].filter(
      (e): e is Entry<PreEnqueuePlugin> => 'preEnqueue' in e.plugin,
    );
    // upstream fillEnqueueExtensions: PreEnqueue, PreFilter, Filter, Reserve and Permit plugins; one
    // without EnqueueExtensions is registered for every event with no hint (each one moves its pods).
    const rejecting = new Set([
      ...this.preEnqueuers.map((e) => e.name),
      ...plugins.points.preFilter,
      ...plugins.points.filter,
      ...plugins.points.reserve,
      ...plugins.points.permit,
    ]);
    const hints: QueueingHintEntry[] = [];
    for (const name of rejecting) {
      const plugin = instances.get(name);
      if (!plugin) continue;
      const registered = 'eventsToRegister' in plugin ? (plugin as Plugin & EnqueueExtensions).eventsToRegister() : ALL_EVENTS;
      for (const { event, hint } of registered)
        for (const unrolled of unrollPodEvent(event)) hints.push({ plugin: name, event: unrolled, hint: hint ?? queueAlways });
    }
    this.hints = hints;
    cycleHandle.evaluator = this;
  }

  /** The profile's queueing hints (upstream QueueingHintMap): which events could undo each plugin's rejection, and whether one does. */
  queueingHints(): readonly QueueingHintEntry[] {
    return this.hints;
  }

  /**
   * Upstream's PreEnqueue: whether the pod may enter the queue's active part now; the first plugin
   * that holds it says why (the scheduling queue asks again on the pod's updates and cluster events).
   */
  preEnqueue(pod: Pod): Status {
    for (const { name, plugin } of this.preEnqueuers) {
      const status = guarded(name, 'PreEnqueue', () => plugin.preEnqueue(pod));
      if (!isSuccess(status)) return status;
    }
    return SUCCESS;
  }

  /**
   * The cluster's objects besides nodes and pods that plugins read (PriorityClasses,
   * PodDisruptionBudgets, claims, …) for every cycle, whatever snapshot it runs on; without it they
   * come from the cycle's snapshot (Snapshot.fromCluster keeps them).
   */
  useObjects(objects: ClusterObjects): void {
    this.cycleHandle.clusterObjects = objects;
  }

  /** What the profile's plugins were built with. */
  get handle(): FrameworkHandle {
    return this.cycleHandle;
  }

  /**
   * Builds the profile's plugins from the registry (one instance per plugin, with its pluginConfig
   * args). Every problem is returned: an invalid profile, an unknown plugin, a factory's error, a
   * plugin enabled at a point it does not implement, not exactly one queueSort plugin, more than one
   * sampleNodes plugin. Pass the merged profile (mergeProfile); paths point into it.
   */
  static build(registry: Registry, profile: Profile, options: FrameworkOptions): Result<Framework, readonly ProfileError[]> {
    const errors = validateProfile(profile, registry);
    // The plugins' own args are checked even when the profile has other errors: every error in one go.
    const prefix = `profile ${profile.schedulerName}: `;
    const handle = new CycleHandle(
      options.random,
      options.binder ?? new InMemoryBinder(),
      options.claimWriter,
      options.clock,
      options.clusterControllers === true,
      options.recordEvent,
      options.preemptionRunning,
    );
    const configs = profile.pluginConfig ?? [];
    const instances = new Map<string, Plugin>();
    for (const name of pluginsNeeded(profile)) {
      const index = configs.findIndex((c) => c.name === name);
      const factory = registry.get(name);
      if (!factory) continue; // reported by validateProfile
      let built: Result<Plugin, ArgsError | string>;
      try {
        built = factory(configs[index]?.args, handle);
      } catch (e) {
        built = err(errorMessage(e));
      }
      if (built.ok) {
        instances.set(name, built.value);
        continue;
      }
      // One error per field, at the field; a factory that threw, at the args.
      const fields =
        typeof built.error === 'string'
          ? [{ path: [], text: built.error }]
          : built.error.errors.map((f) => ({ path: f.path, text: fieldErrorText(f) }));
      for (const field of fields)
        errors.push({
          code: index >= 0 ? 'profile/bad-args' : 'profile/invalid',
          path: index >= 0 ? ['pluginConfig', index, 'args', ...field.path] : ['plugins'],
          message: `${prefix}plugin ${name}: ${field.text}`,
        });
    }
    if (errors.length > 0) return err(errors);

    const { resolved, errors: resolveErrors } = resolvePlugins(profile, (name, point) => {
      const plugin = instances.get(name) as unknown as Record<string, unknown> | undefined;
      return METHODS[point].every((method) => typeof plugin?.[method] === 'function');
    });
    errors.push(...resolveErrors);
    const sorts = resolved.points.queueSort.length;
    if (sorts !== 1)
      errors.push({
        code: 'profile/invalid',
        path: ['plugins', 'queueSort'],
        message: `${prefix}exactly one queueSort plugin must be enabled, not ${sorts}`,
      });
    const samplers = resolved.points.sampleNodes.length;
    if (samplers > 1)
      errors.push({
        code: 'profile/invalid',
        path: ['plugins', 'sampleNodes'],
        message: `${prefix}at most one sampleNodes plugin can be enabled, not ${samplers}`,
      });
    if (errors.length > 0) return err(errors);
    return ok(new Framework(profile.schedulerName, frameworkSettings(profile), handle, resolved, instances));
  }

  /**
   * One scheduling cycle for `pod` against `snapshot` (which plugins also see through the handle):
   * the node to bind to and the commit candidates, or why there is none; both with the Diagnosis.
   */
  scheduleOne(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister): ScheduleResult | ScheduleFailure {
    return this.cycle.scheduleOne(state, pod, snapshot);
  }

  /** Whether `pod` can run on the node `nodeName` of `snapshot`, judged as a cycle judges that node (SchedulingCycle.checkNode). */
  checkNode(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister, nodeName: string): Status {
    return this.cycle.checkNode(state, pod, snapshot, nodeName);
  }

  /** PreFilter alone, for a planner that then asks about single nodes (filterNode): the nodes left, or the status that stopped the pod. */
  preFilterPod(
    state: CycleState,
    pod: PodInfo,
    snapshot: NodeInfoLister,
  ): { readonly ok: true; readonly nodes: readonly NodeInfo[] } | { readonly ok: false; readonly status: Status } {
    return this.cycle.preFilterPod(state, pod, snapshot);
  }

  /** The Filter plugins on one node, with a state prepared by preFilterPod: the first rejection or Error, else Success. */
  filterNode(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    return this.cycle.filterNode(state, pod, node);
  }

  /** Every PreFilter plugin's AddPod extension, in order; stops at the first failure. */
  preFilterAddPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.cycle.preFilterAddPod(state, podToSchedule, podToAdd, node);
  }

  /** Every PreFilter plugin's RemovePod extension, in order; stops at the first failure. */
  preFilterRemovePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.cycle.preFilterRemovePod(state, podToSchedule, podToRemove, node);
  }

  /** Every Filter plugin's verdict on one node, not stopping at the first rejection (explain). */
  filterVerdicts(state: CycleState, pod: PodInfo, node: NodeInfo): FilterStatus[] {
    return this.cycle.filterVerdicts(state, pod, node);
  }

  /** Reserve on `nodeName` with every reserve plugin in order; stops at the first failure. */
  reserve(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): Status {
    return this.binding.reserve(state, pod, nodeName, outcomes);
  }

  /** Undoes reserve on every reserve plugin, in reverse order; a plugin that throws is recorded and passed. */
  unreserve(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): void {
    this.binding.unreserve(state, pod, nodeName, outcomes);
  }

  permit(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): Status {
    return this.binding.permit(state, pod, nodeName, outcomes);
  }

  /** The binding pipeline over the commit candidates, best first (BindingPipeline.commit). */
  commit(
    state: CycleState,
    pod: PodInfo,
    candidates: readonly string[],
    diagnosis: Diagnosis,
    assumption?: Assumption,
  ): Promise<CommitResult> {
    return this.binding.commit(state, pod, candidates, diagnosis, assumption);
  }
}
