// `podplan show <plan-id>`: one plan from the history, where each pod went and why the others
// could not be placed.
import type { ReasonCount } from '../../store/diagnoses';
import type { StoredAssignment, StoredPlan } from '../../store/types';
import { DB_HELP, formatTime, planCounts, planScope, preemptorOf, runPlanCommand } from '../plan-store';
import type { Command } from '../io';
import { heading, paintPlanStatus, placement, tablePaint, type Paint } from '../colour';
import { formatTable } from '../table';
import { outputHelp } from '../arguments';

const HELP = `Usage: podplan show <plan-id> [-o json|yaml] [--db file]

Prints a plan kept in the plan history (podplan history lists the ids): how and from what it was
made, where each pod was placed with its score and the devices its claims get (DRA), and for each
pod that could not be placed the message kube-scheduler would give and how many nodes rejected it
for each reason. A plan that preempts (podplan schedule, or a profile that lets plans preempt)
lists the running pods it evicts, each with its node and the pod it makes room for.

Options:
${outputHelp(['json', 'yaml'], 20, ['json'])}
                    the plan: summary, assignments (with devices { claim, request, driver, pool,
                    device, existing }) and unplaced pods, each with its reason histogram and
                    best scored nodes, and victims ({ pod, node, by })
${DB_HELP}
  -h, --help        this help

Exit codes: 0 shown, 2 no such plan, bad options or a history that cannot be opened.

Example:
  podplan show 12
`;

export const show: Command = {
  name: 'show',
  summary: 'show a plan from the history: placements, failures and their reasons',
  help: HELP,
  run: (args, io) =>
    runPlanCommand('show', args, io, {
      ids: 1,
      options: {},
      formats: ['json', 'yaml'],
      query: (store, [id]) => store.getPlan(id!),
      print: (plan, _values, paint) => report(plan, paint),
    }),
};

function report({ summary: s, assignments, unplaced, victims }: StoredPlan, p: Paint): string {
  const lines = [
    `${p.bold(`Plan ${s.id}`)}: ${planScope(s)}, ${paintPlanStatus(p, s.status)}`,
    `  planner ${s.planner}, profile ${s.profile} (${s.profileHash})${s.trigger !== undefined ? `, trigger ${s.trigger}` : ''}`,
    `  made ${formatTime(s.createdAt)} from ${s.source.kind} ${s.source.name} (run ${s.runId}), snapshot ${s.snapshotHash}`,
    `  ${planCounts(s)}`,
  ];
  // As podplan schedule and plan show a preemptor: its node with the pods it evicts.
  const evicts = (pod: string) => victims.filter((v) => v.by === pod).map((v) => v.pod);
  const nodeOf = (a: StoredAssignment) => (evicts(a.pod).length > 0 ? `${a.node} (preempts ${evicts(a.pod).join(', ')})` : a.node);
  // A name made up for a workload's replica is marked *, as podplan schedule and plan mark it.
  const madeUp = new Set(s.madeUp ?? []);
  const name = (pod: string) => (madeUp.has(pod) ? `${pod}*` : pod);
  if (assignments.length > 0)
    lines.push(
      '',
      formatTable(
        ['POD', 'NODE', 'SCORE'],
        assignments.map((a) => [name(a.pod), nodeOf(a), scoreOf(a)]),
        tablePaint(p, (text, _row, column) => (column === 1 ? placement(p, true, text) : undefined)),
      ),
    );
  const withDevices = assignments.filter((a) => (a.devices ?? []).length > 0);
  if (withDevices.length > 0) {
    lines.push('', 'Devices (DRA: claim, request: driver/pool/device):');
    for (const a of withDevices) {
      lines.push(`  ${name(a.pod)} on ${a.node}:`);
      for (const d of a.devices ?? [])
        lines.push(`    ${d.claim}, ${d.request}: ${d.driver}/${d.pool}/${d.device}${d.existing ? ' (allocated before the plan)' : ''}`);
    }
  }
  if (madeUp.size > 0) lines.push('', "* a name made up for a workload's replica that had no pod in the files: no real pod has it");
  if (victims.length > 0) {
    lines.push('', heading(p, 'Preempted:'));
    for (const v of victims) lines.push(`  ${v.pod} on ${v.node}: preempted by ${preemptorOf(s, v.by)}`);
  }
  if (unplaced.length > 0) {
    lines.push('', heading(p, 'Not placed:'));
    for (const u of unplaced) {
      lines.push(`  ${name(u.pod)}: ${u.message}`);
      lines.push(...histogram(u.diagnosis?.reasons ?? [], '      '));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The chosen node's total when it is among the scores kept; '-' when it is not, '' with no diagnosis. */
function scoreOf(a: StoredAssignment): string {
  if (!a.diagnosis) return '';
  const record = a.diagnosis.topScores.find((n) => n.node === a.node);
  return record ? String(Math.round(record.total)) : '-';
}

/** One line per reason: how many nodes, then the reason, counts aligned. */
export function histogram(reasons: readonly ReasonCount[], indent: string): string[] {
  const width = Math.max(0, ...reasons.map((r) => String(r.count).length));
  return reasons.map((r) => `${indent}${String(r.count).padStart(width)}  ${r.reason}`);
}
