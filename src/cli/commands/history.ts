// `podplan history`: the plans kept in the history, newest first, a page at a time.
import type { PlanSummary } from '../../store/types';
import { stringify } from 'yaml';
import { OUTPUT_OPTION, outputFormat, outputHelp, parseCommand } from '../arguments';
import { DB_HELP, DB_OPTION, formatTime, orReport, positiveInteger, readHistory } from '../plan-store';
import { EXIT, type CliIO, type Command } from '../io';
import { paint, paintPlanStatus, tablePaint, type Paint } from '../colour';
import { formatTable } from '../table';

const HELP = `Usage: podplan history [--pod-set name] [-n ns] [--trigger name] [--limit n] [--before id] [-o wide|json|yaml] [--db file]

Lists the plans kept in the plan history, newest first: every plan Podplan made (previews, trigger
firings, live plans) and every podplan schedule run (pod set "*", planner "schedule").

Options:
  --pod-set <name>  only this pod set's plans
  -n, --namespace <ns>
                    only plans in this namespace
  --trigger <name>  only plans this ScheduleTrigger asked for
  --limit <n>       at most n plans (default 20)
  --before <id>     only plans older than this id: the next page, as the last line suggests
${outputHelp(['json', 'yaml', 'wide'], 20, ['json'])}
                    json, yaml: the plans as { plans, next }; wide: the table with each plan's
                    objective, solver bound, profile, snapshot hash and count of made-up names
${DB_HELP}
  -h, --help        this help

Exit codes: 0 listed (possibly none), 2 bad options or a history that cannot be opened.

Example:
  podplan history --pod-set web --limit 5
`;

const DEFAULT_LIMIT = 20;

export const history: Command = {
  name: 'history',
  summary: 'list the plans kept in the plan history, newest first',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommand(
      'history',
      args,
      {
        ...DB_OPTION,
        'pod-set': { type: 'string' },
        namespace: { type: 'string' },
        trigger: { type: 'string' },
        limit: { type: 'string' },
        before: { type: 'string' },
        json: { type: 'boolean' },
        ...OUTPUT_OPTION,
      },
      0,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { values } = parsed;
    const limit = wholeNumber('--limit', values.limit, DEFAULT_LIMIT, io);
    const before = wholeNumber('--before', values.before, undefined, io);
    if (limit === null || before === null) return EXIT.badInput;
    const format = outputFormat('history', values, ['text', 'json', 'yaml', 'wide'], io);
    if (!format) return EXIT.badInput;
    return readHistory('history', values.db, io, (store) => {
      const page = orReport(
        'history',
        store.history({
          podSet: values['pod-set'],
          namespace: values.namespace,
          trigger: values.trigger,
          limit,
          ...(before !== undefined ? { before } : {}),
        }),
        io,
      );
      if (!page) return EXIT.badInput;
      const value = { plans: page.items, ...(page.next !== undefined ? { next: page.next } : {}) };
      if (format === 'json') io.stdout(`${JSON.stringify(value, null, 2)}\n`);
      else if (format === 'yaml') io.stdout(stringify(value));
      else io.stdout(listing(page.items, page.next, args, format === 'wide', paint(io.color)));
      return EXIT.ok;
    });
  },
};

/** A positive whole number option, `fallback` when absent, null after printing why it is not one. */
function wholeNumber(option: string, text: string | undefined, fallback: number | undefined, io: CliIO): number | undefined | null {
  if (text === undefined) return fallback;
  const n = positiveInteger(text);
  if (n !== undefined) return n;
  io.stderr(`podplan history: ${option} must be a positive whole number, not "${text}"\n`);
  return null;
}

const HEADER = ['ID', 'CREATED', 'POD SET', 'NAMESPACE', 'TRIGGER', 'PLANNER', 'STATUS', 'PLACED', 'UNPLACED', 'EVICTED', 'SOURCE'];
const WIDE_HEADER = [...HEADER, 'OBJECTIVE', 'BOUND', 'PROFILE', 'SNAPSHOT', 'MADE UP'];
const STATUS_COLUMN = HEADER.indexOf('STATUS');
const UNPLACED_COLUMN = HEADER.indexOf('UNPLACED');

/** The solver's bound in a word: optimal, the gap, or - without one. */
function boundColumn(p: PlanSummary): string {
  if (!p.bound) return '-';
  return p.bound.optimal ? 'optimal' : `gap ${(p.bound.gap * 100).toFixed(1)}%`;
}

function listing(plans: readonly PlanSummary[], next: number | undefined, args: readonly string[], wide: boolean, paint: Paint): string {
  if (plans.length === 0) return 'No plans in the history match.\n';
  const rows = plans.map((p) => [
    String(p.id),
    formatTime(p.createdAt),
    p.podSet,
    p.namespace,
    p.trigger ?? '-',
    p.planner,
    p.status,
    String(p.placed),
    String(p.unplaced),
    String(p.evicted),
    `${p.source.kind} ${p.source.name}`,
    ...(wide ? [p.objective ?? '-', boundColumn(p), p.profile, p.snapshotHash || '-', String(p.madeUp?.length ?? 0)] : []),
  ]);
  const cell = (text: string, row: number, column: number) => {
    if (column === STATUS_COLUMN) return paintPlanStatus(paint, text);
    if (column === UNPLACED_COLUMN && (plans[row]?.unplaced ?? 0) > 0) return paint.red(text);
    return undefined;
  };
  const lines = [formatTable(wide ? WIDE_HEADER : HEADER, rows, tablePaint(paint, cell))];
  if (next !== undefined) lines.push('', `More: podplan history ${[...withoutBefore(args), '--before', String(next)].join(' ')}`);
  return `${lines.join('\n')}\n`;
}

/** The arguments given, less a --before (and its value) from the page shown. */
function withoutBefore(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--before') i++;
    else if (!arg.startsWith('--before=')) kept.push(arg);
  }
  return kept;
}
