// What a user reads about one scheduling decision, built from the Diagnosis only: the upstream
// message ("0/5 nodes are available: …", the same text kube-scheduler puts in the pod's event) and a
// structured form, reason → nodes, for views that let a user see which nodes said what.
import type { Diagnosis, NodeScoreRecord } from '../framework/diagnosis';
import { fitErrorMessage } from '../framework/fit-error';
import type { Code, Stage } from '../framework/status';

export interface ReasonGroup {
  readonly reason: string;
  readonly plugin: string;
  readonly stage: Stage;
  readonly code: Code;
  /** The nodes rejected for this reason, in the order the cycle met them. */
  readonly nodes: readonly string[];
}

export interface Explanation {
  readonly pod: string;
  readonly placed: boolean;
  readonly node?: string;
  /** The upstream-format message when not placed; "placed on <node>" otherwise. */
  readonly message: string;
  /** Most nodes first; ties by reason text, as the message sorts them. */
  readonly reasons: readonly ReasonGroup[];
  /** The best scored nodes with their per-plugin breakdown (as many as the Diagnosis kept). */
  readonly topScores: readonly NodeScoreRecord[];
}

export function explain(diagnosis: Diagnosis, topScores = 5): Explanation {
  const groups = new Map<string, { reason: string; plugin: string; stage: Stage; code: Code; nodes: string[] }>();
  for (const rejection of diagnosis.rejections) {
    for (const reason of rejection.reasons) {
      const key = `${rejection.plugin}\u0000${reason}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { reason, plugin: rejection.plugin, stage: rejection.stage, code: rejection.code, nodes: [] }));
      group.nodes.push(rejection.node);
    }
  }
  const reasons = [...groups.values()].sort((a, b) => b.nodes.length - a.nodes.length || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0));
  const node = diagnosis.chosenNode;
  return {
    pod: diagnosis.pod,
    placed: node !== undefined,
    ...(node !== undefined ? { node } : {}),
    message: node !== undefined ? `placed on ${node}` : (diagnosis.message ?? fitErrorMessage(diagnosis)),
    reasons,
    topScores: diagnosis.scores.slice(0, topScores),
  };
}
