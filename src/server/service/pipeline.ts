// The scheduling pipeline as the webview draws it, built from the engine's Diagnosis only: the stage
// funnel (how many nodes each stage and filter plugin kept, and why it dropped the others) for one
// pod or summed over a pod set, and the node × plugin matrix of one pod's cycle. The webview
// computes none of this (docs/architecture.md, Processes).
import { deviceFailureText } from '../../engine/explain/devices';
import { closestNodes, deviceVerdicts, type ClosestNode, type NodeDevices } from '../../engine/explain/report';
import { firstRejections, type NodeVerdict } from '../../engine/explain/verdicts';
import type { Diagnosis, NodeRejection } from '../../engine/framework/diagnosis';
import { Code } from '../../engine/framework/status';
import type { FunnelStepView, FunnelView, MatrixRowView, MatrixView, StepRejectionView } from '../../protocol/webview';

/** The stages after Score that act on the chosen node, in the order they run. */
const COMMIT_STAGES = ['Reserve', 'Permit', 'CheckConflicts', 'PreBind', 'Bind'] as const;
const SCORED_LOWER = 'scored lower than the chosen node';

/** A step while it is being built: rejections by reason, nodes kept distinct. */
interface StepBuilder {
  readonly stage: string;
  readonly plugin?: string;
  entered: number;
  left: number;
  skipped: number;
  readonly rejected: Map<string, { count: number; nodes: Set<string> }>;
  readonly podsStopped: string[];
}

function stepKey(stage: string, plugin?: string): string {
  return plugin === undefined ? stage : `${stage}\u0000${plugin}`;
}

function reject(step: StepBuilder, reason: string, node: string | undefined): void {
  let group = step.rejected.get(reason);
  if (!group) step.rejected.set(reason, (group = { count: 0, nodes: new Set() }));
  group.count++;
  if (node !== undefined) group.nodes.add(node);
}

/** The steps every cycle is counted through, in the pipeline's order (Sort, PreFilter, each filter plugin, Score, the pick, then the commit stages that ran). */
interface Pipeline {
  readonly filters: readonly string[];
  readonly commit: readonly string[];
}

/** The filter plugins of all cycles in the profile's order (a cycle lists those it ran, in that order), and the commit stages any ran. */
function pipelineOf(cycles: ReadonlyArray<{ readonly diagnosis: Diagnosis }>): Pipeline {
  const filters: string[] = [];
  for (const c of cycles) {
    let at = 0;
    for (const f of c.diagnosis.filters) {
      const i = filters.indexOf(f.plugin);
      if (i >= 0) at = i + 1;
      else filters.splice(at++, 0, f.plugin);
    }
  }
  const commit = COMMIT_STAGES.filter((stage) => cycles.some((c) => c.diagnosis.stages.some((o) => o.stage === stage)));
  return { filters, commit };
}

/**
 * One cycle counted into the pipeline's steps. The counts chain: what a step keeps is what the next
 * receives (a filter plugin a cycle did not run passes all it received). Score ranks and rejects
 * nothing; the pick (SelectHost) keeps the best-scored node, the others being "scored lower", not
 * rejected.
 */
function addCycle(steps: ReadonlyMap<string, StepBuilder>, pipeline: Pipeline, d: Diagnosis, pod: string, listScored: boolean): void {
  const step = (stage: string, plugin?: string): StepBuilder => steps.get(stepKey(stage, plugin)) as StepBuilder;
  let stopped = false;
  const count = (s: StepBuilder, entered: number, left: number, skipped = 0): void => {
    s.entered += entered;
    s.left += left;
    s.skipped += skipped;
    // The pod stopped at the first step that kept none of what reached it.
    if (!stopped && entered > 0 && left === 0 && d.chosenNode === undefined) {
      s.podsStopped.push(pod);
      stopped = true;
    }
  };

  const total = d.nodesTotal;
  count(step('Sort'), total, total);

  // One pass over the rejections: a pod set sums thousands of cycles over thousands of nodes.
  const pre = step('PreFilter');
  const preFiltered = new Set<string>();
  for (const r of d.rejections) {
    const s = r.stage === 'PreFilter' ? pre : r.stage === 'Filter' ? steps.get(stepKey('Filter', r.plugin)) : undefined;
    if (!s) continue;
    if (s === pre) preFiltered.add(r.node);
    for (const reason of r.reasons) reject(s, reason, r.node);
  }
  let kept = total - preFiltered.size;
  count(pre, total, kept);
  const ran = new Map(d.filters.map((f, i) => [f.plugin, { f, first: i === 0 }]));
  for (const plugin of pipeline.filters) {
    const r = ran.get(plugin);
    if (!r) {
      count(step('Filter', plugin), kept, kept);
      continue;
    }
    // Sampling stops once enough nodes are feasible: the rest reach Filter but are never evaluated.
    const skipped = r.first ? Math.max(0, kept - r.f.evaluated) : 0;
    const left = Math.min(r.f.passed, kept - skipped);
    count(step('Filter', plugin), kept, left, skipped);
    kept = left;
  }

  const chosen = d.chosenNode;
  count(step('Score'), kept, kept);
  const pick = step('SelectHost');
  const picked = chosen !== undefined ? Math.min(1, kept) : 0;
  count(pick, kept, picked);
  if (picked === 1 && kept > 1) {
    const group = pick.rejected.get(SCORED_LOWER) ?? { count: 0, nodes: new Set<string>() };
    group.count += kept - 1;
    // A pod's funnel names them; a pod set's would name every node for every pod, so it counts them.
    if (listScored) for (const s of d.scores) if (s.node !== chosen) group.nodes.add(s.node);
    pick.rejected.set(SCORED_LOWER, group);
  }

  kept = picked;
  for (const stage of pipeline.commit) {
    const s = step(stage);
    const outcomes = d.stages.filter((o) => o.stage === stage);
    const failed = outcomes.find((o) => o.status.code !== Code.Success && o.status.code !== Code.Skip);
    count(s, kept, failed ? 0 : kept);
    if (failed)
      for (const reason of failed.status.reasons.length > 0 ? failed.status.reasons : [failed.status.code])
        reject(s, `${failed.plugin}: ${reason}`, failed.node);
    if (failed) kept = 0;
  }
}

function funnelOf(
  subject: string,
  unit: FunnelView['unit'],
  cycles: ReadonlyArray<{ readonly pod: string; readonly diagnosis: Diagnosis }>,
): FunnelView {
  const pipeline = pipelineOf(cycles);
  const steps = new Map<string, StepBuilder>();
  const add = (stage: string, plugin?: string) =>
    steps.set(stepKey(stage, plugin), {
      stage,
      ...(plugin !== undefined ? { plugin } : {}),
      entered: 0,
      left: 0,
      skipped: 0,
      rejected: new Map(),
      podsStopped: [],
    });
  if (cycles.length > 0) {
    add('Sort');
    add('PreFilter');
    for (const plugin of pipeline.filters) add('Filter', plugin);
    add('Score');
    add('SelectHost');
    for (const stage of pipeline.commit) add(stage);
  }
  for (const c of cycles) addCycle(steps, pipeline, c.diagnosis, c.pod, unit === 'nodes');
  return {
    subject,
    unit,
    pods: cycles.length,
    steps: [...steps.values()].map((s): FunnelStepView => ({
      stage: s.stage,
      ...(s.plugin !== undefined ? { plugin: s.plugin } : {}),
      ...(s.stage === 'SelectHost' ? { picks: true } : {}),
      entered: s.entered,
      left: s.left,
      skipped: s.skipped,
      rejected: [...s.rejected]
        .map(([reason, g]): StepRejectionView => ({ reason, count: g.count, nodes: [...g.nodes] }))
        .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)),
      ...(unit === 'pod × node pairs' ? { podsStopped: s.podsStopped } : {}),
    })),
  };
}

/** One pod's cycle as a funnel of nodes. */
export function podFunnel(pod: string, diagnosis: Diagnosis): FunnelView {
  return funnelOf(pod, 'nodes', [{ pod, diagnosis }]);
}

/** A pod set's cycles summed: pod × node pairs per step, the pods each step stopped. */
export function podSetFunnel(podSet: string, cycles: ReadonlyArray<{ readonly pod: string; readonly diagnosis: Diagnosis }>): FunnelView {
  return funnelOf(podSet, 'pod × node pairs', cycles);
}

/**
 * The node × plugin matrix of one cycle over `nodes` (every node of the cluster the cycle ran on).
 * For an unplaced pod, the rejected nodes read closest first and the closest is named, in the one
 * ranking `podplan explain` prints (engine/explain/report.ts `closestNodes`): over every node's
 * complete verdict when given, else over what the cycle itself recorded (each node's first rejection).
 */
export function podMatrix(
  d: Diagnosis,
  nodes: readonly string[],
  complete?: CompleteVerdicts,
  devices: readonly NodeDevices[] = complete ? deviceVerdicts(complete.verdicts) : [],
): MatrixView {
  const deviceLines = new Map(devices.map((n) => [n.node, n.devices.map(deviceFailureText)]));
  const filterPlugins = d.filters.map((f) => f.plugin);
  const filterIndex = new Map(filterPlugins.map((p, i) => [p, i]));
  const first = d.scores[0];
  const scorePlugins = first ? first.plugins.map((p) => ({ plugin: p.plugin, weight: p.weight })) : [];
  const rejected = new Map(d.rejections.map((r) => [r.node, r]));
  const scored = new Map(d.scores.map((s, i) => [s.node, { record: s, rank: i + 1 }]));
  const preFiltered = new Set(d.rejections.filter((r) => r.stage === 'PreFilter').map((r) => r.node)).size;
  // Nodes neither rejected nor scored were feasible when every node reaching Filter was evaluated (the
  // profile kept only the top scores); otherwise sampling never reached them.
  const allEvaluated = d.nodesEvaluated + preFiltered >= d.nodesTotal;

  const chosen: MatrixRowView[] = [];
  const feasible: Array<{ readonly row: MatrixRowView; readonly order: number }> = [];
  const failed: Array<{ readonly row: MatrixRowView; readonly rejection: NodeRejection }> = [];
  const unevaluated: MatrixRowView[] = [];
  for (const node of nodes) {
    const r = rejected.get(node);
    if (r) {
      const at = r.stage === 'Filter' ? (filterIndex.get(r.plugin) ?? -1) : -1;
      failed.push({
        row: {
          node,
          verdict: 'rejected',
          stage: r.stage,
          plugin: r.plugin,
          reasons: r.reasons,
          ...(deviceLines.has(node) ? { devices: deviceLines.get(node) } : {}),
          rejectedAt: at,
        },
        rejection: r,
      });
      continue;
    }
    const s = scored.get(node);
    if (s) {
      const byPlugin = new Map(s.record.plugins.map((p) => [p.plugin, p]));
      const row: MatrixRowView = {
        node,
        verdict: node === d.chosenNode ? 'chosen' : 'feasible',
        scores: scorePlugins.map(({ plugin }): readonly [number, number, number] => {
          const p = byPlugin.get(plugin);
          return p ? [p.raw, p.normalized, p.weighted] : [0, 0, 0];
        }),
        total: s.record.total,
        rank: s.rank,
      };
      if (node === d.chosenNode) chosen.push(row);
      else feasible.push({ row, order: s.rank });
    } else if (node === d.chosenNode) {
      chosen.push({ node, verdict: 'chosen' });
    } else if (allEvaluated && d.feasibleNodes > 0) {
      feasible.push({ row: { node, verdict: 'feasible' }, order: Infinity });
    } else {
      unevaluated.push({ node, verdict: 'unevaluated' });
    }
  }
  feasible.sort((a, b) => a.order - b.order);
  const rowsOf = () => [...chosen, ...feasible.map((f) => f.row), ...failed.map((f) => f.row), ...unevaluated];
  if (d.chosenNode !== undefined) return { filterPlugins, scorePlugins, rows: rowsOf() };
  const ranked = closestNodes(complete ? complete.verdicts : firstRejections(d));
  const order = new Map(ranked.map((v, i) => [v.node, i]));
  failed.sort(
    (a, b) =>
      (order.get(a.rejection.node) ?? Infinity) - (order.get(b.rejection.node) ?? Infinity) ||
      (a.rejection.node < b.rejection.node ? -1 : 1),
  );
  const view: MatrixView = { filterPlugins, scorePlugins, rows: rowsOf() };
  const best = ranked[0];
  if (!best) return view;
  if (complete) return { ...view, closest: { node: best.node, why: closestWhy(best, complete.describe) } };
  // Only the cycle's first rejection is known: how far down the pipeline the node got.
  const r = rejected.get(best.node) as NodeRejection;
  const through =
    r.stage === 'Filter'
      ? `passed ${filterIndex.get(r.plugin) ?? 0} of ${filterPlugins.length} filter plugins, then ${r.plugin} rejected it`
      : `${r.plugin} rejected it at ${r.stage}`;
  return { ...view, closest: { node: best.node, why: `${through}: ${r.reasons.join(', ')}` } };
}

/** Every node's complete Filter verdict for an unplaced pod (engine/explain/verdicts.ts), and how to word a shortfall. */
export interface CompleteVerdicts {
  readonly verdicts: readonly NodeVerdict[];
  readonly describe: (shortfall: NodeVerdict['shortfall'][number]) => string;
}

const TAINT = 'TaintToleration';
const RESOURCES = 'NodeResourcesFit';

/** The closest node's failures in words, the actionable one named and any shortfall always given. */
function closestWhy(v: ClosestNode, describe: CompleteVerdicts['describe']): string {
  const short = v.shortfall.length > 0 ? ` (short by ${v.shortfall.map(describe).join(', ')})` : '';
  const devices = (f: ClosestNode['failures'][number]) =>
    (f.devices ?? []).length > 0 ? ` (${(f.devices ?? []).map(deviceFailureText).join('; ')})` : '';
  const [only] = v.failures;
  if (v.failures.length === 1 && only) {
    const fix = only.plugin === TAINT ? '; a toleration for it would let the pod on' : '';
    return `fails only ${only.plugin}: ${only.reasons.join(', ')}${devices(only)}${only.plugin === RESOURCES ? short : ''}${fix}`;
  }
  return `fails ${v.failures.length} filter plugins: ${v.failures.map((f) => `${f.plugin} (${f.reasons.join(', ')}${devices(f)})`).join('; ')}${short}`;
}

/** What compare knows about a move besides the newer plan's cycle for the pod. */
export interface MoveContext {
  /** The older plan's cycle for the pod, when it kept one. */
  readonly older?: Diagnosis;
  /** The newer plan's planner. */
  readonly planner?: string;
  /** Pods of the newer plan on each node. */
  readonly podsOn?: (node: string) => number;
}

/**
 * Why a pod moved from `from` to `to` between two plans: as the newer plan's cycle for it saw both
 * nodes; else (a planner that places the set as a whole keeps no cycle per pod) what the older
 * plan's cycle said of the two nodes and how the newer plan fills them.
 */
export function moveReason(from: string, to: string, newer: Diagnosis | undefined, context: MoveContext = {}): string {
  if (!newer) {
    const whole = `the ${context.planner ?? 'newer'} planner placed the set as a whole and keeps no cycle per pod`;
    const older = context.older;
    const counts = context.podsOn
      ? `; in the newer plan ${from} holds ${plural(context.podsOn(from), 'pod')} of the set, ${to} ${plural(context.podsOn(to), 'pod')}`
      : '';
    if (!older) return `${whole}${counts}`;
    const rejected = older.rejections.find((r) => r.node === to);
    if (rejected)
      return `${whole}; in the older plan’s cycle ${to} had no room for it (${rejected.plugin}: ${rejected.reasons.join(', ')})${counts}`;
    const toScore = older.scores.find((s) => s.node === to)?.total;
    const fromScore = older.scores.find((s) => s.node === from)?.total;
    if (toScore !== undefined && fromScore !== undefined)
      return `${whole}; in the older plan’s cycle ${from} scored ${fromScore} and ${to} ${toScore}${counts}`;
    return `${whole}${counts}`;
  }
  const rejection = newer.rejections.find((r) => r.node === from);
  if (rejection) return `${from} now rejects it at ${rejection.stage}: ${rejection.plugin}: ${rejection.reasons.join(', ')}`;
  const toScore = newer.scores.find((s) => s.node === to)?.total;
  const fromScore = newer.scores.find((s) => s.node === from)?.total;
  if (toScore !== undefined && fromScore !== undefined) return `${to} scores ${toScore}, ${from} ${fromScore}`;
  if (toScore !== undefined)
    return `${to} scores ${toScore}; ${from} was ${newer.nodesEvaluated < newer.nodesTotal ? 'not evaluated or ' : ''}not among the recorded scores`;
  return `the newer plan chose ${to}; its cycle recorded nothing about ${from}`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
