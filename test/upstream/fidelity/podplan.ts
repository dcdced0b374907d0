// Podplan's side of a differential case: the objects read as `podplan schedule` reads files, then
// scheduled as kube-scheduler would (preemption deletes the victims and the preemptor waits for
// them), recording every cycle's Diagnosis and the decision the oracle must follow.
import { simulate } from '../../../src/engine/scheduler/simulate';
import type { Diagnosis } from '../../../src/engine/framework/diagnosis';
import { formatError, readSnapshot } from '../../../src/manifests';
import type { K8sObject } from './generate';

/** What Podplan did in one cycle, as the oracle applies it. */
export interface TraceStep {
  readonly pod: string;
  readonly node?: string;
  readonly nominated?: string;
  readonly victims?: readonly string[];
}

export interface PodplanCycle {
  readonly step: TraceStep;
  readonly diagnosis: Diagnosis;
}

export interface PodplanRun {
  readonly cycles: readonly PodplanCycle[];
  /** What Podplan's reader or admission refused: a valid object refused is a divergence too. */
  readonly problems: readonly string[];
}

/** The objects as one multi-document file (JSON is YAML). */
export function caseText(objects: readonly K8sObject[]): string {
  return objects.map((o) => JSON.stringify(o)).join('\n---\n') + '\n';
}

export async function runPodplan(id: string, objects: readonly K8sObject[]): Promise<PodplanRun> {
  const workspace = readSnapshot([{ name: `${id}.yaml`, text: caseText(objects) }]);
  const problems = workspace.errors.filter((e) => e.severity === 'error').map((e) => formatError(e));
  const cycles: PodplanCycle[] = [];
  const result = await simulate(workspace.cluster, {
    seed: 1,
    // Now, as the oracle's framework reads it (a claim's binding conditions time out against it).
    startTime: Date.now(),
    preemption: 'as-kube-scheduler',
    onCycle: (outcome) => {
      const step: TraceStep = outcome.node
        ? { pod: outcome.pod, node: outcome.node }
        : outcome.nominatedNode && outcome.victims
          ? { pod: outcome.pod, nominated: outcome.nominatedNode, victims: [...outcome.victims].sort() }
          : { pod: outcome.pod };
      cycles.push({ step, diagnosis: outcome.diagnosis });
    },
  });
  if (!result.ok) return { cycles, problems: [...problems, ...result.error.map((e) => e.message)] };
  for (const r of result.value.rejected) problems.push(`${r.pod}: ${r.error}`);
  for (const r of result.value.ignored) problems.push(`${r.pod}: ${r.reason}`);
  return { cycles, problems };
}
