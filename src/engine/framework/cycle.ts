// One scheduling cycle, as upstream's schedulePod: PreFilter, node sampling, Filter, PostFilter
// when no node is feasible, PreScore, then Score (scoring.ts) and host selection. Also the parts of
// it a planner or preemption asks for alone (PreFilter, Filter on one node, the AddPod/RemovePod
// extensions).
//
// The cycle is synchronous and is benchmarked on thousands of nodes per pod: Filter counts into a
// typed array and makes objects only for rejections.
import type { Clock } from '../api/clock';
import type { Random } from '../api/random';
import type { ClusterObjects, Pod } from '../api/types';
import type { Binder, ClaimWriter } from './binder';
import { CycleLog, type ScheduleFailure, type ScheduleResult } from './cycle-log';
import type { CycleState } from './cycle-state';
import type { FilterRecord } from './diagnosis';
import { NO_NODES_AVAILABLE } from './fit-error';
import type {
  FilterPlugin,
  FrameworkHandle,
  PodEvaluator,
  PodEvent,
  PostFilterPlugin,
  PostFilterResult,
  PreFilterPlugin,
  PreScorePlugin,
  SampleNodesPlugin,
} from './interfaces';
import type { CycleMemos, VerdictMemo } from './memo';
import type { NodeInfo, NodeInfoLister, PodInfo } from './node-info';
import { guarded, guardedWithResult, thrown, type Entry, type ScoreEntry } from './plugin-call';
import type { FrameworkSettings } from './profile';
import { filterWithNominatedPods, nominatedPodsOf } from './preemption/nominated';
import { NodeSampler } from './sampling';
import { Scoring } from './scoring';
import { Snapshot } from './snapshot';
import { attributed, Code, errorStatus, isRejection, SUCCESS, type FilterStatus, type Status } from './status';

const NO_OBJECTS: ClusterObjects = Object.freeze({});

/** The handle plugins are built with: its snapshot is the one of the cycle in progress. */
export class CycleHandle implements FrameworkHandle {
  current: NodeInfoLister = new Snapshot([]);
  /** Set by useObjects, for snapshots that do not carry the objects (the scheduler cache's). */
  clusterObjects: ClusterObjects | undefined;
  evaluator: PodEvaluator | undefined;
  constructor(
    readonly random: Random,
    readonly binder: Binder,
    readonly claimWriter?: ClaimWriter,
    readonly clock?: Clock,
    readonly clusterControllers = false,
    readonly recordEvent?: (pod: Pod, event: PodEvent) => void,
    readonly preemptionRunning?: (pod: Pod) => boolean,
  ) {}
  now(): number | undefined {
    return this.clock?.now();
  }
  snapshot(): NodeInfoLister {
    return this.current;
  }
  objects(): ClusterObjects {
    return this.clusterObjects ?? this.current.objects?.() ?? NO_OBJECTS;
  }
}

/** The plugins of a cycle's extension points, in profile order. */
export interface CyclePlugins {
  readonly sampleNodes: Entry<SampleNodesPlugin> | undefined;
  readonly preFilter: readonly Entry<PreFilterPlugin>[];
  readonly filter: readonly Entry<FilterPlugin>[];
  readonly postFilter: readonly Entry<PostFilterPlugin>[];
  readonly preScore: readonly Entry<PreScorePlugin>[];
  readonly score: readonly ScoreEntry[];
}

export class SchedulingCycle implements PodEvaluator {
  private readonly sampler: NodeSampler;
  private readonly scoring: Scoring;
  /** Per filter plugin, the nodes it rejected in the cycle (reused). */
  private rejectedCounts = new Uint32Array(0);
  /** Per feasible node of the cycle, its position in the snapshot's list; -1 when Filter ran on another list (reused). */
  private feasibleAt = new Int32Array(0);
  /** The feasible nodes as Filter finds them, reused (it only grows); a cycle hands out a copy cut to size. */
  private readonly feasibleFound: NodeInfo[] = [];

  constructor(
    private readonly profileName: string,
    settings: FrameworkSettings,
    private readonly handle: CycleHandle,
    private readonly plugins: CyclePlugins,
    private readonly memos: CycleMemos,
  ) {
    this.sampler = new NodeSampler(settings, handle.random);
    this.scoring = new Scoring(plugins.score, settings, handle.random, memos);
  }

  /**
   * One scheduling cycle for `pod` against `snapshot` (which plugins also see through the handle):
   * the node to bind to and the commit candidates, or why there is none; both with the Diagnosis.
   */
  scheduleOne(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister): ScheduleResult | ScheduleFailure {
    this.handle.current = snapshot;
    const all = snapshot.list();
    const log = new CycleLog(pod.key, this.profileName, all.length);
    if (all.length === 0) {
      return log.failure({ code: Code.Unschedulable, reasons: [NO_NODES_AVAILABLE], stage: 'Filter' }, NO_NODES_AVAILABLE);
    }

    const pre = this.runPreFilter(state, pod, all, log);
    if (pre.status) return pre.status.code === Code.Error ? log.failure(pre.status) : this.unschedulable(state, pod, log, pre.status);

    // As upstream's evaluateNominatedNode: a pod nominated by an earlier preemption tries that node
    // first (any node of the snapshot, whatever PreFilter narrowed to); if it fits, it is taken
    // without scoring and the search does not move on.
    const nominatedNode = nominatedPodsOf(state)?.nodeOfPod(pod.id);
    const nominatedInfo = nominatedNode === undefined ? undefined : snapshot.get(nominatedNode);
    if (nominatedInfo) {
      const before = log.rejections.length;
      const fits = this.runFilter(state, pod, [nominatedInfo], 0, 1, log);
      if (!Array.isArray(fits)) return log.failure(fits);
      if (fits.length === 1) return log.success([nominatedInfo.name], []);
      // The search below judges the node again: one verdict per node, as upstream's NodeToStatus map.
      log.rejections.length = before;
    }

    let nodes = pre.nodes;
    let start = 0;
    const count = this.sampler.count(nodes.length);
    const sampleNodes = this.plugins.sampleNodes;
    if (sampleNodes) {
      const candidates = nodes;
      const status = guarded(
        sampleNodes.name,
        'SampleNodes',
        () => ((nodes = sampleNodes.plugin.sampleNodes(state, pod, candidates, count)), SUCCESS),
      );
      if (status.code !== Code.Success) return log.failure(status);
    } else {
      start = this.sampler.start(nodes.length);
    }

    const feasible = this.runFilter(state, pod, nodes, start, count, log);
    if (!sampleNodes) this.sampler.advance(log.evaluated, all.length);
    if (!Array.isArray(feasible)) return log.failure(feasible);
    if (feasible.length === 0) return this.unschedulable(state, pod, log);
    // As upstream: a single feasible node needs no scoring.
    if (feasible.length === 1) return log.success([(feasible[0] as NodeInfo).name], []);

    for (const { name, plugin } of this.plugins.preScore) {
      const status = guarded(name, 'PreScore', () => plugin.preScore(state, pod, feasible));
      log.stage('PreScore', name, status);
      if (status.code === Code.Skip) state.skipScorePlugins.add(name);
      else if (status.code !== Code.Success) return log.failure(status);
    }
    return this.scoring.run(state, pod, { nodes: feasible, positions: this.feasibleAt }, snapshot, log);
  }

  /**
   * Whether `pod` can run on the node `nodeName` of `snapshot`, judged as a cycle judges that node:
   * PreFilter over the whole snapshot (a node it leaves out is rejected as in scheduleOne), then the
   * Filter plugins on that node alone. Success, or the rejection or Error with its plugin, stage and
   * reasons. For checking a placement someone chose (a plan entry) without scheduling the pod.
   */
  checkNode(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister, nodeName: string): Status {
    this.handle.current = snapshot;
    const node = snapshot.get(nodeName);
    if (!node) return { code: Code.UnschedulableAndUnresolvable, reasons: [`node "${nodeName}" not found`], stage: 'Filter' };
    const log = new CycleLog(pod.key, this.profileName, 1);
    const pre = this.runPreFilter(state, pod, snapshot.list(), log);
    if (pre.status) return pre.status;
    const rejection = (): Status => {
      const r = log.rejections.find((x) => x.node === nodeName);
      return r
        ? { code: r.code, reasons: r.reasons, plugin: r.plugin, stage: r.stage }
        : { ...errorStatus('no plugin recorded a verdict'), stage: 'Filter' };
    };
    if (pre.nodes.length !== snapshot.list().length && !pre.nodes.includes(node)) return rejection();
    const feasible = this.runFilter(state, pod, [node], 0, 1, log);
    if (!Array.isArray(feasible)) return feasible;
    return feasible.length === 1 ? SUCCESS : rejection();
  }

  /**
   * PreFilter alone, for a planner that then asks about single nodes (filterNode) rather than
   * running a whole cycle: makes `snapshot` the cycle's, runs the PreFilter plugins into `state` and
   * returns the nodes they leave, or the status that stopped the pod (a rejection or an Error).
   */
  preFilterPod(
    state: CycleState,
    pod: PodInfo,
    snapshot: NodeInfoLister,
  ): { readonly ok: true; readonly nodes: readonly NodeInfo[] } | { readonly ok: false; readonly status: Status } {
    this.handle.current = snapshot;
    const all = snapshot.list();
    const pre = this.runPreFilter(state, pod, all, new CycleLog(pod.key, this.profileName, all.length));
    return pre.status ? { ok: false, status: pre.status } : { ok: true, nodes: pre.nodes };
  }

  /**
   * The Filter plugins on one node, in profile order, with a state prepared by preFilterPod on the
   * snapshot the node belongs to: the first rejection or Error (attributed), else Success.
   */
  filterNode(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const skip = state.skipFilterPlugins;
    let name = '';
    try {
      for (const entry of this.plugins.filter) {
        name = entry.name;
        if (skip.has(name)) continue;
        const status = entry.plugin.filter(state, pod, node);
        // Only a failure is attributed: preemption asks this of many nodes many times.
        if (status.code !== Code.Success && status.code !== Code.Skip) return attributed(status, name, 'Filter');
      }
    } catch (e) {
      return thrown(e, name, 'Filter');
    }
    return SUCCESS;
  }

  /** Every PreFilter plugin's AddPod extension, in order; stops at the first failure. */
  preFilterAddPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.preFilterExtension(state, (plugin) => plugin.addPod?.(state, podToSchedule, podToAdd, node));
  }

  /**
   * Every Filter plugin on one node, not stopping at the first rejection (what `explain` shows of a
   * node): each rejection or Error, attributed, in profile order; empty when the node passes.
   */
  filterVerdicts(state: CycleState, pod: PodInfo, node: NodeInfo): FilterStatus[] {
    const failed: FilterStatus[] = [];
    for (const { name, plugin } of this.plugins.filter) {
      if (state.skipFilterPlugins.has(name)) continue;
      let raw: FilterStatus | undefined;
      const status = guarded(name, 'Filter', () => (raw = plugin.filter(state, pod, node)));
      if (status.code !== Code.Success && status.code !== Code.Skip)
        failed.push(raw?.devices ? { ...status, devices: raw.devices } : status);
    }
    return failed;
  }

  /** Every PreFilter plugin's RemovePod extension, in order; stops at the first failure. */
  preFilterRemovePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.preFilterExtension(state, (plugin) => plugin.removePod?.(state, podToSchedule, podToRemove, node));
  }

  private preFilterExtension(state: CycleState, call: (plugin: PreFilterPlugin) => Status | undefined): Status {
    for (const { name, plugin } of this.plugins.preFilter) {
      if (state.skipFilterPlugins.has(name)) continue;
      const status = guarded(name, 'PreFilter', () => call(plugin) ?? SUCCESS);
      if (status.code !== Code.Success) return status;
    }
    return SUCCESS;
  }

  /**
   * PreFilter plugins in order, as upstream RunPreFilterPlugins: Skip keeps the plugin's Filter out
   * of this cycle; UnschedulableAndUnresolvable stops at once; Unschedulable is kept while the rest
   * still run (their state serves preemption); node subsets are intersected. A rejection marks every
   * node; nodes left out of the subset are marked as not satisfying the narrowing plugins.
   */
  private runPreFilter(
    state: CycleState,
    pod: PodInfo,
    all: readonly NodeInfo[],
    log: CycleLog,
  ): { nodes: readonly NodeInfo[]; status?: undefined } | { status: Status } {
    let rejected: Status | undefined;
    let subset: Set<string> | undefined;
    const narrowedBy: string[] = [];
    for (const { name, plugin } of this.plugins.preFilter) {
      const { status, result } = guardedWithResult(name, 'PreFilter', () => plugin.preFilter(state, pod, all));
      log.stage('PreFilter', name, status);
      if (status.code === Code.Skip) {
        state.skipFilterPlugins.add(name);
        continue;
      }
      if (status.code === Code.Error) return { status };
      if (isRejection(status)) {
        rejected = status;
        if (status.code === Code.UnschedulableAndUnresolvable) break;
        continue;
      }
      const names = result?.nodeNames;
      if (!names) continue;
      narrowedBy.push(name);
      subset = subset ? new Set([...subset].filter((n) => names.has(n))) : new Set(names);
      if (subset.size === 0) {
        const reason =
          narrowedBy.length === 1
            ? `node(s) didn't satisfy plugin ${name}`
            : `node(s) didn't satisfy plugin(s) ${goList(narrowedBy)} simultaneously`;
        rejected = { code: Code.UnschedulableAndUnresolvable, reasons: [reason], plugin: name, stage: 'PreFilter' };
        break;
      }
    }
    if (rejected) {
      log.rejectAll(all, rejected);
      return { status: rejected };
    }
    if (!subset) return { nodes: all };
    const nodes: NodeInfo[] = [];
    for (const name of subset) {
      const node = this.handle.current.get(name);
      if (node) nodes.push(node);
    }
    const absent: Status = {
      code: Code.UnschedulableAndUnresolvable,
      reasons: [`node(s) didn't satisfy plugin(s) ${goList(narrowedBy)}`],
      plugin: narrowedBy[0] as string,
      stage: 'PreFilter',
    };
    log.rejectAll(
      all.filter((n) => !subset.has(n.name)),
      absent,
    );
    return { nodes };
  }

  /**
   * Filter plugins on each node from `start` (wrapping) until `count` feasible nodes are found; a
   * node stops at its first rejection. Returns the feasible nodes (a list of this cycle's own, which
   * PreScore plugins may keep), or the Error that aborted the cycle. On the snapshot's own list,
   * verdicts of plugins with a filterKey come from the memo when the node has not changed since they
   * were given, and so does whether the node passed all of them: then only the other plugins run on it.
   */
  private runFilter(
    state: CycleState,
    pod: PodInfo,
    nodes: readonly NodeInfo[],
    start: number,
    count: number,
    log: CycleLog,
  ): NodeInfo[] | Status {
    const skip = state.skipFilterPlugins;
    const filters = skip.size > 0 ? this.plugins.filter.filter((f) => !skip.has(f.name)) : this.plugins.filter;
    // Only rejections are counted per node; how many nodes each plugin saw and passed follows,
    // since a node reaches a plugin exactly when every plugin before it passed the node.
    if (this.rejectedCounts.length < filters.length) this.rejectedCounts = new Uint32Array(filters.length);
    const rejected = this.rejectedCounts;
    rejected.fill(0);
    const len = nodes.length;
    // Growing a fresh list node by node costs more than one copy of the reused one at the end.
    const feasible = this.feasibleFound;
    let found = 0;
    const lister = this.handle.current;
    const positional = nodes === lister.list();
    if (this.feasibleAt.length < Math.min(count, len)) this.feasibleAt = new Int32Array(Math.min(count, len));
    const feasibleAt = this.feasibleAt;
    const memos: Array<VerdictMemo | undefined> = [];
    const every = filters.map((_, k) => k);
    const nominated = nominatedPodsOf(state);
    let failure: Status | undefined;
    let i = 0;
    let p = 0;
    try {
      const keys: string[] = [];
      for (p = 0; positional && p < filters.length; p++) {
        const { name, plugin } = filters[p] as Entry<FilterPlugin>;
        const key = plugin.filterKey?.(state, pod);
        memos.push(this.memos.verdictMemo(lister, name, key));
        if (key !== undefined) keys.push(name, key);
      }
      // Whether a node passed every plugin that has a memo, and the plugins left to run when it did.
      const allKeyed = keys.length > 2 ? this.memos.allPassedMemo(lister, keys) : undefined;
      const unkeyed = every.filter((k) => !memos[k]);
      let lastKeyed = -1;
      memos.forEach((memo, k) => {
        if (memo) lastKeyed = k;
      });
      // `at` walks the list from `start`, wrapping around.
      nodes: for (let at = start - 1; i < len && found < count; i++) {
        if (++at === len) at = 0;
        const node = nodes[at] as NodeInfo;
        // Pods nominated to the node hold their room (preemption/nominated.ts): every plugin runs there, no memo.
        const held = nominated?.forNode(node.name) && filterWithNominatedPods(this, state, pod, node, nominated);
        if (held && held.code !== Code.Success) {
          p = Math.max(
            0,
            filters.findIndex((f) => f.name === held.plugin),
          );
          if (held.code === Code.Error) {
            failure = held;
            break;
          }
          rejected[p] = (rejected[p] as number) + 1;
          log.rejections.push({ node: node.name, plugin: held.plugin ?? '', stage: 'Filter', code: held.code, reasons: held.reasons });
          continue;
        }
        const order = held ? [] : allKeyed?.passed(at) ? unkeyed : every;
        for (let k = 0; k < order.length; k++) {
          p = order[k] as number;
          const entry = filters[p] as Entry<FilterPlugin>;
          const memo = memos[p];
          if (memo?.passed(at)) continue;
          let status = memo?.get(at);
          if (status === undefined) {
            status = entry.plugin.filter(state, pod, node);
            if (memo && status.code !== Code.Error) memo.set(at, status);
          }
          const code = status.code;
          // Skip at Filter has nothing against the node.
          if (code === Code.Success || code === Code.Skip) continue;
          if (code === Code.Error) {
            failure = attributed(status, entry.name, 'Filter');
            break nodes;
          }
          rejected[p] = (rejected[p] as number) + 1;
          log.rejections.push({ node: node.name, plugin: entry.name, stage: 'Filter', code, reasons: status.reasons });
          // Rejected after the last plugin with a memo: it passed all of those.
          if (p > lastKeyed) allKeyed?.set(at, SUCCESS);
          continue nodes;
        }
        if (order === every) allKeyed?.set(at, SUCCESS);
        feasibleAt[found] = positional ? at : -1;
        feasible[found++] = node;
      }
    } catch (e) {
      failure = thrown(e, (filters[p] as Entry<FilterPlugin>).name, 'Filter');
    }
    log.evaluated = i;
    log.feasible = found;
    const list = feasible.slice(0, found);
    // The node that failed with an Error reached plugin p and went no further.
    if (failure) rejected[p] = (rejected[p] as number) + 1;
    let reached = failure ? i + 1 : i;
    log.filters = filters.map((f, k): FilterRecord => {
      const record = { plugin: f.name, evaluated: reached, passed: reached - (rejected[k] as number) };
      reached = record.passed;
      return record;
    });
    return failure ?? list;
  }

  /** No node fits: PostFilter plugins (preemption) in order until one succeeds or one is final. */
  private unschedulable(state: CycleState, pod: PodInfo, log: CycleLog, preFilterStatus?: Status): ScheduleFailure {
    let found: PostFilterResult | undefined;
    if (this.plugins.postFilter.length > 0) {
      // A NodeRejection carries a node's code, reasons, plugin and stage: it is that node's Status.
      const statuses = new Map<string, Status>(log.rejections.map((r) => [r.node, r]));
      for (const { name, plugin } of this.plugins.postFilter) {
        const { status, result } = guardedWithResult(name, 'PostFilter', () => plugin.postFilter(state, pod, statuses));
        log.stage('PostFilter', name, status);
        if (result?.preemption) log.preemption = result.preemption;
        if (status.code === Code.Success) found = result;
        if (status.code !== Code.Unschedulable && status.code !== Code.Skip) break;
      }
    }
    const status = preFilterStatus ?? log.filterStatus();
    return log.failure(status, undefined, found?.nominatedNode, found?.victims);
  }
}

/** A sorted list as Go prints a []string: "[A B]", as in upstream's messages. */
function goList(names: readonly string[]): string {
  return `[${[...names].sort().join(' ')}]`;
}
