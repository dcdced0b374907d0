// The upstream FitError message ("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had
// untolerated taint(s). no new claims to deallocate, preemption: 0/5 nodes are available: …"), built
// from a Diagnosis in one place so the runtime and the explain module say the same thing.
import type { Diagnosis } from './diagnosis';
import { Code, isRejection, statusMessage } from './status';

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * As upstream FitError.Error(): when PreFilter rejected the pod, its message (every node carries the
 * same status, so counting them would repeat it); otherwise a histogram of the reasons of the
 * rejected nodes, "<count> <reason>" sorted as strings, joined with ", "; then what PostFilter said:
 * the reasons of its plugins joined with ", " and added without a period of its own (since 1.30 the
 * preemption part ends with its own), nothing when one of them succeeded (a nominated node).
 */
export function fitErrorMessage(diagnosis: Diagnosis): string {
  let message = `0/${diagnosis.nodesTotal} nodes are available:`;
  const status = diagnosis.status;
  if (status.stage === 'PreFilter' && isRejection(status)) {
    message += ` ${statusMessage(status)}.`;
  } else {
    const counts = new Map<string, number>();
    for (const rejection of diagnosis.rejections) {
      for (const reason of rejection.reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
    }
    const entries = [...counts].map(([reason, count]) => `${count} ${reason}`).sort();
    if (entries.length > 0) message += ` ${entries.join(', ')}.`;
  }
  const postFilter = diagnosis.stages.filter((s) => s.stage === 'PostFilter' && s.status.code !== Code.Skip);
  const reasons = postFilter.some((s) => s.status.code === Code.Success) ? [] : postFilter.flatMap((s) => s.status.reasons);
  if (reasons.length > 0) message += ` ${reasons.join(', ')}`;
  return message;
}
