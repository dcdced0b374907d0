// PodTopologySpread's PreScore, Score and NormalizeScore (upstream podtopologyspread/scoring.go):
// soft constraints (ScheduleAnyway) score nodes, fewest matching pods in the node's domains best.
// PreScore counts the domains of the candidate nodes over every eligible node, except hostname
// domains (one node each), which Score counts on the node itself.
import { labelValue } from '../../api/labels';
import { StateKey, type CycleState } from '../../framework/cycle-state';
import { MAX_NODE_SCORE, type FrameworkHandle, type NodeScore } from '../../framework/interfaces';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { errorStatus, SKIP, SUCCESS, type Status } from '../../framework/status';
import { Names } from '../names';
import { hasAllTopologyKeys, LABEL_HOSTNAME, type Constraint, type SpreadCounts } from './common';

const NAME = Names.PodTopologySpread;

interface PreScoreState {
  readonly constraints: readonly Constraint[];
  /** Nodes lacking a topology key of the constraints: scored 0 and normalized to 0. */
  readonly ignoredNodes: ReadonlySet<string>;
  /** Per constraint: domain → matching pods (empty for hostname constraints, counted in Score). */
  readonly counts: ReadonlyArray<Map<string, number>>;
  /** Per constraint: log(domains + 2), so the counts of small topologies are not watered down by big ones. */
  readonly weights: readonly number[];
}

const PRE_SCORE_KEY = new StateKey<PreScoreState>(`PreScore${NAME}`);

/** PodTopologySpread's PreScore, Score and NormalizeScore. */
export class SpreadScoring {
  constructor(
    private readonly shared: SpreadCounts,
    private readonly handle: FrameworkHandle,
  ) {}

  preScore(state: CycleState, podInfo: PodInfo, filteredNodes: readonly NodeInfo[]): Status {
    const snapshot = this.handle.snapshot();
    const allNodes = snapshot.list();
    if (allNodes.length === 0) return SKIP;
    const pod = podInfo.pod;
    const { soft: constraints, softKey, requireAllTopologies } = this.shared.constraintsOf(pod);
    if (constraints.length === 0) return SKIP;
    const ignoredNodes = new Set<string>();
    const counts = constraints.map(() => new Map<string, number>());
    for (const nodeInfo of filteredNodes) {
      const labels = nodeInfo.node.metadata.labels;
      if (requireAllTopologies && !hasAllTopologyKeys(labels, constraints)) {
        ignoredNodes.add(nodeInfo.name);
        continue;
      }
      for (let i = 0; i < constraints.length; i++) {
        const key = (constraints[i] as Constraint).topologyKey;
        if (key !== LABEL_HOSTNAME) counts[i]?.set(labelValue(labels, key) ?? '', 0);
      }
    }
    const weights = constraints.map((c, i) =>
      Math.log((c.topologyKey === LABEL_HOSTNAME ? filteredNodes.length - ignoredNodes.size : (counts[i]?.size ?? 0)) + 2),
    );

    // Pods on every eligible node count, for the domains of the candidate nodes (hostname domains
    // have none here: Score counts them on the node).
    const totals = this.shared.domains(softKey, constraints, pod, requireAllTopologies, true, allNodes, snapshot);
    counts.forEach((domains, i) => {
      for (const value of domains.keys()) domains.set(value, totals.domains[i]?.get(value)?.pods ?? 0);
    });
    state.write(PRE_SCORE_KEY, { constraints, ignoredNodes, counts, weights });
    return SUCCESS;
  }

  /** Sum over soft constraints of matches × the topology's weight + (maxSkew − 1), rounded; lower is better. */
  score(state: CycleState, nodeInfo: NodeInfo): number | Status {
    const s = state.read(PRE_SCORE_KEY);
    if (!s) return errorStatus(`${NAME}: no PreScore state in this cycle`);
    if (s.ignoredNodes.has(nodeInfo.name)) return 0;
    const labels = nodeInfo.node.metadata.labels;
    let score = 0;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as Constraint;
      const value = labelValue(labels, c.topologyKey);
      if (value === undefined) continue;
      const count = c.topologyKey === LABEL_HOSTNAME ? this.shared.count(nodeInfo, c) : (s.counts[i]?.get(value) ?? 0);
      score += count * (s.weights[i] ?? 0) + (c.maxSkew - 1);
    }
    return Math.round(score);
  }

  /** Reverses the scores onto 0..100 (fewest matches best) as upstream: 100 × (max + min − s) / max, integer. */
  normalizeScore(state: CycleState, scores: NodeScore[]): Status {
    const s = state.read(PRE_SCORE_KEY);
    if (!s) return errorStatus(`${NAME}: no PreScore state in this cycle`);
    let min = Infinity;
    let max = 0;
    for (const { name, score } of scores) {
      if (s.ignoredNodes.has(name)) continue;
      min = Math.min(min, score);
      max = Math.max(max, score);
    }
    for (const entry of scores) {
      if (s.ignoredNodes.has(entry.name)) entry.score = 0;
      else if (max === 0) entry.score = MAX_NODE_SCORE;
      else entry.score = Math.trunc((MAX_NODE_SCORE * (max + min - entry.score)) / max);
    }
    return SUCCESS;
  }
}
