// Schedules the pending pods of a cluster snapshot the way kube-scheduler would, in memory: the
// cache holds the nodes and bound pods, the queue the pending pods, and the loop runs to idle on a
// simulated clock. What `podplan schedule` and the editor's preview show.
import { ManualClock } from '../api/clock';
import { seededRandom } from '../api/random';
import { err, ok, type Result } from '../api/result';
import { podKey, type ClusterSnapshot, type Pod } from '../api/types';
import { ClusterCache } from '../cache/cache';
import { mergeProfile, type Profile, type ProfileError } from '../framework/profile';
import type { CycleState } from '../framework/cycle-state';
import { podInfo, type PodInfo } from '../framework/node-info';
import { Framework } from '../framework/runtime';
import type { Snapshot } from '../framework/snapshot';
import { DEFAULT_PROFILE } from '../plugins/defaults';
import { inTreeRegistry } from '../plugins/registry';
import { resolvePriorities } from '../api/priority';
import { statusMessage } from '../framework/status';
import { SchedulingGates } from '../plugins/SchedulingGates';
import { Scheduler, type Preempted, type RejectedPod, type ScheduleOutcome } from './scheduler';

export interface SimulationOptions {
  /** Merged onto the default profile; the default profile when left out. */
  readonly profile?: Profile;
  /** Seeds sampling and tie-breaking: the same seed gives the same placements. */
  readonly seed?: number;
  /** Simulated start time (ms since the epoch). */
  readonly startTime?: number;
  /**
   * 'as-kube-scheduler' (the default): a preemptor is nominated, its victims are deleted, and it is
   * tried again when their deletion wakes it, on its nominated node first, as a 1.37 cluster does
   * (what the differential suite compares with upstream); 'at-once': the victims are evicted and the
   * preemptor placed in the same cycle.
   */
  readonly preemption?: 'at-once' | 'as-kube-scheduler';
  readonly onCycle?: (outcome: ScheduleOutcome, done: number, total: number) => void;
  /** Called before each cycle (see SchedulerOptions.beforeCycle) with the framework that runs it. */
  readonly beforeCycle?: (framework: Framework, state: CycleState, pod: PodInfo, snapshot: Snapshot) => void;
}

export interface SimulationResult {
  /** The final outcome of every pod the scheduler was responsible for, in input order. */
  readonly outcomes: readonly ScheduleOutcome[];
  /** Pending pods left to another scheduler (spec.schedulerName), by namespace/name. */
  readonly otherScheduler: readonly { readonly pod: string; readonly schedulerName: string }[];
  /** Pending pods never tried, and why (scheduling gates). */
  readonly waiting: readonly { readonly pod: string; readonly reason: string }[];
  /** Pods the scheduler could not read (malformed requests). */
  readonly rejected: readonly RejectedPod[];
  /** Bound pods the cache refused (e.g. on a node not in the snapshot), with why. */
  readonly ignored: readonly { readonly pod: string; readonly reason: string }[];
  /** Running pods evicted by preemption to make room for a higher-priority pod. */
  readonly preempted: readonly Preempted[];
}

export async function simulate(
  cluster: ClusterSnapshot,
  options: SimulationOptions = {},
): Promise<Result<SimulationResult, readonly ProfileError[]>> {
  const registry = inTreeRegistry();
  if (!registry.ok) return err([{ code: 'profile/invalid', path: [], message: registry.error }]);
  const profile = options.profile ? mergeProfile(DEFAULT_PROFILE, options.profile) : DEFAULT_PROFILE;
  const clock = new ManualClock(options.startTime ?? 0);
  const framework = Framework.build(registry.value, profile, { random: seededRandom(options.seed ?? 1), clock });
  if (!framework.ok) return err(framework.error);
  framework.value.useObjects(cluster);
  const cache = new ClusterCache({ clock, assumedPodTtlMs: 0 });
  const ignored: Array<{ pod: string; reason: string }> = [];
  for (const node of cluster.nodes) {
    const added = cache.addNode(node);
    if (!added.ok) ignored.push({ pod: node.metadata.name, reason: added.error.message });
  }
  const built = framework.value;
  const beforeCycle = options.beforeCycle;
  const scheduler = new Scheduler({
    framework: built,
    cache,
    clock,
    schedulerName: profile.schedulerName,
    ...(options.preemption === 'at-once' ? {} : { preemption: 'delete' as const }),
    ...(beforeCycle
      ? { beforeCycle: (state: CycleState, pod: PodInfo, snapshot: Snapshot) => beforeCycle(built, state, pod, snapshot) }
      : {}),
  });
  const gates = new SchedulingGates();
  const pending: string[] = [];
  const waiting: Array<{ pod: string; reason: string }> = [];
  const otherScheduler: Array<{ pod: string; schedulerName: string }> = [];
  // What admission does on the way in: priorities from PriorityClasses.
  const admitted = resolvePriorities(cluster.pods, cluster.priorityClasses);
  const arriving: Pod[] = [];
  for (const pod of admitted.pods) {
    if (pod.spec.nodeName) {
      const added = cache.addPod(pod);
      if (!added.ok) ignored.push({ pod: podKey(pod), reason: added.error.message });
    } else if (scheduler.responsibleFor(pod) && pod.spec.schedulingGates?.length) {
      waiting.push({ pod: podKey(pod), reason: statusMessage(gates.preEnqueue(pod)) });
      // As upstream's queue: a gated pod whose status names a nominated node holds its room there.
      const gated = podInfo(pod);
      if (gated.ok && pod.status?.nominatedNodeName) scheduler.nominated.nominate(gated.value, pod.status.nominatedNodeName);
    } else if (scheduler.responsibleFor(pod)) {
      pending.push(podKey(pod));
      arriving.push(pod);
    } else if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') {
      otherScheduler.push({ pod: podKey(pod), schedulerName: pod.spec.schedulerName ?? '' });
    }
  }
  for (const pod of arrivalOrder(arriving)) scheduler.onPodAdd(pod);
  let cycles = 0;
  await scheduler.runUntilIdle(clock, { onCycle: (outcome) => options.onCycle?.(outcome, ++cycles, pending.length) });
  const outcomes = pending.map((key) => scheduler.outcomes.get(key)).filter((o): o is ScheduleOutcome => o !== undefined);
  const rejected = [...admitted.refused.map((r) => ({ pod: r.pod, error: r.error })), ...scheduler.rejected];
  return ok({ outcomes, otherScheduler, waiting, rejected, ignored, preempted: scheduler.preempted });
}

/**
 * The order a cluster's scheduling queue would have seen the pending pods arrive in, which breaks
 * ties between pods of equal priority (first come, first served): by creationTimestamp where it
 * is set, else in the order given (the order the files list them); a pod without a timestamp
 * counts as created after every pod that has one, as one applied from a file now would be.
 */
export function arrivalOrder(pods: readonly Pod[]): Pod[] {
  const created = (pod: Pod) => {
    const at = Date.parse(pod.metadata.creationTimestamp ?? '');
    return Number.isNaN(at) ? Infinity : at;
  };
  return pods
    .map((pod, index) => ({ pod, index, at: created(pod) }))
    .sort((a, b) => (a.at === b.at ? a.index - b.index : a.at < b.at ? -1 : 1))
    .map((a) => a.pod);
}
