// The upstream FitError message ("0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had
// untolerated taint(s). preemption: 0/5 nodes are available: …"), built
// from a Diagnosis in one place so the runtime and the explain module say the same thing.
import type { Diagnosis } from './diagnosis';
import { Code, isRejection, statusMessage } from './status';

export const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/**
 * " <count> <reason>, …." over the nodes' reasons (one list per node), sorted as strings; `absent`
 * more nodes counted under one more reason (upstream's status for nodes absent from the map).
 * Empty when there is no reason.
 */
export function histogram(
  reasonsPerNode: Iterable<readonly string[]>,
  absent?: { readonly count: number; readonly reason: string },
): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsPerNode) for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  if (absent && absent.count > 0) counts.set(absent.reason, (counts.get(absent.reason) ?? 0) + absent.count);
  const entries = [...counts].map(([reason, count]) => `${count} ${reason}`).sort();
  return entries.length > 0 ? ` ${entries.join(', ')}.` : '';
}

/**
 * As upstream FitError.Error(): when PreFilter rejected the pod, its message (every node carries the
 * same status, so counting them would repeat it); otherwise a histogram of the reasons of the
 * rejected nodes, "<count> <reason>" sorted as strings, joined with ", "; then what PostFilter said
 * (postFilterReasons), joined with ", " and added without a period of its own (since 1.30 the
 * preemption part ends with its own; since 1.37 a preemption that nominates a node says so).
 */
export function fitErrorMessage(diagnosis: Diagnosis): string {
  const reasons = fitErrorReasons(diagnosis);
  return `0/${diagnosis.nodesTotal} nodes are available:${reasons ? ` ${reasons}` : ''}`;
}

/** The message after "0/N nodes are available: ", for a text that names the cluster already (empty when there is no reason). */
export function fitErrorReasons(diagnosis: Diagnosis): string {
  const parts: string[] = [];
  const status = diagnosis.status;
  if (status.stage === 'PreFilter' && isRejection(status)) parts.push(`${statusMessage(status)}.`);
  else {
    const counted = histogram(diagnosis.rejections.map((r) => r.reasons));
    if (counted) parts.push(counted.slice(1));
  }
  const reasons = postFilterReasons(diagnosis);
  if (reasons.length > 0) parts.push(reasons.join(', '));
  return parts.join(' ');
}

/**
 * The PostFilter part, as upstream's RunPostFilterPlugins builds its status: the reasons of the
 * plugins that left the pod unschedulable, in order, until one succeeds (a nominated node), is
 * final (UnschedulableAndUnresolvable) or fails (Error): that plugin's words alone then.
 */
function postFilterReasons(diagnosis: Diagnosis): readonly string[] {
  const reasons: string[] = [];
  for (const { stage, status } of diagnosis.stages) {
    if (stage !== 'PostFilter' || status.code === Code.Skip) continue;
    if (status.code !== Code.Unschedulable) return status.reasons;
    reasons.push(...status.reasons);
  }
  return reasons;
}
