// `podplan serve-planner`: Pallet's planner API (planner.SchedulePlanner/BuildSchedulePlan over
// gRPC) answered by the optimize planner over a snapshot, so a Pallet deployment can use Podplan's
// planner. Runs until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { err, ok } from '../../engine/api/result';
import { podKey } from '../../engine/api/types';
import { Snapshot } from '../../engine/framework/snapshot';
import { buildPlan, planSettings } from '../../engine/planner/build';
import { OPTIMIZE } from '../../engine/planner/planners/optimize';
import { podSetKey, podSetsIn, resolvePodSet } from '../../engine/planner/podset/podset';
import { startPlannerServer, type PlanFunction } from '../../rpc';
import { ClusterMirror, KubeHttp } from '../../kube';
import type { WorkspaceModel } from '../../manifests';
import { EXIT, type CliIO, type Command } from '../io';
import { refuses } from '../input';
import { loadPlanning, triggerSpec, type Planning } from '../planning';
import { contextOf, isClusterSource, sourceHelp, SOURCE_OPTIONS, sourceProblem, type SourceArgs } from '../source';
import { errorMessage } from '../../engine/api/errors';

export const DEFAULT_PLANNER_PORT = 7309;

const HELP = `Usage: podplan serve-planner <paths…> [--port ${DEFAULT_PLANNER_PORT}] [--host 127.0.0.1] [--profile file] [--seed n]
       podplan serve-planner --context NAME [--kubeconfig file] [options]

Serves Pallet's planner API (gRPC service planner.SchedulePlanner, rpc BuildSchedulePlan) on the
nodes and pods of the YAML files and directories given, answered by the optimize planner: each
request plans the pod set it names and returns pod → node for every pod placed. The pod being
scheduled is kept to the eligible nodes the request lists. Runs until SIGINT or SIGTERM.

With --context, the cluster of that kube context is watched (list + watch, read only) and each
request is answered on its state of the moment, its pods by their real names. One line per
request goes to stderr.

Options:
${sourceHelp(20)}
  --port <n>        the port to listen on (default ${DEFAULT_PLANNER_PORT}, as Pallet dials; 0 picks a free one)
  --host <address>  the address to listen on (default 127.0.0.1: this machine only)
  --profile <file>  a KubeSchedulerConfiguration, as for podplan plan
  --seed <n>        seed for tie-breaking (default 1)
  -h, --help        this help

Exit codes: 0 stopped by a signal, 2 bad input or the port cannot be used.
`;

export const servePlanner: Command = {
  name: 'serve-planner',
  summary: "serve Pallet's planner API (gRPC) with the optimize planner over a snapshot",
  help: HELP,
  async run(args, io) {
    const fail = (message: string) => {
      io.stderr(`podplan serve-planner: ${message}\n`);
      return EXIT.badInput;
    };
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        allowPositionals: true,
        options: {
          ...SOURCE_OPTIONS,
          port: { type: 'string' },
          host: { type: 'string' },
          profile: { type: 'string' },
          seed: { type: 'string' },
        },
      });
    } catch (error) {
      return fail(errorMessage(error));
    }
    const { values } = parsed;
    const problem = sourceProblem(parsed);
    if (problem) return fail(`${problem}\n\n${HELP}`);
    const port = values.port === undefined ? DEFAULT_PLANNER_PORT : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port must be a port number (0-65535), not "${values.port}"`);
    const planning = await loadPlanning('serve-planner', parsed, values, io);
    if (!planning) return EXIT.badInput;
    // It plans any pod set it is asked for: a pod that does not read refuses it from the start.
    const refusal = refuses(planning.workspace, 'every-pod');
    if (refusal) return (io.stderr(`${refusal}\n`), EXIT.badInput);
    const live = await watchCluster(parsed, planning, io);
    if (typeof live === 'string') return fail(live);
    const planner = logged(
      plannerOver(live.current, () => io.clock.now()),
      io,
    );
    const server = await startPlannerServer({ port, ...(values.host !== undefined ? { host: values.host } : {}), planner });
    if (!server.ok) {
      await live.stop();
      return fail(server.error);
    }
    const now = live.current();
    const sets = podSetsIn(now.workspace.cluster.pods, now.planning.args.schedulerName).map(podSetKey);
    io.stdout(
      `serving the planner API on ${server.value.address} (${live.name ? `${live.name}; ` : ''}pod sets: ${sets.join(', ') || 'none'})\n`,
    );
    const signal = await io.stopSignal();
    await server.value.close();
    await live.stop();
    io.stderr(`podplan serve-planner: stopped (${signal})\n`);
    return EXIT.ok;
  },
};

interface LivePlanning {
  /** The planning input of the moment. */
  readonly current: () => Planning;
  /** What is served, for the first line ('' for files). */
  readonly name: string;
  readonly stop: () => Promise<void>;
}

/** The files as read, or the context's cluster kept up to date by informers. */
async function watchCluster(args: SourceArgs, planning: Planning, io: CliIO): Promise<LivePlanning | string> {
  if (!isClusterSource(args)) return { current: () => planning, name: '', stop: async () => undefined };
  const context = contextOf(args, io);
  if (!context.ok) return context.error;
  const mirror = new ClusterMirror(new KubeHttp(context.value), {
    clock: io.clock,
    onWarning: (m) => io.stderr(`podplan serve-planner: ${m}\n`),
  });
  await mirror.start();
  await mirror.synced;
  let last: { workspace: WorkspaceModel; planning: Planning } | undefined;
  const current = (): Planning => {
    const workspace = mirror.model();
    if (last?.workspace !== workspace)
      last = { workspace, planning: { ...planning, workspace, triggers: workspace.triggers.map((t) => triggerSpec(t.value)) } };
    return last.planning;
  };
  return { current, name: `context ${context.value.context} at ${context.value.server}`, stop: () => mirror.stop() };
}

/** One line on stderr per request: what was asked and what was answered. */
function logged(planner: PlanFunction, io: CliIO): PlanFunction {
  return async (request) => {
    const answer = await planner(request);
    const asked = `BuildSchedulePlan ${request.namespace}/${request.podSet}${request.scheduledPod ? ` for pod ${request.scheduledPod}` : ''}`;
    io.stderr(
      `${new Date(io.clock.now()).toISOString()} ${asked}: ${answer.ok ? `${Object.keys(answer.value).length} pods placed` : `${answer.error.kind}: ${answer.error.message}`}\n`,
    );
    return answer;
  };
}

/** The optimize planner over the snapshot of the moment, as the server's PlanFunction. */
function plannerOver(current: () => Planning, now: () => number): PlanFunction {
  let last: { workspace: WorkspaceModel; snapshot: ReturnType<typeof Snapshot.fromCluster> } | undefined;
  return async (request) => {
    const planning = current();
    const { workspace, triggers } = planning;
    if (last?.workspace !== workspace) last = { workspace, snapshot: Snapshot.fromCluster(workspace.cluster) };
    const snapshot = last.snapshot;
    if (!snapshot.ok) return err({ kind: 'internal', message: snapshot.error });
    const { framework, args } = planning.planning;
    const ref = { namespace: request.namespace, name: request.podSet };
    const podSet = resolvePodSet(workspace.cluster.pods, ref, args.schedulerName);
    if (podSet.pods.length === 0) return err({ kind: 'not-found', message: `pod set ${podSetKey(ref)} has no pods` });
    let eligible: Map<string, Set<string>> | undefined;
    if (request.scheduledPod !== '') {
      const pod = podSet.pods.find((p) => p.metadata.name === request.scheduledPod);
      if (!pod) return err({ kind: 'invalid-argument', message: `pod ${request.scheduledPod} is not in pod set ${podSetKey(ref)}` });
      if (request.eligibleNodes.length > 0) eligible = new Map([[podKey(pod), new Set(request.eligibleNodes)]]);
    }
    const trigger = triggers.find((t) => t.namespace === ref.namespace && t.podSet === ref.name);
    const settings = planSettings(args, [trigger?.labels, ...podSet.pods.map((p) => p.metadata.labels)]);
    if (!settings.ok) return err({ kind: 'invalid-argument', message: settings.error.message });
    const built = buildPlan(
      { podSet, snapshot: snapshot.value, framework, now: now() },
      { ...settings.value, planner: OPTIMIZE, ...(eligible ? { eligible } : {}) },
    );
    if (!built.ok) return err({ kind: 'internal', message: built.error });
    return ok(Object.fromEntries(built.value.assignments.map((a) => [a.pod, a.node])));
  };
}
