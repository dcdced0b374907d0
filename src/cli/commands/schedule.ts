// `podplan schedule`: schedules the pending pods of a snapshot with the upstream plugins and prints
// where each went and, for each that could not be placed, kube-scheduler's message.
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { ClusterSnapshot } from '../../engine/api/types';
import { explain } from '../../engine/explain/explain';
import type { Profile } from '../../engine/framework/profile';
import type { Plan } from '../../engine/planner/plan';
import { DEFAULT_PROFILE } from '../../engine/plugins/defaults';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { simulate, type SimulationResult } from '../../engine/scheduler/simulate';
import { ALL_PENDING_PODS, type PlanStore } from '../../store/store';
import { databasePath, DB_HELP, DB_OPTION, openHistory, parseCommand } from '../history';
import { readProfile, readWorkspace } from '../input';
import { EXIT, type CliIO, type Command } from '../io';
import { formatTable } from '../table';

const HELP = `Usage: podplan schedule <paths…> [--profile file] [--seed n] [--json] [--db file] [--no-history]

Schedules every pending pod (no spec.nodeName) found in the YAML files and directories given, on
the nodes found there, with kube-scheduler's default plugins and scoring. Pods already bound count
as running on their node. Deployments, ReplicaSets, StatefulSets, Jobs and DaemonSets become pods.

Options:
  --profile <file>  a KubeSchedulerConfiguration; its first profile is merged onto the default one
  --seed <n>        seed for sampling and tie-breaking (default 1): the same seed, the same result
  --json            print the outcomes with their full diagnoses as JSON
${DB_HELP}
  --no-history      do not record the run in the plan history
  -h, --help        this help

Prints a table (pod, node, score) and, for each pod that could not be placed, the reason in
kube-scheduler's words ("0/5 nodes are available: …"). A pod placed by preemption (DefaultPreemption:
PriorityClasses and spec.priority, preemptionPolicy, PodDisruptionBudgets in the snapshot) shows
the pods evicted for it ("node-b1 (preempts data/batch-3, data/batch-4)"), and those are listed as
preempted; --json gives each outcome its "node" and "victims". Progress goes to stderr on long runs.

The run is recorded in the plan history as a plan of pod set "*" in namespace "*" (every pending
pod, named namespace/name, with its diagnosis; a placed pod's cut to its 10 best scored nodes),
which podplan show and podplan diff read. A history that cannot be opened or written is reported
on stderr and the run goes on without it.

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
    const parsed = parseCommand(
      'schedule',
      args,
      { ...DB_OPTION, profile: { type: 'string' }, seed: { type: 'string' }, json: { type: 'boolean' }, 'no-history': { type: 'boolean' } },
      Infinity,
      io,
    );
    if (!parsed) return EXIT.badInput;
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
    const history = values['no-history'] ? undefined : await Recording.start(positionals, values.db, io);
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
      history?.failed(result.error[0]?.message ?? 'the profile was refused');
      return EXIT.badInput;
    }
    const outcome = result.value;
    if (values.json) io.stdout(`${JSON.stringify(toJson(outcome), null, 2)}\n`);
    else io.stdout(report(outcome));
    history?.finished(outcome, workspace.value.cluster, profile);
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

/** The node, and the pods evicted from it first when the pod got there by preemption. */
function nodeColumn(o: ScheduleOutcome): string {
  if (!o.node) return o.nominatedNode ? `<none> (nominated ${o.nominatedNode})` : '<none>';
  return o.victims?.length ? `${o.node} (preempts ${o.victims.join(', ')})` : o.node;
}

function report(result: SimulationResult): string {
  const lines: string[] = [];
  const placed = result.outcomes.filter((o) => o.node);
  const failed = result.outcomes.filter((o) => !o.node);
  if (result.outcomes.length > 0) {
    lines.push(formatTable(['POD', 'NODE', 'SCORE'], result.outcomes.map((o) => [o.pod, nodeColumn(o), scoreOf(o)])));
  }
  lines.push('');
  lines.push(`${placed.length} of ${result.outcomes.length + result.waiting.length + result.rejected.length} pending pods placed.`);
  if (result.preempted.length > 0) {
    lines.push('', 'Preempted (evicted to make room for a higher-priority pod):');
    for (const p of result.preempted) lines.push(`  ${p.pod} on ${p.node}: preempted by ${p.by}`);
  }
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
    outcomes: result.outcomes.map((o) => ({
      pod: o.pod,
      node: o.node ?? null,
      ...(o.victims ? { victims: o.victims } : {}),
      attempts: o.attempts,
      message: explain(o.diagnosis).message,
      diagnosis: o.diagnosis,
    })),
    preempted: result.preempted,
    waiting: result.waiting,
    rejected: result.rejected,
    otherScheduler: result.otherScheduler,
    ignored: result.ignored,
  };
}

/**
 * How many of a placed pod's scored nodes the run's record keeps, best first: the default profile
 * scores hundreds of nodes per pod, and keeping them all would make recording a large run cost a
 * good part of scheduling it. Unplaced pods keep their whole diagnosis.
 */
const RECORDED_SCORES = 10;

/**
 * A schedule run in the plan history: a run on the workspace source and, when it finishes, its
 * outcome as a plan of pod set "*" (every pending pod, named namespace/name) with each pod's
 * diagnosis (placed pods' scores cut to the RECORDED_SCORES best). Pods never tried (scheduling
 * gates, unreadable) are counted in the run's message only: they have no diagnosis to keep.
 * Failures of the history are one line on stderr, never the run's.
 */
class Recording {
  private constructor(
    private readonly store: PlanStore,
    private readonly run: number,
    private readonly io: CliIO,
  ) {}

  static async start(paths: readonly string[], db: string | undefined, io: CliIO): Promise<Recording | undefined> {
    const opened = await openHistory(databasePath(db, io), io);
    if (!opened.ok) {
      io.stderr(`podplan schedule: plan history is off: ${opened.error.message}\n`);
      return undefined;
    }
    const store = opened.value;
    const run = store.startRun({ kind: 'workspace', name: paths.map((p) => path.resolve(io.cwd, p)).join(' ') }, 'preview');
    if (run.ok) return new Recording(store, run.value, io);
    store.close();
    io.stderr(`podplan schedule: plan history is off: ${run.error.message}\n`);
    return undefined;
  }

  failed(message: string): void {
    this.report(this.store.finishRun(this.run, 'failed', message));
    this.store.close();
  }

  finished(result: SimulationResult, cluster: ClusterSnapshot, profile: Profile | undefined): void {
    const placed = result.outcomes.filter((o) => o.node !== undefined);
    const plan: Plan = {
      podSet: ALL_PENDING_PODS,
      namespace: ALL_PENDING_PODS,
      planner: 'schedule',
      profile: (profile ?? DEFAULT_PROFILE).schedulerName,
      assignments: placed.map((o) => ({ pod: o.pod, node: o.node!, diagnosis: { ...o.diagnosis, scores: o.diagnosis.scores.slice(0, RECORDED_SCORES) } })),
      unplaced: result.outcomes.filter((o) => o.node === undefined).map((o) => ({ pod: o.pod, message: explain(o.diagnosis).message, diagnosis: o.diagnosis })),
      createdAt: this.io.clock.now(),
      snapshotHash: sha256(JSON.stringify(cluster)),
    };
    const saved = this.store.savePlan(this.run, plan, { profileHash: sha256(JSON.stringify(profile ?? DEFAULT_PROFILE)) });
    const pending = result.outcomes.length + result.waiting.length + result.rejected.length;
    const untried = result.waiting.length + result.rejected.length;
    this.report(this.store.finishRun(this.run, 'succeeded', `${placed.length} of ${pending} pending pods placed${untried > 0 ? `, ${untried} not tried` : ''}`));
    if (saved.ok) this.io.stderr(`Recorded as plan ${saved.value} in ${this.store.file} (podplan show ${saved.value}).\n`);
    else this.report(saved);
    this.store.close();
  }

  private report(result: { ok: true } | { ok: false; error: { message: string } }): void {
    if (!result.ok) this.io.stderr(`podplan schedule: the run was not recorded in the plan history: ${result.error.message}\n`);
  }
}

function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
