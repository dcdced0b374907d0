// `podplan diff <a> <b>`: what changed from one plan in the history to another, pod by pod.
import type { PlanDiff, PlanSummary } from '../../store/types';
import { DB_HELP, planCounts, planScope, preemptorOf, runPlanCommand } from '../plan-store';
import type { Command } from '../io';
import { histogram } from './show';
import { outputHelp } from '../arguments';

const HELP = `Usage: podplan diff <plan-a> <plan-b> [-o json|yaml] [--db file]

Compares two plans of the plan history (usually two plans of one pod set): which pods moved to
another node, which became placeable and which could no longer be placed, and why; and which
running pods one plan evicts and the other does not (plans that preempt).

Options:
${outputHelp(['json', 'yaml'], 20, ['json'])}
                    the difference
${DB_HELP}
  -h, --help        this help

Exit codes: 0 compared (whatever the difference), 2 no such plan, bad options or a history that
cannot be opened.

Example:
  podplan diff 11 12
`;

export const diff: Command = {
  name: 'diff',
  summary: 'compare two plans: pods moved, newly placed, newly unplaced and why',
  help: HELP,
  run: (args, io) =>
    runPlanCommand('diff', args, io, {
      ids: 2,
      options: {},
      formats: ['json', 'yaml'],
      query: (store, [a, b]) => store.diffPlans(a!, b!),
      print: (d) => report(d),
    }),
};

const described = (p: PlanSummary): string => `plan ${p.id} (${planScope(p)}: ${planCounts(p)})`;

function report(d: PlanDiff): string {
  const lines = [`From ${described(d.from)}`, `to   ${described(d.to)}`];
  const section = <T>(title: string, items: readonly T[], line: (item: T) => string[]): void => {
    if (items.length === 0) return;
    lines.push('', `${title} (${items.length}):`);
    for (const item of items) lines.push(...line(item));
  };
  section('Moved', d.moved, (m) => [`  ${m.pod}: ${m.from} → ${m.to}`]);
  section('Newly placed', d.becamePlaced, (p) => [`  ${p.pod}: on ${p.node}, was: ${p.was}`]);
  section('Newly unplaced', d.becameUnplaced, (u) => [`  ${u.pod}: was on ${u.was}; ${u.message}`, ...histogram(u.reasons, '      ')]);
  const where = (p: { node?: string; message?: string }): string =>
    p.node !== undefined ? `on ${p.node}` : `not placed: ${p.message ?? ''}`;
  section(`Only in plan ${d.to.id}`, d.added, (p) => [`  ${p.pod}: ${where(p)}`]);
  section(`Only in plan ${d.from.id}`, d.removed, (p) => [`  ${p.pod}: ${where(p)}`]);
  section(`Evicted only by plan ${d.to.id}`, d.newlyEvicted, (v) => [`  ${v.pod} on ${v.node}: preempted by ${preemptorOf(d.to, v.by)}`]);
  section(`Evicted only by plan ${d.from.id}`, d.noLongerEvicted, (v) => [
    `  ${v.pod} on ${v.node}: preempted by ${preemptorOf(d.from, v.by)}`,
  ]);
  lines.push(
    '',
    `Unchanged: ${d.unchanged} on the same node, ${d.stillUnplaced} still not placed${d.stillEvicted > 0 ? `, ${d.stillEvicted} evicted by both` : ''}.`,
  );
  return `${lines.join('\n')}\n`;
}
