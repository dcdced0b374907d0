// The words of Apply Plan's confirmation and of the scheduler's status. Free of `vscode` so that a
// test can read them: the context, every object and field written is named.
import type { ApplyPlanResult, SchedulerStatus, SourceView } from '../../protocol/requests';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function applyWords(result: ApplyPlanResult): { question: string; detail: string; action: string; done: string } {
  const { plan, writes, context } = result;
  const lines = writes.map((w) => `${w.created ? 'creates' : 'changes'} ${w.object}: ${w.fields.join('; ')}`);
  if (plan.unplaced.length > 0) lines.push('', `Not placed: ${plan.unplaced.map((u) => u.pod).join(', ')}`);
  return {
    question: `Apply the plan of ${plan.podSet} to context ${context}? ${plural(plan.assignments.length, 'pod')} placed; this writes ${plural(writes.length, 'object')} to the cluster.`,
    detail: lines.join('\n'),
    action: 'Apply to Cluster',
    done: `the plan of ${plan.podSet} was applied to context ${context} (${plural(writes.length, 'object')} written).`,
  };
}

export function schedulerWords(status: SchedulerStatus): string {
  const figures = `${plural(status.bound, 'pod')} bound, ${status.pending} pending, ${status.unplaced} not placed${status.errors.length > 0 ? `, ${plural(status.errors.length, 'error')}` : ''}`;
  return status.running ? `scheduler running on ${status.context ?? '?'}: ${figures}` : `scheduler stopped: ${figures}`;
}

/** The status bar's text and tooltip for the source and the scheduler. */
export function sourceStatusWords(source: SourceView, status: SchedulerStatus | undefined): { text: string; tooltip: string } {
  const running = status?.running === true;
  const where = source.kind === 'cluster' ? `$(cloud) ${source.name}` : '$(folder) Workspace files';
  return {
    text: `${where}${running ? ` $(sync~spin) ${status.bound} bound` : ''}`,
    tooltip: `Podplan plans from ${source.kind === 'cluster' ? `kube context ${source.name}${source.server ? ` (${source.server})` : ''}` : 'the workspace files'}. Click to switch.${status ? `\n${schedulerWords(status)}` : ''}${status?.errors.length ? `\n${status.errors.slice(-3).join('\n')}` : ''}`,
  };
}
