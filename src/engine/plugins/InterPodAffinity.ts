// InterPodAffinity as upstream's pkg/scheduler/framework/plugins/interpodaffinity: required pod
// affinity and anti-affinity filter nodes (the incoming pod's terms, and existing pods'
// anti-affinity terms against the incoming pod), preferred terms score them in both directions.
//
// PreFilter and PreScore count matches once per cycle by topology pair (key, value) over the nodes'
// pods; Filter and Score then only look up the node's own pairs. The counts are kept across cycles
// per shape of incoming pod (what other pods' terms see of it, and its own terms) and brought up to
// date from the nodes that changed, so a cycle does not match every pod.
//
// Namespaces: a term selects pods of the namespaces it lists and of those whose labels its
// namespaceSelector matches (an empty selector: every namespace); without either, its own pod's
// namespace. Namespace labels are the snapshot's Namespace objects' plus kubernetes.io/metadata.name,
// which the API server puts on every namespace (so a namespace without an object has that one).
// matchLabelKeys / mismatchLabelKeys are merged into the term's labelSelector with the owning pod's
// values, as the API server does when it admits the pod.
import { compileSelector, labelValue, withLabelKeys, type LabelMatcher } from '../api/labels';
import { type Result } from '../api/result';
import { podNamespace, type Labels, type Namespace, type Pod, type PodAffinityTerm, type WeightedPodAffinityTerm } from '../api/types';
import { StateKey, type Cloneable, type CycleState } from '../framework/cycle-state';
import { LruCache, memoKey, NodeAggregate } from '../framework/memo';
import {
  MAX_NODE_SCORE,
  type FilterPlugin,
  type FrameworkHandle,
  type NodeScore,
  type PluginFactory,
  type PreFilterPlugin,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/interfaces';
import { type NodeInfo, type NodeInfoLister, type PodInfo } from '../framework/node-info';
import { errorStatus, SKIP, SUCCESS, unresolvable, unschedulable, type Status } from '../framework/status';
import { argsObject, argsResult, factoryOf } from './args';

export const NAME = 'InterPodAffinity';

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

export interface InterPodAffinityArgs {
  /** Score weight of an existing pod's required affinity term that the incoming pod matches (0..100). */
  readonly hardPodAffinityWeight: number;
  /** Skip existing pods' preferred terms when the incoming pod has no preferred terms of its own. */
  readonly ignorePreferredTermsOfExistingPods: boolean;
}

/** Upstream's ValidateInterPodAffinityArgs, after v1 defaulting (hardPodAffinityWeight 1). */
export function validateArgs(args: unknown): Result<InterPodAffinityArgs> {
  const fields = argsObject(NAME, args, ['hardPodAffinityWeight', 'ignorePreferredTermsOfExistingPods']);
  if (!fields.ok) return fields;
  const errors: string[] = [];
  const weight = fields.value.hardPodAffinityWeight ?? 1;
  if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > 100) {
    errors.push(`hardPodAffinityWeight: Invalid value: ${JSON.stringify(weight)}: not in valid range [0, 100]`);
  }
  const ignore = fields.value.ignorePreferredTermsOfExistingPods ?? false;
  if (typeof ignore !== 'boolean') errors.push(`ignorePreferredTermsOfExistingPods: Invalid value: ${JSON.stringify(ignore)}: want true or false`);
  return argsResult(NAME, errors, { hardPodAffinityWeight: weight as number, ignorePreferredTermsOfExistingPods: ignore as boolean });
}

export const factory: PluginFactory = factoryOf(validateArgs, (args, handle) => new InterPodAffinity(args, handle));

/** A pod affinity term with its selectors compiled (upstream framework.AffinityTerm). */
interface AffinityTerm {
  /** Identifies what the term selects, for the counts kept across cycles. */
  readonly key: string;
  readonly topologyKey: string;
  readonly namespaces: ReadonlySet<string>;
  readonly namespaceSelector: LabelMatcher;
  readonly selector: LabelMatcher;
}

interface WeightedAffinityTerm extends AffinityTerm {
  readonly weight: number;
}

interface PodTerms {
  readonly requiredAffinity: readonly AffinityTerm[];
  readonly requiredAntiAffinity: readonly AffinityTerm[];
  readonly preferredAffinity: readonly WeightedAffinityTerm[];
  readonly preferredAntiAffinity: readonly WeightedAffinityTerm[];
  /** What the shared PreFilter counts are kept by: what other pods' terms see of this pod (its namespace and labels) and its required terms. */
  readonly requiredKey: string;
  /** The same for the shared scores: its identity and its preferred terms. */
  readonly preferredKey: string;
}

/** The terms with the keys the shared counts are kept by. */
function podTerms(pod: Pod, required: readonly AffinityTerm[], requiredAnti: readonly AffinityTerm[], preferred: readonly WeightedAffinityTerm[], preferredAnti: readonly WeightedAffinityTerm[]): PodTerms {
  const identity = JSON.stringify([podNamespace(pod), pod.metadata.labels ?? {}]);
  return {
    requiredAffinity: required,
    requiredAntiAffinity: requiredAnti,
    preferredAffinity: preferred,
    preferredAntiAffinity: preferredAnti,
    requiredKey: memoKey(`${identity}|${keyOf(required, requiredAnti)}`),
    preferredKey: memoKey(`${identity}|${keyOf(preferred, preferredAnti)}`),
  };
}

const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
/** Labels of namespaces that have no Namespace object in the snapshot: the name label alone. */
const namespaceNameOnly = new Map<string, Labels>();

/** The snapshot's namespace labels by name, built once per list of Namespace objects. */
const directories = new WeakMap<readonly Namespace[], { readonly version: number; readonly labels: ReadonlyMap<string, Labels> }>();
let directoryVersions = 0;

function directoryOf(namespaces: readonly Namespace[]): { readonly version: number; readonly labels: ReadonlyMap<string, Labels> } {
  let directory = directories.get(namespaces);
  if (!directory) {
    const labels = new Map(namespaces.map((n) => [n.metadata.name, Object.freeze({ ...n.metadata.labels, [NAMESPACE_NAME_LABEL]: n.metadata.name })]));
    directories.set(namespaces, (directory = { version: ++directoryVersions, labels }));
  }
  return directory;
}

/**
 * The namespace labels of the snapshot the plugin works on now. Term matching is free functions
 * called from deep in the counting; the plugin sets this at each of its entry points (cycles are
 * synchronous and never overlap), and its cached counts are keyed by the directory's version.
 */
let currentNamespaces: ReadonlyMap<string, Labels> | undefined;

function namespaceLabels(namespace: string): Labels {
  const known = currentNamespaces?.get(namespace);
  if (known) return known;
  let labels = namespaceNameOnly.get(namespace);
  if (!labels) namespaceNameOnly.set(namespace, (labels = Object.freeze({ [NAMESPACE_NAME_LABEL]: namespace })));
  return labels;
}

/** Without namespaces or a namespaceSelector, a term selects pods of its own pod's namespace. */
function compileTerm(owner: Pod, term: PodAffinityTerm): AffinityTerm {
  const namespaces = new Set(term.namespaces ?? []);
  if (!term.namespaceSelector && namespaces.size === 0) namespaces.add(podNamespace(owner));
  const selector = term.labelSelector && withLabelKeys(term.labelSelector, owner.metadata.labels, term.matchLabelKeys, term.mismatchLabelKeys);
  return {
    key: JSON.stringify([term.topologyKey, [...namespaces], term.namespaceSelector ?? null, selector ?? null]),
    topologyKey: term.topologyKey,
    namespaces,
    namespaceSelector: compileSelector(term.namespaceSelector),
    selector: compileSelector(selector),
  };
}

const compileWeighted = (owner: Pod, terms: readonly WeightedPodAffinityTerm[] | undefined): WeightedAffinityTerm[] =>
  (terms ?? []).map((t) => {
    const compiled = compileTerm(owner, t.podAffinityTerm);
    return { ...compiled, key: `${t.weight}${compiled.key}`, weight: t.weight };
  });

const keyOf = (...lists: ReadonlyArray<readonly AffinityTerm[]>): string => lists.map((terms) => terms.map((t) => t.key).join(',')).join('|');

const termsByPod = new WeakMap<Pod, PodTerms>();

/** Pods without affinity terms by labels object and namespace: their terms are only their identity. */
const withoutTermsByLabels = new WeakMap<Labels, Map<string, PodTerms>>();
const withoutTermsUnlabelled = new Map<string, PodTerms>();

/** The pod's terms, compiled once per pod object (existing pods are looked at in every cycle). */
function termsOf(pod: Pod): PodTerms {
  let terms = termsByPod.get(pod);
  if (!terms) {
    const affinity = pod.spec.affinity;
    if (!affinity?.podAffinity && !affinity?.podAntiAffinity) return withoutTerms(pod);
    const requiredAffinity = (affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileTerm(pod, t));
    const requiredAntiAffinity = (affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => compileTerm(pod, t));
    const preferredAffinity = compileWeighted(pod, affinity?.podAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    const preferredAntiAffinity = compileWeighted(pod, affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution);
    terms = podTerms(pod, requiredAffinity, requiredAntiAffinity, preferredAffinity, preferredAntiAffinity);
    termsByPod.set(pod, terms);
  }
  return terms;
}

function withoutTerms(pod: Pod): PodTerms {
  const labels = pod.metadata.labels;
  let byNamespace = labels ? withoutTermsByLabels.get(labels) : withoutTermsUnlabelled;
  if (!byNamespace) withoutTermsByLabels.set(labels as Labels, (byNamespace = new Map()));
  const namespace = podNamespace(pod);
  let terms = byNamespace.get(namespace);
  if (!terms) byNamespace.set(namespace, (terms = podTerms(pod, [], [], [], [])));
  return terms;
}

function termMatches(term: AffinityTerm, pod: Pod): boolean {
  const namespace = podNamespace(pod);
  if (!term.namespaces.has(namespace) && !term.namespaceSelector(namespaceLabels(namespace))) return false;
  return term.selector(pod.metadata.labels);
}

/** False for no terms, as upstream's podMatchesAllAffinityTerms. */
function matchesAllTerms(terms: readonly AffinityTerm[], pod: Pod): boolean {
  return terms.length > 0 && terms.every((t) => termMatches(t, pod));
}

/** Counts by topology pair (key, value); a pair whose count comes back to zero is dropped, as upstream. */
class TopologyCounts implements Cloneable<TopologyCounts> {
  private readonly byKey = new Map<string, Map<string, number>>();
  private pairs = 0;

  /** How many pairs have a count. */
  get size(): number {
    return this.pairs;
  }

  /** Adds `delta` to the pair of `key` and the node's value for it; a node without the label adds nothing. */
  add(key: string, nodeLabels: Labels | undefined, delta: number): void {
    const value = labelValue(nodeLabels, key);
    if (value !== undefined) this.addPair(key, value, delta);
  }

  /** Adds (sign 1) or takes out (−1) all of `other`'s counts. */
  merge(other: TopologyCounts, sign: 1 | -1): void {
    for (const [key, values] of other.byKey) for (const [value, count] of values) this.addPair(key, value, sign * count);
  }

  private addPair(key: string, value: string, delta: number): void {
    let values = this.byKey.get(key);
    if (!values) this.byKey.set(key, (values = new Map()));
    const before = values.get(value) ?? 0;
    const after = before + delta;
    if (after === 0) values.delete(value);
    else values.set(value, after);
    this.pairs += (after !== 0 ? 1 : 0) - (before !== 0 ? 1 : 0);
  }

  /** The count of the pair of `key` and the node's value for it (0 without the label). */
  get(key: string, nodeLabels: Labels | undefined): number {
    const value = labelValue(nodeLabels, key);
    return value === undefined ? 0 : (this.byKey.get(key)?.get(value) ?? 0);
  }

  /** Whether any of the node's own pairs has a positive count. */
  anyPositive(nodeLabels: Labels | undefined): boolean {
    for (const key of this.byKey.keys()) if (this.get(key, nodeLabels) > 0) return true;
    return false;
  }

  clone(): TopologyCounts {
    const copy = new TopologyCounts();
    for (const [key, values] of this.byKey) copy.byKey.set(key, new Map(values));
    copy.pairs = this.pairs;
    return copy;
  }
}

class PreFilterState implements Cloneable<PreFilterState> {
  constructor(
    readonly pod: Pod,
    readonly terms: PodTerms,
    /** Existing pods whose required anti-affinity terms match the incoming pod. */
    public existingAntiAffinity: TopologyCounts,
    /** Existing pods matching all of the incoming pod's required affinity terms. */
    public affinity: TopologyCounts,
    /** Existing pods matching one of the incoming pod's required anti-affinity terms (per term). */
    public antiAffinity: TopologyCounts,
    /** The counts are another state's (the shared ones), copied before this state changes them. */
    private borrowed = false,
  ) {}

  /**
   * A cycle's state reading `shared`'s counts: a PreFilter costs no copy of counts that can hold a
   * pair per node. Like every cycle's state it stands for the snapshot it was made on: the shared
   * counts move on with the next cycle's nodes. addPod/removePod (what-ifs) copy them first.
   */
  static borrowing(pod: Pod, terms: PodTerms, shared: PreFilterState): PreFilterState {
    return new PreFilterState(pod, terms, shared.existingAntiAffinity, shared.affinity, shared.antiAffinity, true);
  }

  /** Counts `other` (on `nodeLabels`) in or out, in the three directions. */
  updateWithPod(other: Pod, nodeLabels: Labels | undefined, delta: 1 | -1): void {
    if (this.borrowed) {
      this.existingAntiAffinity = this.existingAntiAffinity.clone();
      this.affinity = this.affinity.clone();
      this.antiAffinity = this.antiAffinity.clone();
      this.borrowed = false;
    }
    countExistingAntiAffinity(this.existingAntiAffinity, termsOf(other).requiredAntiAffinity, this.pod, nodeLabels, delta);
    countIncoming(this, other, nodeLabels, delta);
  }

  get empty(): boolean {
    return this.existingAntiAffinity.size === 0 && this.affinity.size === 0 && this.antiAffinity.size === 0;
  }

  merge(other: PreFilterState, sign: 1 | -1): void {
    this.existingAntiAffinity.merge(other.existingAntiAffinity, sign);
    this.affinity.merge(other.affinity, sign);
    this.antiAffinity.merge(other.antiAffinity, sign);
  }

  clone(): PreFilterState {
    return new PreFilterState(this.pod, this.terms, this.existingAntiAffinity.clone(), this.affinity.clone(), this.antiAffinity.clone());
  }
}

function countExistingAntiAffinity(counts: TopologyCounts, existingTerms: readonly AffinityTerm[], incoming: Pod, nodeLabels: Labels | undefined, delta: number): void {
  for (const t of existingTerms) if (termMatches(t, incoming)) counts.add(t.topologyKey, nodeLabels, delta);
}

/** An existing pod counts for the affinity terms if it matches them all, and for each anti-affinity term it matches. */
function countIncoming(s: PreFilterState, existing: Pod, nodeLabels: Labels | undefined, delta: number): void {
  const { requiredAffinity, requiredAntiAffinity } = s.terms;
  if (matchesAllTerms(requiredAffinity, existing)) for (const t of requiredAffinity) s.affinity.add(t.topologyKey, nodeLabels, delta);
  for (const t of requiredAntiAffinity) if (termMatches(t, existing)) s.antiAffinity.add(t.topologyKey, nodeLabels, delta);
}

const newPreFilterState = (pod: Pod, terms: PodTerms) => new PreFilterState(pod, terms, new TopologyCounts(), new TopologyCounts(), new TopologyCounts());

/**
 * The PreFilter counts over a list of nodes, kept up to date across cycles for one shape of incoming
 * pod: a node's share is what its pods add (updateWithPod for each), taken out again when it changes.
 */
class SharedPreFilterCounts {
  readonly total: PreFilterState;
  private readonly aggregate: NodeAggregate<PreFilterState | undefined>;

  constructor(pod: Pod, terms: PodTerms) {
    this.total = newPreFilterState(pod, terms);
    const hasRequiredTerms = terms.requiredAffinity.length > 0 || terms.requiredAntiAffinity.length > 0;
    // What updateWithPod would count for each pod of the node, looking only at the pods that can count:
    // those with required anti-affinity terms, and every pod only when the incoming pod has required terms.
    const share = (nodeInfo: NodeInfo): PreFilterState | undefined => {
      if (nodeInfo.podsWithRequiredAntiAffinity.length === 0 && !hasRequiredTerms) return undefined;
      const counts = newPreFilterState(pod, terms);
      const labels = nodeInfo.node.metadata.labels;
      for (const other of nodeInfo.podsWithRequiredAntiAffinity) countExistingAntiAffinity(counts.existingAntiAffinity, termsOf(other.pod).requiredAntiAffinity, pod, labels, 1);
      if (hasRequiredTerms) for (const other of nodeInfo.pods) countIncoming(counts, other.pod, labels, 1);
      return counts.empty ? undefined : counts;
    };
    this.aggregate = new NodeAggregate(share, (counts, sign) => {
      if (counts) this.total.merge(counts, sign);
    });
  }

  /** `lister`: where `nodes` come from, so that only the nodes it changed are looked at. */
  update(nodes: readonly NodeInfo[], lister: NodeInfoLister): this {
    this.aggregate.update(nodes, lister);
    return this;
  }
}

/** Every required affinity term finds a matching pod in the node's domain; the node has every topology key. */
function satisfiesPodAffinity(s: PreFilterState, nodeLabels: Labels | undefined): boolean {
  let podsExist = true;
  for (const t of s.terms.requiredAffinity) {
    if (labelValue(nodeLabels, t.topologyKey) === undefined) return false;
    if (s.affinity.get(t.topologyKey, nodeLabels) <= 0) podsExist = false;
  }
  // The first pod of a group with affinity to itself: no pod anywhere matches the terms and the pod
  // matches them itself, so it may go anywhere that has the topology keys.
  return podsExist || (s.affinity.size === 0 && matchesAllTerms(s.terms.requiredAffinity, s.pod));
}

function satisfiesPodAntiAffinity(s: PreFilterState, nodeLabels: Labels | undefined): boolean {
  if (s.antiAffinity.size === 0) return true;
  return !s.terms.requiredAntiAffinity.some((t) => s.antiAffinity.get(t.topologyKey, nodeLabels) > 0);
}

interface PreScoreState {
  /** topology key → value → summed weights (affinity positive, anti-affinity negative). */
  readonly topologyScore: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

const PRE_FILTER_KEY = new StateKey<PreFilterState>(`PreFilter${NAME}`);
const PRE_SCORE_KEY = new StateKey<PreScoreState>(`PreScore${NAME}`);

type ScoreMap = Map<string, Map<string, number>>;

/** A node's share of the topology score: (topology key, value, summed weights). */
type Contribution = readonly [string, string, number];

/** What a node's contribution to the score depends on of the incoming pod and the plugin. */
interface Scoring {
  readonly pod: Pod;
  readonly terms: PodTerms;
  /** Whether every pod counts (the incoming pod has preferred terms) or only pods with affinity terms. */
  readonly allPods: boolean;
  readonly hardPodAffinityWeight: number;
}

/** The node's pods scored against the incoming pod in both directions (upstream processExistingPod). */
function contributionsOn(nodeInfo: NodeInfo, scoring: Scoring): readonly Contribution[] {
  const labels = nodeInfo.node.metadata.labels;
  if (!labels || Object.keys(labels).length === 0) return NONE;
  if (!scoring.allPods && nodeInfo.podsWithAffinity.length === 0) return NONE;
  const { pod: incoming, terms: incomingTerms } = scoring;
  const scores: ScoreMap = new Map();
  for (const { pod: existing } of scoring.allPods ? nodeInfo.pods : nodeInfo.podsWithAffinity) {
    // The incoming pod's preferred terms, matched by the existing pod.
    processTerms(scores, incomingTerms.preferredAffinity, existing, labels, 1);
    processTerms(scores, incomingTerms.preferredAntiAffinity, existing, labels, -1);
    // The existing pod's terms, matched by the incoming pod: its required affinity at hardPodAffinityWeight.
    const existingTerms = termsOf(existing);
    if (scoring.hardPodAffinityWeight > 0) {
      for (const t of existingTerms.requiredAffinity) processTerm(scores, t, scoring.hardPodAffinityWeight, incoming, labels, 1);
    }
    processTerms(scores, existingTerms.preferredAffinity, incoming, labels, 1);
    processTerms(scores, existingTerms.preferredAntiAffinity, incoming, labels, -1);
  }
  if (scores.size === 0) return NONE;
  const contributions: Contribution[] = [];
  for (const [topologyKey, values] of scores) for (const [value, amount] of values) contributions.push([topologyKey, value, amount]);
  return contributions;
}

/** The shared empty result, so nodes without contributions cost no memory. */
const NONE: readonly never[] = Object.freeze([]);

/** The topology score over a list of nodes, kept up to date across cycles for one shape of incoming pod. */
class SharedScores {
  readonly scores: ScoreMap = new Map();
  /** Nodes with a contribution (upstream skips scoring when there is none). */
  contributingNodes = 0;
  private readonly aggregate: NodeAggregate<readonly Contribution[]>;

  constructor(scoring: Scoring) {
    this.aggregate = new NodeAggregate(
      (nodeInfo) => contributionsOn(nodeInfo, scoring),
      (contributions, sign) => {
        if (contributions.length > 0) this.contributingNodes += sign;
        for (const [topologyKey, value, amount] of contributions) {
          let values = this.scores.get(topologyKey);
          if (!values) this.scores.set(topologyKey, (values = new Map()));
          values.set(value, (values.get(value) ?? 0) + sign * amount);
        }
      },
    );
  }

  /** `lister`: where `nodes` come from, so that only the nodes it changed are looked at. */
  update(nodes: readonly NodeInfo[], lister: NodeInfoLister): this {
    this.aggregate.update(nodes, lister);
    return this;
  }
}

/** Adds weight × multiplier to the pair of the term's key on the node, when `pod` matches the term. */
function processTerm(scores: ScoreMap, term: AffinityTerm, weight: number, pod: Pod, nodeLabels: Labels | undefined, multiplier: 1 | -1): void {
  if (!termMatches(term, pod)) return;
  const value = labelValue(nodeLabels, term.topologyKey);
  if (value === undefined) return;
  let values = scores.get(term.topologyKey);
  if (!values) scores.set(term.topologyKey, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + weight * multiplier);
}

function processTerms(scores: ScoreMap, terms: readonly WeightedAffinityTerm[], pod: Pod, nodeLabels: Labels | undefined, multiplier: 1 | -1): void {
  for (const t of terms) processTerm(scores, t, t.weight, pod, nodeLabels, multiplier);
}

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin {
  readonly name = NAME;

  // A pod-set planner asks about hundreds of pod shapes in turn (every template of the set): fewer
  // kept counts would be recomputed over every node at almost every PreFilter.
  private readonly preFilterCounts = new LruCache<SharedPreFilterCounts>(1024);
  private readonly scoreTotals = new LruCache<SharedScores>(16);

  constructor(
    private readonly args: InterPodAffinityArgs,
    private readonly handle: FrameworkHandle,
  ) {}

  /** Makes the snapshot's namespaces the ones terms match against; the version keys the cached counts. */
  private useNamespaces(): string {
    const namespaces = this.handle.objects?.().namespaces;
    if (!namespaces) {
      currentNamespaces = undefined;
      return '';
    }
    const directory = directoryOf(namespaces);
    currentNamespaces = directory.labels;
    return `ns${directory.version}|`;
  }

  /** Counts over `nodes` (upstream takes existing pods' anti-affinity from the whole snapshot: the runtime passes all its nodes). */
  preFilter(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    const pod = podInfo.pod;
    const terms = termsOf(pod);
    const version = this.useNamespaces();
    const shared = this.preFilterCounts.get(version + terms.requiredKey, () => new SharedPreFilterCounts(pod, terms)).update(nodes, this.handle.snapshot()).total;
    const hasRequiredTerms = terms.requiredAffinity.length > 0 || terms.requiredAntiAffinity.length > 0;
    if (shared.existingAntiAffinity.size === 0 && !hasRequiredTerms) return { status: SKIP };
    state.write(PRE_FILTER_KEY, PreFilterState.borrowing(pod, terms, shared));
    return { status: SUCCESS };
  }

  addPod(state: CycleState, _podToSchedule: PodInfo, podToAdd: PodInfo, node: NodeInfo): Status {
    return this.updateWithPod(state, podToAdd, node, 1);
  }

  removePod(state: CycleState, _podToSchedule: PodInfo, podToRemove: PodInfo, node: NodeInfo): Status {
    return this.updateWithPod(state, podToRemove, node, -1);
  }

  private updateWithPod(state: CycleState, other: PodInfo, node: NodeInfo, delta: 1 | -1): Status {
    this.useNamespaces();
    const s = state.read(PRE_FILTER_KEY);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    s.updateWithPod(other.pod, node.node.metadata.labels, delta);
    return SUCCESS;
  }

  /** Upstream's order: the pod's affinity, then its anti-affinity, then existing pods' anti-affinity. */
  filter(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): Status {
    const s = state.read(PRE_FILTER_KEY);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    const labels = nodeInfo.node.metadata.labels;
    if (!satisfiesPodAffinity(s, labels)) return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH);
    if (!satisfiesPodAntiAffinity(s, labels)) return unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
    if (s.existingAntiAffinity.size > 0 && s.existingAntiAffinity.anyPositive(labels)) return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
    return SUCCESS;
  }

  preScore(state: CycleState, podInfo: PodInfo): Status {
    const pod = podInfo.pod;
    const terms = termsOf(pod);
    const hasPreferredTerms = terms.preferredAffinity.length > 0 || terms.preferredAntiAffinity.length > 0;
    if (this.args.ignorePreferredTermsOfExistingPods && !hasPreferredTerms) return SKIP;
    // Without preferred terms of its own, only existing pods with affinity terms can score the pod.
    const scoring: Scoring = { pod, terms, allPods: hasPreferredTerms, hardPodAffinityWeight: this.args.hardPodAffinityWeight };
    const key = this.useNamespaces() + terms.preferredKey;
    const snapshot = this.handle.snapshot();
    const shared = this.scoreTotals.get(key, () => new SharedScores(scoring)).update(snapshot.list(), snapshot);
    // Upstream skips when no pod added a term weight anywhere, even one that sums to zero.
    if (shared.contributingNodes === 0) return SKIP;
    const scores: ScoreMap = new Map();
    for (const [topologyKey, values] of shared.scores) scores.set(topologyKey, new Map(values));
    state.write(PRE_SCORE_KEY, { topologyScore: scores });
    return SUCCESS;
  }

  /** The summed weights of the node's topology pairs: positive for affinity, negative for anti-affinity. */
  score(state: CycleState, _pod: PodInfo, nodeInfo: NodeInfo): number | Status {
    const s = state.read(PRE_SCORE_KEY);
    if (!s) return errorStatus(`${NAME}: no PreScore state in this cycle`);
    const labels = nodeInfo.node.metadata.labels;
    let score = 0;
    for (const [key, values] of s.topologyScore) {
      const value = labelValue(labels, key);
      if (value !== undefined) score += values.get(value) ?? 0;
    }
    return score;
  }

  /** Onto 0..100 by min-max as upstream: trunc(100 × (s − min) / (max − min)), all 0 when max = min. */
  normalizeScore(state: CycleState, _pod: PodInfo, scores: NodeScore[]): Status {
    const s = state.read(PRE_SCORE_KEY);
    if (!s) return errorStatus(`${NAME}: no PreScore state in this cycle`);
    if (s.topologyScore.size === 0) return SUCCESS;
    let min = Infinity;
    let max = -Infinity;
    for (const { score } of scores) {
      min = Math.min(min, score);
      max = Math.max(max, score);
    }
    const diff = max - min;
    for (const entry of scores) entry.score = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((entry.score - min) / diff)) : 0;
    return SUCCESS;
  }
}
