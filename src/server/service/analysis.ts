// What the language service knows about the workspace beyond single documents: indexes (pods,
// nodes, pod sets, triggers, plans by name), the engine's view of the cluster (a snapshot of the
// nodes and bound pods, the scheduler profiles as frameworks), and the checks of each plan.
//
// An Analysis lives for one version of the workspace model. The engine's part (EngineState) is kept
// across versions while the node, pod and profile objects are the same ones (manifests' readFile
// reuses the objects of documents whose text did not change), so an edit in a trigger or a plan
// re-checks that plan only.
import type { Clock } from '../../engine/api/clock';
import {
  podKey,
  sameCluster,
  DEFAULT_NAMESPACE,
  type ClusterObjects,
  type ClusterSnapshot,
  type Node,
  type Pod,
} from '../../engine/api/types';
import { CycleState } from '../../engine/framework/cycle-state';
import { isSuccess } from '../../engine/framework/status';
import { DEFAULT_SCHEDULER_NAME } from '../../engine/framework/profile';
import { NodeInfo, podInfo, type NodeInfoLister } from '../../engine/framework/node-info';
import type { ScheduleFailure, ScheduleResult } from '../../engine/framework/runtime';
import { type Framework } from '../../engine/framework/runtime';
import { Snapshot } from '../../engine/framework/snapshot';
import { POD_SET_LABEL, type PlacedPod, type Plan } from '../../engine/planner/plan';
import { placementsOf, writtenPlansBefore } from '../../engine/planner/placed-before';
import type { TriggerSpec } from '../../engine/planner/podset/trigger';
import { triggerSpec } from '../../manifests/planner';
import { POD_SET_SCHEDULER_NAME } from '../../engine/planner/podset/podset';
import type { SolverSettings } from '../../engine/planner/planner';
import { seededRandom } from '../../engine/api/random';
import {
  concatPath,
  planFromManifest,
  type Located,
  type ManifestDocument,
  type ProfileManifest,
  type SchedulePlanManifest,
  type ScheduleTriggerManifest,
  type WorkspaceModel,
} from '../../manifests';
import type { SourceFile } from '../workspace';
import { documentAt } from './documents';
import { checkPlan, type PlanCheck } from './plan-check';
import { buildFramework, defaultProfile, resolveProfile, type ResolvedProfile } from './profiles';
import { PlanCluster } from '../../engine/planner/plan-cluster';

export interface AnalysisOptions {
  /** Pods of a pod set must carry this schedulerName for the planner to see them (POD_SET_SCHEDULER_NAME when not given). */
  readonly plannerSchedulerName?: string;
  /** Stamps previews and plans (the system clock in the server, a manual one in tests). */
  readonly clock?: Clock;
  /** Where the cluster comes from, in words for messages: "the workspace" (the default) or "context prod". */
  readonly where?: string;
  /** The MILP solver previews plan with, once it is loaded (the server loads HiGHS at start). */
  readonly solver?: () => SolverSettings | undefined;
}

/** `namespace/name`. */
export const keyOf = (namespace: string | undefined, name: string): string => `${namespace ?? DEFAULT_NAMESPACE}/${name}`;

/** The pod-set label's value (the set's name), whichever scheduler the pod names. */
export const podSetLabelOf = (pod: Pod): string | undefined => pod.metadata.labels?.[POD_SET_LABEL];
export const schedulerOf = (pod: Pod): string => pod.spec.schedulerName ?? DEFAULT_SCHEDULER_NAME;

/**
 * The scheduler profiles of the workspace's configurations and their frameworks. Kept while the
 * configurations are the same objects: a framework's plugins keep per-node memos that stay valid
 * from one snapshot to the next.
 */
export class Profiles {
  /** Profiles by schedulerName, the first written wins. */
  private readonly byName = new Map<string, ResolvedProfile>();
  /** Every profile of every configuration, for diagnostics. */
  readonly all: readonly ResolvedProfile[];
  private readonly frameworks = new Map<string, Framework>();

  constructor(readonly configs: readonly Located<ProfileManifest>[]) {
    const all: ResolvedProfile[] = [];
    for (const config of configs) {
      config.value.profiles.forEach((_, i) => {
        const resolved = resolveProfile(config, i, (path) => config.source.has(concatPath(config.base, path)));
        all.push(resolved);
        if (!this.byName.has(resolved.schedulerName)) this.byName.set(resolved.schedulerName, resolved);
      });
    }
    this.all = all;
  }

  /** The profile pods with this schedulerName run: the workspace's, else upstream's defaults. */
  profile(schedulerName: string): ResolvedProfile {
    const found = this.byName.get(schedulerName);
    return found?.valid ? found : (found ?? defaultProfile(schedulerName));
  }

  /** A framework judging every node with the pod's profile (the defaults when the profile has errors). */
  framework(schedulerName: string): Framework {
    let framework = this.frameworks.get(schedulerName);
    if (!framework) {
      const resolved = this.profile(schedulerName);
      framework = buildFramework(resolved.valid ? resolved.profile : defaultProfile(schedulerName).profile, seededRandom(1), true);
      if (!framework) throw new Error(`the default profile does not build under ${schedulerName}`);
      this.frameworks.set(schedulerName, framework);
    }
    return framework;
  }
}

/** The engine's view of one set of node, pod and profile objects. */
export class EngineState {
  readonly snapshot: Snapshot;
  private readonly checks = new WeakMap<SchedulePlanManifest, PlanCheck>();
  private readonly placements = new Map<string, ScheduleFailure | undefined>();
  private positions: Map<string, number> | undefined;

  constructor(
    readonly nodes: readonly Node[],
    readonly pods: readonly Pod[],
    private readonly profileSet: Profiles,
    objects: ClusterObjects = {},
  ) {
    // A pod whose requests do not parse was reported by the reader; the engine leaves it out.
    const usable = pods.filter((p) => podInfo(p).ok);
    const built = Snapshot.fromCluster({ ...objects, nodes, pods: usable });
    this.snapshot = built.ok ? built.value : new Snapshot(nodes.map((n) => new NodeInfo(n)));
  }

  /** Every profile of every configuration, for diagnostics. */
  get profiles(): readonly ResolvedProfile[] {
    return this.profileSet.all;
  }

  profile(schedulerName: string): ResolvedProfile {
    return this.profileSet.profile(schedulerName);
  }

  framework(schedulerName: string): Framework {
    return this.profileSet.framework(schedulerName);
  }

  /**
   * Why `pod` fits no node of the cluster as it is (upstream's FitError, in its diagnosis), or
   * undefined when a node fits. Computed once per `key` (the pods of one template share it): the
   * first node that passes ends the search, so a pod that fits costs little.
   */
  unplaceable(key: string, pod: Pod): ScheduleFailure | undefined {
    if (this.placements.has(key)) return this.placements.get(key);
    let failure: ScheduleFailure | undefined;
    const info = podInfo(pod);
    if (info.ok) {
      const framework = this.framework(schedulerOf(pod));
      const fits = this.snapshot.list().some((n) => isSuccess(framework.checkNode(new CycleState(), info.value, this.snapshot, n.name)));
      const result = fits ? undefined : framework.scheduleOne(new CycleState(), info.value, this.snapshot);
      if (result && !result.ok) failure = result;
    }
    this.placements.set(key, failure);
    return failure;
  }

  /** The plan's checks, computed once per plan object. */
  planCheck(plan: SchedulePlanManifest, analysis: Analysis): PlanCheck {
    let check = this.checks.get(plan);
    if (!check) this.checks.set(plan, (check = checkPlan(plan, analysis)));
    return check;
  }

  /** The cluster before a plan's pods are put on it: a plan changes its copy, never the snapshot. */
  planCluster(): PlanCluster {
    this.positions ??= new Map(this.snapshot.list().map((n, i) => [n.name, i]));
    return PlanCluster.on(this.snapshot, this.positions);
  }
}

const sameItems = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Keeps the last EngineState while the objects it was built from are the same (every part of the cluster), and the profiles while theirs are. */
export class EngineCache {
  private lastProfiles: Profiles | undefined;
  private last: { state: EngineState; profiles: Profiles; cluster: ClusterSnapshot } | undefined;

  /** The model's profiles, without the cluster's snapshot (what the workspace summary needs of the engine). */
  profiles(model: WorkspaceModel): Profiles {
    const last = this.lastProfiles;
    const configs = model.profiles;
    if (
      last &&
      sameItems(
        last.configs.map((c) => c.value),
        configs.map((c) => c.value),
      )
    )
      return last;
    return (this.lastProfiles = new Profiles(configs));
  }

  state(model: WorkspaceModel): EngineState {
    const last = this.last;
    const profiles = this.profiles(model);
    if (last && last.profiles === profiles && sameCluster(last.cluster, model.cluster)) return last.state;
    const state = new EngineState(model.cluster.nodes, model.cluster.pods, profiles, model.cluster);
    this.last = { state, profiles, cluster: model.cluster };
    return state;
  }
}

/** A node's verdict for a pod: feasible with its score, or the plugin and reason that rejected it. */
export interface NodeFit {
  readonly node: string;
  readonly feasible: boolean;
  readonly score?: number;
  readonly plugin?: string;
  readonly reason?: string;
}

export interface Ranking {
  /** Feasible nodes best first, then the others by name. */
  readonly nodes: readonly NodeFit[];
  readonly result: ScheduleResult | ScheduleFailure;
  /** The cluster the cycle ran on. */
  readonly snapshot: NodeInfoLister;
  /** With a plan: that cluster as the plan leaves it, where the verdicts of an explanation are judged too. */
  readonly cluster?: PlanCluster;
}

/** Where an object of a document is: the object, what kind of list it is in, and the path within it. */
export interface ObjectAt {
  readonly located: Located<unknown>;
  readonly bucket: 'nodes' | 'pods' | 'workloads' | 'triggers' | 'plans' | 'profiles' | 'others';
  /** The cursor's path relative to the object. */
  readonly relative: string;
}

export interface Place {
  readonly file: SourceFile;
  readonly document: ManifestDocument;
  /** The cursor's path from the document's root ('' at the root or between fields). */
  readonly path: string;
  readonly object?: ObjectAt;
}

function group<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === undefined) continue;
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

export interface PlannedEntry {
  readonly plan: Located<SchedulePlanManifest>;
  readonly index: number;
  readonly pod: string;
  readonly node: string;
}

export class Analysis {
  readonly plannerSchedulerName: string;
  /** Where the cluster comes from, for messages ("the workspace", "context prod"). */
  readonly where: string;
  private engineState: EngineState | undefined;
  private podIndex: Map<string, Located<Pod>> | undefined;
  private nodeIndex: Map<string, Located<Node>> | undefined;
  private setIndex: Map<string, Located<Pod>[]> | undefined;
  private triggerIndex: Map<string, Located<ScheduleTriggerManifest>> | undefined;
  private placedBeforeSets: Map<string, readonly PlacedPod[]> | undefined;
  private triggerSpecs: TriggerSpec[] | undefined;
  private writtenPlans: Plan[] | undefined;
  private triggersBySet: Map<string, Located<ScheduleTriggerManifest>[]> | undefined;
  private plansBySet: Map<string, Located<SchedulePlanManifest>[]> | undefined;
  private planIndex: Map<string, Located<SchedulePlanManifest>> | undefined;
  private plannedPods: Map<string, PlannedEntry> | undefined;
  private plannedNodes: Map<string, PlannedEntry[]> | undefined;

  constructor(
    readonly model: WorkspaceModel,
    private readonly fileOf: (uri: string) => SourceFile | undefined,
    private readonly cache: EngineCache,
    readonly options: AnalysisOptions = {},
  ) {
    this.plannerSchedulerName = options.plannerSchedulerName ?? POD_SET_SCHEDULER_NAME;
    this.where = options.where ?? 'the workspace';
  }

  file(uri: string): SourceFile | undefined {
    return this.fileOf(uri);
  }

  get engine(): EngineState {
    return (this.engineState ??= this.cache.state(this.model));
  }

  /** Every profile of every configuration; unlike `engine`, no snapshot of the cluster is built for it. */
  get profiles(): readonly ResolvedProfile[] {
    return this.cache.profiles(this.model).all;
  }

  pod(namespace: string, name: string): Located<Pod> | undefined {
    return (this.podIndex ??= new Map(this.model.pods.map((p) => [podKey(p.value), p]))).get(keyOf(namespace, name));
  }

  node(name: string): Located<Node> | undefined {
    return (this.nodeIndex ??= new Map(this.model.nodes.map((n) => [n.value.metadata.name, n]))).get(name);
  }

  /** The pods labelled with the pod set in its namespace. */
  podSet(namespace: string, set: string): readonly Located<Pod>[] {
    this.setIndex ??= group(this.model.pods, (p) => {
      const s = podSetLabelOf(p.value);
      return s === undefined ? undefined : keyOf(p.value.metadata.namespace, s);
    });
    return this.setIndex.get(keyOf(namespace, set)) ?? [];
  }

  /** Pods of the set the planner places: not bound yet, and handed to the planner by their schedulerName. */
  plannedPodsOf(namespace: string, set: string): readonly Located<Pod>[] {
    return this.podSet(namespace, set).filter((p) => !p.value.spec.nodeName && schedulerOf(p.value) === this.plannerSchedulerName);
  }

  /** Every pod set named anywhere (pods, triggers, plans), as namespace/name keys. */
  podSetKeys(): string[] {
    const keys = new Set<string>();
    for (const p of this.model.pods) {
      const s = podSetLabelOf(p.value);
      if (s !== undefined) keys.add(keyOf(p.value.metadata.namespace, s));
    }
    for (const t of this.model.triggers) keys.add(keyOf(t.value.namespace, t.value.podSet));
    for (const p of this.model.plans) keys.add(keyOf(p.value.namespace, p.value.podSet));
    return [...keys].sort();
  }

  trigger(namespace: string, name: string): Located<ScheduleTriggerManifest> | undefined {
    return (this.triggerIndex ??= new Map(this.model.triggers.map((t) => [keyOf(t.value.namespace, t.value.name), t]))).get(
      keyOf(namespace, name),
    );
  }

  plan(namespace: string, name: string): Located<SchedulePlanManifest> | undefined {
    return (this.planIndex ??= new Map(this.model.plans.map((p) => [keyOf(p.value.namespace, p.value.name), p]))).get(
      keyOf(namespace, name),
    );
  }

  triggersOf(namespace: string, set: string): readonly Located<ScheduleTriggerManifest>[] {
    return (
      (this.triggersBySet ??= group(this.model.triggers, (t) => keyOf(t.value.namespace, t.value.podSet))).get(keyOf(namespace, set)) ?? []
    );
  }

  /**
   * The pods the written SchedulePlans a set's trigger depends on put on their nodes, which a plan of
   * the set is made beside (engine/planner/placed-before writtenPlansBefore: nothing is planned again
   * here, every written plan of a set it depends on stands): the cluster a written plan of the set is
   * checked on, as plan-all plans the set beside a written plan it depends on.
   */
  placedBefore(namespace: string, set: string): readonly PlacedPod[] {
    const key = keyOf(namespace, set);
    this.placedBeforeSets ??= new Map();
    let placed = this.placedBeforeSets.get(key);
    if (!placed) {
      const triggers = (this.triggerSpecs ??= this.model.triggers.map((t) => triggerSpec(t.value)));
      const plans = (this.writtenPlans ??= this.model.plans.map((p) => planFromManifest(p.value)));
      placed = placementsOf(writtenPlansBefore({ namespace, name: set }, triggers, plans));
      this.placedBeforeSets.set(key, placed);
    }
    return placed;
  }

  plansOf(namespace: string, set: string): readonly Located<SchedulePlanManifest>[] {
    return (this.plansBySet ??= group(this.model.plans, (p) => keyOf(p.value.namespace, p.value.podSet))).get(keyOf(namespace, set)) ?? [];
  }

  private indexPlanned(): void {
    this.plannedPods = new Map();
    this.plannedNodes = new Map();
    for (const plan of this.model.plans) {
      plan.value.plan.forEach((e, index) => {
        const entry = { plan, index, pod: e.pod, node: e.node };
        const key = keyOf(plan.value.namespace, e.pod);
        if (!this.plannedPods?.has(key)) this.plannedPods?.set(key, entry);
        const list = this.plannedNodes?.get(e.node);
        if (list) list.push(entry);
        else this.plannedNodes?.set(e.node, [entry]);
      });
    }
  }

  /** The first plan entry of the workspace that places this pod. */
  plannedEntry(namespace: string, pod: string): PlannedEntry | undefined {
    if (!this.plannedPods) this.indexPlanned();
    return this.plannedPods?.get(keyOf(namespace, pod));
  }

  /** Every plan entry of the workspace that puts a pod on this node. */
  plannedOn(node: string): readonly PlannedEntry[] {
    if (!this.plannedNodes) this.indexPlanned();
    return this.plannedNodes?.get(node) ?? [];
  }

  /** The checks of a plan (computed once per plan object). */
  planCheck(plan: SchedulePlanManifest): PlanCheck {
    return this.engine.planCheck(plan, this);
  }

  /**
   * Every node's verdict for `pod`, best first. With a plan, on the cluster as the plan leaves it
   * (the plan's other pods in place, this pod taken out of the plan).
   */
  rank(pod: Pod, plan?: SchedulePlanManifest): Ranking | undefined {
    const info = podInfo(pod);
    if (!info.ok) return undefined;
    const framework = this.engine.framework(schedulerOf(pod));
    if (!plan) {
      const snapshot = this.engine.snapshot;
      const result = framework.scheduleOne(new CycleState(), info.value, snapshot);
      return { result, nodes: fitsOf(result, snapshot), snapshot };
    }
    const cluster = this.planClusterFor(pod, plan);
    const result = cluster.scheduleOne(framework, info.value);
    return { result, nodes: fitsOf(result, cluster.snapshot), snapshot: cluster.snapshot, cluster };
  }

  /** The cluster as `plan` leaves it without `pod` (the plan's other pods placed, their devices taken): where the pod is judged against the plan. */
  planClusterFor(pod: Pod, plan: SchedulePlanManifest): PlanCluster {
    const check = this.planCheck(plan);
    const assumed = check.assumed.get(pod.metadata.name);
    const info = podInfo(pod);
    // A copy without this pod, so the check's own stays as it is.
    return assumed && info.ok ? check.cluster.without(assumed, info.value) : check.cluster;
  }

  /** The document and object at an offset of a file. */
  placeAt(uri: string, offset: number): Place | undefined {
    const file = this.file(uri);
    if (!file) return undefined;
    const document = documentAt(file, offset);
    if (!document) return undefined;
    const path = document.source.pathAt(offset) ?? '';
    return { file, document, path, ...objectIn(file, document.index, path) };
  }
}

/** The object of a document that holds `path` (a List holds several), and the path within it. */
function objectIn(file: SourceFile, document: number, path: string): { object?: ObjectAt } {
  const buckets = ['triggers', 'plans', 'profiles', 'nodes', 'workloads', 'pods', 'others'] as const;
  let best: ObjectAt | undefined;
  for (const bucket of buckets) {
    for (const located of file.model[bucket] as readonly Located<unknown>[]) {
      if (located.document !== document) continue;
      const base = located.base;
      const inside = base === '' || path === base || path.startsWith(`${base}.`) || path.startsWith(`${base}[`);
      // A pod made from a workload template sits at spec.template: the workload itself is the object.
      if (!inside || (bucket === 'pods' && base.endsWith('spec.template'))) continue;
      if (best && best.located.base.length >= base.length) continue;
      best = { located, bucket, relative: base === '' ? path : path.slice(base.length).replace(/^\./, '') };
    }
  }
  return best ? { object: best } : {};
}

/** A cycle's verdicts per node: feasible nodes by score (the one a single-node cycle chose first), then the rejected. */
function fitsOf(result: ScheduleResult | ScheduleFailure, snapshot: NodeInfoLister): NodeFit[] {
  const d = result.diagnosis;
  const scored = new Map(d.scores.map((s) => [s.node, s.total]));
  const rejected = new Map(d.rejections.map((r) => [r.node, r]));
  const feasible: NodeFit[] = [];
  const infeasible: NodeFit[] = [];
  for (const n of snapshot.list()) {
    const r = rejected.get(n.name);
    if (r) infeasible.push({ node: n.name, feasible: false, plugin: r.plugin, reason: r.reasons.join(', ') });
    else if (result.ok) feasible.push({ node: n.name, feasible: true, ...(scored.has(n.name) ? { score: scored.get(n.name) } : {}) });
  }
  const rank = (f: NodeFit): number => (f.node === d.chosenNode ? Infinity : (f.score ?? -Infinity));
  feasible.sort((a, b) => (rank(a) === rank(b) ? a.node.localeCompare(b.node) : rank(b) - rank(a)));
  infeasible.sort((a, b) => a.node.localeCompare(b.node));
  return [...feasible, ...infeasible];
}
