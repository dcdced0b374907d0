// The lines a plan leaves in the Podplan output channel: what was planned, with which planner and
// profile, its bound when a solver proved one, and every pod left out with the stage, plugin and upstream message that stopped it
// (syntaxes/podplan-output.tmLanguage.json colours them). Free of `vscode` so that a test can
// read them. Placements are counted, not listed: a plan of thousands of pods stays a few lines.
import type { PlanBoundView, PlanView } from '../protocol/webview';

/** Unplaced pods listed one per line; the rest are counted. */
const UNPLACED_LISTED = 20;

export function planLogLines(plan: PlanView, action: 'preview' | 'schedule'): string[] {
  const history = plan.historyId !== undefined ? `, history #${plan.historyId}` : '';
  const lines = [
    `${action} pod set ${plan.namespace}/${plan.podSet}${plan.trigger ? ` (trigger ${plan.trigger})` : ''}: planner ${plan.planner}, profile ${plan.profile}${history}: ${plan.assignments.length} placed, ${plan.unplaced.length} not placed`,
  ];
  // As podplan plan prints it: how far from the best possible the solver proved the plan to be.
  // A preview is answered before its bound, whose line follows when it comes (boundLogLine).
  if (plan.bound) lines.push(boundLogLine(plan.bound));
  if (plan.historyError) lines.push(`  ${plan.historyError}`);
  for (const u of plan.unplaced.slice(0, UNPLACED_LISTED)) {
    const at = u.stage ? ` at ${u.stage}${u.plugin ? ` ${u.plugin}` : ''}` : '';
    lines.push(`  pod ${plan.namespace}/${u.pod} not placed${at}: ${u.message}`);
  }
  if (plan.unplaced.length > UNPLACED_LISTED) lines.push(`  … and ${plan.unplaced.length - UNPLACED_LISTED} more pods not placed`);
  return lines;
}

/** The bound's line; for a preview answered before it, logged when it comes. */
export function boundLogLine(bound: PlanBoundView | undefined): string {
  return bound ? `  bound (${bound.solver}): ${bound.text}` : '  no bound: the solver proved none';
}
