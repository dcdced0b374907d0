// The upstream FitError message ("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had
// untolerated taint(s). no new claims to deallocate, preemption: 0/5 nodes are available: …"), built
// from a Diagnosis in one place so the runtime and the explain module say the same thing.
import type { Diagnosis } from './diagnosis';
import { Code, isRejection, statusMessage } from './status';

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * " <count> <reason>, …." over the nodes' reasons (one list per node), sorted as strings; `absent`
 * more nodes counted under one more reason (upstream's status for nodes absent from the map).
 * Empty when there is no reason.
 */
export function histogram(reasonsPerNode: Iterable<readonly string[]>, absent?: { readonly count: number; readonly reason: string }): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsPerNode) for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  if (absent && absent.count > 0) counts.set(absent.reason, (counts.get(absent.reason) ?? 0) + absent.count);
  const entries = [...counts].map(([reason, count]) => `${count} ${reason}`).sort();
  return entries.length > 0 ? ` ${entries.join(', ')}.` : '';
}

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
    message += histogram(diagnosis.rejections.map((r) => r.reasons));
  }
  const postFilter = diagnosis.stages.filter((s) => s.stage === 'PostFilter' && s.status.code !== Code.Skip);
  const reasons = postFilter.some((s) => s.status.code === Code.Success) ? [] : postFilter.flatMap((s) => s.status.reasons);
  if (reasons.length > 0) message += ` ${reasons.join(', ')}`;
  return message;
}
