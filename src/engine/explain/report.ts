// One pod's decision laid out for a reader, from its Diagnosis (and, when known, every node's complete
// Filter verdict): the stage funnel, the rejected nodes grouped by reason, the best nodes with each
// score plugin's part, the closest node when none fit, and one node in full. Plain data, sized for a
// terminal or a view: node lists are cut to `limit` with the count of the rest. The CLI's `explain`
// prints it; the language server and webviews can send the same value.
import type { DeviceFailure } from '../api/device-failures';
import type { Diagnosis, NodeScoreRecord } from '../framework/diagnosis';
import type { Code, Stage } from '../framework/status';
import { explain, type PreemptionExplanation } from './explain';
import type { FilterFailure, NodeVerdict, Shortfall } from './verdicts';

/** Nodes left after one step of the cycle. */
export interface FunnelStep {
  readonly step: string;
  readonly stage: Stage | 'Snapshot' | 'Sampling' | 'Selected';
  readonly nodes: number;
}

export interface ReasonNodes {
  readonly reason: string;
  readonly plugin: string;
  readonly stage: Stage;
  readonly code: Code;
  readonly count: number;
  /** The first `limit` of them, in the order the cycle met them. */
  readonly nodes: readonly string[];
  /** How many more were left out of `nodes`. */
  readonly more: number;
}

export interface ClosestNode {
  readonly node: string;
  readonly failures: readonly FilterFailure[];
  readonly shortfall: readonly Shortfall[];
}

/** Where one node stood in the cycle. */
export type NodeStanding = 'chosen' | 'feasible' | 'rejected' | 'not evaluated';

export interface NodeDetail {
  readonly node: string;
  readonly standing: NodeStanding;
  /** The cycle's own verdict: the first plugin that rejected it. */
  readonly rejection?: { readonly plugin: string; readonly stage: Stage; readonly code: Code; readonly reasons: readonly string[] };
  /** Every Filter plugin that rejects it (when the verdicts were computed). */
  readonly failures?: readonly FilterFailure[];
  readonly shortfall?: readonly Shortfall[];
  readonly score?: NodeScoreRecord;
  /** 1 for the best scored node. */
  readonly rank?: number;
  /** Why a feasible node has no score (a single feasible node, or one outside the recorded scores). */
  readonly note?: string;
}

export interface PodReport {
  readonly pod: string;
  readonly placed: boolean;
  /** Placed on its nominated node (kept for it by preemption), taken without a search or scoring. */
  readonly nominatedNode?: string;
  readonly node?: string;
  /** "placed on <node>", or the upstream message ("0/5 nodes are available: …"). */
  readonly message: string;
  readonly nodesTotal: number;
  readonly funnel: readonly FunnelStep[];
  readonly rejected: readonly ReasonNodes[];
  /** The best scored nodes, best first (at most `limit`). */
  readonly best: readonly NodeScoreRecord[];
  readonly scoredNodes: number;
  /** For an unplaced pod with verdicts: the nodes nearest to fitting, closest first (`closestNodes`). */
  readonly closest: readonly ClosestNode[];
  /** With verdicts: per node where DynamicResources could not allocate (at most `limit`), which device requests it could not meet and why. */
  readonly devices: readonly NodeDevices[];
  /** How many more such nodes were left out of `devices`. */
  readonly moreDevices: number;
  readonly detail?: NodeDetail;
  /** When PostFilter tried preemption: the victims on the chosen node and why each other candidate lost. */
  readonly preemption?: PreemptionReport;
}

/** Preemption's part of the report: candidates and the nodes it could not help, cut to the limit. */
export interface PreemptionReport extends Omit<PreemptionExplanation, 'failures'> {
  /** How many more candidates were left out of `candidates`. */
  readonly moreCandidates: number;
  /** The nodes where no eviction helps, grouped by reason (most nodes first), as upstream's "preemption: 0/N" histogram counts them. */
  readonly failures: readonly {
    readonly reason: string;
    readonly count: number;
    readonly nodes: readonly string[];
    readonly more: number;
  }[];
  /** Nodes preemption did not try: rejected for a reason no eviction resolves, or left once enough candidates were found. */
  readonly notTried: number;
}

/** A node's device requests DynamicResources could not meet. */
export interface NodeDevices {
  readonly node: string;
  readonly devices: readonly DeviceFailure[];
}

/** The nodes whose verdict names device requests not met (verdicts' order), each with them. */
export function deviceVerdicts(verdicts: readonly NodeVerdict[]): NodeDevices[] {
  const out: NodeDevices[] = [];
  for (const v of verdicts) {
    const devices = v.failures.flatMap((f) => f.devices ?? []);
    if (devices.length > 0) out.push({ node: v.node, devices });
  }
  return out;
}

export interface ReportOptions {
  /** How many nodes each list shows (Infinity: all). */
  readonly limit: number;
  /** Every node's complete verdict for the pod's cycle (see nodeVerdicts). */
  readonly verdicts?: readonly NodeVerdict[];
  /** The node to explain in full. */
  readonly node?: string;
  /** How many closest nodes to list. */
  readonly closest?: number;
}

export function podReport(diagnosis: Diagnosis, options: ReportOptions): PodReport {
  const { limit } = options;
  const summary = explain(diagnosis, limit);
  const rejected = summary.reasons.map((g): ReasonNodes => ({
    reason: g.reason,
    plugin: g.plugin,
    stage: g.stage,
    code: g.code,
    count: g.nodes.length,
    nodes: g.nodes.slice(0, limit),
    more: Math.max(0, g.nodes.length - limit),
  }));
  const closest = summary.placed || !options.verdicts ? [] : closestNodes(options.verdicts, options.closest ?? 3);
  const devices = options.verdicts ? deviceVerdicts(options.verdicts) : [];
  return {
    pod: diagnosis.pod,
    placed: summary.placed,
    ...(takenNominated(diagnosis) !== undefined ? { nominatedNode: takenNominated(diagnosis) } : {}),
    ...(summary.node !== undefined ? { node: summary.node } : {}),
    message: summary.message,
    nodesTotal: diagnosis.nodesTotal,
    funnel: stageFunnel(diagnosis),
    rejected,
    best: diagnosis.scores.slice(0, limit),
    scoredNodes: diagnosis.scores.length,
    closest,
    devices: devices.slice(0, limit),
    moreDevices: Math.max(0, devices.length - limit),
    ...(options.node !== undefined ? { detail: nodeDetail(diagnosis, options.node, options.verdicts) } : {}),
    ...(summary.preemption ? { preemption: preemptionReport(summary.preemption, limit, diagnosis.nodesTotal) } : {}),
  };
}

function preemptionReport(p: PreemptionExplanation, limit: number, nodesTotal: number): PreemptionReport {
  const byReason = new Map<string, string[]>();
  for (const f of p.failures) {
    for (const reason of f.reasons) {
      const nodes = byReason.get(reason) ?? [];
      nodes.push(f.node);
      byReason.set(reason, nodes);
    }
  }
  const failures = [...byReason]
    .sort(([ra, a], [rb, b]) => b.length - a.length || (ra < rb ? -1 : ra > rb ? 1 : 0))
    .map(([reason, nodes]) => ({ reason, count: nodes.length, nodes: nodes.slice(0, limit), more: Math.max(0, nodes.length - limit) }));
  // The chosen node first, then the others in the order the search found them.
  const candidates = [...p.candidates.filter((c) => c.lostOn === undefined), ...p.candidates.filter((c) => c.lostOn !== undefined)];
  const notTried = nodesTotal - p.candidates.length - p.failures.length;
  return { ...p, candidates: candidates.slice(0, limit), moreCandidates: Math.max(0, candidates.length - limit), failures, notTried };
}

/**
 * The node preemption nominated the pod to, when the placing cycle took it at once (upstream's
 * evaluateNominatedNode: one node evaluated, no scoring); undefined otherwise.
 */
function takenNominated(d: Diagnosis): string | undefined {
  const node = d.preemption?.node;
  return node !== undefined && d.chosenNode === node && d.nodesEvaluated === 1 && d.scores.length === 0 ? node : undefined;
}

/** Nodes left after each step: the snapshot, PreFilter, sampling, each Filter plugin, then the choice. */
export function stageFunnel(d: Diagnosis): FunnelStep[] {
  const steps: FunnelStep[] = [{ step: 'nodes in the snapshot', stage: 'Snapshot', nodes: d.nodesTotal }];
  const preFiltered = d.rejections.reduce((n, r) => (r.stage === 'PreFilter' ? n + 1 : n), 0);
  const afterPreFilter = d.nodesTotal - preFiltered;
  steps.push({ step: 'PreFilter', stage: 'PreFilter', nodes: afterPreFilter });
  if (d.filters.length > 0) {
    const reached = d.filters[0]?.evaluated ?? d.nodesEvaluated;
    const nominated = takenNominated(d);
    if (nominated !== undefined)
      steps.push({ step: `evaluated: the pod's nominated node first (${nominated})`, stage: 'Sampling', nodes: reached });
    else if (reached < afterPreFilter)
      steps.push({
        step: `evaluated (sampling stopped once ${d.feasibleNodes} feasible nodes were found)`,
        stage: 'Sampling',
        nodes: reached,
      });
    for (const f of d.filters) steps.push({ step: f.plugin, stage: 'Filter', nodes: f.passed });
  }
  steps.push({ step: 'feasible', stage: 'Filter', nodes: d.feasibleNodes });
  if (d.scores.length > 0) steps.push({ step: 'scored', stage: 'Score', nodes: d.feasibleNodes });
  steps.push({ step: 'selected', stage: 'Selected', nodes: d.chosenNode !== undefined ? 1 : 0 });
  return steps;
}

const TAINT = 'TaintToleration';
const RESOURCES = 'NodeResourcesFit';

/**
 * How easily a node's failures are fixed, given the same count: an untolerated taint alone (a
 * toleration lets the pod on) before a resource shortfall alone, before anything else.
 */
export function fixability(v: Pick<NodeVerdict, 'failures'>): number {
  const plugins = v.failures.map((f) => f.plugin);
  if (plugins.length === 1 && plugins[0] === TAINT) return 0;
  if (plugins.every((p) => p === RESOURCES)) return 1;
  return 2;
}

const shortfallShare = (v: NodeVerdict): number => v.shortfall.reduce((sum, s) => sum + s.share, 0);

/**
 * The one ranking of how close a rejected node came to fitting, which `podplan explain` and the
 * editor's views both show: fewest failing filters, then the most fixable (`fixability`), then the
 * smallest total shortfall (each resource's share of the node's allocatable), then by name. Nodes
 * PreFilter left out are not ranked. `count` cuts the list (all by default).
 */
export function closestNodes(verdicts: readonly NodeVerdict[], count = Infinity): ClosestNode[] {
  return verdicts
    .filter((v) => v.failures.length > 0 && v.failures[0]?.stage !== 'PreFilter')
    .map((v) => ({ v, share: shortfallShare(v) }))
    .sort(
      (a, b) =>
        a.v.failures.length - b.v.failures.length ||
        fixability(a.v) - fixability(b.v) ||
        a.share - b.share ||
        (a.v.node < b.v.node ? -1 : a.v.node > b.v.node ? 1 : 0),
    )
    .slice(0, count)
    .map(({ v }) => ({ node: v.node, failures: v.failures, shortfall: v.shortfall }));
}

function nodeDetail(d: Diagnosis, node: string, verdicts: readonly NodeVerdict[] | undefined): NodeDetail {
  const verdict = verdicts?.find((v) => v.node === node);
  const full = verdict ? { failures: verdict.failures, shortfall: verdict.shortfall } : {};
  const r = d.rejections.find((x) => x.node === node);
  if (r) return { node, standing: 'rejected', rejection: { plugin: r.plugin, stage: r.stage, code: r.code, reasons: r.reasons }, ...full };
  const index = d.scores.findIndex((s) => s.node === node);
  const score = d.scores[index];
  if (d.chosenNode === node || score) {
    const standing: NodeStanding = d.chosenNode === node ? 'chosen' : 'feasible';
    if (score) return { node, standing, score, rank: index + 1, ...full };
    return { node, standing, note: 'the only feasible node: placed without scoring, as kube-scheduler does', ...full };
  }
  const note =
    d.nodesEvaluated < d.nodesTotal
      ? `the cycle stopped after ${d.nodesEvaluated} of ${d.nodesTotal} nodes (percentageOfNodesToScore) before reaching it`
      : `not among the ${d.scores.length} scored nodes the diagnosis kept`;
  return { node, standing: 'not evaluated', note, ...full };
}
