// `podplan plan`: plans one pod set of a snapshot at once, as its ScheduleTrigger would on turning
// to Schedule, and prints where each pod goes and, for each it cannot place, kube-scheduler's reason.
import { parseArgs } from 'node:util';
import { podInfo } from '../../engine/framework/node-info';
import { Snapshot } from '../../engine/framework/snapshot';
import { planPodSet, PLANNERS, type PlanSettings } from '../../engine/planner/build';
import { planStatus, type Plan } from '../../engine/planner/plan';
import { planWorkspace, type TriggerOutcome } from '../../engine/planner/plan-all';
import { podSetKey, podSetsIn, resolvePodSet, type PodSetRef } from '../../engine/planner/podset';
import { planFromManifest, writeSchedulePlan } from '../../manifests';
import { EXIT, type Command } from '../io';
import { loadPlanning, type Planning } from '../planning';
import { sourceHelp, SOURCE_OPTIONS, sourceProblem } from '../source';
import { formatTable } from '../table';

const HELP = `Usage: podplan plan <paths…> --pod-set NAME [--namespace NS] [--planner greedy|optimize] [--profile file] [--seed n] [--yaml|--json]
       podplan plan --context NAME [--kubeconfig file] --pod-set NAME [options]

Plans the pending pods of a pod set (pods labelled planner.ciena.io/pod-set: NAME with
schedulerName podset-planner-scheduler) all at once, on the nodes and pods of the YAML files and
directories given (or of the cluster of --context, read only), as the set's ScheduleTrigger would
on turning to Schedule. ScheduleTriggers the
set's trigger depends on (spec.dependsOn) are planned first and their pods assumed placed.

Options:
${sourceHelp(22)}
  --pod-set <name>    the pod set to plan
  --namespace <ns>    its namespace (needed only when several namespaces have a set of that name)
  --planner <name>    greedy (the scheduler's pipeline pod by pod) or optimize (the whole set at
                      once: as many pods as possible, then as few nodes); default: the trigger's
                      planner.ciena.io/planner label, the profile's PodSetPlanner args, else greedy
  --profile <file>    a KubeSchedulerConfiguration; its podset-planner-scheduler profile (else its
                      first) is merged onto the default one. Without it, such a profile among the
                      files given is used.
  --seed <n>          seed for tie-breaking (default 1): the same seed, the same plan
  --yaml              print the plan as a SchedulePlan manifest (planner.ciena.io/v1alpha1)
  --json              print the plan, its status and the diagnoses as JSON
  -h, --help          this help

Exit codes: 0 every pod placed, 1 some pods not placed (or the trigger could not be planned),
2 bad input (located errors).

Example:
  podplan plan examples/cluster --pod-set nightly-batch --planner optimize
`;

export const plan: Command = {
  name: 'plan',
  summary: 'plan a pod set at once and explain the pods it cannot place',
  help: HELP,
  async run(args, io) {
    const fail = (message: string) => {
      io.stderr(`podplan plan: ${message}\n`);
      return EXIT.badInput;
    };
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        allowPositionals: true,
        options: {
          ...SOURCE_OPTIONS,
          'pod-set': { type: 'string' },
          namespace: { type: 'string' },
          planner: { type: 'string' },
          profile: { type: 'string' },
          seed: { type: 'string' },
          yaml: { type: 'boolean' },
          json: { type: 'boolean' },
        },
      });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
    const { values } = parsed;
    const problem = sourceProblem(parsed);
    if (problem) return fail(`${problem}\n\n${HELP}`);
    if (values.yaml && values.json) return fail('--yaml and --json cannot be used together');
    if (values.planner !== undefined && !PLANNERS.has(values.planner)) return fail(`--planner must be one of ${[...PLANNERS.keys()].join(', ')}, not "${values.planner}"`);
    const planning = await loadPlanning('plan', parsed, values, io);
    if (!planning) return EXIT.badInput;
    const sets = podSetsIn(planning.workspace.cluster.pods, planning.planning.args.schedulerName);
    if (values['pod-set'] === undefined) return fail(`--pod-set is required (pod sets in the files: ${sets.map(podSetKey).join(', ') || 'none'})`);
    const named = sets.filter((s) => s.name === values['pod-set'] && (values.namespace === undefined || s.namespace === values.namespace));
    if (named.length === 0) return fail(`no pod set ${values.namespace ? `${values.namespace}/` : ''}${values['pod-set']} in the files (pod sets: ${sets.map(podSetKey).join(', ') || 'none'})`);
    if (named.length > 1) return fail(`pod set ${values['pod-set']} is in namespaces ${named.map((s) => s.namespace).join(', ')}: choose one with --namespace`);
    const ref = named[0] as PodSetRef;
    const override: PlanSettings = values.planner !== undefined ? { planner: values.planner } : {};

    const outcome = await planSet(planning, ref, override, io.clock.now());
    if (typeof outcome === 'string') return fail(outcome);
    const made = outcome.plan;
    if (values.json) io.stdout(`${JSON.stringify(toJson(ref, outcome), null, 2)}\n`);
    else if (values.yaml && made) io.stdout(writeSchedulePlan(made));
    else if (!values.yaml) io.stdout(report(ref, outcome));
    if (!made || outcome.failed) io.stderr(`ScheduleTrigger ${outcome.trigger}: ${outcome.message ?? 'not planned'}\n`);
    return made && made.unplaced.length === 0 && !outcome.failed ? EXIT.ok : EXIT.unplaced;
  },
};

interface SetOutcome {
  readonly plan?: Plan;
  /** The set's trigger (namespace/name), when it has one. */
  readonly trigger?: string;
  readonly failed: boolean;
  readonly message?: string;
}

/** The set planned through its trigger (and what it depends on), or directly when it has none; a string when it cannot be. */
async function planSet(planning: Planning, ref: PodSetRef, override: PlanSettings, now: number): Promise<SetOutcome | string> {
  const { workspace, triggers } = planning;
  const own = triggers.find((t) => t.namespace === ref.namespace && t.podSet === ref.name);
  if (own) {
    const outcomes = await planWorkspace({ cluster: workspace.cluster, triggers, plans: workspace.plans.map((p) => planFromManifest(p.value)), planning: planning.planning, now, override });
    if (!outcomes.ok) return outcomes.error;
    const outcome = outcomes.value.find((o) => o.trigger === own) as TriggerOutcome;
    return { ...(outcome.plan ? { plan: outcome.plan } : {}), trigger: `${own.namespace}/${own.name}`, failed: outcome.failed, ...(outcome.message !== undefined ? { message: outcome.message } : {}) };
  }
  const snapshot = Snapshot.fromCluster(workspace.cluster);
  if (!snapshot.ok) return snapshot.error;
  const podSet = resolvePodSet(workspace.cluster.pods, ref, planning.planning.args.schedulerName);
  for (const p of podSet.pending) {
    const info = podInfo(p);
    if (!info.ok) return info.error;
  }
  const built = planPodSet(planning.planning, { podSet, snapshot: snapshot.value, now }, { override });
  return built.ok ? { plan: built.value, failed: false } : built.error;
}

function report(ref: PodSetRef, outcome: SetOutcome): string {
  const made = outcome.plan;
  if (!made) return '';
  const rows = [...made.assignments.map((a) => [`${made.namespace}/${a.pod}`, a.node]), ...made.unplaced.map((u) => [`${made.namespace}/${u.pod}`, '<none>'])];
  const total = made.assignments.length + made.unplaced.length;
  const nodes = new Set(made.assignments.map((a) => a.node)).size;
  const lines = [
    formatTable(['POD', 'NODE'], rows),
    '',
    `Pod set ${podSetKey(ref)}: ${made.assignments.length} of ${total} pods placed on ${nodes} node${nodes === 1 ? '' : 's'} (planner ${made.planner}, profile ${made.profile}${outcome.trigger ? `, ScheduleTrigger ${outcome.trigger}` : ''}).`,
  ];
  if (made.unplaced.length > 0) {
    lines.push('', 'Not placed:');
    for (const u of made.unplaced) lines.push(`  ${made.namespace}/${u.pod}: ${u.message}`);
  }
  return `${lines.join('\n')}\n`;
}

function toJson(ref: PodSetRef, outcome: SetOutcome) {
  const made = outcome.plan;
  return {
    podSet: ref.name,
    namespace: ref.namespace,
    trigger: outcome.trigger ? { name: outcome.trigger, failed: outcome.failed, message: outcome.message ?? null } : null,
    status: made ? planStatus(made) : null,
    assignments: made?.assignments.map((a) => ({ pod: a.pod, node: a.node })) ?? [],
    unplaced: made?.unplaced ?? [],
  };
}
