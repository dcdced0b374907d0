// Preemption as upstream's Evaluator (pkg/scheduler/framework/preemption) with DefaultPreemption's
// choices: when no node fits, find nodes where evicting lower-priority pods would make room, the
// fewest such pods on each, and pick one node by upstream's criteria. It runs on copies of the nodes
// and of the cycle state; nothing it tries is seen by anyone else.
import { podPriority } from '../../api/priority';
import type { Pod } from '../../api/types';
import type { CycleState } from '../cycle-state';
import { histogram, NO_NODES_AVAILABLE } from '../fit-error';
import type { FrameworkHandle, PodEvaluator } from '../interfaces';
import type { NodeInfo, PodInfo } from '../node-info';
import { Code, errorStatus, isSuccess, statusMessage, SUCCESS, unschedulable, type Status } from '../status';
import { filterCountingNominated } from './nominated';
import { prepareBudgets, splitByPdbViolation, type Budget } from './pdb';
import { LOST_ON, type CandidateRecord, type LostOn, type PreemptionRecord } from './record';

/** DefaultPreemptionArgs: how many candidate nodes to find before choosing among them. */
export interface PreemptionArgs {
  /** At least this percentage of the nodes that could help (0..100). */
  readonly minCandidateNodesPercentage: number;
  /** At least this many. */
  readonly minCandidateNodesAbsolute: number;
}

export const DEFAULT_PREEMPTION_ARGS: PreemptionArgs = { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 };

/** Upstream's reasons in the "preemption: 0/N nodes are available: …" histogram. */
export const NOT_HELPFUL = 'Preemption is not helpful for scheduling';
export const NO_VICTIMS = 'No preemption victims found for incoming pod';
export const NOT_ELIGIBLE_NEVER = 'not eligible due to preemptionPolicy=Never.';
export const NOT_ELIGIBLE_TERMINATING = 'not eligible due to a terminating pod on the nominated node.';

/** A node where evicting `victims` (highest priority first) lets the pod in. */
export interface Candidate {
  readonly node: string;
  readonly victims: readonly PodInfo[];
  readonly violating: ReadonlySet<string>;
  readonly pdbViolations: number;
}

export interface PreemptionOutcome {
  /** Success with a node, or why not (without upstream's "preemption: " prefix, which the plugin adds). */
  readonly status: Status;
  readonly node?: string;
  readonly victims?: readonly PodInfo[];
  readonly record?: PreemptionRecord;
}

export class Evaluator {
  constructor(
    private readonly handle: FrameworkHandle,
    private readonly args: PreemptionArgs,
  ) {}

  /** The framework's Filter plugins and PreFilter extensions (the runtime sets them once built). */
  private get framework(): PodEvaluator {
    const evaluator = this.handle.evaluator;
    if (!evaluator) throw new Error('preemption needs a framework that can run its Filter plugins on copies of nodes');
    return evaluator;
  }

  /** Upstream Preempt: eligibility, candidates from the nodes preemption can help, the best of them. */
  preempt(state: CycleState, pod: PodInfo, statuses: ReadonlyMap<string, Status>): PreemptionOutcome {
    const ineligible = this.whyNotEligible(pod, statuses);
    if (ineligible !== undefined) return { status: unschedulable(ineligible) };
    const all = this.handle.snapshot().list();
    if (all.length === 0) return { status: errorStatus(NO_NODES_AVAILABLE) };
    // Only a node whose failure another pod's absence could resolve (Unschedulable, not Unresolvable).
    // A PreFilter rejection is left out too: evicting pods cannot undo it, as Filter alone is re-run
    // (upstream's PreFilter plugins reject only as Unresolvable; a planner's hold is Unschedulable).
    const potential = all.filter((n) => {
      const status = statuses.get(n.name);
      return status?.code === Code.Unschedulable && status.stage !== 'PreFilter';
    });
    const failures = new Map<string, Status>();
    const candidates = potential.length > 0 ? this.dryRun(state, pod, potential, failures) : [];
    const failed = [...failures].map(([node, status]) => ({ node, reasons: status.reasons }));
    if (candidates.length === 0) {
      const errors = [...failures.values()].filter((s) => s.code === Code.Error);
      if (errors.length > 0)
        return { status: errorStatus(errors.map(statusMessage).join(', ')), record: { candidates: [], failures: failed } };
      const message = `0/${all.length} nodes are available:${histogram(
        failed.map((f) => f.reasons),
        { count: all.length - failures.size, reason: NOT_HELPFUL },
      )}`;
      return { status: unschedulable(message), record: { candidates: [], failures: failed } };
    }
    const { chosen, lost } = pickOneNodeForPreemption(candidates);
    const record: PreemptionRecord = {
      node: chosen.node,
      candidates: candidates.map((c): CandidateRecord => {
        const lostOn = lost.get(c.node);
        return {
          node: c.node,
          victims: c.victims.map((v) => ({ pod: v.key, priority: podPriority(v.pod), violatesPdb: c.violating.has(v.id) })),
          pdbViolations: c.pdbViolations,
          ...(lostOn ? { lostOn } : {}),
        };
      }),
      failures: failed,
    };
    return { status: SUCCESS, node: chosen.node, victims: chosen.victims, record };
  }

  /**
   * Upstream DefaultPreemption's PodEligibleToPreemptOthers: a pod whose preemption policy is Never
   * preempts nothing, nor does one whose nominated node still holds a lower-priority pod terminating
   * by preemption (it waits for the room it already made) unless the filters rule that node out for
   * good. Undefined when the pod may preempt.
   */
  private whyNotEligible(pod: PodInfo, statuses: ReadonlyMap<string, Status>): string | undefined {
    if (pod.pod.spec.preemptionPolicy === 'Never') return NOT_ELIGIBLE_NEVER;
    const nominated = pod.pod.status?.nominatedNodeName;
    if (!nominated || statuses.get(nominated)?.code === Code.UnschedulableAndUnresolvable) return undefined;
    const priority = podPriority(pod.pod);
    const node = this.handle.snapshot().get(nominated);
    const terminating = node?.pods.some((p) => podPriority(p.pod) < priority && terminatingByPreemption(p.pod));
    return terminating ? NOT_ELIGIBLE_TERMINATING : undefined;
  }

  /**
   * Upstream DryRunPreemption, one node after another from a random offset: stops once enough
   * candidates are found and one of them violates no budget. Budget-respecting candidates first.
   */
  private dryRun(state: CycleState, pod: PodInfo, potential: readonly NodeInfo[], failures: Map<string, Status>): Candidate[] {
    const budgets = prepareBudgets(this.handle.objects?.().podDisruptionBudgets ?? [], this.allPods());
    const wanted = numCandidates(potential.length, this.args);
    const offset = this.handle.random.int(potential.length);
    const nonViolating: Candidate[] = [];
    const violating: Candidate[] = [];
    for (let i = 0; i < potential.length; i++) {
      const node = potential[(offset + i) % potential.length] as NodeInfo;
      const found = this.selectVictimsOnNode(state.clone(), pod, node.clone(), budgets);
      if ('status' in found) {
        failures.set(node.name, found.status);
        continue;
      }
      (found.pdbViolations === 0 ? nonViolating : violating).push(found);
      if (nonViolating.length > 0 && nonViolating.length + violating.length >= wanted) break;
    }
    return [...nonViolating, ...violating];
  }

  private allPods() {
    return this.handle
      .snapshot()
      .list()
      .flatMap((n) => n.pods.map((p) => p.pod));
  }

  /**
   * Upstream SelectVictimsOnNode on a copy of the node: remove every lower-priority pod; if the pod
   * still does not fit, the node cannot help. Otherwise add them back, most important first (those
   * whose eviction would break a budget before the others), keeping each that still lets the pod fit:
   * the ones that do not are the victims.
   */
  private selectVictimsOnNode(state: CycleState, pod: PodInfo, node: NodeInfo, budgets: readonly Budget[]): Candidate | { status: Status } {
    const priority = podPriority(pod.pod);
    const potential = node.pods.filter((p) => podPriority(p.pod) < priority);
    if (potential.length === 0) return { status: { code: Code.UnschedulableAndUnresolvable, reasons: [NO_VICTIMS] } };
    for (const victim of potential) {
      node.removePod(victim.id);
      const removed = this.framework.preFilterRemovePod(state, pod, victim, node);
      if (!isSuccess(removed)) return { status: removed };
    }
    const fits = filterCountingNominated(this.framework, state, pod, node);
    if (!isSuccess(fits)) return { status: fits };
    potential.sort(moreImportantFirst);
    const { violating, nonViolating } = splitByPdbViolation(potential, budgets);
    const victims: PodInfo[] = [];
    const violatingVictims = new Set<string>();
    const reprieve = (victim: PodInfo): boolean | Status => {
      node.addPod(victim);
      const added = this.framework.preFilterAddPod(state, pod, victim, node);
      if (!isSuccess(added)) return added;
      if (isSuccess(filterCountingNominated(this.framework, state, pod, node))) return true;
      node.removePod(victim.id);
      const removed = this.framework.preFilterRemovePod(state, pod, victim, node);
      if (!isSuccess(removed)) return removed;
      victims.push(victim);
      return false;
    };
    for (const victim of violating) {
      const kept = reprieve(victim);
      if (typeof kept !== 'boolean') return { status: kept };
      if (!kept) violatingVictims.add(victim.id);
    }
    for (const victim of nonViolating) {
      const kept = reprieve(victim);
      if (typeof kept !== 'boolean') return { status: kept };
    }
    if (violating.length > 0 && nonViolating.length > 0) victims.sort(moreImportantFirst);
    if (victims.length === 0) return { status: errorStatus(`expected at least one victim pod on node "${node.name}"`) };
    return { node: node.name, victims, violating: violatingVictims, pdbViolations: violatingVictims.size };
  }
}

/** How many candidates to find: a percentage of the nodes, at least the absolute number, at most all. */
export function numCandidates(nodes: number, args: PreemptionArgs): number {
  const n = Math.max(Math.trunc((nodes * args.minCandidateNodesPercentage) / 100), args.minCandidateNodesAbsolute);
  return Math.min(n, nodes);
}

/** When the pod started; one not started yet counts as starting now, later than any that has. */
function startTime(pod: PodInfo): number {
  const t = pod.pod.status?.startTime;
  const parsed = t ? Date.parse(t) : NaN;
  return Number.isNaN(parsed) ? Number.POSITIVE_INFINITY : parsed;
}

/** Upstream MoreImportantPod: higher priority, then the one running longer. */
function moreImportantFirst(a: PodInfo, b: PodInfo): number {
  return podPriority(b.pod) - podPriority(a.pod) || startTime(a) - startTime(b);
}

/** Priorities shifted to be positive, so a node of a few negative-priority victims does not beat one of fewer. */
const PRIORITY_SHIFT = 2 ** 31;

/** Upstream's criteria in order; each scores a candidate, higher is better. */
const CRITERIA: ReadonlyArray<readonly [LostOn, (c: Candidate) => number]> = [
  [LOST_ON[0], (c) => -c.pdbViolations],
  [LOST_ON[1], (c) => -podPriority((c.victims[0] as PodInfo).pod)],
  [LOST_ON[2], (c) => -c.victims.reduce((sum, v) => sum + podPriority(v.pod) + PRIORITY_SHIFT, 0)],
  [LOST_ON[3], (c) => -c.victims.length],
  [LOST_ON[4], (c) => earliestStartOfHighestPriority(c.victims)],
];

/** The earliest start among the highest-priority victims (upstream GetEarliestPodStartTime). */
function earliestStartOfHighestPriority(victims: readonly PodInfo[]): number {
  const top = Math.max(...victims.map((v) => podPriority(v.pod)));
  return Math.min(...victims.filter((v) => podPriority(v.pod) === top).map(startTime));
}

/**
 * Upstream pickOneNodeForPreemption: each criterion keeps the candidates with the best score; the
 * first that leaves one decides, and the first left after all of them wins. Also says, for every
 * other candidate, the criterion it was dropped on.
 */
export function pickOneNodeForPreemption<C extends Candidate>(candidates: readonly C[]): { chosen: C; lost: Map<string, LostOn> } {
  const lost = new Map<string, LostOn>();
  let left = [...candidates];
  for (const [name, score] of CRITERIA) {
    if (left.length === 1) break;
    const scores = left.map(score);
    const best = Math.max(...scores);
    const kept = left.filter((c, i) => {
      if (scores[i] === best) return true;
      lost.set(c.node, name);
      return false;
    });
    left = kept;
  }
  const [chosen, ...rest] = left as [C, ...C[]];
  for (const c of rest) lost.set(c.node, LOST_ON[5]);
  return { chosen, lost };
}

/** Upstream PodTerminatingByPreemption: being deleted, its DisruptionTarget condition set by a scheduler's preemption. */
function terminatingByPreemption(pod: Pod): boolean {
  if (pod.metadata.deletionTimestamp === undefined) return false;
  const target = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  return target?.status === 'True' && target.reason === 'PreemptionByScheduler';
}
