// InterPodAffinity's PreScore, Score and NormalizeScore (upstream interpodaffinity/scoring.go):
// preferred terms score nodes in both directions — the incoming pod's preferred terms matched by
// existing pods, and existing pods' terms (required affinity at hardPodAffinityWeight, preferred)
// matched by the incoming pod — summed by topology pair.
//
// PreScore sums once per cycle; Score looks up the node's own pairs. The sums are kept across cycles
// per shape of incoming pod and brought up to date from the nodes that changed.
import { labelValue } from '../../api/labels';
import type { Labels, Pod } from '../../api/types';
import { LruCache } from '../../framework/caches';
import { StateKey, type CycleState } from '../../framework/cycle-state';
import { MAX_NODE_SCORE, type FrameworkHandle, type NodeScore } from '../../framework/interfaces';
import { NodeAggregate } from '../../framework/memo';
import type { NodeInfo, NodeInfoLister, PodInfo } from '../../framework/node-info';
import { errorStatus, SKIP, SUCCESS, type Status } from '../../framework/status';
import { Names } from '../names';
import type { InterPodAffinityArgs } from './plugin';
import type { AffinityTerm, PodTerms, TermCatalog, WeightedAffinityTerm } from './terms';

const NAME = Names.InterPodAffinity;

interface PreScoreState {
  /** topology key → value → summed weights (affinity positive, anti-affinity negative). */
  readonly topologyScore: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

const PRE_SCORE_KEY = new StateKey<PreScoreState>(`PreScore${NAME}`);

type ScoreMap = Map<string, Map<string, number>>;

/** A node's share of the topology score: (topology key, value, summed weights). */
type Contribution = readonly [string, string, number];

/** What a node's contribution to the score depends on of the incoming pod and the plugin. */
interface ScoringInput {
  readonly catalog: TermCatalog;
  readonly pod: Pod;
  readonly terms: PodTerms;
  /** Whether every pod counts (the incoming pod has preferred terms) or only pods with affinity terms. */
  readonly allPods: boolean;
  readonly hardPodAffinityWeight: number;
}

/** The node's pods scored against the incoming pod in both directions (upstream processExistingPod). */
function contributionsOn(nodeInfo: NodeInfo, scoring: ScoringInput): readonly Contribution[] {
  const labels = nodeInfo.node.metadata.labels;
  if (!labels || Object.keys(labels).length === 0) return NONE;
  if (!scoring.allPods && nodeInfo.podsWithAffinity.length === 0) return NONE;
  const { catalog, pod: incoming, terms: incomingTerms } = scoring;
  const scores: ScoreMap = new Map();
  for (const { pod: existing } of scoring.allPods ? nodeInfo.pods : nodeInfo.podsWithAffinity) {
    // The incoming pod's preferred terms, matched by the existing pod.
    processTerms(catalog, scores, incomingTerms.preferredAffinity, existing, labels, 1);
    processTerms(catalog, scores, incomingTerms.preferredAntiAffinity, existing, labels, -1);
    // The existing pod's terms, matched by the incoming pod: its required affinity at hardPodAffinityWeight.
    const existingTerms = catalog.of(existing);
    if (scoring.hardPodAffinityWeight > 0) {
      for (const t of existingTerms.requiredAffinity) processTerm(catalog, scores, t, scoring.hardPodAffinityWeight, incoming, labels, 1);
    }
    processTerms(catalog, scores, existingTerms.preferredAffinity, incoming, labels, 1);
    processTerms(catalog, scores, existingTerms.preferredAntiAffinity, incoming, labels, -1);
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

  constructor(scoring: ScoringInput) {
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
function processTerm(
  catalog: TermCatalog,
  scores: ScoreMap,
  term: AffinityTerm,
  weight: number,
  pod: Pod,
  nodeLabels: Labels | undefined,
  multiplier: 1 | -1,
): void {
  if (!catalog.matches(term, pod)) return;
  const value = labelValue(nodeLabels, term.topologyKey);
  if (value === undefined) return;
  let values = scores.get(term.topologyKey);
  if (!values) scores.set(term.topologyKey, (values = new Map()));
  values.set(value, (values.get(value) ?? 0) + weight * multiplier);
}

function processTerms(
  catalog: TermCatalog,
  scores: ScoreMap,
  terms: readonly WeightedAffinityTerm[],
  pod: Pod,
  nodeLabels: Labels | undefined,
  multiplier: 1 | -1,
): void {
  for (const t of terms) processTerm(catalog, scores, t, t.weight, pod, nodeLabels, multiplier);
}

/** InterPodAffinity's PreScore, Score and NormalizeScore. */
export class AffinityScoring {
  private readonly scoreTotals = new LruCache<SharedScores>(16);

  constructor(
    private readonly catalog: TermCatalog,
    private readonly args: InterPodAffinityArgs,
    private readonly handle: FrameworkHandle,
  ) {}

  preScore(state: CycleState, podInfo: PodInfo): Status {
    const pod = podInfo.pod;
    const terms = this.catalog.of(pod);
    const hasPreferredTerms = terms.preferredAffinity.length > 0 || terms.preferredAntiAffinity.length > 0;
    if (this.args.ignorePreferredTermsOfExistingPods && !hasPreferredTerms) return SKIP;
    const snapshot = this.handle.snapshot();
    // Without preferred terms of its own, only existing pods with affinity terms can score the pod:
    // with none anywhere (upstream's HavePodsWithAffinityList is empty) no pod adds a weight.
    if (!hasPreferredTerms && snapshot.havePodsWithAffinity().length === 0) return SKIP;
    const scoring: ScoringInput = {
      catalog: this.catalog,
      pod,
      terms,
      allPods: hasPreferredTerms,
      hardPodAffinityWeight: this.args.hardPodAffinityWeight,
    };
    const key = this.catalog.useNamespaces(this.handle.objects?.().namespaces) + terms.preferredKey;
    const shared = this.scoreTotals.get(key, () => new SharedScores(scoring)).update(snapshot.list(), snapshot);
    // Upstream skips when no pod added a term weight anywhere, even one that sums to zero.
    if (shared.contributingNodes === 0) return SKIP;
    const scores: ScoreMap = new Map();
    for (const [topologyKey, values] of shared.scores) scores.set(topologyKey, new Map(values));
    state.write(PRE_SCORE_KEY, { topologyScore: scores });
    return SUCCESS;
  }

  /** The summed weights of the node's topology pairs: positive for affinity, negative for anti-affinity. */
  score(state: CycleState, nodeInfo: NodeInfo): number | Status {
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
  normalizeScore(state: CycleState, scores: NodeScore[]): Status {
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
