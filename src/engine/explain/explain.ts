// What a user reads about one scheduling decision, built from the Diagnosis only: the upstream
// message ("0/5 nodes are available: …", the same text kube-scheduler puts in the pod's event) and a
// structured form, reason → nodes, for views that let a user see which nodes said what.
import type { Diagnosis, NodeScoreRecord } from '../framework/diagnosis';
import { fitErrorMessage } from '../framework/fit-error';
import type { LostOn, VictimRecord } from '../framework/preemption/record';
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
  /** When preemption was tried: what it would evict where, and why the other nodes lost. */
  readonly preemption?: PreemptionExplanation;
}

export interface PreemptionExplanation {
  /** The node preemption chose; unset when it could not help. */
  readonly node?: string;
  /** The pods evicted (or, in a plan, that would be) from that node, namespace/name. */
  readonly victims: readonly string[];
  /** Set when nothing was evicted because the cycle only reports (a plan). */
  readonly reportOnly: boolean;
  /** One line per candidate node: its victims and, for those not chosen, what they lost on. */
  readonly candidates: readonly {
    readonly node: string;
    readonly victims: readonly VictimRecord[];
    readonly pdbViolations: number;
    readonly lostOn?: LostOn;
    readonly summary: string;
  }[];
  /** Nodes where no eviction would help, with why. */
  readonly failures: readonly { readonly node: string; readonly reasons: readonly string[] }[];
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
  const reasons = [...groups.values()].sort(
    (a, b) => b.nodes.length - a.nodes.length || (a.reason < b.reason ? -1 : a.reason > b.reason ? 1 : 0),
  );
  const node = diagnosis.chosenNode;
  return {
    pod: diagnosis.pod,
    placed: node !== undefined,
    ...(node !== undefined ? { node } : {}),
    message: node !== undefined ? `placed on ${node}` : (diagnosis.message ?? fitErrorMessage(diagnosis)),
    reasons,
    topScores: diagnosis.scores.slice(0, topScores),
    ...(diagnosis.preemption ? { preemption: explainPreemption(diagnosis.preemption) } : {}),
  };
}

function explainPreemption(record: NonNullable<Diagnosis['preemption']>): PreemptionExplanation {
  const chosen = record.candidates.find((c) => c.node === record.node);
  return {
    ...(record.node ? { node: record.node } : {}),
    victims: chosen?.victims.map((v) => v.pod) ?? [],
    reportOnly: record.reportOnly ?? false,
    candidates: record.candidates.map((c) => {
      const victims = c.victims
        .map((v) => `${v.pod} (priority ${v.priority}${v.violatesPdb ? ', breaks a PodDisruptionBudget' : ''})`)
        .join(', ');
      const verdict = c.lostOn
        ? `lost to ${record.node ?? 'the chosen node'}, which ${c.lostOn === 'earlier in candidate order' ? 'came earlier in candidate order (a tie on every criterion)' : `has ${c.lostOn}`}`
        : 'chosen';
      return {
        node: c.node,
        victims: c.victims,
        pdbViolations: c.pdbViolations,
        ...(c.lostOn ? { lostOn: c.lostOn } : {}),
        summary: `${c.node}: evict ${victims}: ${verdict}`,
      };
    }),
    failures: record.failures,
  };
}
