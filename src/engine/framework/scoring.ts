// The Score stage of a cycle: each Score plugin's raw scores, NormalizeScore, the range check and
// the weights, then host selection (highest total, ties broken by the injected Random) and the
// ranked commit candidates, with the scores of the recorded nodes for the Diagnosis.
//
// Per-node work writes into typed arrays reused across cycles (cycles never overlap); objects are
// made only for the records a Diagnosis keeps.
import type { Random } from '../api/random';
import type { CycleState } from './cycle-state';
import type { NodeScoreRecord, PluginScore } from './diagnosis';
import type { CycleLog, ScheduleFailure, ScheduleResult } from './cycle-log';
import { MAX_NODE_SCORE, MIN_NODE_SCORE, type NodeScore } from './interfaces';
import type { CycleMemos, ScoreMemo, SumMemo } from './memo';
import type { NodeInfo, NodeInfoLister, PodInfo } from './node-info';
import { guarded, thrown, type ScoreEntry } from './plugin-call';
import type { FrameworkSettings } from './profile';
import { attributed, Code, type Status } from './status';

/** Above this many wanted entries, ranking sorts instead of inserting into a short list. */
const INSERTION_RANK_LIMIT = 16;

/** The plugins (indices among the cycle's scorers) whose weighted scores are read as one sum per node. */
interface Summed {
  readonly memo: SumMemo;
  readonly scorers: readonly number[];
}

/** The feasible nodes of a cycle, as Filter found them. */
export interface Feasible {
  readonly nodes: readonly NodeInfo[];
  /** Per feasible node, its position in the snapshot's list; -1 when Filter ran on another list. */
  readonly positions: Int32Array;
}

export class Scoring {
  // Score buffers ([plugin × node]).
  private raw = new Float64Array(0);
  private normalized = new Float64Array(0);
  private totals = new Float64Array(0);
  private readonly scoreLists: PooledNodeScore[][] = [];
  /** The feasible nodes of the cycle being scored, which pooled NodeScores name theirs from. */
  private readonly scored: { nodes: readonly NodeInfo[] } = { nodes: [] };

  constructor(
    private readonly scorePlugins: readonly ScoreEntry[],
    private readonly settings: FrameworkSettings,
    private readonly random: Random,
    private readonly memos: CycleMemos,
  ) {}

  /**
   * Score, NormalizeScore and weights, then the host and the commit candidates. On the snapshot's own
   * list, raw scores of plugins with a scoreKey come from their memos, and the weighted sum of those
   * that do not normalize comes from one memo per node (scoreSummed).
   */
  run(state: CycleState, pod: PodInfo, feasible: Feasible, lister: NodeInfoLister, log: CycleLog): ScheduleResult | ScheduleFailure {
    const skip = state.skipScorePlugins;
    const scorers = skip.size > 0 ? this.scorePlugins.filter((s) => !skip.has(s.name)) : this.scorePlugins;
    const nodes = feasible.nodes;
    const n = nodes.length;
    const size = scorers.length * n;
    if (this.raw.length < size) {
      this.raw = new Float64Array(size);
      this.normalized = new Float64Array(size);
    }
    if (this.totals.length < n) this.totals = new Float64Array(n);
    const { raw, normalized, totals } = this;
    const positions = feasible.positions;
    const positional = n > 0 && (positions[0] as number) >= 0;

    let p = 0;
    let summed: Summed | undefined;
    try {
      const memos: Array<ScoreMemo | undefined> = [];
      const summable: number[] = [];
      const sumKey: string[] = [];
      for (p = 0; p < scorers.length; p++) {
        const { name, plugin } = scorers[p] as ScoreEntry;
        const key = positional ? plugin.scoreKey?.(state, pod) : undefined;
        memos.push(this.memos.scoreMemo(lister, name, key));
        if (memos[p] && !plugin.normalizeScore) {
          summable.push(p);
          sumKey.push(name, key as string);
        }
      }
      if (summable.length > 1) {
        const memo = this.memos.sumMemo(lister, sumKey, summable.length);
        if (memo) summed = { memo, scorers: summable };
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
    const { commitCandidates } = this.settings;
    const recordScores = state.recordScores ?? this.settings.recordScores;
    const ranked = [best, ...rankOthers(totals, n, Math.min(n, Math.max(commitCandidates, recordScores)) - 1, best)];
    const recorded = ranked.slice(0, recordScores);
    // The summed plugins' own scores were not written out per node: those of the recorded nodes are.
    for (let part = 0; summed && part < summed.scorers.length; part++) {
      const base = (summed.scorers[part] as number) * n;
      for (const i of recorded) {
        const value = summed.memo.part(positions[i] as number, part);
        raw[base + i] = value;
        normalized[base + i] = value;
      }
    }
    const record = (i: number): NodeScoreRecord => {
      const plugins = scorers.map(({ name, weight }, k): PluginScore => {
        const value = normalized[k * n + i] as number;
        return { plugin: name, raw: small(raw[k * n + i] as number), normalized: small(value), weight, weighted: small(value * weight) };
      });
      return { node: (nodes[i] as NodeInfo).name, total: small(totals[i] as number), plugins };
    };
    return log.success(
      ranked.slice(0, commitCandidates).map((i) => (nodes[i] as NodeInfo).name),
      recorded.map(record),
    );
  }

  /**
   * One plugin's raw scores, NormalizeScore, the range check; its normalized scores × weight are
   * added to the totals. A failure ends the cycle.
   */
  private scorePlugin(
    state: CycleState,
    pod: PodInfo,
    feasible: Feasible,
    scorers: readonly ScoreEntry[],
    p: number,
    memo: ScoreMemo | undefined,
    log: CycleLog,
  ): ScheduleFailure | undefined {
    const entry = scorers[p] as ScoreEntry;
    const { name, plugin, weight } = entry;
    const { raw, normalized, totals } = this;
    const nodes = feasible.nodes;
    const n = nodes.length;
    const base = p * n;
    const failure = rawScores(state, pod, entry, feasible, memo, raw, base);
    if (failure) return log.failure(failure);
    let list: NodeScore[] | undefined;
    if (plugin.normalizeScore) {
      const normalize = plugin.normalizeScore.bind(plugin);
      const scores = this.scoreList(p, nodes, raw, base);
      const status = guarded(name, 'NormalizeScore', () => normalize(state, pod, scores));
      if (status.code !== Code.Success) return log.failure(status);
      list = scores;
    }
    for (let i = 0; i < n; i++) {
      const score = list ? (list[i] as NodeScore).score : (raw[base + i] as number);
      if (!(score >= MIN_NODE_SCORE && score <= MAX_NODE_SCORE)) {
        return log.failure({
          code: Code.Error,
          reasons: [
            `plugin ${name} returned an invalid score ${score} for node ${(nodes[i] as NodeInfo).name}, it should be in the range [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`,
          ],
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
   * plugins are scored one by one (scorePlugin), the sum is made for the nodes the memo does not
   * know. Totals of whole numbers do not depend on the order they are added in; anything else (an
   * error, a score out of range, a fraction) answers false, and the cycle is scored plugin by plugin
   * to say so exactly.
   */
  private scoreSummed(
    state: CycleState,
    pod: PodInfo,
    feasible: Feasible,
    scorers: readonly ScoreEntry[],
    memos: ReadonlyArray<ScoreMemo | undefined>,
    summed: Summed,
    log: CycleLog,
  ): boolean {
    const { normalized, totals } = this;
    const { nodes, positions } = feasible;
    const n = nodes.length;
    try {
      totals.fill(0, 0, n);
      for (let p = 0; p < scorers.length; p++) {
        if (summed.scorers.includes(p)) continue;
        if (this.scorePlugin(state, pod, feasible, scorers, p, memos[p], log)) return false;
        const weight = (scorers[p] as ScoreEntry).weight;
        for (let i = p * n; i < (p + 1) * n; i++) if (!Number.isInteger((normalized[i] as number) * weight)) return false;
      }
      for (let i = 0; i < n; i++) {
        const at = positions[i] as number;
        let sum = summed.memo.sum(at);
        if (Number.isNaN(sum)) {
          sum = 0;
          for (let part = 0; part < summed.scorers.length; part++) {
            const s = summed.scorers[part] as number;
            const { plugin, weight } = scorers[s] as ScoreEntry;
            const memo = memos[s] as ScoreMemo;
            let score = memo.get(at);
            if (Number.isNaN(score)) {
              // Not through rawScores: a call site of its own keeps the summed plugins out of the
              // one rawScores makes per node (V8 inlines at most four plugins at a call site).
              const result = plugin.score(state, pod, nodes[i] as NodeInfo);
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
        if (this.random.int(ties) === 0) best = i;
      }
    }
    return best;
  }

  /** The NodeScore list NormalizeScore rewrites, from a pool reused across cycles. */
  private scoreList(p: number, nodes: readonly NodeInfo[], raw: Float64Array, base: number): NodeScore[] {
    const list = (this.scoreLists[p] ??= []);
    this.scored.nodes = nodes;
    for (let i = 0; i < nodes.length; i++) {
      const score = raw[base + i] as number;
      const entry = list[i];
      if (entry) entry.score = score;
      else list[i] = new PooledNodeScore(this.scored, i, score);
    }
    list.length = nodes.length;
    return list;
  }
}

/**
 * A plugin's raw scores on the feasible nodes, written to `out[base + i]`: its memo's when known (at
 * the node's position), else the plugin's, then remembered; a Success status scores 0. Answers the
 * plugin's failure, attributed, or undefined. One call per plugin, not per node: the loop around the
 * plugin's score call stays in one optimized function.
 */
function rawScores(
  state: CycleState,
  pod: PodInfo,
  entry: ScoreEntry,
  feasible: Feasible,
  memo: ScoreMemo | undefined,
  out: Float64Array,
  base: number,
): Status | undefined {
  const { nodes, positions } = feasible;
  const plugin = entry.plugin;
  for (let i = 0; i < nodes.length; i++) {
    const at = positions[i] as number;
    let score = memo ? memo.get(at) : NaN;
    if (Number.isNaN(score)) {
      const result = plugin.score(state, pod, nodes[i] as NodeInfo);
      if (typeof result === 'number') score = result;
      else if (result.code === Code.Success) score = 0;
      else return attributed(result, entry.name, 'Score');
      memo?.set(at, score);
    }
    out[base + i] = score;
  }
  return undefined;
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
