// What one scheduling cycle found, kept so views, diagnostics and the store all read the same
// explanation and none recomputes it (DESIGN.md, Contracts).
import type { PreemptionRecord } from './preemption/record';
import type { Code, Stage, Status } from './status';

/** A node rejected at PreFilter, Filter or a later stage, with the plugin and reasons. */
export interface NodeRejection {
  readonly node: string;
  readonly plugin: string;
  readonly stage: Stage;
  readonly code: Code;
  readonly reasons: readonly string[];
}

/** How one filter plugin fared across the nodes that reached it (a node stops at its first rejection). */
export interface FilterRecord {
  readonly plugin: string;
  readonly evaluated: number;
  readonly passed: number;
}

export interface PluginScore {
  readonly plugin: string;
  readonly raw: number;
  /** After NormalizeScore (equal to raw when the plugin does not normalize). */
  readonly normalized: number;
  readonly weight: number;
  /** normalized × weight: what the total adds up. */
  readonly weighted: number;
}

export interface NodeScoreRecord {
  readonly node: string;
  readonly total: number;
  readonly plugins: readonly PluginScore[];
}

/** The outcome of a non-per-node stage plugin (PreFilter, PreScore, Reserve, Permit, binding). */
export interface StageOutcome {
  readonly stage: Stage;
  readonly plugin: string;
  readonly status: Status;
  /** The node the step was about (Reserve, Unreserve, Permit, CheckConflicts, Bind). */
  readonly node?: string;
}

export interface Diagnosis {
  /** namespace/name of the pod */
  readonly pod: string;
  readonly profile: string;
  /** All nodes in the snapshot: the N of "0/N nodes are available". */
  readonly nodesTotal: number;
  /** How many nodes the cycle looked at (sampling may stop early once enough are feasible). */
  readonly nodesEvaluated: number;
  readonly feasibleNodes: number;
  /** The final status: Success with the chosen node, or the stage/plugin that stopped the pod. */
  readonly status: Status;
  readonly chosenNode?: string;
  readonly rejections: readonly NodeRejection[];
  readonly filters: readonly FilterRecord[];
  /** Scored nodes, best first (possibly only the top ones, per the profile's recording limit). */
  readonly scores: readonly NodeScoreRecord[];
  readonly stages: readonly StageOutcome[];
  /** The upstream-format message ("0/5 nodes are available: 2 Insufficient cpu, …") when not placed. */
  readonly message?: string;
  /** When PostFilter tried preemption: the candidate nodes, their victims, and which was chosen. */
  readonly preemption?: PreemptionRecord;
}
