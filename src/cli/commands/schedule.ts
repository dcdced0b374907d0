// `podplan schedule`: schedules the pending pods of a snapshot with the upstream plugins and prints
// where each went and, for each that could not be placed, kube-scheduler's message.
import { podKey, type ClusterSnapshot } from '../../engine/api/types';
import { fieldRange } from '../../manifests';
import { explain } from '../../engine/explain/explain';
import { DEFAULT_SCHEDULER_NAME, type Profile } from '../../engine/framework/profile';
import { DEFAULT_PROFILE } from '../../engine/plugins/defaults';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { simulate, type SimulationResult } from '../../engine/scheduler/simulate';
import type { Diagnosis } from '../../engine/framework/diagnosis';
import { POD_SET_SCHEDULER_NAME } from '../../engine/planner/podset/podset';
import { stringify } from 'yaml';
import { OUTPUT_OPTION, outputFormat, outputHelp, parseCommand } from '../arguments';
import { DB_HELP, DB_OPTION } from '../plan-store';
import { Recording } from '../recording';
import { decisionsPlan, sha256 } from '../../store/recording';
import { STRICT_HELP, STRICT_OPTION } from '../input';
import { EXIT, type CliIO, type Command } from '../io';
import { loadScheduling, runProfile, withPodplanPods } from '../scheduling';
import { isClusterSource, sourceHelp, SOURCE_OPTIONS, sourceProblem } from '../source';
import { formatTable } from '../table';
import { heading, paint, placement, tablePaint, type Paint } from '../colour';

const HELP = `Usage: podplan schedule <paths…> [--profile file] [--seed n] [-n NS] [-o json|yaml|wide [--detail]] [--strict] [--db file | --no-history]
       podplan schedule --context NAME [--kubeconfig file] [options]

Schedules every pending pod (no spec.nodeName) found in the YAML and JSON files and directories
given (- reads standard input), on the nodes found there, with kube-scheduler's default plugins
and scoring. Pods already bound count as running on their node. Deployments, ReplicaSets,
StatefulSets, Jobs, DaemonSets and ReplicationControllers become pods for the replicas that have no
pod in the files (a kubectl dump reads as the cluster is); names made up for them are marked * in
the table ("generated": true in JSON). LimitRanges and ResourceQuotas apply to the pods and claims
no API server has admitted yet (no uid), as admission would: a refused one is left out with the API
server's message; a quota entry on other kinds (count/services, configmaps, …) is not applied, with a
warning saying so. With
--context, the cluster of that kube context is read instead (its pods by their real names), and
its pending pods whose schedulerName is podplan are scheduled too, as \`podplan run\` would.

Options:
${sourceHelp(20)}
  --profile <file>  a KubeSchedulerConfiguration; its default-scheduler profile (else its first) is
                    merged onto the default one. Without it, a configuration among the files given
                    with a default-scheduler profile is used; pods of its other profiles (the
                    pod-set planner's: podplan plan) are not scheduled here.
  --seed <n>        seed for sampling and tie-breaking (default 1): the same seed, the same result
  -n, --namespace <ns>
                    show only the pods of this namespace (every pending pod is still scheduled:
                    they share the nodes)
${outputHelp(['json', 'yaml', 'wide'], 20, ['json'])}
                    json: JSON Lines on stdout, one object per line as the run ends: each pod's
                    outcome ("type": "outcome") with a compact diagnosis (the funnel, rejections
                    grouped by reason, the 10 best nodes' scores), then the pods not tried and a
                    "summary" line; yaml: the same objects as YAML documents; wide: the table
                    with each pod's attempts and feasible nodes (of those evaluated)
  --detail          with -o json or yaml: each diagnosis in full (every rejected node, every
                    scored node)
${STRICT_HELP}
${DB_HELP}
  --no-history      do not record the run in the plan history
  -h, --help        this help

Prints a table (pod, node, score) and, for each pod that could not be placed, the reason in
kube-scheduler's words ("0/5 nodes are available: …"). A score of - means the pod had a single
feasible node, which kube-scheduler takes without scoring. A pod placed by preemption
(DefaultPreemption: PriorityClasses and spec.priority, preemptionPolicy, PodDisruptionBudgets in
the snapshot) shows the pods evicted for it ("node-b1 (preempts data/batch-3, data/batch-4)"), and
those are listed as preempted; --json gives each outcome its "node" and "victims". Progress goes to
stderr on long runs and large files. podplan explain tells why one pod went where it did.

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
      {
        ...DB_OPTION,
        ...SOURCE_OPTIONS,
        ...STRICT_OPTION,
        profile: { type: 'string' },
        seed: { type: 'string' },
        namespace: { type: 'string' },
        ...OUTPUT_OPTION,
        json: { type: 'boolean' },
        detail: { type: 'boolean' },
        'no-history': { type: 'boolean' },
      },
      Infinity,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { values } = parsed;
    const refuse = (message: string) => (io.stderr(`podplan schedule: ${message}\n`), EXIT.badInput);
    const problem = sourceProblem(parsed);
    if (problem) return refuse(`${problem}\n\n${HELP}`);
    if (values['no-history'] && values.db !== undefined)
      return refuse('--no-history and --db cannot be used together: --db names the history to record in');
    const format = outputFormat('schedule', values, ['text', 'json', 'yaml', 'wide'], io);
    if (!format) return EXIT.badInput;
    const structured = format === 'json' || format === 'yaml';
    if (values.detail && !structured) return refuse('--detail goes with -o json or -o yaml (the diagnoses in full)');
    const scheduling = await loadScheduling('schedule', parsed, values, io);
    if (!scheduling) return EXIT.badInput;
    const { workspace, profile: profileInput } = scheduling;
    const profile = runProfile(scheduling, values.detail ? undefined : RECORDED_SCORES);
    // From a cluster, pods left to `podplan run` are previewed as the run would place them.
    const cluster = isClusterSource(parsed)
      ? withPodplanPods(workspace.cluster, profile.schedulerName ?? DEFAULT_SCHEDULER_NAME, scheduling.configured)
      : workspace.cluster;
    const history = values['no-history'] ? undefined : await Recording.start('schedule', scheduling.source, values.db, io);
    const started = io.clock.now();
    let lastProgress = started;
    let cycles = 0;
    let pods = 0;
    let printed = 0;
    const progress = () => {
      io.stderr(`scheduling: ${cycles} cycles, ${pods} pods\n`);
      printed = cycles;
    };
    const result = await simulate(cluster, {
      profile,
      seed: scheduling.seed,
      onCycle: (_outcome, done, total) => {
        cycles = done;
        pods = total;
        const now = io.clock.now();
        if (total >= LONG_RUN_PODS && now - lastProgress >= PROGRESS_EVERY_MS) {
          lastProgress = now;
          progress();
        }
      },
    });
    // A long run always ends with its count, however fast it went.
    if (pods >= LONG_RUN_PODS && printed !== cycles) progress();
    if (!result.ok) {
      for (const e of result.error) io.stderr(`${profileInput ? profileInput.locate(e) : e.message}\n`);
      history?.failed(result.error[0]?.message ?? 'the profile was refused');
      return EXIT.badInput;
    }
    const whole = splitOtherProfiles(result.value, scheduling.configured);
    const outcome = values.namespace !== undefined ? inNamespace(whole, values.namespace) : whole;
    const generated = workspace.generated;
    if (structured) writeObjects(outcome, generated, Boolean(values.detail), format, io);
    else io.stdout(report(outcome, generated, format === 'wide', paint(io.color)));
    // On stderr, at the pod's place in the files, as every other warning is (--json has them as lines too).
    for (const i of outcome.ignored) {
      const located = workspace.pods.find((p) => podKey(p.value) === i.pod);
      const at = located ? fieldRange(located, 'spec.nodeName') : undefined;
      io.stderr(`${at ? `${at.file}:${at.start.line}:${at.start.column}: ` : ''}warning: pod ${i.pod} ignored: ${i.reason}\n`);
    }
    if (history) recordRun(history, whole, workspace.cluster, profileInput?.profile, io.clock.now(), generated);
    const unplaced = outcome.outcomes.some((o) => !o.node) || outcome.rejected.length > 0 || outcome.waiting.length > 0;
    return unplaced ? EXIT.unplaced : EXIT.ok;
  },
};

/** A run's result with the pods of the configuration's other profiles told apart from other schedulers'. */
interface ScheduleRun extends SimulationResult {
  readonly otherProfiles: readonly { readonly pod: string; readonly schedulerName: string }[];
}

function splitOtherProfiles(result: SimulationResult, configured: readonly string[]): ScheduleRun {
  const ours = (o: { schedulerName: string }) => configured.includes(o.schedulerName);
  return { ...result, otherScheduler: result.otherScheduler.filter((o) => !ours(o)), otherProfiles: result.otherScheduler.filter(ours) };
}

/** The run as one namespace sees it (-n): its pods only. */
function inNamespace(run: ScheduleRun, namespace: string): ScheduleRun {
  const mine = (o: { readonly pod: string }) => o.pod.startsWith(`${namespace}/`);
  return {
    outcomes: run.outcomes.filter(mine),
    otherScheduler: run.otherScheduler.filter(mine),
    otherProfiles: run.otherProfiles.filter(mine),
    waiting: run.waiting.filter(mine),
    rejected: run.rejected.filter(mine),
    ignored: run.ignored.filter(mine),
    preempted: run.preempted.filter(mine),
  };
}

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

function report(result: ScheduleRun, generated: ReadonlySet<string>, wide: boolean, p: Paint): string {
  const lines: string[] = [];
  const placed = result.outcomes.filter((o) => o.node);
  const failed = result.outcomes.filter((o) => !o.node);
  const name = (pod: string) => (generated.has(pod) ? `${pod}*` : pod);
  // The header bold, a placed pod's node green, an unplaced pod's <none> red.
  const painter = tablePaint(p, (text, row, column) =>
    column === 1 ? placement(p, Boolean(result.outcomes[row]?.node), text) : undefined,
  );
  if (result.outcomes.length > 0) {
    lines.push(
      wide
        ? formatTable(
            ['POD', 'NODE', 'SCORE', 'ATTEMPTS', 'FEASIBLE'],
            result.outcomes.map((o) => [
              name(o.pod),
              nodeColumn(o),
              scoreOf(o),
              String(o.attempts),
              `${o.diagnosis.feasibleNodes}/${o.diagnosis.nodesEvaluated}`,
            ]),
            painter,
          )
        : formatTable(
            ['POD', 'NODE', 'SCORE'],
            result.outcomes.map((o) => [name(o.pod), nodeColumn(o), scoreOf(o)]),
            painter,
          ),
    );
  }
  const notes: string[] = [];
  if (result.outcomes.some((o) => generated.has(o.pod)))
    notes.push("* a name made up for a workload's replica that has no pod in the files");
  if (result.outcomes.some((o) => scoreOf(o) === '-'))
    notes.push('- the only feasible node: kube-scheduler places such a pod without scoring');
  if (notes.length > 0) lines.push('', ...notes);
  lines.push('');
  lines.push(`${placed.length} of ${result.outcomes.length + result.waiting.length + result.rejected.length} pending pods placed.`);
  if (result.preempted.length > 0) {
    lines.push('', 'Preempted (evicted to make room for a higher-priority pod):');
    for (const p of result.preempted) lines.push(`  ${p.pod} on ${p.node}: preempted by ${p.by}`);
  }
  if (failed.length > 0) {
    lines.push('', heading(p, 'Not placed (podplan explain <paths> POD tells more):'));
    for (const o of failed) lines.push(`  ${name(o.pod)}: ${explain(o.diagnosis).message}`);
  }
  for (const w of result.waiting) lines.push(`  ${w.pod}: ${w.reason}`);
  for (const r of result.rejected) lines.push(`  ${r.pod}: ${r.error}`);
  if (result.otherProfiles.length > 0) {
    const byProfile = new Map<string, number>();
    for (const o of result.otherProfiles) byProfile.set(o.schedulerName, (byProfile.get(o.schedulerName) ?? 0) + 1);
    lines.push('', "Pods of the configuration's other profiles, not scheduled by this run:");
    for (const [schedulerName, count] of byProfile) {
      const hint = schedulerName === POD_SET_SCHEDULER_NAME ? ' (pod sets: podplan plan --pod-set NAME)' : '';
      lines.push(`  ${schedulerName}: ${count} pod${count === 1 ? '' : 's'}${hint}`);
    }
  }
  if (result.otherScheduler.length > 0) {
    lines.push('', 'Left to other schedulers:');
    for (const o of result.otherScheduler) lines.push(`  ${o.pod}: schedulerName ${o.schedulerName}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The diagnosis as --json prints it: compact (no per-node lists) unless `detail`. */
function jsonDiagnosis(d: Diagnosis, detail: boolean) {
  if (detail) return d;
  const { rejections, ...rest } = d;
  const summary = explain(d, 0);
  return {
    ...rest,
    rejectedNodes: rejections.length,
    reasons: summary.reasons.map((g) => ({ reason: g.reason, plugin: g.plugin, stage: g.stage, code: g.code, nodes: g.nodes.length })),
  };
}

/** One JSON object per line (or one YAML document per object), so a run of any size prints without building one huge string. */
function writeObjects(result: ScheduleRun, generated: ReadonlySet<string>, detail: boolean, format: 'json' | 'yaml', io: CliIO): void {
  // Lines are written a megabyte at a time: one write per line cost a system call each (10,000 pods, 80 MB).
  let chunk = '';
  const line = (value: unknown) => {
    chunk += format === 'json' ? `${JSON.stringify(value)}\n` : `---\n${stringify(value)}`;
    if (chunk.length >= WRITE_CHUNK) {
      io.stdout(chunk);
      chunk = '';
    }
  };
  for (const o of result.outcomes) {
    line({
      type: 'outcome',
      pod: o.pod,
      node: o.node ?? null,
      ...(o.victims ? { victims: o.victims } : {}),
      ...(generated.has(o.pod) ? { generated: true } : {}),
      attempts: o.attempts,
      message: explain(o.diagnosis, 0).message,
      diagnosis: jsonDiagnosis(o.diagnosis, detail),
    });
  }
  for (const p of result.preempted) line({ type: 'preempted', ...p });
  for (const w of result.waiting) line({ type: 'waiting', ...w });
  for (const r of result.rejected) line({ type: 'rejected', ...r });
  for (const o of result.otherProfiles) line({ type: 'otherProfile', ...o });
  for (const o of result.otherScheduler) line({ type: 'otherScheduler', ...o });
  for (const i of result.ignored) line({ type: 'ignored', ...i });
  const placed = result.outcomes.filter((o) => o.node).length;
  line({ type: 'summary', placed, pending: result.outcomes.length + result.waiting.length + result.rejected.length });
  io.stdout(chunk);
}

/** How many characters of --json/--yaml lines are written at once. */
const WRITE_CHUNK = 1 << 20;

/**
 * How many of a placed pod's scored nodes the run's record keeps, best first: the default profile
 * scores hundreds of nodes per pod, and keeping them all would make recording a large run cost a
 * good part of scheduling it. Unplaced pods keep their whole diagnosis.
 */
const RECORDED_SCORES = 10;

/** The run's outcome as a plan of pod set "*" (every pending pod), recorded with the run's message. */
function recordRun(
  history: Recording,
  result: SimulationResult,
  cluster: ClusterSnapshot,
  profile: Profile | undefined,
  now: number,
  generated: ReadonlySet<string>,
): void {
  const placed = result.outcomes.filter((o) => o.node !== undefined);
  const plan = decisionsPlan(
    result.outcomes,
    { planner: 'schedule', profile: (profile ?? DEFAULT_PROFILE).schedulerName, scores: RECORDED_SCORES },
    now,
    sha256(JSON.stringify(cluster)),
  );
  const pending = result.outcomes.length + result.waiting.length + result.rejected.length;
  const untried = result.waiting.length + result.rejected.length;
  history.finished(
    plan,
    profile,
    `${placed.length} of ${pending} pending pods placed${untried > 0 ? `, ${untried} not tried` : ''}`,
    generated,
    cluster,
  );
}
