// The scheduling pipeline as the webview draws it, built from the engine's Diagnosis only: the stage
// funnel (how many nodes each stage and filter plugin kept, and why it dropped the others) for one
// pod or summed over a pod set, and the node × plugin matrix of one pod's cycle. The webview
// computes none of this (docs/architecture.md, Processes).
import type { Diagnosis, NodeRejection } from '../../engine/framework/diagnosis';
import { Code } from '../../engine/framework/status';
import type { FunnelStepView, FunnelView, MatrixRowView, MatrixView, StepRejectionView } from '../../protocol/webview';

/** The stages after Score that act on the chosen node, in the order they run. */
const COMMIT_STAGES = ['Reserve', 'Permit', 'CheckConflicts', 'Bind'] as const;
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

/** The steps of one cycle, appended to (or summed into) `steps` in the order the cycle ran them. */
function addCycle(steps: Map<string, StepBuilder>, d: Diagnosis, pod: string, listScored: boolean): void {
  const step = (stage: string, plugin?: string): StepBuilder => {
    const key = stepKey(stage, plugin);
    let s = steps.get(key);
    if (!s) steps.set(key, (s = { stage, ...(plugin !== undefined ? { plugin } : {}), entered: 0, left: 0, skipped: 0, rejected: new Map(), podsStopped: [] }));
    return s;
  };
  const ran: Array<{ readonly step: StepBuilder; readonly entered: number; readonly left: number }> = [];
  const count = (s: StepBuilder, entered: number, left: number, skipped = 0): void => {
    s.entered += entered;
    s.left += left;
    s.skipped += skipped;
    ran.push({ step: s, entered, left });
  };

  const total = d.nodesTotal;
  count(step('Sort'), total, total);

  // One pass over the rejections: a pod set sums thousands of cycles over thousands of nodes.
  const pre = step('PreFilter');
  const filterSteps = new Map(d.filters.map((f) => [f.plugin, step('Filter', f.plugin)]));
  const preFiltered = new Set<string>();
  for (const r of d.rejections) {
    const s = r.stage === 'PreFilter' ? pre : r.stage === 'Filter' ? filterSteps.get(r.plugin) : undefined;
    if (!s) continue;
    if (s === pre) preFiltered.add(r.node);
    for (const reason of r.reasons) reject(s, reason, r.node);
  }
  const afterPreFilter = total - preFiltered.size;
  count(pre, total, afterPreFilter);
  d.filters.forEach((f, i) => {
    // Sampling stops once enough nodes are feasible: the rest reach Filter but are never evaluated.
    count(filterSteps.get(f.plugin) as StepBuilder, i === 0 ? afterPreFilter : f.evaluated, f.passed, i === 0 ? Math.max(0, afterPreFilter - f.evaluated) : 0);
  });

  const chosen = d.chosenNode;
  const score = step('Score');
  count(score, d.feasibleNodes, chosen !== undefined ? 1 : 0);
  if (chosen !== undefined && d.feasibleNodes > 1) {
    const group = score.rejected.get(SCORED_LOWER) ?? { count: 0, nodes: new Set<string>() };
    group.count += d.feasibleNodes - 1;
    // A pod's funnel names them; a pod set's would name every node for every pod, so it counts them.
    if (listScored) for (const s of d.scores) if (s.node !== chosen) group.nodes.add(s.node);
    score.rejected.set(SCORED_LOWER, group);
  }

  let kept = chosen !== undefined ? 1 : 0;
  for (const stage of COMMIT_STAGES) {
    const outcomes = d.stages.filter((o) => o.stage === stage);
    if (outcomes.length === 0) continue;
    const failed = outcomes.find((o) => o.status.code !== Code.Success && o.status.code !== Code.Skip);
    const s = step(stage);
    count(s, kept, failed ? 0 : kept);
    if (failed) for (const reason of failed.status.reasons.length > 0 ? failed.status.reasons : [failed.status.code]) reject(s, `${failed.plugin}: ${reason}`, failed.node);
    if (failed) kept = 0;
  }

  // The pod stopped at the first step that kept none of what reached it.
  const stop = ran.find((s) => s.left === 0 && s.entered > 0);
  if (stop && chosen === undefined) stop.step.podsStopped.push(pod);
}

function funnelOf(subject: string, unit: FunnelView['unit'], cycles: ReadonlyArray<{ readonly pod: string; readonly diagnosis: Diagnosis }>): FunnelView {
  const steps = new Map<string, StepBuilder>();
  for (const c of cycles) addCycle(steps, c.diagnosis, c.pod, unit === 'nodes');
  return {
    subject,
    unit,
    pods: cycles.length,
    steps: [...steps.values()].map(
      (s): FunnelStepView => ({
        stage: s.stage,
        ...(s.plugin !== undefined ? { plugin: s.plugin } : {}),
        entered: s.entered,
        left: s.left,
        skipped: s.skipped,
        rejected: [...s.rejected]
          .map(([reason, g]): StepRejectionView => ({ reason, count: g.count, nodes: [...g.nodes] }))
          .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0)),
        ...(unit === 'pod × node pairs' ? { podsStopped: s.podsStopped } : {}),
      }),
    ),
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

/** How far a node is from fitting the pod: the resources it lacks, each as a share of what the pod asks (0.25 = a quarter short). */
export type Shortfall = (node: string, reasons: readonly string[]) => { readonly share: number; readonly text: string } | undefined;

/** Rejections that a change in the cluster could lift come before the unresolvable ones (a taint, a selector). */
const resolvable = (r: NodeRejection): number => (r.code === Code.Unschedulable ? 0 : 1);

/**
 * The node × plugin matrix of one cycle over `nodes` (every node of the cluster the cycle ran on).
 * For an unplaced pod, the closest node: a rejection a cluster change could lift, then the fewest
 * failed reasons, then the most filter plugins passed, then the smallest shortfall.
 */
export function podMatrix(d: Diagnosis, nodes: readonly string[], shortfall?: Shortfall): MatrixView {
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
      failed.push({ row: { node, verdict: 'rejected', stage: r.stage, plugin: r.plugin, reasons: r.reasons, rejectedAt: at }, rejection: r });
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
  const placed = d.chosenNode !== undefined;
  // For an unplaced pod the rejected nodes read closest first, the closest named above them.
  const closeness = placed ? undefined : closenessOf(filterIndex, shortfall);
  if (closeness) failed.sort((a, b) => closeness.compare(a.rejection, b.rejection));
  const view: MatrixView = {
    filterPlugins,
    scorePlugins,
    rows: [...chosen, ...feasible.map((f) => f.row), ...failed.map((f) => f.row), ...unevaluated],
  };
  const best = failed[0]?.rejection;
  if (!closeness || !best) return view;
  const s = closeness.short(best);
  const through = best.stage === 'Filter' ? `passed ${closeness.passed(best)} of ${filterPlugins.length} filter plugins, then ${best.plugin} rejected it` : `${best.plugin} rejected it at ${best.stage}`;
  return { ...view, closest: { node: best.node, why: `${through}: ${best.reasons.join(', ')}${s ? ` (${s.text})` : ''}` } };
}

/** How close a rejected node came to fitting: a comparator (closest first) and the measures it uses. */
function closenessOf(filterIndex: ReadonlyMap<string, number>, shortfall?: Shortfall) {
  const passed = (r: NodeRejection): number => (r.stage === 'Filter' ? (filterIndex.get(r.plugin) ?? 0) : 0);
  const shortOf = new Map<string, { share: number; text: string } | undefined>();
  const short = (r: NodeRejection) => {
    if (!shortOf.has(r.node)) shortOf.set(r.node, shortfall?.(r.node, r.reasons));
    return shortOf.get(r.node);
  };
  const compare = (a: NodeRejection, b: NodeRejection): number =>
    resolvable(a) - resolvable(b) ||
    a.reasons.length - b.reasons.length ||
    passed(b) - passed(a) ||
    // Unknown shortfalls (Infinity - Infinity) compare as equal, then by name.
    (short(a)?.share ?? Infinity) - (short(b)?.share ?? Infinity) ||
    (a.node < b.node ? -1 : a.node > b.node ? 1 : 0);
  return { compare, passed, short };
}

/** Why a pod moved from `from` to `to` between two plans, as the newer plan's cycle for it saw both nodes. */
export function moveReason(from: string, to: string, newer: Diagnosis | undefined): string {
  if (!newer) return 'the newer plan kept no diagnosis for the pod';
  const rejection = newer.rejections.find((r) => r.node === from);
  if (rejection) return `${from} now rejects it at ${rejection.stage}: ${rejection.plugin}: ${rejection.reasons.join(', ')}`;
  const toScore = newer.scores.find((s) => s.node === to)?.total;
  const fromScore = newer.scores.find((s) => s.node === from)?.total;
  if (toScore !== undefined && fromScore !== undefined) return `${to} scores ${toScore}, ${from} ${fromScore}`;
  if (toScore !== undefined) return `${to} scores ${toScore}; ${from} was ${newer.nodesEvaluated < newer.nodesTotal ? 'not evaluated or ' : ''}not among the recorded scores`;
  return `the newer plan chose ${to}; its cycle recorded nothing about ${from}`;
}
