// Runs a plugin's stages by hand for one pod, as the framework runtime does in a cycle, so plugin
// tests read as tables of verdicts and scores.
import type { ClusterObjects } from '../../../src/engine/api/types';
import assert from 'node:assert/strict';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import { type FilterPlugin, type NodeScore, type PluginFactory, type PreFilterPlugin, type PreScorePlugin, type ScorePlugin } from '../../../src/engine/framework/interfaces';
import { type NodeInfo, type PodInfo } from '../../../src/engine/framework/node-info';
import { type Snapshot } from '../../../src/engine/framework/snapshot';
import { Code, type Status } from '../../../src/engine/framework/status';
import { handleOf } from '../../builders';

/** "ok", or the code and reasons of a rejection: how the tables spell a status. */
export function verdict(status: Status): string {
  return status.code === Code.Success ? 'ok' : `${status.code}: ${status.reasons.join(', ')}`;
}

/** The plugin a factory builds over `snapshot` (the test fails on bad args). */
export function build<P>(factory: PluginFactory, snapshot: Snapshot, args?: unknown, objects?: ClusterObjects): P {
  const made = factory(args, handleOf(snapshot, 1, objects));
  assert.ok(made.ok, made.ok ? '' : made.error);
  return made.value as P;
}

/** Each node's Filter verdict, from a state that went through PreFilter. */
export function filterAll(plugin: FilterPlugin, state: CycleState, pod: PodInfo, nodes: readonly NodeInfo[]): Record<string, string> {
  return Object.fromEntries(nodes.map((n) => [n.name, verdict(plugin.filter(state, pod, n))]));
}

export interface FilterRun {
  /** The PreFilter status: "ok" or "Skip". */
  readonly preFilter: string;
  /** Per node (all of the snapshot's), only when PreFilter did not skip. */
  readonly verdicts: Record<string, string>;
  readonly state: CycleState;
}

/** PreFilter over all of the snapshot's nodes, then Filter on each (none when PreFilter rejected: its verdict says why). */
export function runFilters(plugin: PreFilterPlugin & FilterPlugin, snapshot: Snapshot, pod: PodInfo): FilterRun {
  const state = new CycleState();
  const { status } = plugin.preFilter(state, pod, snapshot.list());
  if (status.code === Code.Skip) return { preFilter: 'Skip', verdicts: {}, state };
  if (status.code !== Code.Success) return { preFilter: verdict(status), verdicts: {}, state };
  return { preFilter: 'ok', verdicts: filterAll(plugin, state, pod, snapshot.list()), state };
}

export interface ScoreRun {
  /** The PreScore status: "ok" or "Skip". */
  readonly preScore: string;
  readonly raw: Record<string, number>;
  readonly normalized: Record<string, number>;
}

/** PreScore over `nodes` (the feasible ones; default all), then Score on each and NormalizeScore. */
export function runScores(plugin: PreScorePlugin & ScorePlugin, snapshot: Snapshot, pod: PodInfo, nodes: readonly NodeInfo[] = snapshot.list()): ScoreRun {
  const state = new CycleState();
  const status = plugin.preScore(state, pod, nodes);
  if (status.code === Code.Skip) return { preScore: 'Skip', raw: {}, normalized: {} };
  assert.equal(status.code, Code.Success, verdict(status));
  const scores: NodeScore[] = nodes.map((n) => {
    const score = plugin.score(state, pod, n);
    assert.equal(typeof score, 'number', typeof score === 'number' ? '' : verdict(score));
    return { name: n.name, score: score as number };
  });
  const raw = Object.fromEntries(scores.map((s) => [s.name, s.score]));
  if (plugin.normalizeScore) assert.equal(plugin.normalizeScore(state, pod, scores).code, Code.Success);
  return { preScore: 'ok', raw, normalized: Object.fromEntries(scores.map((s) => [s.name, s.score])) };
}
