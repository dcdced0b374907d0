// `podplan run`: Podplan as a cluster's scheduler (src/kube/live): informers feed the engine, the
// scheduling loop decides, bindings and SchedulePlans are written while this process holds the
// Lease; every decision and plan goes to the history as a run of the kube context.
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { parse as parseYaml } from 'yaml';
import type { ApiObject } from '../../kube/objects';
import { podKey, type Pod } from '../../engine/api/types';
import { explain } from '../../engine/explain/explain';
import { InMemoryBinder, type Binder } from '../../engine/framework/binder';
import type { Profile } from '../../engine/framework/profile';
import type { Plan } from '../../engine/planner/plan';
import { POD_SET_SCHEDULER_NAME } from '../../engine/planner/podset/podset';
import type { ScheduleOutcome } from '../../engine/scheduler/scheduler';
import { KubeBinder } from '../../kube/binder';
import { LeaderElector } from '../../kube/lease';
import { KubeHttp } from '../../kube/http';
import { openContext, openInClusterContext } from '../../kube/kubeconfig';
import { bindingPoster, boundNodeReader, leaseClient, planWriter, startInformers } from '../../kube/live/cluster';
import { PlannerObjects } from '../../kube/planner-objects';
import { composeLiveScheduler, LIVE_DECISIONS, PODPLAN_SCHEDULER_NAME } from '../../kube/live/compose';
import { liveCache, type LiveReport, type PlanWriter } from '../../kube/live/scheduler';
import { KubeSchedulingEffects } from '../../kube/live/effects';
import { parseAddress, SchedulerMetrics, serveHealth } from '../../kube/live/metrics';
import { schedulePlanName } from '../../engine/planner/podset/name';
import type { RunRecording } from '../../store/recording';
import { parseCommand } from '../arguments';
import { dbHelp, DB_OPTION } from '../plan-store';
import { readProfile } from '../input';
import { startRecording } from '../recording';
import { EXIT, type CliIO, type Command } from '../io';

/** The Lease two copies of `podplan run` elect their leader with. */
export const LEASE_NAME = 'podplan-scheduler';
const LEASE_NAMESPACE = 'kube-system';

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
leader binds. SIGINT or SIGTERM lets the bindings in flight finish, releases the Lease and exits within
5 s: what is still in flight after 4 s is aborted and reported not bound.

Exit codes: 0 done (every pod it tried was bound), 1 some pods could not be placed, 2 bad input or
the cluster could not be reached.
`;

/**
 * How long SIGINT/SIGTERM waits for the bindings (and the Lease release) in flight before it aborts
 * them: under the 5 s a stopping scheduler is given, with room for the rest of the shutdown.
 */
export const STOP_DEADLINE_MS = 4_000;

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
    const election = await readLeaderElection(values.config ?? values.profile, io);
    if (!election) return EXIT.badInput;
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
    const http = new KubeHttp(context.value);
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
    const report = new RunReport(io, dryRun, history, clock, metricsBox);
    const binder: Binder & { drain?: () => Promise<void>; abort?: () => number } = dryRun
      ? dryRunBinder(io)
      : new KubeBinder({ post: bindingPoster(http), readBoundNode: boundNodeReader(http), clock });
    const effects = dryRun
      ? undefined
      : new KubeSchedulingEffects({ http, clock, host: hostname(), warning: (m) => io.stderr(`podplan run: ${m}\n`) });
    const composed = composeLiveScheduler({
      clock,
      ...(effects ? { effects } : {}),
      cache: liveCache(clock),
      binder,
      writer: dryRun ? dryRunWriter(io) : planWriter(new PlannerObjects(http)),
      report,
      ...profiles,
      ...(dryRun ? { tuning: { confirmedBy: 'binder' } } : {}),
    });
    if (!composed.ok) {
      for (const e of composed.error) io.stderr(`podplan run: ${e.message}\n`);
      history?.finish('failed', 'the profile was refused');
      return EXIT.badInput;
    }
    const live = composed.value;
    const metrics = new SchedulerMetrics(() => live.counts());
    metricsBox.metrics = metrics;
    const onPod = (o: ApiObject, deleted: boolean) => {
      effects?.podObserved(o, deleted);
      const key = `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
      if (deleted) metrics.podGone(key);
      else if (!(o['spec'] as { nodeName?: string } | undefined)?.nodeName) metrics.podSeen(key, clock.now());
    };
    const informers = startInformers(http, live, { clock, onError: (m) => io.stderr(`podplan run: ${m}\n`), onPod });
    let synced = false;
    let leadership: 'leading' | 'standby' | 'starting' = 'starting';
    let health: Server | undefined;
    if (metricsAddress) {
      try {
        health = await serveHealth(metricsAddress, metrics, { synced: () => synced, leadership: () => leadership });
        const bound = health.address();
        io.stderr(
          `podplan run: serving /livez, /readyz and /metrics on ${typeof bound === 'object' && bound ? `${bound.address}:${bound.port}` : values['metrics-address']}\n`,
        );
      } catch (e) {
        io.stderr(`podplan run: cannot listen on ${values['metrics-address']}: ${String(e)}\n`);
        await Promise.all([informers.stop(), live.stop()]);
        history?.finish('failed', 'the metrics address could not be listened on');
        return EXIT.badInput;
      }
    }
    try {
      await informers.synced;
      synced = true;
    } catch (e) {
      io.stderr(`podplan run: cannot list the cluster: ${context.value.redactor.describe(e)}\n`);
      await Promise.all([informers.stop(), live.stop()]);
      health?.close();
      history?.finish('failed', 'the cluster could not be listed');
      return EXIT.badInput;
    }
    const identity = values.identity ?? `${hostname()}_${process.pid}`;
    const elector =
      dryRun || election.leaderElect === false
        ? undefined
        : new LeaderElector({
            client: leaseClient(
              http,
              values['lease-namespace'] ?? election.resourceNamespace ?? (inCluster ? context.value.namespace : LEASE_NAMESPACE),
              election.resourceName ?? LEASE_NAME,
            ),
            identity,
            clock,
            ...election.timings,
            onStartedLeading: () => {
              leadership = 'leading';
              io.stderr(`podplan run: ${identity} leads; scheduling\n`);
              live.setLeading(true);
            },
            onStoppedLeading: () => {
              leadership = 'standby';
              io.stderr(`podplan run: ${identity} no longer leads; scheduling stopped\n`);
              live.setLeading(false);
            },
            onError: (m) => io.stderr(`podplan run: lease: ${m}\n`),
          });
    if (elector) {
      if (leadership === 'starting') leadership = 'standby';
      elector.start();
    } else {
      leadership = 'leading';
      live.setLeading(true);
    }
    io.stderr(`podplan run: watching context ${context.value.context}${dryRun ? ' (dry run: nothing is written)' : ''}\n`);

    const signal = await Promise.race([
      io.stopSignal(),
      values.once ? whenIdle(clock, () => live.idle()) : new Promise<never>(() => undefined),
    ]);
    if (signal !== 'idle') io.stderr(`podplan run: ${signal}: finishing the bindings in flight\n`);
    // Stopping on a signal is bounded whatever the API server does: what is still in flight at the
    // deadline is aborted (bindings reported not bound, their assumptions forgotten; the Lease left
    // to expire), so every step below settles at once.
    const deadline =
      signal === 'idle'
        ? undefined
        : clock.setTimer(STOP_DEADLINE_MS, () => {
            const aborted = binder.abort?.() ?? 0;
            http.abort();
            io.stderr(
              `podplan run: still waiting after ${STOP_DEADLINE_MS / 1000} s: ${aborted} binding${aborted === 1 ? '' : 's'} in flight aborted, not bound\n`,
            );
          });
    await live.stop();
    await binder.drain?.();
    await effects?.stop();
    await elector?.stop();
    await informers.stop();
    deadline?.cancel();
    http.close();
    if (health) await new Promise((resolve) => health.close(resolve));
    const outcomes = [...live.outcomes().values()];
    const bound = outcomes.filter((o) => o.node !== undefined).length;
    const unplaced = outcomes.filter((o) => o.node === undefined);
    history?.finish('succeeded', `${bound} pods bound, ${unplaced.length} not placed`);
    io.stdout(`${bound} pods ${dryRun ? 'would be ' : ''}bound, ${unplaced.length} not placed.\n`);
    return unplaced.length > 0 ? EXIT.unplaced : EXIT.ok;
  },
};

interface LeaderElectionConfig {
  readonly leaderElect?: boolean;
  readonly resourceNamespace?: string;
  readonly resourceName?: string;
  readonly timings: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
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
 * retryPeriod, resourceNamespace, resourceName); upstream's defaults where it says nothing.
 */
async function readLeaderElection(file: string | undefined, io: CliIO): Promise<LeaderElectionConfig | undefined> {
  if (file === undefined) return { timings: {} };
  let doc: unknown;
  try {
    doc = parseYaml(await io.readFile(file));
  } catch {
    return { timings: {} }; // readProfiles has reported what is wrong with the file
  }
  const le = (doc as { leaderElection?: Record<string, unknown> } | null)?.leaderElection;
  if (le === undefined || le === null) return { timings: {} };
  const timings: LeaderElectionConfig['timings'] = {};
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

/** Decisions and plans as lines on stdout (bindings) and stderr (failures), and into the history. */
class RunReport implements LiveReport {
  constructor(
    private readonly io: CliIO,
    private readonly dryRun: boolean,
    private readonly history: RunRecording | undefined,
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
    this.history?.decision(outcome);
  }

  plan(plan: Plan, cause: string): void {
    this.metrics.metrics?.plansWritten.inc({ cause });
    this.io.stderr(
      `podplan run: plan of pod set ${plan.namespace}/${plan.podSet} (${cause}): ${plan.assignments.length} placed, ${plan.unplaced.length} left out\n`,
    );
    this.history?.savePlan(plan);
  }

  triggerScheduled(trigger: { namespace: string; name: string }): void {
    this.metrics.metrics?.triggersScheduled.inc();
    this.io.stderr(`podplan run: ScheduleTrigger ${trigger.namespace}/${trigger.name}: quiet time passed, Schedule\n`);
    this.history?.triggerScheduled(trigger.namespace, trigger.name);
  }

  warning(message: string): void {
    this.io.stderr(`podplan run: ${message}\n`);
  }
}
