// The words of Schedule Now's confirmation and result. Free of `vscode` so that a test can read
// them: every file and field written is named, and a partial plan is said to be one.
import type { ScheduleWrite } from '../../protocol/requests';
import type { PlanView } from '../../protocol/webview';

export interface ConfirmationWords {
  readonly question: string;
  /** One line per object written, then the pods left out and why. */
  readonly detail: string;
  /** The dialog's button. */
  readonly action: string;
  /** What the result message says after writing. */
  readonly done: string;
}

/** Unplaced pods named in the dialog; the rest are counted. */
const UNPLACED_SHOWN = 5;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function confirmationWords(plan: PlanView, writes: readonly ScheduleWrite[], relative: (uri: string) => string): ConfirmationWords {
  const placed = plan.assignments.length;
  const total = placed + plan.unplaced.length;
  const files = [...new Set(writes.map((w) => relative(w.uri)))];
  const lines = writes.map((w) => `${relative(w.uri)}: ${w.created ? 'adds' : 'changes'} ${w.object}: ${w.fields.join('; ')}`);
  const partial = plan.unplaced.length > 0;
  if (partial) {
    lines.push('', `Not placed (${plan.unplaced.length} of ${total}):`);
    for (const u of plan.unplaced.slice(0, UNPLACED_SHOWN)) lines.push(`${u.pod}: ${u.message}`);
    if (plan.unplaced.length > UNPLACED_SHOWN) lines.push(`… and ${plan.unplaced.length - UNPLACED_SHOWN} more`);
  }
  return {
    question: partial
      ? `The plan of ${plan.podSet} leaves ${plan.unplaced.length} of ${plural(total, 'pod')} unplaced. Write this partial plan to ${files.join(' and ')}?`
      : `Schedule ${plan.podSet} now? ${plural(placed, 'pod')} placed; this writes ${files.join(' and ')}.`,
    detail: lines.join('\n'),
    action: partial ? 'Write Partial Plan' : 'Schedule',
    done: `${plan.podSet} scheduled: ${plural(placed, 'pod')} placed${partial ? `, ${plan.unplaced.length} left unplaced` : ''}, written to ${files.join(' and ')}.`,
  };
}
