// Builds a LiveScheduler from profiles: the `podplan` profile's framework with the in-tree plugins,
// and the pod-set scheduler's two frameworks (one plans, one schedules gated by the coordinator),
// all binding through the same Binder. In a live cluster a failed binding is not tried on the next
// candidate node (the API server said no for the pod, not for the node): bindRetries is 0, as
// upstream forgets the pod and requeues it. Decisions keep the scores of the best few nodes only
// (RECORDED_SCORES), unless the profile asks for more: a live scheduler keeps every pod's last one.
import type { Clock } from '../../engine/api/clock';
import { seededRandom } from '../../engine/api/random';
import type { Pod } from '../../engine/api/types';
import { err, ok, type Result } from '../../engine/api/result';
import type { ClusterCache } from '../../engine/cache/cache';
import type { Binder, ClaimWriter } from '../../engine/framework/binder';
import type { PodEvent } from '../../engine/framework/interfaces';
import { mergeProfile, type Profile, type ProfileError } from '../../engine/framework/profile';
import { Framework } from '../../engine/framework/runtime';
import { Snapshot } from '../../engine/framework/snapshot';
import { PodSetCoordinator } from '../../engine/planner/scheduler/coordinator';
import { podSetFramework } from '../../engine/planner/scheduler/plugin';
import { POD_SET_SCHEDULER_NAME } from '../../engine/planner/podset/podset';
import { DEFAULT_PROFILE } from '../../engine/plugins/defaults';
import { inTreeRegistry } from '../../engine/plugins/registry';
import { LiveScheduler, type LiveReport, type LiveSchedulerOptions, type PlanWriter } from './scheduler';

/** The scheduler name `podplan run` answers to with the default plugins. */
export const PODPLAN_SCHEDULER_NAME = 'podplan';

/** Score records a live decision keeps, best nodes first. */
export const RECORDED_SCORES = 3;

/** How a live scheduler's decisions are kept in the plan history (src/store/recording.ts, DecisionPlan). */
export const LIVE_DECISIONS = { planner: 'run', profile: PODPLAN_SCHEDULER_NAME, scores: RECORDED_SCORES } as const;

export interface LiveComposition {
  readonly clock: Clock;
  readonly cache: ClusterCache;
  readonly binder: Binder;
  /** Where DynamicResources' PreBind writes claims (none in a dry run: nothing is written). */
  readonly claimWriter?: ClaimWriter;
  readonly writer: PlanWriter;
  readonly report: LiveReport;
  /** Merged onto the default profile for schedulerName `podplan` (its own schedulerName is kept if set). */
  readonly profile?: Profile;
  /** Merged onto the default profile for the pod-set scheduler. */
  readonly podSetProfile?: Profile;
  readonly seed?: number;
  /** The queues' back-off (the configuration's podInitialBackoffSeconds / podMaxBackoffSeconds). */
  readonly backoff?: LiveSchedulerOptions['backoff'];
  readonly tuning?: Pick<
    LiveSchedulerOptions,
    'maxBindingsInFlight' | 'cyclesPerTurn' | 'expiryPeriodMs' | 'planWriteDelayMs' | 'confirmedBy'
  >;
  /** Events, conditions and preemption's writes (none in a dry run). */
  readonly effects?: LiveSchedulerOptions['effects'];
}

export function composeLiveScheduler(c: LiveComposition): Result<LiveScheduler, readonly ProfileError[]> {
  const random = seededRandom(c.seed ?? 1);
  const live = (user: Profile | undefined) => ({ ...user, bindRetries: 0, recordScores: user?.recordScores ?? RECORDED_SCORES }) as Profile;
  const main = mergeProfile(mergeProfile(DEFAULT_PROFILE, { schedulerName: PODPLAN_SCHEDULER_NAME }), live(c.profile));
  const registry = inTreeRegistry();
  if (!registry.ok) return err([{ code: 'profile/invalid', path: [], message: registry.error }]);
  const claimWriter = c.claimWriter ? { claimWriter: c.claimWriter } : {};
  // Plugins' events (DynamicResources' BindingConditionsPending) as the profile's scheduler records them.
  const effects = c.effects;
  const events = (schedulerName: string) =>
    effects ? { recordEvent: (pod: Pod, event: PodEvent) => effects.event(pod, event, schedulerName) } : {};
  // The scheduler, built last, carries out preemption; DefaultPreemption's PreEnqueue asks it.
  const built: { scheduler?: LiveScheduler } = {};
  const preemptionRunning = (pod: Pod): boolean => built.scheduler?.preemptionRunning(pod) ?? false;
  const framework = Framework.build(registry.value, main, {
    random,
    preemptionRunning,
    binder: c.binder,
    clock: c.clock,
    clusterControllers: true,
    ...claimWriter,
    ...events(main.schedulerName),
  });
  if (!framework.ok) return framework;

  const podSetProfile = mergeProfile(mergeProfile(DEFAULT_PROFILE, { schedulerName: POD_SET_SCHEDULER_NAME }), live(c.podSetProfile));
  const planning = podSetFramework(podSetProfile, { random });
  if (!planning.ok) return planning;
  const view = new Snapshot([]);
  const coordinator = new PodSetCoordinator({
    clock: c.clock,
    planning: planning.value,
    cluster: () => {
      c.cache.updateSnapshot(view);
      return view;
    },
    onPlan: (plan, cause) => built.scheduler?.planMade(plan, cause),
    onScheduled: (trigger) => built.scheduler?.triggerScheduled(trigger),
  });
  const gated = podSetFramework(podSetProfile, {
    random,
    gate: coordinator,
    binder: c.binder,
    clock: c.clock,
    clusterControllers: true,
    ...claimWriter,
    ...events(podSetProfile.schedulerName),
  });
  if (!gated.ok) return gated;
  built.scheduler = new LiveScheduler({
    clock: c.clock,
    cache: c.cache,
    writer: c.writer,
    report: c.report,
    profiles: [{ schedulerName: main.schedulerName, framework: framework.value }],
    podSets: {
      profile: { schedulerName: podSetProfile.schedulerName, framework: gated.value.framework },
      coordinator,
      // The planner reads them from its framework and from the snapshot its what-ifs start from.
      planning: {
        useObjects: (objects) => {
          planning.value.framework.useObjects(objects);
          view.useObjects(objects);
        },
      },
    },
    ...c.tuning,
    ...(c.backoff ? { backoff: c.backoff } : {}),
    ...(c.effects ? { effects: c.effects } : {}),
  });
  return ok(built.scheduler);
}
