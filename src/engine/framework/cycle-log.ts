// What a scheduling cycle has found so far (stage outcomes, per-node rejections, per-plugin Filter
// counts, preemption's record), and how it becomes the cycle's answer with its Diagnosis.
import { WeakCache } from './caches';
import type { Diagnosis, FilterRecord, NodeRejection, NodeScoreRecord, StageOutcome } from './diagnosis';
import { fitErrorMessage } from './fit-error';
import type { NodeInfo, PodInfo } from './node-info';
import type { PreemptionRecord } from './preemption/record';
import { Code, isRejection, STAGES, statusMessage, SUCCESS, type Stage, type Status } from './status';

export interface ScheduleResult {
  readonly ok: true;
  readonly suggestedHost: string;
  /** Nodes run through Filter (sampling may stop before all of them). */
  readonly evaluatedNodes: number;
  readonly feasibleNodes: number;
  /** The best nodes by score, best (suggestedHost) first, at most the profile's commitCandidates. */
  readonly candidates: readonly string[];
  readonly diagnosis: Diagnosis;
}

export interface ScheduleFailure {
  readonly ok: false;
  /** Why: a rejection (the pod fits no node) or an Error (a plugin failed). */
  readonly status: Status;
  readonly evaluatedNodes: number;
  /** Set when a PostFilter plugin (preemption) found a node that could fit after changes. */
  readonly nominatedNode?: string;
  /** With nominatedNode: the pods to evict from it first. */
  readonly victims?: readonly PodInfo[];
  readonly diagnosis: Diagnosis;
}

export class CycleLog {
  readonly stages: StageOutcome[] = [];
  readonly rejections: NodeRejection[] = [];
  filters: readonly FilterRecord[] = [];
  preemption: PreemptionRecord | undefined;
  evaluated = 0;
  feasible = 0;

  constructor(
    private readonly pod: string,
    private readonly profile: string,
    private readonly nodesTotal: number,
  ) {}

  /** Records a non-per-node stage's status (PreFilter, PreScore, PostFilter). */
  stage(stage: Stage, plugin: string, status: Status): void {
    this.stages.push(stageOutcome(stage, plugin, status));
  }

  rejectAll(nodes: readonly NodeInfo[], status: Status): void {
    const plugin = status.plugin ?? '';
    const stage = status.stage ?? 'PreFilter';
    for (const node of nodes) this.rejections.push({ node: node.name, plugin, stage, code: status.code, reasons: status.reasons });
  }

  /** The verdict when Filter left no node: unresolvable only if every rejection is; the one plugin if only one rejected. */
  filterStatus(): Status {
    let resolvable = false;
    let plugin: string | undefined = this.rejections[0]?.plugin;
    for (const r of this.rejections) {
      if (r.code === Code.Unschedulable) resolvable = true;
      if (r.plugin !== plugin) plugin = undefined;
    }
    const code = resolvable || this.rejections.length === 0 ? Code.Unschedulable : Code.UnschedulableAndUnresolvable;
    return { code, reasons: [], stage: 'Filter', ...(plugin ? { plugin } : {}) };
  }

  success(candidates: readonly string[], scores: readonly NodeScoreRecord[]): ScheduleResult {
    const suggestedHost = candidates[0] as string;
    const diagnosis = this.diagnosis(SUCCESS, scores, suggestedHost);
    return { ok: true, suggestedHost, evaluatedNodes: this.evaluated, feasibleNodes: this.feasible, candidates, diagnosis };
  }

  /**
   * A cycle that placed nothing. The message is upstream's FitError text for a rejection, the
   * status's own words for an Error; a Filter verdict carries that message as its reason.
   */
  failure(status: Status, message?: string, nominatedNode?: string, victims?: readonly PodInfo[]): ScheduleFailure {
    let diagnosis = this.diagnosis(status, []);
    const text = message ?? (isRejection(status) ? fitErrorMessage(diagnosis) : statusMessage(status));
    if (status.reasons.length === 0) diagnosis = { ...diagnosis, status: { ...status, reasons: [text] } };
    diagnosis = { ...diagnosis, message: text, ...(this.preemption ? { preemption: this.preemption } : {}) };
    return {
      ok: false,
      status: diagnosis.status,
      evaluatedNodes: this.evaluated,
      diagnosis,
      ...(nominatedNode ? { nominatedNode, ...(victims ? { victims } : {}) } : {}),
    };
  }

  private diagnosis(status: Status, scores: readonly NodeScoreRecord[], chosenNode?: string): Diagnosis {
    return {
      pod: this.pod,
      profile: this.profile,
      nodesTotal: this.nodesTotal,
      nodesEvaluated: this.evaluated,
      feasibleNodes: this.feasible,
      status,
      ...(chosenNode ? { chosenNode } : {}),
      rejections: this.rejections,
      filters: this.filters,
      scores,
      stages: this.stages,
    };
  }
}

/** Outcomes of shared (frozen) statuses by stage and plugin, made once: every Diagnosis a scheduler keeps records a dozen of them (budget: caches.ts). */
const sharedOutcomes = new WeakCache<Status, Map<string, StageOutcome>[]>();
const newOutcomes = (): Map<string, StageOutcome>[] => [];

function stageOutcome(stage: Stage, plugin: string, status: Status): StageOutcome {
  if (!Object.isFrozen(status)) return { stage, plugin, status };
  const byStage = sharedOutcomes.get(status, newOutcomes);
  const byPlugin = (byStage[STAGES.indexOf(stage)] ??= new Map());
  let outcome = byPlugin.get(plugin);
  if (!outcome) byPlugin.set(plugin, (outcome = Object.freeze({ stage, plugin, status })));
  return outcome;
}
