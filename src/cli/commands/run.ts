// `podplan run`: Podplan as a cluster's scheduler (src/kube/live): informers feed the engine, the
// scheduling loop decides, bindings and SchedulePlans are written while this process holds the
// Lease; every decision and plan goes to the history as a run of the kube context.
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { parse as parseYaml } from 'yaml';
import { podKey, type Pod } from '../../engine/api/types';
import { explain } from '../../engine/explain/explain';
import { InMemoryBinder, type Binder } from '../../engine/framework/binder';
import type { Profile } from '../../engine/framework/profile';
import type { Plan } from '../../engine/planner/plan';
import { POD_SET_SCHEDULER_NAME } from '../../engine/planner/podset/podset';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { openContext, openInClusterContext } from '../../kube/kubeconfig';
import { LIVE_DECISIONS, PODPLAN_SCHEDULER_NAME } from '../../kube/live/compose';
import { describeSummary, LEASE_NAME, LEASE_NAMESPACE, leaseLocation, LiveRun, STOP_DEADLINE_MS } from '../../kube/live/lifecycle';
import type { LiveReport, PlanWriter } from '../../kube/live/scheduler';
import { parseAddress, SchedulerMetrics, serveHealth } from '../../kube/live/metrics';
import { schedulePlanName } from '../../engine/planner/podset/name';
import { parseCommand } from '../arguments';
import { dbHelp, DB_OPTION } from '../plan-store';
import { readProfile } from '../input';
import { startRecording } from '../recording';
import { EXIT, type CliIO, type Command } from '../io';

const HELP = `Usage: podplan run (--context <name> [--kubeconfig file] | --in-cluster) [--config file] [--dry-run] [--once] [--db file]

Runs Podplan as a scheduler of the cluster of a kube context. It watches Nodes, Pods and
ScheduleTriggers and schedules the pending pods whose spec.schedulerName is "${PODPLAN_SCHEDULER_NAME}" (default
plugins) or "${POD_SET_SCHEDULER_NAME}" (pod sets, planned whole as Pallet does), binding each with
pods/{name}/binding. Pods of other schedulers are never touched.

Pod sets: a ScheduleTrigger holds its set while Planning; once its quiet time has passed since the
last pod of the set arrived, its spec.state is set to Schedule, one SchedulePlan is written for the
set (named as Pallet names it) and the pods are bound as planned. A pod arriving later is placed at
once; a plan whose node no longer fits is made again.

Options:
  --context <name>     the kube context (required unless --in-cluster)
  --kubeconfig <file>  the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
  --in-cluster         the pod's service account: token, CA and namespace from
                       /var/run/secrets/kubernetes.io/serviceaccount, the API server from
                       KUBERNETES_SERVICE_HOST/PORT (the Lease then defaults to the pod's namespace)
  --config <file>      (or --profile) a KubeSchedulerConfiguration: the profile named ${PODPLAN_SCHEDULER_NAME} (else the first) is
                       merged onto the default one; a profile named ${POD_SET_SCHEDULER_NAME} is used for pod sets
  --dry-run            write nothing to the cluster (no bindings, plans, trigger states or Lease); print
                       what would be written
  --once               exit once nothing of its own is pending or in flight
  --lease-namespace <ns>
                       where the ${LEASE_NAME} Lease lives (default ${LEASE_NAMESPACE})
  --identity <id>      this copy's name in the Lease (default host name and process id)
  --metrics-address <host:port>
                       serve /livez, /readyz (informers synced; leading or standing by) and
                       /metrics (Prometheus, kube-scheduler's metric names) over HTTP there
${dbHelp(23)}
  --no-history         do not record the run in the plan history
  -h, --help           this help

Two copies elect a leader through the coordination.k8s.io/v1 Lease ${LEASE_NAMESPACE}/${LEASE_NAME}: only the
leader binds. The editor's Run Podplan as scheduler takes part in the same election when its setting
podplan.scheduler.leaseNamespace names the same namespace. SIGINT or SIGTERM lets the bindings in flight finish, releases the Lease and exits within
5 s: what is still in flight after 4 s is aborted and reported not bound.

A copy that loses the Lease (a renewal not made within the renew deadline, say under load) stops
scheduling at that deadline and keeps trying to take the Lease back; with --once it goes on until
its work is done, by it or by the copy that leads.

Exit codes: 0 done (every pod it tried was bound), 1 some pods could not be placed, or it stopped
(a signal) with pods it never tried, 2 bad input or the cluster could not be reached.
`;

/** How often --once looks whether the work is done. */
const IDLE_POLL_MS = 100;

export const run: Command = {
  name: 'run',
  summary: 'run Podplan as the scheduler of a cluster (kube context)',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommand(
      'run',
      args,
      {
        ...DB_OPTION,
        context: { type: 'string' },
        kubeconfig: { type: 'string' },
        profile: { type: 'string' },
        config: { type: 'string' },
        'in-cluster': { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        once: { type: 'boolean' },
        'lease-namespace': { type: 'string' },
        identity: { type: 'string' },
        'metrics-address': { type: 'string' },
        'no-history': { type: 'boolean' },
      },
      0,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { values } = parsed;
    const inCluster = values['in-cluster'] === true;
    if (!values.context && !inCluster) {
      io.stderr(`podplan run: --context (or --in-cluster) is required\n\n${HELP}`);
      return EXIT.badInput;
    }
    if (values.context && inCluster) {
      io.stderr(`podplan run: --context and --in-cluster exclude each other\n`);
      return EXIT.badInput;
    }
    if (values.config !== undefined && values.profile !== undefined) {
      io.stderr(`podplan run: --config and --profile name the same file; give one\n`);
      return EXIT.badInput;
    }
    const metricsAddress = values['metrics-address'] !== undefined ? parseAddress(values['metrics-address']) : undefined;
    if (values['metrics-address'] !== undefined && !metricsAddress) {
      io.stderr(`podplan run: --metrics-address must be host:port (or :port), not ${JSON.stringify(values['metrics-address'])}\n`);
      return EXIT.badInput;
    }
    const profiles = await readProfiles(values.config ?? values.profile, io);
    if (!profiles) return EXIT.badInput;
    const config = await readConfigSettings(values.config ?? values.profile, io);
    if (!config) return EXIT.badInput;
    const context = inCluster
      ? openInClusterContext(io.env)
      : openContext({
          context: values.context,
          ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
          env: io.env,
          homedir: io.homedir,
          cwd: io.cwd,
          platform: io.platform,
        });
    if (!context.ok) {
      io.stderr(`podplan run: ${context.error}\n`);
      return EXIT.badInput;
    }
    const dryRun = values['dry-run'] === true;
    const clock = io.clock;
    const history = values['no-history']
      ? undefined
      : await startRecording(
          'run',
          { kind: 'kube-context', name: context.value.context, server: context.value.server },
          'live',
          values.db,
          io,
          LIVE_DECISIONS,
        );
    const metricsBox: { metrics?: SchedulerMetrics } = {};
    const identity = values.identity ?? `${hostname()}_${process.pid}`;
    let led = false;
    const started = LiveRun.start({
      context: context.value,
      clock,
      report: new RunReport(io, dryRun, clock, metricsBox),
      ...(history ? { recording: history } : {}),
      profiles,
      ...(config.backoff ? { backoff: config.backoff } : {}),
      ...(dryRun ? { dryRun: { binder: dryRunBinder(io), writer: dryRunWriter(io) } } : {}),
      ...(config.leaderElect === false
        ? {}
        : {
            election: {
              lease: leaseLocation({
                namespace: values['lease-namespace'],
                config,
                podNamespace: inCluster ? context.value.namespace : undefined,
              }),
              identity,
              timings: config.timings,
            },
          }),
      onPod: (o, deleted) => {
        const metrics = metricsBox.metrics;
        const key = `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
        if (deleted) metrics?.podGone(key);
        else if (!(o['spec'] as { nodeName?: string } | undefined)?.nodeName) metrics?.podSeen(key, clock.now());
      },
      onLeadership: (leading, lost) => {
        if (dryRun || config.leaderElect === false) return; // no election: it schedules from the start
        if (leading) io.stderr(`podplan run: ${identity} leads${led ? ' again' : ''}; scheduling\n`);
        else if (lost > 0)
          io.stderr(
            `podplan run: ${identity} lost the Lease (not renewed within the renew deadline); scheduling stopped, trying to take it back\n`,
          );
        led ||= leading;
      },
      onError: (m) => io.stderr(`podplan run: ${m}\n`),
    });
    if (!started.ok) {
      io.stderr(`podplan run: ${started.error}\n`);
      return EXIT.badInput;
    }
    const run = started.value;
    const metrics = new SchedulerMetrics(() => run.live.counts());
    metricsBox.metrics = metrics;
    let synced = false;
    let health: Server | undefined;
    if (metricsAddress) {
      try {
        health = await serveHealth(metricsAddress, metrics, { synced: () => synced, leadership: () => run.leadership() });
        const bound = health.address();
        io.stderr(
          `podplan run: serving /livez, /readyz and /metrics on ${typeof bound === 'object' && bound ? `${bound.address}:${bound.port}` : values['metrics-address']}\n`,
        );
      } catch (e) {
        io.stderr(`podplan run: cannot listen on ${values['metrics-address']}: ${String(e)}\n`);
        await run.abandon('the metrics address could not be listened on');
        return EXIT.badInput;
      }
    }
    const listed = await run.synced;
    if (!listed.ok) {
      io.stderr(`podplan run: ${listed.error}\n`);
      await run.abandon('the cluster could not be listed');
      health?.close();
      return EXIT.badInput;
    }
    synced = true;
    io.stderr(`podplan run: watching context ${context.value.context}${dryRun ? ' (dry run: nothing is written)' : ''}\n`);

    const signal = await Promise.race([
      io.stopSignal(),
      values.once ? whenIdle(clock, () => run.live.idle()) : new Promise<never>(() => undefined),
    ]);
    if (signal !== 'idle') io.stderr(`podplan run: ${signal}: finishing the bindings in flight\n`);
    // Stopping on a signal is bounded whatever the API server does: what is still in flight at the
    // deadline is aborted (bindings reported not bound, their assumptions forgotten; the Lease left
    // to expire), so every step settles at once.
    const summary = await run.stop(
      signal === 'idle'
        ? {}
        : {
            deadlineMs: STOP_DEADLINE_MS,
            onDeadline: (aborted) =>
              io.stderr(
                `podplan run: still waiting after ${STOP_DEADLINE_MS / 1000} s: ${aborted} binding${aborted === 1 ? '' : 's'} in flight aborted, not bound\n`,
              ),
          },
    );
    if (health) await new Promise((resolve) => health.close(resolve));
    const left = summary.untried;
    if (left > 0)
      io.stderr(
        `podplan run: stopped before trying ${left} pod${left === 1 ? '' : 's'}${summary.leadership === 'leading' ? '' : ` (this copy did not hold the Lease${summary.lostLease > 0 ? `: it lost it ${summary.lostLease === 1 ? 'once' : `${summary.lostLease} times`}` : ''})`}\n`,
      );
    io.stdout(`${describeSummary(summary, dryRun)}.\n`);
    return summary.notPlaced.length > 0 || left > 0 ? EXIT.unplaced : EXIT.ok;
  },
};

/** What `run` reads of a KubeSchedulerConfiguration besides its profiles. */
interface ConfigSettings {
  readonly leaderElect?: boolean;
  readonly resourceNamespace?: string;
  readonly resourceName?: string;
  readonly timings: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** podInitialBackoffSeconds / podMaxBackoffSeconds, in ms (checked by the profile's decoder). */
  readonly backoff?: { initialBackoffMs?: number; maxBackoffMs?: number };
}

/** A Go duration ("15s", "1m30s", "500ms") in milliseconds. */
export function goDurationMs(text: string): number | undefined {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1, us: 0.001, µs: 0.001, ns: 0.000001 };
  if (!/^(\d+(\.\d+)?(h|m|s|ms|us|µs|ns))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, n, , unit] of text.matchAll(/(\d+(\.\d+)?)(ms|us|µs|ns|h|m|s)/g)) total += Number(n) * (units[unit ?? ''] ?? 0);
  return total;
}

/**
 * The KubeSchedulerConfiguration's leaderElection (leaderElect, leaseDuration, renewDeadline,
 * retryPeriod, resourceNamespace, resourceName) and queue back-off (podInitialBackoffSeconds,
 * podMaxBackoffSeconds); upstream's defaults where it says nothing.
 */
async function readConfigSettings(file: string | undefined, io: CliIO): Promise<ConfigSettings | undefined> {
  if (file === undefined) return { timings: {} };
  let doc: unknown;
  try {
    doc = parseYaml(await io.readFile(file));
  } catch {
    return { timings: {} }; // readProfiles has reported what is wrong with the file
  }
  const top = (doc ?? {}) as {
    leaderElection?: Record<string, unknown> | null;
    podInitialBackoffSeconds?: unknown;
    podMaxBackoffSeconds?: unknown;
  };
  const seconds = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v * 1000 : undefined);
  const initialBackoffMs = seconds(top.podInitialBackoffSeconds);
  const maxBackoffMs = seconds(top.podMaxBackoffSeconds);
  const backoff =
    initialBackoffMs !== undefined || maxBackoffMs !== undefined
      ? { ...(initialBackoffMs !== undefined ? { initialBackoffMs } : {}), ...(maxBackoffMs !== undefined ? { maxBackoffMs } : {}) }
      : undefined;
  const le = top.leaderElection;
  if (le === undefined || le === null) return { timings: {}, ...(backoff ? { backoff } : {}) };
  const timings: ConfigSettings['timings'] = {};
  const keys = { leaseDuration: 'leaseDurationMs', renewDeadline: 'renewDeadlineMs', retryPeriod: 'retryPeriodMs' } as const;
  for (const [field, key] of Object.entries(keys)) {
    const value = le[field];
    if (value === undefined) continue;
    const ms = typeof value === 'string' ? goDurationMs(value) : undefined;
    if (ms === undefined) {
      io.stderr(`${file}: leaderElection.${field} must be a duration such as "15s", not ${JSON.stringify(value)}\n`);
      return undefined;
    }
    timings[key] = ms;
  }
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const resourceNamespace = str(le['resourceNamespace']);
  const resourceName = str(le['resourceName']);
  return {
    ...(typeof le['leaderElect'] === 'boolean' ? { leaderElect: le['leaderElect'] } : {}),
    ...(resourceNamespace ? { resourceNamespace } : {}),
    ...(resourceName ? { resourceName } : {}),
    timings,
    ...(backoff ? { backoff } : {}),
  };
}

/** The profiles from --profile: the one for `podplan` and, if it has one, the pod-set scheduler's. */
async function readProfiles(file: string | undefined, io: CliIO): Promise<{ profile?: Profile; podSetProfile?: Profile } | undefined> {
  if (file === undefined) return {};
  const main = await readProfile(file, io, PODPLAN_SCHEDULER_NAME);
  const podSets = await readProfile(file, io, POD_SET_SCHEDULER_NAME);
  for (const w of main.warnings) io.stderr(`${w}\n`);
  if (main.errors.length > 0 || !main.value || !podSets.value) {
    for (const e of main.errors) io.stderr(`${e}\n`);
    return undefined;
  }
  const podSetProfile = podSets.value.profile.schedulerName === POD_SET_SCHEDULER_NAME ? podSets.value.profile : undefined;
  return { profile: main.value.profile, ...(podSetProfile ? { podSetProfile } : {}) };
}

function whenIdle(clock: CliIO['clock'], idle: () => boolean): Promise<'idle'> {
  return new Promise((resolve) => {
    const look = () => (idle() ? resolve('idle') : clock.setTimer(IDLE_POLL_MS, look));
    clock.setTimer(IDLE_POLL_MS, look);
  });
}

function dryRunBinder(io: CliIO): Binder {
  const memory = new InMemoryBinder();
  return {
    bind(pod: Pod, node: string) {
      io.stdout(`would bind ${podKey(pod)} to ${node}\n`);
      return memory.bind(pod, node);
    },
  };
}

function dryRunWriter(io: CliIO): PlanWriter {
  return {
    writePlan(plan: Plan) {
      const placed = plan.assignments.map((a) => `${a.pod}→${a.node}`).join(', ');
      io.stdout(
        `would write SchedulePlan ${plan.namespace}/${schedulePlanName(plan.namespace, plan.podSet)}: ${placed || 'no pod placed'}${plan.unplaced.length ? `; ${plan.unplaced.length} left out` : ''}\n`,
      );
      return Promise.resolve({ ok: true });
    },
    setTriggerState(namespace, name, state) {
      io.stdout(`would set ScheduleTrigger ${namespace}/${name} to ${state}\n`);
      return Promise.resolve({ ok: true });
    },
  };
}

/** Decisions and plans as lines on stdout (bindings) and stderr (failures); the run's recording is kept by LiveRun. */
class RunReport implements LiveReport {
  constructor(
    private readonly io: CliIO,
    private readonly dryRun: boolean,
    private readonly clock: CliIO['clock'],
    private readonly metrics: { metrics?: SchedulerMetrics },
  ) {}

  decision(outcome: ScheduleOutcome, scheduler: string, elapsedMs = 0): void {
    this.metrics.metrics?.attempt(outcome, scheduler, elapsedMs, this.clock.now());
    if (outcome.node !== undefined) {
      if (!this.dryRun) this.io.stdout(`bound ${outcome.pod} to ${outcome.node}\n`);
    } else {
      this.io.stdout(`not placed ${outcome.pod}: ${explain(outcome.diagnosis).message}\n`);
    }
  }

  plan(plan: Plan, cause: string): void {
    this.metrics.metrics?.plansWritten.inc({ cause });
    this.io.stderr(
      `podplan run: plan of pod set ${plan.namespace}/${plan.podSet} (${cause}): ${plan.assignments.length} placed, ${plan.unplaced.length} left out\n`,
    );
  }

  triggerScheduled(trigger: { namespace: string; name: string }): void {
    this.metrics.metrics?.triggersScheduled.inc();
    this.io.stderr(`podplan run: ScheduleTrigger ${trigger.namespace}/${trigger.name}: quiet time passed, Schedule\n`);
  }

  warning(message: string): void {
    this.io.stderr(`podplan run: ${message}\n`);
  }
}
