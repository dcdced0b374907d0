// Runs a plugin's stages by hand for one pod, as the framework runtime does in a cycle, so plugin
// tests read as tables of verdicts and scores. A stage that must succeed for the table to mean
// anything (PreScore, Score, NormalizeScore) fails the test when it does not.
import assert from 'node:assert/strict';
import { argsErrorText, type ArgsError } from '../../../src/engine/api/field';
import type { Result } from '../../../src/engine/api/result';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import type {
  FilterPlugin,
  FrameworkHandle,
  NodeScore,
  PreFilterPlugin,
  PreFilterResult,
  PreScorePlugin,
  ScorePlugin,
} from '../../../src/engine/framework/interfaces';
import type { NodeInfo, NodeInfoLister, PodInfo } from '../../../src/engine/framework/node-info';
import { Code, isSuccess, type Status } from '../../../src/engine/framework/status';
import { handleOf, snapshotOf } from '../../builders';

/** The plugin a factory builds from `args` with `handle` (the test fails on bad args). */
export function build<T>(
  factory: (args: unknown, handle: FrameworkHandle) => Result<T, ArgsError>,
  args?: unknown,
  handle = handleOf(snapshotOf([])),
): T {
  const built = factory(args, handle);
  assert.ok(built.ok, built.ok ? '' : argsErrorText(built.error));
  return built.value;
}

/** The error a factory returns for bad args, as its text (the test fails when it builds). */
export function argsError(factory: (args: unknown, handle: FrameworkHandle) => Result<unknown, ArgsError>, args: unknown): string {
  const built = factory(args, handleOf(snapshotOf([])));
  assert.ok(!built.ok, `args were accepted: ${JSON.stringify(args)}`);
  return argsErrorText(built.error);
}

/** A verdict as a table value: 'ok', 'skip', or the code and reasons. */
export type Verdict = 'ok' | 'skip' | { readonly code: Code; readonly reasons: readonly string[] };

export function verdict(status: Status): Verdict {
  if (isSuccess(status)) return 'ok';
  if (status.code === Code.Skip) return 'skip';
  return { code: status.code, reasons: [...status.reasons] };
}

/** A verdict as a line of text: "ok", or the code and reasons of a rejection. */
export function verdictText(status: Status): string {
  return status.code === Code.Success ? 'ok' : `${status.code}: ${status.reasons.join(', ')}`;
}

export interface FilterRun {
  readonly preFilter: Verdict;
  readonly preFilterResult?: PreFilterResult;
  /** Per node, in order; empty when PreFilter did not succeed. */
  readonly filter: Verdict[];
}

/** PreFilter (when the plugin has it) then Filter on every node, as one cycle. */
export function runFilter(plugin: FilterPlugin & Partial<PreFilterPlugin>, pod: PodInfo, nodes: readonly NodeInfo[]): FilterRun {
  const state = new CycleState();
  const pre = plugin.preFilter?.(state, pod, nodes);
  const preFilter = pre ? verdict(pre.status) : 'ok';
  const filter = preFilter === 'ok' || preFilter === 'skip' ? nodes.map((n) => verdict(plugin.filter(state, pod, n))) : [];
  return { preFilter, ...(pre?.result ? { preFilterResult: pre.result } : {}), filter };
}

/** Each node's Filter verdict (as text), from a state that went through PreFilter. */
export function filterAll(plugin: FilterPlugin, state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Record<string, string> {
  return Object.fromEntries(nodes.map((n) => [n.name, verdictText(plugin.filter(state, pod, n))]));
}

export interface FilterTable {
  /** The PreFilter status: "ok" or "Skip". */
  readonly preFilter: string;
  /** Per node (all of the snapshot's), only when PreFilter did not skip. */
  readonly verdicts: Record<string, string>;
  readonly state: CycleState;
}

/** PreFilter over all of the snapshot's nodes, then Filter on each by name (none when PreFilter rejected: its verdict says why). */
export function runFilters(plugin: PreFilterPlugin & FilterPlugin, snapshot: NodeInfoLister, pod: PodInfo): FilterTable {
  const state = new CycleState();
  const { status } = plugin.preFilter(state, pod, snapshot.list());
  if (status.code === Code.Skip) return { preFilter: 'Skip', verdicts: {}, state };
  if (status.code !== Code.Success) return { preFilter: verdictText(status), verdicts: {}, state };
  return { preFilter: 'ok', verdicts: filterAll(plugin, state, pod, snapshot.list()), state };
}

/** Score on every node then NormalizeScore, from a state that went through PreScore; either failing fails the test. */
function scoreNodes(
  plugin: ScorePlugin,
  state: CycleState,
  pod: PodInfo,
  nodes: readonly NodeInfo[],
): { raw: NodeScore[]; normalized: NodeScore[] } {
  const scores: NodeScore[] = nodes.map((n) => {
    const score = plugin.score(state, pod, n);
    assert.equal(typeof score, 'number', typeof score === 'number' ? '' : `Score on ${n.name}: ${verdictText(score)}`);
    return { name: n.name, score: score as number };
  });
  const raw = scores.map((s) => ({ ...s }));
  if (plugin.normalizeScore) {
    const status = plugin.normalizeScore(state, pod, scores);
    assert.equal(status.code, Code.Success, `NormalizeScore: ${verdictText(status)}`);
  }
  return { raw, normalized: scores };
}

export interface ScoreRun {
  readonly preScore: Verdict;
  /** Raw scores per node (empty when PreScore skipped or failed). */
  readonly raw: number[];
  /** After NormalizeScore (equal to raw when the plugin does not normalize). */
  readonly normalized: number[];
}

/** PreScore (when the plugin has it), Score on every node, then NormalizeScore, as one cycle; scores in node order. */
export function runScore(plugin: ScorePlugin & Partial<PreScorePlugin>, pod: PodInfo, nodes: readonly NodeInfo[]): ScoreRun {
  const state = new CycleState();
  const preScore = plugin.preScore ? verdict(plugin.preScore(state, pod, nodes)) : 'ok';
  if (preScore !== 'ok') return { preScore, raw: [], normalized: [] };
  const { raw, normalized } = scoreNodes(plugin, state, pod, nodes);
  return { preScore, raw: raw.map((s) => s.score), normalized: normalized.map((s) => s.score) };
}

export interface ScoreTable {
  /** The PreScore status: "ok" or "Skip". */
  readonly preScore: string;
  readonly raw: Record<string, number>;
  readonly normalized: Record<string, number>;
}

/** PreScore over `nodes` (the feasible ones; default all), then Score on each and NormalizeScore; scores by node name. */
export function runScores(
  plugin: PreScorePlugin & ScorePlugin,
  snapshot: NodeInfoLister,
  pod: PodInfo,
  nodes: readonly NodeInfo[] = snapshot.list(),
): ScoreTable {
  const state = new CycleState();
  const status = plugin.preScore(state, pod, nodes);
  if (status.code === Code.Skip) return { preScore: 'Skip', raw: {}, normalized: {} };
  assert.equal(status.code, Code.Success, verdictText(status));
  const { raw, normalized } = scoreNodes(plugin, state, pod, nodes);
  const byName = (scores: NodeScore[]) => Object.fromEntries(scores.map((s) => [s.name, s.score]));
  return { preScore: 'ok', raw: byName(raw), normalized: byName(normalized) };
}
