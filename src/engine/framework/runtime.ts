// The framework runtime: runs one pod through a profile's plugins as upstream's schedulePod does
// (PreFilter, node sampling, Filter, PostFilter, PreScore, Score + NormalizeScore + weights, host
// selection) and records a Diagnosis of every decision; then the binding pipeline tries the best K
// nodes in order (Reserve, Permit, CheckConflicts, Bind), undoing a reservation before the next.
//
// The cycle is synchronous and is benchmarked on thousands of nodes per pod: per-node work records
// into typed arrays and counters, objects are made only for rejections and recorded scores.
import type { Random } from '../api/random';
import type { ClusterObjects } from '../api/types';
import { err, ok, type Result } from '../api/result';
import type { CycleState } from './cycle-state';
import type { Diagnosis, FilterRecord, NodeRejection, NodeScoreRecord, PluginScore, StageOutcome } from './diagnosis';
import type { PreemptionRecord } from './preemption/record';
import { fitErrorMessage, NO_NODES_AVAILABLE } from './fit-error';
import {
  MAX_NODE_SCORE,
  MIN_NODE_SCORE,
  type BindPlugin,
  type CheckConflictsPlugin,
  type FilterPlugin,
  type FrameworkHandle,
  type NodeScore,
  type PermitPlugin,
  type Plugin,
  type PodEvaluator,
  type PostFilterPlugin,
  type PostFilterResult,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type QueuedPodInfo,
  type QueueSortPlugin,
  type ReservePlugin,
  type SampleNodesPlugin,
  type ScorePlugin,
} from './interfaces';
import type { NodeInfo, NodeInfoLister, PodInfo } from './node-info';
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
import { InMemoryBinder, type Binder } from './binder';
import { CombinedMemos, LruCache, ScoreMemo, SumMemo, VerdictMemo } from './node-memo';
import { NodeSampler } from './sampling';
import { Snapshot } from './snapshot';
import { attributed, Code, errorStatus, isRejection, statusMessage, SUCCESS, type Stage, type Status } from './status';

export interface ScheduleResult {
  readonly ok: true;
  readonly suggestedHost: string;
  /** Nodes run through Filter (sampling may stop before all of them). */
  readonly evaluatedNodes: number;
  readonly feasibleNodes: number;
  /** The best nodes by score, best (suggestedHost) first, at most the profile's commitCandidates. */
  readonly candidates: readonly string[];
  readonly diagnosis: Diagnosis;
}

export interface ScheduleFailure {
  readonly ok: false;
  /** Why: a rejection (the pod fits no node) or an Error (a plugin failed). */
  readonly status: Status;
  readonly evaluatedNodes: number;
  /** Set when a PostFilter plugin (preemption) found a node that could fit after changes. */
  readonly nominatedNode?: string;
  /** With nominatedNode: the pods to evict from it first. */
  readonly victims?: readonly PodInfo[];
  readonly diagnosis: Diagnosis;
}

export type CommitResult =
  | { readonly ok: true; readonly node: string; readonly diagnosis: Diagnosis }
  | { readonly ok: false; readonly status: Status; readonly diagnosis: Diagnosis };

/**
 * How the caller's cache follows a commit: the pod is assumed on a candidate before it is reserved
 * there (so the next cycle sees it) and forgotten when that candidate fails.
 */
export interface Assumption {
  assume(nodeName: string): Status;
  forget(nodeName: string): void;
}

export interface FrameworkOptions {
  /** Seeded: sampling's random start and tie-breaking replay exactly. */
  readonly random: Random;
  /** Where DefaultBinder binds; an in-memory binder when not given (previews, planning). */
  readonly binder?: Binder;
}

/** The handle plugins are built with: its snapshot is the one of the cycle in progress. */
class CycleHandle implements FrameworkHandle {
  current: NodeInfoLister = new Snapshot([]);
  clusterObjects: ClusterObjects = {};
  evaluator: PodEvaluator | undefined;
  constructor(
    readonly random: Random,
    readonly binder: Binder,
  ) {}
  snapshot(): NodeInfoLister {
    return this.current;
  }
  objects(): ClusterObjects {
    return this.clusterObjects;
  }
}

interface Entry<T> {
  readonly name: string;
  readonly plugin: T;
}

interface ScoreEntry extends Entry<ScorePlugin> {
  readonly weight: number;
}

/** The plugins (indices among the cycle's scorers) whose weighted scores are read as one sum per node. */
interface Summed {
  readonly memo: SumMemo;
  readonly scorers: readonly number[];
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

/** Above this many wanted entries, ranking sorts instead of inserting into a short list. */
const INSERTION_RANK_LIMIT = 16;

/** Remembered verdict and score tables kept per plugin (one per key, i.e. per pod shape), the least recently used dropped. */
const MEMO_KEYS = 16;

export class Framework implements PodEvaluator {
  /** Whether `a` leaves the queue before `b`: the profile's queueSort plugin. */
  readonly queueSortLess: (a: QueuedPodInfo, b: QueuedPodInfo) => boolean;
  private readonly sampler: NodeSampler;
  private readonly sampleNodes: Entry<SampleNodesPlugin> | undefined;
  private readonly preFilter: readonly Entry<PreFilterPlugin>[];
  private readonly filter: readonly Entry<FilterPlugin>[];
  private readonly postFilter: readonly Entry<PostFilterPlugin>[];
  private readonly preScore: readonly Entry<PreScorePlugin>[];
  private readonly score: readonly ScoreEntry[];
  private readonly reservePlugins: readonly Entry<ReservePlugin>[];
  private readonly permitPlugins: readonly Entry<PermitPlugin>[];
  private readonly checkConflictsPlugins: readonly Entry<CheckConflictsPlugin>[];
  private readonly bindPlugins: readonly Entry<BindPlugin>[];
  // Score buffers reused across cycles ([plugin × node]); cycles never overlap.
  private raw = new Float64Array(0);
  private normalized = new Float64Array(0);
  private totals = new Float64Array(0);
  private readonly scoreLists: PooledNodeScore[][] = [];
  /** The feasible nodes of the cycle being scored, which pooled NodeScores name theirs from. */
  private readonly scored: { nodes: readonly NodeInfo[] } = { nodes: [] };
  // Verdicts and raw scores remembered across cycles for plugins with a filterKey / scoreKey.
  private readonly filterMemos = new Map<string, LruCache<VerdictMemo>>();
  private readonly scoreMemos = new Map<string, LruCache<ScoreMemo>>();
  /** Whether a node passed every filter with a memo, by their keys. */
  private readonly allPassedMemos = new CombinedMemos<VerdictMemo>();
  /** Weighted sums of the remembered scores of the plugins that do not normalize, by their keys. */
  private readonly sumMemos = new CombinedMemos<SumMemo>();
  /** Per filter plugin, the nodes it rejected in the cycle (reused). */
  private rejectedCounts = new Uint32Array(0);
  /** The cycle's feasible nodes, in a list reused by the next cycle (PreScore's `nodes`). */
  private readonly feasibleNodes: NodeInfo[] = [];
  /** Per feasible node of the cycle, its position in the snapshot's list; -1 when Filter ran on another list. */
  private feasibleAt = new Int32Array(0);

  private constructor(
    readonly profileName: string,
    readonly settings: FrameworkSettings,
    private readonly cycle: CycleHandle,
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
    this.sampler = new NodeSampler(settings, cycle.random);
    this.sampleNodes = at<SampleNodesPlugin>('sampleNodes')[0];
    this.preFilter = at('preFilter');
    this.filter = at('filter');
    this.postFilter = at('postFilter');
    this.preScore = at('preScore');
    this.score = at<ScorePlugin>('score').map((e) => ({ ...e, weight: plugins.weights.get(e.name) ?? 1 }));
    this.reservePlugins = at('reserve');
    this.permitPlugins = at('permit');
    this.checkConflictsPlugins = at('checkConflicts');
    this.bindPlugins = at('bind');
    cycle.evaluator = this;
  }

  /** The cluster's objects besides nodes and pods that plugins read (PriorityClasses, PodDisruptionBudgets, …). */
  useObjects(objects: ClusterObjects): void {
    this.cycle.clusterObjects = objects;
  }

  /** What the profile's plugins were built with. */
  get handle(): FrameworkHandle {
    return this.cycle;
  }

  /**
   * Builds the profile's plugins from the registry (one instance per plugin, with its pluginConfig
   * args). Every problem is returned: an invalid profile, an unknown plugin, a factory's error, a
   * plugin enabled at a point it does not implement, not exactly one queueSort plugin, more than one
   * sampleNodes plugin. Pass the merged profile (mergeProfile); paths point into it.
   */
  static build(registry: Registry, profile: Profile, options: FrameworkOptions): Result<Framework, readonly ProfileError[]> {
    const errors = validateProfile(profile, registry);
    if (errors.length > 0) return err(errors);
    const prefix = `profile ${profile.schedulerName}: `;
    const handle = new CycleHandle(options.random, options.binder ?? new InMemoryBinder());
    const configs = profile.pluginConfig ?? [];
    const instances = new Map<string, Plugin>();
    for (const name of pluginsNeeded(profile)) {
      const index = configs.findIndex((c) => c.name === name);
      const factory = registry.get(name);
      if (!factory) continue; // reported by validateProfile
      let built: Result<Plugin>;
      try {
        built = factory(configs[index]?.args, handle);
      } catch (e) {
        built = err(errorText(e));
      }
      if (built.ok) instances.set(name, built.value);
      else errors.push({ path: index >= 0 ? ['pluginConfig', index, 'args'] : ['plugins'], message: `${prefix}plugin ${name}: ${built.error}` });
    }
    if (errors.length > 0) return err(errors);

    const { resolved, errors: resolveErrors } = resolvePlugins(profile, (name, point) => {
      const plugin = instances.get(name) as unknown as Record<string, unknown> | undefined;
      return METHODS[point].every((method) => typeof plugin?.[method] === 'function');
    });
    errors.push(...resolveErrors);
    const sorts = resolved.points.queueSort.length;
    if (sorts !== 1) errors.push({ path: ['plugins', 'queueSort'], message: `${prefix}exactly one queueSort plugin must be enabled, not ${sorts}` });
    const samplers = resolved.points.sampleNodes.length;
    if (samplers > 1) errors.push({ path: ['plugins', 'sampleNodes'], message: `${prefix}at most one sampleNodes plugin can be enabled, not ${samplers}` });
    if (errors.length > 0) return err(errors);
    return ok(new Framework(profile.schedulerName, frameworkSettings(profile), handle, resolved, instances));
  }

  /**
   * One scheduling cycle for `pod` against `snapshot` (which plugins also see through the handle):
   * the node to bind to and the commit candidates, or why there is none; both with the Diagnosis.
   */
  scheduleOne(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister): ScheduleResult | ScheduleFailure {
    this.cycle.current = snapshot;
    const all = snapshot.list();
    const log = new CycleLog(pod.key, this.profileName, all.length);
    if (all.length === 0) {
      return log.failure({ code: Code.Unschedulable, reasons: [NO_NODES_AVAILABLE], stage: 'Filter' }, NO_NODES_AVAILABLE);
    }

    const pre = this.runPreFilter(state, pod, all, log);
    if (pre.status) return pre.status.code === Code.Error ? log.failure(pre.status) : this.unschedulable(state, pod, log, pre.status);

    let nodes = pre.nodes;
    let start = 0;
    const count = this.sampler.count(nodes.length);
    if (this.sampleNodes) {
      const { name, plugin } = this.sampleNodes;
      try {
        nodes = plugin.sampleNodes(state, pod, nodes, count);
      } catch (e) {
        return log.failure(thrown(e, name, 'SampleNodes'));
      }
    } else {
      start = this.sampler.start(nodes.length);
    }

    const feasible = this.runFilter(state, pod, nodes, start, count, log);
    if (!this.sampleNodes) this.sampler.advance(log.evaluated, all.length);
    if (!Array.isArray(feasible)) return log.failure(feasible);
    if (feasible.length === 0) return this.unschedulable(state, pod, log);
    // As upstream: a single feasible node needs no scoring.
    if (feasible.length === 1) return log.success([(feasible[0] as NodeInfo).name], []);

    for (const { name, plugin } of this.preScore) {
      let status: Status;
      try {
        status = attributed(plugin.preScore(state, pod, feasible), name, 'PreScore');
      } catch (e) {
        status = thrown(e, name, 'PreScore');
      }
      log.stages.push(stageOutcome('PreScore', name, status));
      if (status.code === Code.Skip) state.skipScorePlugins.add(name);
      else if (status.code !== Code.Success) return log.failure(status);
    }
    return this.runScore(state, pod, feasible, log);
  }

  /**
   * Whether `pod` can run on the node `nodeName` of `snapshot`, judged as a cycle judges that node:
   * PreFilter over the whole snapshot (a node it leaves out is rejected as in scheduleOne), then the
   * Filter plugins on that node alone. Success, or the rejection or Error with its plugin, stage and
   * reasons. For checking a placement someone chose (a plan entry) without scheduling the pod.
   */
  checkNode(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister, nodeName: string): Status {
    this.cycle.current = snapshot;
    const node = snapshot.get(nodeName);
    if (!node) return { code: Code.UnschedulableAndUnresolvable, reasons: [`node "${nodeName}" not found`], stage: 'Filter' };
    const log = new CycleLog(pod.key, this.profileName, 1);
    const pre = this.runPreFilter(state, pod, snapshot.list(), log);
    if (pre.status) return pre.status;
    const rejection = (): Status => {
      const r = log.rejections.find((x) => x.node === nodeName);
      return r ? { code: r.code, reasons: r.reasons, plugin: r.plugin, stage: r.stage } : { ...errorStatus('no plugin recorded a verdict'), stage: 'Filter' };
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
  preFilterPod(state: CycleState, pod: PodInfo, snapshot: NodeInfoLister): { readonly ok: true; readonly nodes: readonly NodeInfo[] } | { readonly ok: false; readonly status: Status } {
    this.cycle.current = snapshot;
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
    for (const { name, plugin } of this.filter) {
      if (skip.has(name)) continue;
      let status: Status;
      try {
        status = plugin.filter(state, pod, node);
      } catch (e) {
        return thrown(e, name, 'Filter');
      }
      // Only a failure is attributed: preemption asks this of many nodes many times.
      if (status.code !== Code.Success && status.code !== Code.Skip) return attributed(status, name, 'Filter');
    }
    return SUCCESS;
  }

  /** Every PreFilter plugin's AddPod extension, in order; stops at the first failure. */
  preFilterAddPod(state: CycleState, podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.preFilterExtension(state, (plugin) => plugin.addPod?.(state, podToSchedule, podToAdd, node));
  }

  /** Every PreFilter plugin's RemovePod extension, in order; stops at the first failure. */
  preFilterRemovePod(state: CycleState, podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.preFilterExtension(state, (plugin) => plugin.removePod?.(state, podToSchedule, podToRemove, node));
  }

  private preFilterExtension(state: CycleState, call: (plugin: PreFilterPlugin) => Status | undefined): Status {
    for (const { name, plugin } of this.preFilter) {
      if (state.skipFilterPlugins.has(name)) continue;
      const status = runStatus(name, 'PreFilter', () => call(plugin) ?? SUCCESS);
      if (status.code !== Code.Success) return status;
    }
    return SUCCESS;
  }

  /** Reserve on `nodeName` with every reserve plugin in order; stops at the first failure. */
  reserve(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): Status {
    return runInOrder(this.reservePlugins, 'Reserve', nodeName, outcomes, (p) => p.reserve(state, pod, nodeName));
  }

  /** Undoes reserve on every reserve plugin, in reverse order; a plugin that throws is recorded and passed. */
  unreserve(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): void {
    for (let i = this.reservePlugins.length - 1; i >= 0; i--) {
      const { name, plugin } = this.reservePlugins[i] as Entry<ReservePlugin>;
      const status = runStatus(name, 'Unreserve', () => (plugin.unreserve(state, pod, nodeName), SUCCESS));
      outcomes.push({ stage: 'Unreserve', plugin: name, status, node: nodeName });
    }
  }

  permit(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): Status {
    return runInOrder(this.permitPlugins, 'Permit', nodeName, outcomes, (p) => p.permit(state, pod, nodeName));
  }

  /**
   * The binding pipeline over the commit candidates, best first: Reserve → Permit → CheckConflicts →
   * Bind; on a failure the reservation is undone and the next candidate tried, at most
   * 1 + bindRetries candidates. Every step is added to the Diagnosis's stages.
   */
  async commit(state: CycleState, pod: PodInfo, candidates: readonly string[], diagnosis: Diagnosis, assumption?: Assumption): Promise<CommitResult> {
    const stages = [...diagnosis.stages];
    const attempts = Math.min(candidates.length, 1 + this.settings.bindRetries);
    const failures: string[] = [];
    let last: Status | undefined;
    for (let a = 0; a < attempts; a++) {
      const node = candidates[a] as string;
      const assumed = assumption ? assumption.assume(node) : SUCCESS;
      if (assumed.code !== Code.Success) {
        failures.push(`${node} (assume: ${statusMessage(assumed)})`);
        last = assumed;
        continue;
      }
      let status = this.reserve(state, pod, node, stages);
      if (status.code === Code.Success) status = this.permit(state, pod, node, stages);
      if (status.code === Code.Success && this.checkConflictsPlugins.length > 0) status = await this.checkConflicts(state, pod, node, stages);
      if (status.code === Code.Success) status = await this.bind(state, pod, node, stages);
      if (status.code === Code.Success) return { ok: true, node, diagnosis: { ...diagnosis, stages, status: SUCCESS, chosenNode: node } };
      this.unreserve(state, pod, node, stages);
      assumption?.forget(node);
      failures.push(`${node} (${status.stage ?? 'Bind'}${status.plugin ? ` ${status.plugin}` : ''}: ${statusMessage(status)})`);
      last = status;
    }
    last ??= { ...errorStatus('there is no candidate node to bind to'), stage: 'Bind' };
    const { chosenNode: _, ...rest } = diagnosis;
    const message = `pod ${pod.key} was not bound: ${failures.length > 0 ? failures.join('; ') : statusMessage(last)}`;
    return { ok: false, status: last, diagnosis: { ...rest, stages, status: last, message } };
  }

  private async checkConflicts(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[]): Promise<Status> {
    for (const { name, plugin } of this.checkConflictsPlugins) {
      const status = await runStatusAsync(name, 'CheckConflicts', () => plugin.checkConflicts(state, pod, nodeName));
      outcomes.push({ stage: 'CheckConflicts', plugin: name, status, node: nodeName });
      if (status.code !== Code.Success && status.code !== Code.Skip) return status;
    }
    return SUCCESS;
  }

  /** Bind plugins in order until one binds; Skip passes to the next. */
  private async bind(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[]): Promise<Status> {
    for (const { name, plugin } of this.bindPlugins) {
      let status: Status;
      try {
        status = attributed(await plugin.bind(state, pod, nodeName), name, 'Bind');
      } catch (e) {
        status = thrown(e, name, 'Bind');
      }
      outcomes.push({ stage: 'Bind', plugin: name, status, node: nodeName });
      if (status.code !== Code.Skip) return status;
    }
    return { ...errorStatus('no bind plugin bound the pod'), stage: 'Bind' };
  }

  /**
   * PreFilter plugins in order, as upstream RunPreFilterPlugins: Skip keeps the plugin's Filter out
   * of this cycle; UnschedulableAndUnresolvable stops at once; Unschedulable is kept while the rest
   * still run (their state serves preemption); node subsets are intersected. A rejection marks every
   * node; nodes left out of the subset are marked as not satisfying the narrowing plugins.
   */
  private runPreFilter(state: CycleState, pod: PodInfo, all: readonly NodeInfo[], log: CycleLog): { nodes: readonly NodeInfo[]; status?: undefined } | { status: Status } {
    let rejected: Status | undefined;
    let subset: Set<string> | undefined;
    const narrowedBy: string[] = [];
    for (const { name, plugin } of this.preFilter) {
      let status: Status;
      let result: PreFilterResult | undefined;
      try {
        const out = plugin.preFilter(state, pod, all);
        status = attributed(out.status, name, 'PreFilter');
        result = out.result;
      } catch (e) {
        status = thrown(e, name, 'PreFilter');
      }
      log.stages.push(stageOutcome('PreFilter', name, status));
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
        const reason = narrowedBy.length === 1 ? `node(s) didn't satisfy plugin ${name}` : `node(s) didn't satisfy plugin(s) ${goList(narrowedBy)} simultaneously`;
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
      const node = this.cycle.current.get(name);
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
   * node stops at its first rejection. Returns the feasible nodes, or the Error that aborted the cycle.
   * On the snapshot's own list, verdicts of plugins with a filterKey come from the memo when the node
   * has not changed since they were given, and so does whether the node passed all of them: then
   * only the other plugins run on it.
   */
  private runFilter(state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[], start: number, count: number, log: CycleLog): NodeInfo[] | Status {
    const skip = state.skipFilterPlugins;
    const filters = skip.size > 0 ? this.filter.filter((f) => !skip.has(f.name)) : this.filter;
    // Only rejections are counted per node; how many nodes each plugin saw and passed follows,
    // since a node reaches a plugin exactly when every plugin before it passed the node.
    if (this.rejectedCounts.length < filters.length) this.rejectedCounts = new Uint32Array(filters.length);
    const rejected = this.rejectedCounts;
    rejected.fill(0);
    const len = nodes.length;
    // One list reused by every cycle (cycles never overlap), cut to what was found.
    const feasible = this.feasibleNodes;
    let found = 0;
    const positional = nodes === this.cycle.current.list();
    if (this.feasibleAt.length < Math.min(count, len)) this.feasibleAt = new Int32Array(Math.min(count, len));
    const feasibleAt = this.feasibleAt;
    const memos: Array<VerdictMemo | undefined> = [];
    const every = filters.map((_, k) => k);
    let failure: Status | undefined;
    let i = 0;
    let p = 0;
    try {
      const keys: string[] = [];
      for (p = 0; positional && p < filters.length; p++) {
        const { name, plugin } = filters[p] as Entry<FilterPlugin>;
        const key = plugin.filterKey?.(state, pod);
        memos.push(this.memoFor(this.filterMemos, () => new VerdictMemo(), name, key));
        if (key !== undefined) keys.push(name, key);
      }
      // Whether a node passed every plugin that has a memo, and the plugins left to run when it did.
      let allKeyed = keys.length > 2 ? this.allPassedMemos.get(keys, () => new VerdictMemo()) : undefined;
      if (allKeyed && !allKeyed.sync(this.cycle.current)) allKeyed = undefined;
      const unkeyed = every.filter((k) => !memos[k]);
      let lastKeyed = -1;
      memos.forEach((memo, k) => {
        if (memo) lastKeyed = k;
      });
      // `at` walks the list from `start`, wrapping around.
      nodes: for (let at = start - 1; i < len && found < count; i++) {
        if (++at === len) at = 0;
        const node = nodes[at] as NodeInfo;
        const order = allKeyed?.passed(at) ? unkeyed : every;
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
    feasible.length = found;
    log.feasible = found;
    // The node that failed with an Error reached plugin p and went no further.
    if (failure) rejected[p] = (rejected[p] as number) + 1;
    let reached = failure ? i + 1 : i;
    log.filters = filters.map((f, k): FilterRecord => {
      const record = { plugin: f.name, evaluated: reached, passed: reached - (rejected[k] as number) };
      reached = record.passed;
      return record;
    });
    return failure ?? feasible;
  }

  /** The memo of a plugin's results for this key, synced with the cycle's snapshot; none without a key or when the snapshot cannot tell its changes. */
  private memoFor<M extends VerdictMemo | ScoreMemo>(memos: Map<string, LruCache<M>>, make: () => M, plugin: string, key: string | undefined): M | undefined {
    if (key === undefined) return undefined;
    let byKey = memos.get(plugin);
    if (!byKey) memos.set(plugin, (byKey = new LruCache(MEMO_KEYS)));
    const memo = byKey.get(key, make);
    return memo.sync(this.cycle.current) ? memo : undefined;
  }

  /** No node fits: PostFilter plugins (preemption) in order until one succeeds or one is final. */
  private unschedulable(state: CycleState, pod: PodInfo, log: CycleLog, preFilterStatus?: Status): ScheduleFailure {
    let found: PostFilterResult | undefined;
    if (this.postFilter.length > 0) {
      // A NodeRejection carries a node's code, reasons, plugin and stage: it is that node's Status.
      const statuses = new Map<string, Status>(log.rejections.map((r) => [r.node, r]));
      for (const { name, plugin } of this.postFilter) {
        const { status, result } = runWithResult(name, 'PostFilter', () => plugin.postFilter(state, pod, statuses));
        log.stages.push({ stage: 'PostFilter', plugin: name, status });
        if (result?.preemption) log.preemption = result.preemption;
        if (status.code === Code.Success) found = result;
        if (status.code !== Code.Unschedulable && status.code !== Code.Skip) break;
      }
    }
    const status = preFilterStatus ?? log.filterStatus();
    return log.failure(status, undefined, found?.nominatedNode, found?.victims);
  }

  /**
   * Score, NormalizeScore and weights, then the host and the commit candidates. On the snapshot's own
   * list, raw scores of plugins with a scoreKey come from their memos, and the weighted sum of those
   * that do not normalize comes from one memo per node (scoreSummed).
   */
  private runScore(state: CycleState, pod: PodInfo, feasible: readonly NodeInfo[], log: CycleLog): ScheduleResult | ScheduleFailure {
    const skip = state.skipScorePlugins;
    const scorers = skip.size > 0 ? this.score.filter((s) => !skip.has(s.name)) : this.score;
    const n = feasible.length;
    const size = scorers.length * n;
    if (this.raw.length < size) {
      this.raw = new Float64Array(size);
      this.normalized = new Float64Array(size);
    }
    if (this.totals.length < n) this.totals = new Float64Array(n);
    const { raw, normalized, totals, feasibleAt } = this;
    // Filter recorded where each feasible node sits in the snapshot's list, or -1 on another list.
    const positional = n > 0 && (feasibleAt[0] as number) >= 0;

    let p = 0;
    let summed: Summed | undefined;
    try {
      const memos: Array<ScoreMemo | undefined> = [];
      const summable: number[] = [];
      const sumKey: string[] = [];
      for (p = 0; p < scorers.length; p++) {
        const { name, plugin } = scorers[p] as ScoreEntry;
        const key = positional ? plugin.scoreKey?.(state, pod) : undefined;
        memos.push(this.memoFor(this.scoreMemos, () => new ScoreMemo(), name, key));
        if (memos[p] && !plugin.normalizeScore) {
          summable.push(p);
          sumKey.push(name, key as string);
        }
      }
      if (summable.length > 1) {
        const memo = this.sumMemos.get(sumKey, () => new SumMemo(summable.length));
        if (memo.sync(this.cycle.current)) summed = { memo, scorers: summable };
      }
      if (summed && !this.scoreSummed(state, pod, feasible, scorers, memos, summed, log)) summed = undefined;
      if (!summed) {
        totals.fill(0, 0, n);
        for (p = 0; p < scorers.length; p++) {
          const failure = this.scorePlugin(state, pod, feasible, scorers, p, memos[p], log);
          if (failure) return failure;
        }
      }
    } catch (e) {
      return log.failure(thrown(e, (scorers[p] as ScoreEntry).name, 'Score'));
    }

    const best = this.selectHost(totals, n);
    const { commitCandidates, recordScores } = this.settings;
    const ranked = [best, ...rankOthers(totals, n, Math.min(n, Math.max(commitCandidates, recordScores)) - 1, best)];
    const recorded = ranked.slice(0, recordScores);
    // The summed plugins' own scores were not written out per node: those of the recorded nodes are.
    for (let part = 0; summed && part < summed.scorers.length; part++) {
      const base = (summed.scorers[part] as number) * n;
      for (const i of recorded) {
        const value = summed.memo.part(feasibleAt[i] as number, part);
        raw[base + i] = value;
        normalized[base + i] = value;
      }
    }
    const record = (i: number): NodeScoreRecord => {
      const plugins = scorers.map(({ name, weight }, k): PluginScore => {
        const value = normalized[k * n + i] as number;
        return { plugin: name, raw: small(raw[k * n + i] as number), normalized: small(value), weight, weighted: small(value * weight) };
      });
      return { node: (feasible[i] as NodeInfo).name, total: small(totals[i] as number), plugins };
    };
    return log.success(
      ranked.slice(0, commitCandidates).map((i) => (feasible[i] as NodeInfo).name),
      recorded.map(record),
    );
  }

  /**
   * One plugin's raw scores (from its memo when known), NormalizeScore, the range check; its
   * normalized scores × weight are added to the totals. A failure ends the cycle.
   */
  private scorePlugin(state: CycleState, pod: PodInfo, feasible: readonly NodeInfo[], scorers: readonly ScoreEntry[], p: number, memo: ScoreMemo | undefined, log: CycleLog): ScheduleFailure | undefined {
    const { name, plugin, weight } = scorers[p] as ScoreEntry;
    const { raw, normalized, totals, feasibleAt } = this;
    const n = feasible.length;
    const base = p * n;
    for (let i = 0; i < n; i++) {
      const at = feasibleAt[i] as number;
      let score = memo ? memo.get(at) : NaN;
      if (Number.isNaN(score)) {
        const result = plugin.score(state, pod, feasible[i] as NodeInfo);
        if (typeof result === 'number') score = result;
        else if (result.code === Code.Success) score = 0;
        else return log.failure(attributed(result, name, 'Score'));
        memo?.set(at, score);
      }
      raw[base + i] = score;
    }
    let list: NodeScore[] | undefined;
    if (plugin.normalizeScore) {
      list = this.scoreList(p, feasible, raw, base);
      const status = runStatus(name, 'NormalizeScore', () => (plugin.normalizeScore as NonNullable<ScorePlugin['normalizeScore']>)(state, pod, list as NodeScore[]));
      if (status.code !== Code.Success) return log.failure(status);
    }
    for (let i = 0; i < n; i++) {
      const score = list ? (list[i] as NodeScore).score : (raw[base + i] as number);
      if (!(score >= MIN_NODE_SCORE && score <= MAX_NODE_SCORE)) {
        return log.failure({
          code: Code.Error,
          reasons: [`plugin ${name} returned an invalid score ${score} for node ${(feasible[i] as NodeInfo).name}, it should be in the range [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`],
          plugin: name,
          stage: 'Score',
        });
      }
      normalized[base + i] = score;
      totals[i] = (totals[i] as number) + score * weight;
    }
    return undefined;
  }

  /**
   * The totals with the summed plugins' weighted scores read as one number per node: the other
   * plugins are scored one by one, the sum is made for the nodes the memo does not know. Totals of
   * whole numbers do not depend on the order they are added in; anything else (an error, a score out
   * of range, a fraction) answers false, and the cycle is scored plugin by plugin to say so exactly.
   */
  private scoreSummed(state: CycleState, pod: PodInfo, feasible: readonly NodeInfo[], scorers: readonly ScoreEntry[], memos: ReadonlyArray<ScoreMemo | undefined>, summed: Summed, log: CycleLog): boolean {
    const { normalized, totals, feasibleAt } = this;
    const n = feasible.length;
    try {
      totals.fill(0, 0, n);
      for (let p = 0; p < scorers.length; p++) {
        if (summed.scorers.includes(p)) continue;
        if (this.scorePlugin(state, pod, feasible, scorers, p, memos[p], log)) return false;
        const weight = (scorers[p] as ScoreEntry).weight;
        for (let i = p * n; i < (p + 1) * n; i++) if (!Number.isInteger((normalized[i] as number) * weight)) return false;
      }
      for (let i = 0; i < n; i++) {
        const at = feasibleAt[i] as number;
        let sum = summed.memo.sum(at);
        if (Number.isNaN(sum)) {
          sum = 0;
          for (let part = 0; part < summed.scorers.length; part++) {
            const { plugin, weight } = scorers[summed.scorers[part] as number] as ScoreEntry;
            const memo = memos[summed.scorers[part] as number] as ScoreMemo;
            let score = memo.get(at);
            if (Number.isNaN(score)) {
              const result = plugin.score(state, pod, feasible[i] as NodeInfo);
              if (typeof result !== 'number' && result.code !== Code.Success) return false;
              score = typeof result === 'number' ? result : 0;
              memo.set(at, score);
            }
            if (!(score >= MIN_NODE_SCORE && score <= MAX_NODE_SCORE) || !Number.isInteger(score)) return false;
            summed.memo.setPart(at, part, score);
            sum += score * weight;
          }
          summed.memo.setSum(at, sum);
        }
        totals[i] = (totals[i] as number) + sum;
      }
      return true;
    } catch {
      return false;
    }
  }

  /** The highest total; ties broken uniformly by the injected Random (reservoir sampling, as upstream). */
  private selectHost(totals: Float64Array, n: number): number {
    let best = 0;
    let max = totals[0] as number;
    let ties = 1;
    for (let i = 1; i < n; i++) {
      const total = totals[i] as number;
      if (total > max) {
        max = total;
        best = i;
        ties = 1;
      } else if (total === max) {
        ties++;
        if (this.cycle.random.int(ties) === 0) best = i;
      }
    }
    return best;
  }

  /** The NodeScore list NormalizeScore rewrites, from a pool reused across cycles. */
  private scoreList(p: number, feasible: readonly NodeInfo[], raw: Float64Array, base: number): NodeScore[] {
    const list = (this.scoreLists[p] ??= []);
    this.scored.nodes = feasible;
    for (let i = 0; i < feasible.length; i++) {
      const score = raw[base + i] as number;
      const entry = list[i];
      if (entry) entry.score = score;
      else list[i] = new PooledNodeScore(this.scored, i, score);
    }
    list.length = feasible.length;
    return list;
  }
}

/**
 * A NodeScore that reads the node's name only when asked (most normalizations look at scores alone)
 * and is reused across cycles with the same index, so a cycle writes only its score.
 */
class PooledNodeScore implements NodeScore {
  constructor(
    private readonly scored: { readonly nodes: readonly NodeInfo[] },
    private readonly index: number,
    public score: number,
  ) {}

  get name(): string {
    return (this.scored.nodes[this.index] as NodeInfo).name;
  }
}

/** What a cycle has found so far; it becomes the Diagnosis. */
class CycleLog {
  readonly stages: StageOutcome[] = [];
  readonly rejections: NodeRejection[] = [];
  filters: readonly FilterRecord[] = [];
  preemption: PreemptionRecord | undefined;
  evaluated = 0;
  feasible = 0;

  constructor(
    private readonly pod: string,
    private readonly profile: string,
    private readonly nodesTotal: number,
  ) {}

  rejectAll(nodes: readonly NodeInfo[], status: Status): void {
    const plugin = status.plugin ?? '';
    const stage = status.stage ?? 'PreFilter';
    for (const node of nodes) this.rejections.push({ node: node.name, plugin, stage, code: status.code, reasons: status.reasons });
  }

  /** The verdict when Filter left no node: unresolvable only if every rejection is; the one plugin if only one rejected. */
  filterStatus(): Status {
    let resolvable = false;
    let plugin: string | undefined = this.rejections[0]?.plugin;
    for (const r of this.rejections) {
      if (r.code === Code.Unschedulable) resolvable = true;
      if (r.plugin !== plugin) plugin = undefined;
    }
    const code = resolvable || this.rejections.length === 0 ? Code.Unschedulable : Code.UnschedulableAndUnresolvable;
    return { code, reasons: [], stage: 'Filter', ...(plugin ? { plugin } : {}) };
  }

  success(candidates: readonly string[], scores: readonly NodeScoreRecord[]): ScheduleResult {
    const suggestedHost = candidates[0] as string;
    const diagnosis = this.diagnosis(SUCCESS, scores, suggestedHost);
    return { ok: true, suggestedHost, evaluatedNodes: this.evaluated, feasibleNodes: this.feasible, candidates, diagnosis };
  }

  /**
   * A cycle that placed nothing. The message is upstream's FitError text for a rejection, the
   * status's own words for an Error; a Filter verdict carries that message as its reason.
   */
  failure(status: Status, message?: string, nominatedNode?: string, victims?: readonly PodInfo[]): ScheduleFailure {
    let diagnosis = this.diagnosis(status, []);
    const text = message ?? (isRejection(status) ? fitErrorMessage(diagnosis) : statusMessage(status));
    if (status.reasons.length === 0) diagnosis = { ...diagnosis, status: { ...status, reasons: [text] } };
    diagnosis = { ...diagnosis, message: text, ...(this.preemption ? { preemption: this.preemption } : {}) };
    return { ok: false, status: diagnosis.status, evaluatedNodes: this.evaluated, diagnosis, ...(nominatedNode ? { nominatedNode, ...(victims ? { victims } : {}) } : {}) };
  }

  private diagnosis(status: Status, scores: readonly NodeScoreRecord[], chosenNode?: string): Diagnosis {
    return {
      pod: this.pod,
      profile: this.profile,
      nodesTotal: this.nodesTotal,
      nodesEvaluated: this.evaluated,
      feasibleNodes: this.feasible,
      status,
      ...(chosenNode ? { chosenNode } : {}),
      rejections: this.rejections,
      filters: this.filters,
      scores,
      stages: this.stages,
    };
  }
}

/**
 * Indices other than `exclude` with the `m` highest totals, highest first, ties in evaluation order.
 * A short list takes insertion (one pass over the nodes); a long one a sort.
 */
function rankOthers(totals: Float64Array, n: number, m: number, exclude: number): number[] {
  if (m <= 0) return [];
  const byTotal = (a: number, b: number) => (totals[b] as number) - (totals[a] as number) || a - b;
  if (m > INSERTION_RANK_LIMIT) {
    const all: number[] = [];
    for (let i = 0; i < n; i++) if (i !== exclude) all.push(i);
    return all.sort(byTotal).slice(0, m);
  }
  const top: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i === exclude) continue;
    const total = totals[i] as number;
    if (top.length === m && total <= (totals[top[m - 1] as number] as number)) continue;
    let j = Math.min(top.length, m - 1);
    while (j > 0 && (totals[top[j - 1] as number] as number) < total) {
      top[j] = top[j - 1] as number;
      j--;
    }
    top[j] = i;
  }
  return top;
}

/**
 * The number as a small integer when it is one: read from a float array, a whole score would be kept
 * boxed in every record a Diagnosis holds.
 */
function small(x: number): number {
  return (x | 0) === x ? x | 0 : x;
}

/** Plugins of a non-per-node stage in order, recorded; Skip passes, anything but Success stops. */
function runInOrder<T>(entries: readonly Entry<T>[], stage: Stage, node: string, outcomes: StageOutcome[], call: (plugin: T) => Status): Status {
  for (const { name, plugin } of entries) {
    const status = runStatus(name, stage, () => call(plugin));
    outcomes.push({ stage, plugin: name, status, node });
    if (status.code !== Code.Success && status.code !== Code.Skip) return status;
  }
  return SUCCESS;
}

function runStatus(plugin: string, stage: Stage, call: () => Status): Status {
  try {
    return attributed(call(), plugin, stage);
  } catch (e) {
    return thrown(e, plugin, stage);
  }
}

/** A call answering a status and maybe a result (PreFilter, PostFilter), guarded and attributed. */
function runWithResult<R>(plugin: string, stage: Stage, call: () => { status: Status; result?: R }): { status: Status; result?: R | undefined } {
  try {
    const out = call();
    return { status: attributed(out.status, plugin, stage), result: out.result };
  } catch (e) {
    return { status: thrown(e, plugin, stage) };
  }
}

async function runStatusAsync(plugin: string, stage: Stage, call: () => Promise<Status>): Promise<Status> {
  try {
    return attributed(await call(), plugin, stage);
  } catch (e) {
    return thrown(e, plugin, stage);
  }
}

/** Outcomes of shared (frozen) statuses, made once: every Diagnosis a scheduler keeps records a dozen of them. */
const sharedOutcomes = new WeakMap<Status, StageOutcome>();

/** The record of a non-per-node stage's status (PreFilter, PreScore). */
function stageOutcome(stage: Stage, plugin: string, status: Status): StageOutcome {
  if (!Object.isFrozen(status)) return { stage, plugin, status };
  let outcome = sharedOutcomes.get(status);
  if (outcome?.stage !== stage || outcome.plugin !== plugin) sharedOutcomes.set(status, (outcome = Object.freeze({ stage, plugin, status })));
  return outcome;
}

/** A plugin that throws has failed, not the engine: an Error status naming it. */
function thrown(error: unknown, plugin: string, stage: Stage): Status {
  return { code: Code.Error, reasons: [`plugin ${plugin} threw at ${stage}: ${errorText(error)}`], plugin, stage };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A sorted list as Go prints a []string: "[A B]", as in upstream's messages. */
function goList(names: readonly string[]): string {
  return `[${[...names].sort().join(' ')}]`;
}
