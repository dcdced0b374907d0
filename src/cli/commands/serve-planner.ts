// `podplan serve-planner`: Pallet's planner API (planner.SchedulePlanner/BuildSchedulePlan over
// gRPC) answered by the optimize planner over a snapshot, so a Pallet deployment can use Podplan's
// planner. Runs until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { err, ok } from '../../engine/api/result';
import { podKey } from '../../engine/api/types';
import { Snapshot } from '../../engine/framework/snapshot';
import { buildPlan, planSettings } from '../../engine/planner/build';
import { OPTIMIZE } from '../../engine/planner/optimize';
import { podSetKey, podSetsIn, resolvePodSet } from '../../engine/planner/podset';
import { startPlannerServer, type PlanFunction } from '../../rpc';
import { EXIT, type Command } from '../io';
import { loadPlanning, type Planning } from '../planning';

export const DEFAULT_PLANNER_PORT = 7309;

const HELP = `Usage: podplan serve-planner <paths…> [--port ${DEFAULT_PLANNER_PORT}] [--host 127.0.0.1] [--profile file] [--seed n]

Serves Pallet's planner API (gRPC service planner.SchedulePlanner, rpc BuildSchedulePlan) on the
nodes and pods of the YAML files and directories given, answered by the optimize planner: each
request plans the pod set it names and returns pod → node for every pod placed. The pod being
scheduled is kept to the eligible nodes the request lists. Runs until SIGINT or SIGTERM.

Options:
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
      parsed = parseArgs({ args: [...args], allowPositionals: true, options: { port: { type: 'string' }, host: { type: 'string' }, profile: { type: 'string' }, seed: { type: 'string' } } });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
    const { positionals, values } = parsed;
    if (positionals.length === 0) return fail(`no paths given\n\n${HELP}`);
    const port = values.port === undefined ? DEFAULT_PLANNER_PORT : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) return fail(`--port must be a port number (0-65535), not "${values.port}"`);
    const planning = await loadPlanning('serve-planner', positionals, values, io);
    if (!planning) return EXIT.badInput;
    const planner = plannerOver(planning, () => io.clock.now());
    if (typeof planner === 'string') return fail(planner);
    const server = await startPlannerServer({ port, ...(values.host !== undefined ? { host: values.host } : {}), planner });
    if (!server.ok) return fail(server.error);
    const sets = podSetsIn(planning.workspace.cluster.pods, planning.planning.args.schedulerName).map(podSetKey);
    io.stdout(`serving the planner API on ${server.value.address} (pod sets: ${sets.join(', ') || 'none'})\n`);
    const signal = await io.stopSignal();
    await server.value.close();
    io.stderr(`podplan serve-planner: stopped (${signal})\n`);
    return EXIT.ok;
  },
};

/** The optimize planner over the snapshot, as the server's PlanFunction; a string when the snapshot cannot be read. */
function plannerOver(planning: Planning, now: () => number): PlanFunction | string {
  const { workspace, triggers } = planning;
  const snapshot = Snapshot.fromCluster(workspace.cluster);
  if (!snapshot.ok) return snapshot.error;
  const { framework, args } = planning.planning;
  return async (request) => {
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
    const built = buildPlan({ podSet, snapshot: snapshot.value, framework, now: now() }, { ...settings.value, planner: OPTIMIZE, ...(eligible ? { eligible } : {}) });
    if (!built.ok) return err({ kind: 'internal', message: built.error });
    return ok(Object.fromEntries(built.value.assignments.map((a) => [a.pod, a.node])));
  };
}
