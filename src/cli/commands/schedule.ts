// `podplan schedule`: schedules the pending pods of a snapshot with the upstream plugins and prints
// where each went and, for each that could not be placed, kube-scheduler's message.
import { parseArgs } from 'node:util';
import { explain } from '../../engine/explain/explain';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { simulate, type SimulationResult } from '../../engine/scheduler/simulate';
import type { Profile } from '../../engine/framework/profile';
import { readProfile, readWorkspace } from '../input';
import { EXIT, type Command } from '../io';
import { formatTable } from '../table';

const HELP = `Usage: podplan schedule <paths…> [--profile file] [--seed n] [--json]

Schedules every pending pod (no spec.nodeName) found in the YAML files and directories given, on
the nodes found there, with kube-scheduler's default plugins and scoring. Pods already bound count
as running on their node. Deployments, ReplicaSets, StatefulSets, Jobs and DaemonSets become pods.

Options:
  --profile <file>  a KubeSchedulerConfiguration; its first profile is merged onto the default one
  --seed <n>        seed for sampling and tie-breaking (default 1): the same seed, the same result
  --json            print the outcomes with their full diagnoses as JSON
  -h, --help        this help

Prints a table (pod, node, score) and, for each pod that could not be placed, the reason in
kube-scheduler's words ("0/5 nodes are available: …"). Progress goes to stderr on long runs.

Exit codes: 0 every pod placed, 1 some pods could not be placed, 2 bad input (located errors).

Example:
  podplan schedule examples/cluster
`;

/** Progress lines at most this often, on long runs only. */
const PROGRESS_EVERY_MS = 500;
const LONG_RUN_PODS = 500;

export const schedule: Command = {
  name: 'schedule',
  summary: 'schedule the pending pods of a snapshot and explain the failures',
  help: HELP,
  async run(args, io) {
    let parsed;
    try {
      parsed = parseArgs({ args: [...args], allowPositionals: true, options: { profile: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' } } });
    } catch (error) {
      io.stderr(`podplan schedule: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT.badInput;
    }
    const { positionals, values } = parsed;
    if (positionals.length === 0) {
      io.stderr(`podplan schedule: no paths given\n\n${HELP}`);
      return EXIT.badInput;
    }
    const seed = values.seed === undefined ? 1 : Number(values.seed);
    if (!Number.isInteger(seed)) {
      io.stderr(`podplan schedule: --seed must be a whole number, not "${values.seed}"\n`);
      return EXIT.badInput;
    }
    const workspace = await readWorkspace(positionals, io);
    const profileInput = values.profile ? await readProfile(values.profile, io) : undefined;
    const warnings = [...workspace.warnings, ...(profileInput?.warnings ?? [])];
    const errors = [...workspace.errors, ...(profileInput?.errors ?? [])];
    for (const w of warnings) io.stderr(`${w}\n`);
    if (errors.length > 0 || !workspace.value) {
      for (const e of errors) io.stderr(`${e}\n`);
      return EXIT.badInput;
    }
    const profile: Profile | undefined = profileInput?.value?.profile;
    const started = io.clock.now();
    let lastProgress = started;
    const result = await simulate(workspace.value.cluster, {
      ...(profile ? { profile } : {}),
      seed,
      onCycle: (_outcome, done, total) => {
        const now = io.clock.now();
        if (total >= LONG_RUN_PODS && now - lastProgress >= PROGRESS_EVERY_MS) {
          lastProgress = now;
          io.stderr(`scheduling: ${done} cycles, ${total} pods\n`);
        }
      },
    });
    if (!result.ok) {
      for (const e of result.error) io.stderr(`${profileInput?.value ? profileInput.value.locate(e.path, e.message) : e.message}\n`);
      return EXIT.badInput;
    }
    const outcome = result.value;
    if (values.json) io.stdout(`${JSON.stringify(toJson(outcome), null, 2)}\n`);
    else io.stdout(report(outcome));
    const unplaced = outcome.outcomes.some((o) => !o.node) || outcome.rejected.length > 0 || outcome.waiting.length > 0;
    return unplaced ? EXIT.unplaced : EXIT.ok;
  },
};

function scoreOf(o: ScheduleOutcome): string {
  if (!o.node) return '';
  // A pod with a single feasible node is placed without scoring, as upstream does.
  const record = o.diagnosis.scores.find((s) => s.node === o.node);
  return record ? String(Math.round(record.total)) : '-';
}

function report(result: SimulationResult): string {
  const lines: string[] = [];
  const placed = result.outcomes.filter((o) => o.node);
  const failed = result.outcomes.filter((o) => !o.node);
  if (result.outcomes.length > 0) {
    lines.push(formatTable(['POD', 'NODE', 'SCORE'], result.outcomes.map((o) => [o.pod, o.node ?? '<none>', scoreOf(o)])));
  }
  lines.push('');
  lines.push(`${placed.length} of ${result.outcomes.length + result.waiting.length + result.rejected.length} pending pods placed.`);
  if (failed.length > 0) {
    lines.push('', 'Not placed:');
    for (const o of failed) lines.push(`  ${o.pod}: ${explain(o.diagnosis).message}`);
  }
  for (const w of result.waiting) lines.push(`  ${w.pod}: ${w.reason}`);
  for (const r of result.rejected) lines.push(`  ${r.pod}: ${r.error}`);
  if (result.otherScheduler.length > 0) {
    lines.push('', 'Left to other schedulers:');
    for (const o of result.otherScheduler) lines.push(`  ${o.pod}: schedulerName ${o.schedulerName}`);
  }
  for (const i of result.ignored) lines.push(`warning: ${i.pod} ignored: ${i.reason}`);
  return `${lines.join('\n')}\n`;
}

function toJson(result: SimulationResult) {
  return {
    outcomes: result.outcomes.map((o) => ({ pod: o.pod, node: o.node ?? null, attempts: o.attempts, message: explain(o.diagnosis).message, diagnosis: o.diagnosis })),
    waiting: result.waiting,
    rejected: result.rejected,
    otherScheduler: result.otherScheduler,
    ignored: result.ignored,
  };
}
