// Drives a plugin's stages the way the framework does for one pod, so plugin tests read as tables of
// nodes → verdicts and scores.
import type { Result } from '../../../src/engine/api/result';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import type { FilterPlugin, FrameworkHandle, NodeScore, PreFilterPlugin, PreFilterResult, PreScorePlugin, ScorePlugin } from '../../../src/engine/framework/interfaces';
import type { NodeInfo, PodInfo } from '../../../src/engine/framework/node-info';
import { Code, isSuccess, type Status } from '../../../src/engine/framework/status';
import { handleOf, snapshotOf } from '../../builders';

/** The plugin a factory builds from `args` (throws on an args error: a test bug). */
export function build<T>(factory: (args: unknown, handle: FrameworkHandle) => Result<T>, args?: unknown, handle = handleOf(snapshotOf([]))): T {
  const built = factory(args, handle);
  if (!built.ok) throw new Error(built.error);
  return built.value;
}

/** The error a factory returns for bad args (throws when it builds: a test bug). */
export function argsError(factory: (args: unknown, handle: FrameworkHandle) => Result<unknown>, args: unknown): string {
  const built = factory(args, handleOf(snapshotOf([])));
  if (built.ok) throw new Error(`args were accepted: ${JSON.stringify(args)}`);
  return built.error;
}

/** A verdict in table form: 'ok', or the code and reasons. */
export type Verdict = 'ok' | 'skip' | { readonly code: Code; readonly reasons: readonly string[] };

export function verdict(status: Status): Verdict {
  if (isSuccess(status)) return 'ok';
  if (status.code === Code.Skip) return 'skip';
  return { code: status.code, reasons: [...status.reasons] };
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

export interface ScoreRun {
  readonly preScore: Verdict;
  /** Raw scores per node (empty when PreScore skipped or failed). */
  readonly raw: number[];
  /** After NormalizeScore (equal to raw when the plugin does not normalize). */
  readonly normalized: number[];
}

/** PreScore (when the plugin has it), Score on every node, then NormalizeScore, as one cycle. */
export function runScore(plugin: ScorePlugin & Partial<PreScorePlugin>, pod: PodInfo, nodes: readonly NodeInfo[]): ScoreRun {
  const state = new CycleState();
  const preScore = plugin.preScore ? verdict(plugin.preScore(state, pod, nodes)) : 'ok';
  if (preScore !== 'ok') return { preScore, raw: [], normalized: [] };
  const scores: NodeScore[] = nodes.map((n) => {
    const s = plugin.score(state, pod, n);
    if (typeof s !== 'number') throw new Error(`score failed on ${n.name}: ${s.reasons.join(', ')}`);
    return { name: n.name, score: s };
  });
  const raw = scores.map((s) => s.score);
  plugin.normalizeScore?.(state, pod, scores);
  return { preScore, raw, normalized: scores.map((s) => s.score) };
}
