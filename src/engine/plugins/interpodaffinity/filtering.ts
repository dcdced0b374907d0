// InterPodAffinity's PreFilter and Filter (upstream interpodaffinity/filtering.go): required pod
// affinity and anti-affinity, the incoming pod's terms and existing pods' anti-affinity terms
// against the incoming pod.
//
// PreFilter counts matches once per cycle by topology pair (key, value) over the nodes' pods; Filter
// then only looks up the node's own pairs. The counts are kept across cycles per shape of incoming
// pod (what other pods' terms see of it, and its required terms) and brought up to date from the
// nodes that changed, so a cycle does not match every pod.
import { labelValue } from '../../api/labels';
import type { Labels, Pod } from '../../api/types';
import { LruCache } from '../../framework/caches';
import { StateKey, type Cloneable, type CycleState } from '../../framework/cycle-state';
import type { FrameworkHandle } from '../../framework/interfaces';
import { NodeAggregate } from '../../framework/memo';
import type { NodeInfo, NodeInfoLister, PodInfo } from '../../framework/node-info';
import { errorStatus, SKIP, SUCCESS, unresolvable, unschedulable, type Status } from '../../framework/status';
import { Names } from '../names';
import type { AffinityTerm, PodTerms, TermCatalog } from './terms';

export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";

const NAME = Names.InterPodAffinity;

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
    readonly catalog: TermCatalog,
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
    return new PreFilterState(shared.catalog, pod, terms, shared.existingAntiAffinity, shared.affinity, shared.antiAffinity, true);
  }

  /** Counts `other` (on `nodeLabels`) in or out, in the three directions. */
  updateWithPod(other: Pod, nodeLabels: Labels | undefined, delta: 1 | -1): void {
    if (this.borrowed) {
      this.existingAntiAffinity = this.existingAntiAffinity.clone();
      this.affinity = this.affinity.clone();
      this.antiAffinity = this.antiAffinity.clone();
      this.borrowed = false;
    }
    countExistingAntiAffinity(
      this.catalog,
      this.existingAntiAffinity,
      this.catalog.of(other).requiredAntiAffinity,
      this.pod,
      nodeLabels,
      delta,
    );
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
    return new PreFilterState(
      this.catalog,
      this.pod,
      this.terms,
      this.existingAntiAffinity.clone(),
      this.affinity.clone(),
      this.antiAffinity.clone(),
    );
  }
}

function countExistingAntiAffinity(
  catalog: TermCatalog,
  counts: TopologyCounts,
  existingTerms: readonly AffinityTerm[],
  incoming: Pod,
  nodeLabels: Labels | undefined,
  delta: number,
): void {
  for (const t of existingTerms) if (catalog.matches(t, incoming)) counts.add(t.topologyKey, nodeLabels, delta);
}

/** An existing pod counts for the affinity terms if it matches them all, and for each anti-affinity term it matches. */
function countIncoming(s: PreFilterState, existing: Pod, nodeLabels: Labels | undefined, delta: number): void {
  const { requiredAffinity, requiredAntiAffinity } = s.terms;
  if (s.catalog.matchesAll(requiredAffinity, existing)) for (const t of requiredAffinity) s.affinity.add(t.topologyKey, nodeLabels, delta);
  for (const t of requiredAntiAffinity) if (s.catalog.matches(t, existing)) s.antiAffinity.add(t.topologyKey, nodeLabels, delta);
}

const newPreFilterState = (catalog: TermCatalog, pod: Pod, terms: PodTerms) =>
  new PreFilterState(catalog, pod, terms, new TopologyCounts(), new TopologyCounts(), new TopologyCounts());

/**
 * The PreFilter counts over a list of nodes, kept up to date across cycles for one shape of incoming
 * pod: a node's share is what its pods add (updateWithPod for each), taken out again when it changes.
 */
class SharedPreFilterCounts {
  readonly total: PreFilterState;
  private readonly aggregate: NodeAggregate<PreFilterState | undefined>;

  constructor(catalog: TermCatalog, pod: Pod, terms: PodTerms) {
    this.total = newPreFilterState(catalog, pod, terms);
    const hasRequiredTerms = terms.requiredAffinity.length > 0 || terms.requiredAntiAffinity.length > 0;
    // What updateWithPod would count for each pod of the node, looking only at the pods that can count:
    // those with required anti-affinity terms, and every pod only when the incoming pod has required terms.
    const share = (nodeInfo: NodeInfo): PreFilterState | undefined => {
      if (nodeInfo.podsWithRequiredAntiAffinity.length === 0 && !hasRequiredTerms) return undefined;
      const counts = newPreFilterState(catalog, pod, terms);
      const labels = nodeInfo.node.metadata.labels;
      for (const other of nodeInfo.podsWithRequiredAntiAffinity)
        countExistingAntiAffinity(catalog, counts.existingAntiAffinity, catalog.of(other.pod).requiredAntiAffinity, pod, labels, 1);
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
  return podsExist || (s.affinity.size === 0 && s.catalog.matchesAll(s.terms.requiredAffinity, s.pod));
}

function satisfiesPodAntiAffinity(s: PreFilterState, nodeLabels: Labels | undefined): boolean {
  if (s.antiAffinity.size === 0) return true;
  return !s.terms.requiredAntiAffinity.some((t) => s.antiAffinity.get(t.topologyKey, nodeLabels) > 0);
}

const PRE_FILTER_KEY = new StateKey<PreFilterState>(`PreFilter${NAME}`);

/** InterPodAffinity's PreFilter (with its AddPod/RemovePod extensions) and Filter. */
export class AffinityFiltering {
  // A pod-set planner asks about hundreds of pod shapes in turn (every template of the set): fewer
  // kept counts would be recomputed over every node at almost every PreFilter.
  private readonly preFilterCounts = new LruCache<SharedPreFilterCounts>(1024);

  constructor(
    private readonly catalog: TermCatalog,
    private readonly handle: FrameworkHandle,
  ) {}

  /** Counts over `nodes` (upstream takes existing pods' anti-affinity from the whole snapshot: the runtime passes all its nodes). */
  preFilter(state: CycleState, podInfo: PodInfo, nodes: readonly NodeInfo[]): { status: Status } {
    const pod = podInfo.pod;
    const terms = this.catalog.of(pod);
    const version = this.catalog.useNamespaces(this.handle.objects?.().namespaces);
    const shared = this.preFilterCounts
      .get(version + terms.requiredKey, () => new SharedPreFilterCounts(this.catalog, pod, terms))
      .update(nodes, this.handle.snapshot()).total;
    const hasRequiredTerms = terms.requiredAffinity.length > 0 || terms.requiredAntiAffinity.length > 0;
    if (shared.existingAntiAffinity.size === 0 && !hasRequiredTerms) return { status: SKIP };
    state.write(PRE_FILTER_KEY, PreFilterState.borrowing(pod, terms, shared));
    return { status: SUCCESS };
  }

  /** Counts `other` on `node` in (1, AddPod) or out (−1, RemovePod) of the cycle's state. */
  updateWithPod(state: CycleState, other: PodInfo, node: NodeInfo, delta: 1 | -1): Status {
    this.catalog.useNamespaces(this.handle.objects?.().namespaces);
    const s = state.read(PRE_FILTER_KEY);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    s.updateWithPod(other.pod, node.node.metadata.labels, delta);
    return SUCCESS;
  }

  /** Upstream's order: the pod's affinity, then its anti-affinity, then existing pods' anti-affinity. */
  filter(state: CycleState, nodeInfo: NodeInfo): Status {
    const s = state.read(PRE_FILTER_KEY);
    if (!s) return errorStatus(`${NAME}: no PreFilter state in this cycle`);
    const labels = nodeInfo.node.metadata.labels;
    if (!satisfiesPodAffinity(s, labels)) return unresolvable(ERR_REASON_AFFINITY_RULES_NOT_MATCH);
    if (!satisfiesPodAntiAffinity(s, labels)) return unschedulable(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
    if (s.existingAntiAffinity.size > 0 && s.existingAntiAffinity.anyPositive(labels))
      return unschedulable(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
    return SUCCESS;
  }
}
