// `podplan plan`: plans one pod set of a snapshot at once, as its ScheduleTrigger would on turning
// to Schedule, and prints where each pod goes and, for each it cannot place, kube-scheduler's reason.
import { describeBound } from '../../engine/planner/solver/bound';
import { PLANNERS, type PlanSettings } from '../../engine/planner/build';
import { planStatus, type PlanAssignment } from '../../engine/planner/plan';
import { podSetKey, podSetsIn, type PodSetRef } from '../../engine/planner/podset/podset';
import { writeSchedulePlan } from '../../manifests';
import { OUTPUT_OPTION, outputFormat, outputHelp, parseCommand } from '../arguments';
import { dbHelp, DB_OPTION } from '../plan-store';
import { strictHelp, STRICT_OPTION } from '../input';
import { EXIT, type Command } from '../io';
import { loadPlanning, planSet, type SetOutcome } from '../planning';
import { Recording } from '../recording';
import { sourceHelp, SOURCE_OPTIONS, sourceProblem } from '../source';
import { heading, paint, placement, tablePaint, type Paint } from '../colour';
import { formatTable } from '../table';

const HELP = `Usage: podplan plan <paths…> --pod-set NAME [-n NS] [--planner greedy|optimize|exact|pallet] [--profile file] [--seed n] [-o wide|yaml [--status]|json]
       podplan plan --context NAME [--kubeconfig file] --pod-set NAME [options]

Plans the pending pods of a pod set (pods labelled planner.ciena.io/pod-set: NAME with
schedulerName podset-planner-scheduler) all at once, on the nodes and pods of the YAML files and
directories given (or of the cluster of --context, read only), as the set's ScheduleTrigger would
on turning to Schedule. ScheduleTriggers the
set's trigger depends on (spec.dependsOn) are planned first and their pods assumed placed; a
SchedulePlan already in the files that it depends on, of a set no trigger plans again, stands: its
pods are assumed on their nodes as written. The plan records those pods (podplan explain --plan
places them again).

Options:
${sourceHelp(22)}
  --pod-set <name>    the pod set to plan (namespace/name, or its name)
  -n, --namespace <ns>
                      its namespace (needed only when several namespaces have a set of that name)
  --planner <name>    greedy (the scheduler's pipeline pod by pod), optimize (the whole set at
                      once: as many pods as possible, then as few nodes; a solver improves it
                      for up to 2 s), exact (the HiGHS solver for up to 10 s: proven optimal, or
                      the proven gap) or pallet (Pallet's default planner: its predicates,
                      preferred pod anti-affinity as required, pods by name, a random passing
                      node); every plan is printed with the solver's bound; default: the trigger's
                      planner.ciena.io/planner label, the profile's PodSetPlanner args, else greedy
  --profile <file>    a KubeSchedulerConfiguration; its podset-planner-scheduler profile (else its
                      first) is merged onto the default one. Without it, such a profile among the
                      files given is used.
  --seed <n>          seed for tie-breaking (default 1): the same seed, the same plan
${outputHelp(['json', 'yaml', 'wide'], 22, ['json', 'yaml'])}
                      wide: the table with each pod's score and feasible nodes (of those
                      evaluated) from the cycle that placed it (- when the planner kept none);
                      yaml: the plan as a SchedulePlan manifest (planner.ciena.io/v1alpha1) holding
                      only what Pallet's CRD declares (spec.plan), ready for kubectl apply; json:
                      the plan, its status and the diagnoses
  --made-up-names     with -o yaml: write the plan even when it places pods whose names are made
                      up for workload replicas (marked * in the table, madeUp in --json), which
                      match no real pod
  --status            with -o yaml: add Podplan's status (planner, profile, the pods left out and
                      why), which Pallet's CRD does not declare
${strictHelp(22)}
${dbHelp(22)}
  --no-history        do not record the plan in the plan history
  -h, --help          this help

The plan is recorded in the plan history (with its diagnoses), which podplan history, show, diff
and export read.

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
    const parsed = parseCommand(
      'plan',
      args,
      {
        ...DB_OPTION,
        ...SOURCE_OPTIONS,
        ...STRICT_OPTION,
        'pod-set': { type: 'string' },
        namespace: { type: 'string' },
        planner: { type: 'string' },
        profile: { type: 'string' },
        seed: { type: 'string' },
        yaml: { type: 'boolean' },
        ...OUTPUT_OPTION,
        status: { type: 'boolean' },
        'made-up-names': { type: 'boolean' },
        json: { type: 'boolean' },
        'no-history': { type: 'boolean' },
      },
      Infinity,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { values } = parsed;
    const problem = sourceProblem(parsed);
    if (problem) return fail(`${problem}\n\n${HELP}`);
    const format = outputFormat('plan', values, ['text', 'json', 'yaml', 'wide'], io);
    if (!format) return EXIT.badInput;
    const [asJson, asYaml] = [format === 'json', format === 'yaml'];
    if (values.status && !asYaml) return fail("--status goes with -o yaml (Podplan's status in the SchedulePlan)");
    if (values['no-history'] && values.db !== undefined)
      return fail('--no-history and --db cannot be used together: --db names the history to record in');
    if (values.planner !== undefined && !PLANNERS.has(values.planner))
      return fail(`--planner must be one of ${[...PLANNERS.keys()].join(', ')}, not "${values.planner}"`);
    const planning = await loadPlanning('plan', parsed, values, io);
    if (!planning) return EXIT.badInput;
    const sets = podSetsIn(planning.workspace.cluster.pods, planning.planning.args.schedulerName);
    const listed = sets.map(podSetKey).join(', ') || 'none';
    if (values['pod-set'] === undefined) return fail(`--pod-set is required (pod sets in the files: ${listed})`);
    // A set as the lists name it, namespace/name, is the set of that name in that namespace.
    const [setNamespace, setName] = values['pod-set'].includes('/')
      ? (values['pod-set'].split('/', 2) as [string, string])
      : [values.namespace, values['pod-set']];
    if (setNamespace !== undefined && values.namespace !== undefined && setNamespace !== values.namespace)
      return fail(`--pod-set ${values['pod-set']} and --namespace ${values.namespace} name different namespaces`);
    const named = sets.filter((s) => s.name === setName && (setNamespace === undefined || s.namespace === setNamespace));
    if (named.length === 0) {
      const trigger = planning.triggers.find(
        (t) => t.podSet === values['pod-set'] && (values.namespace === undefined || t.namespace === values.namespace),
      );
      if (trigger)
        return fail(
          `pod set ${trigger.namespace}/${trigger.podSet} has no pending pods in the files (its ScheduleTrigger ${trigger.name} has nothing to plan; are its workloads at 0 replicas?)`,
        );
      return fail(`no pod set ${values.namespace ? `${values.namespace}/` : ''}${values['pod-set']} in the files (pod sets: ${listed})`);
    }
    if (named.length > 1)
      return fail(`pod set ${values['pod-set']} is in namespaces ${named.map((s) => s.namespace).join(', ')}: choose one with --namespace`);
    const ref = named[0] as PodSetRef;
    const override: PlanSettings = values.planner !== undefined ? { planner: values.planner } : {};

    const history = values['no-history'] ? undefined : await Recording.start('plan', planning.source, values.db, io);
    const outcome = await planSet(planning, ref, override, io.clock.now());
    if (typeof outcome === 'string') {
      history?.failed(outcome);
      return fail(outcome);
    }
    const made = outcome.plan;
    const madeUp = (pod: string) => planning.workspace.generated.has(`${ref.namespace}/${pod}`);
    const invented = made?.assignments.filter((a) => madeUp(a.pod)).map((a) => `${ref.namespace}/${a.pod}`) ?? [];
    if (asYaml && invented.length > 0 && !values['made-up-names']) {
      history?.failed('the plan names pods made up for workload replicas');
      return fail(
        `the plan places pods whose names are made up for workload replicas with no pod in the files (${invented.join(', ')}): a SchedulePlan naming them matches no real pod (Pallet matches pods by name). Plan the cluster's pods (--context, or a dump of them), or pass --made-up-names to write it anyway`,
      );
    }
    if (asJson) io.stdout(`${JSON.stringify(toJson(ref, outcome, madeUp), null, 2)}\n`);
    else if (asYaml && made) io.stdout(writeSchedulePlan(made, { status: Boolean(values.status) }));
    else if (!asYaml) io.stdout(report(ref, outcome, madeUp, format === 'wide', paint(io.color)));
    if (!made || outcome.failed) io.stderr(`ScheduleTrigger ${outcome.trigger}: ${outcome.message ?? 'not planned'}\n`);
    if (history) {
      if (made)
        history.finished(
          made,
          planning.profile,
          `${made.assignments.length} of ${made.assignments.length + made.unplaced.length} pods of pod set ${podSetKey(ref)} placed`,
          planning.workspace.generated,
          planning.workspace.cluster,
        );
      else history.failed(outcome.message ?? 'not planned');
    }
    return made && made.unplaced.length === 0 && !outcome.failed ? EXIT.ok : EXIT.unplaced;
  },
};

/** A placed pod's score and feasible nodes from the cycle that placed it; - when the planner kept none. */
function cycleColumns(a: PlanAssignment): [string, string] {
  const d = a.diagnosis;
  if (!d) return ['-', '-'];
  const record = d.scores.find((s) => s.node === a.node);
  return [record ? String(Math.round(record.total)) : '-', `${d.feasibleNodes}/${d.nodesEvaluated}`];
}

function report(ref: PodSetRef, outcome: SetOutcome, madeUp: (pod: string) => boolean, wide: boolean, p: Paint): string {
  const made = outcome.plan;
  if (!made) return '';
  const name = (pod: string) => `${made.namespace}/${pod}${madeUp(pod) ? '*' : ''}`;
  // As podplan schedule shows a preemptor: its node with the pods it evicts (the profile lets plans preempt).
  const evicts = (pod: string) => (made.victims ?? []).filter((v) => v.by === pod).map((v) => v.pod);
  const nodeOf = (pod: string, node: string) => (evicts(pod).length > 0 ? `${node} (preempts ${evicts(pod).join(', ')})` : node);
  const rows = [
    ...made.assignments.map((a) => [name(a.pod), nodeOf(a.pod, a.node), ...(wide ? cycleColumns(a) : [])]),
    ...made.unplaced.map((u) => [name(u.pod), '<none>', ...(wide ? ['-', '-'] : [])]),
  ];
  const total = made.assignments.length + made.unplaced.length;
  const nodes = new Set(made.assignments.map((a) => a.node)).size;
  const placedRows = made.assignments.length;
  const lines = [
    formatTable(
      wide ? ['POD', 'NODE', 'SCORE', 'FEASIBLE'] : ['POD', 'NODE'],
      rows,
      tablePaint(p, (text, row, column) => (column === 1 ? placement(p, row < placedRows, text) : undefined)),
    ),
    ...([...made.assignments, ...made.unplaced].some((p) => madeUp(p.pod))
      ? ['', "* a name made up for a workload's replica that has no pod in the files"]
      : []),
    '',
    `Pod set ${podSetKey(ref)}: ${made.assignments.length} of ${total} pods placed on ${nodes} node${nodes === 1 ? '' : 's'} (planner ${made.planner}, objective ${made.objective ?? 'pack'}, profile ${made.profile}${outcome.trigger ? `, ScheduleTrigger ${outcome.trigger}` : ''}).`,
  ];
  if (made.bound) lines.push(`Bound (${made.bound.solver}): ${describeBound(made.bound, made.assignments.length, nodes)}.`);
  if (made.victims && made.victims.length > 0) {
    lines.push('', heading(p, 'Preempted (the profile lets plans preempt: PodSetPlanner allowPreemption):'));
    for (const v of made.victims) lines.push(`  ${v.pod} on ${v.node}: preempted by ${made.namespace}/${v.by}`);
  }
  if (made.unplaced.length > 0) {
    lines.push('', heading(p, 'Not placed:'));
    for (const u of made.unplaced) lines.push(`  ${made.namespace}/${u.pod}: ${u.message}`);
  }
  return `${lines.join('\n')}\n`;
}

function toJson(ref: PodSetRef, outcome: SetOutcome, madeUp: (pod: string) => boolean) {
  const marked = (pod: string) => (madeUp(pod) ? { madeUp: true } : {});
  const made = outcome.plan;
  return {
    podSet: ref.name,
    namespace: ref.namespace,
    trigger: outcome.trigger ? { name: outcome.trigger, failed: outcome.failed, message: outcome.message ?? null } : null,
    status: made ? planStatus(made) : null,
    assignments: made?.assignments.map((a) => ({ pod: a.pod, node: a.node, ...marked(a.pod) })) ?? [],
    unplaced: made?.unplaced.map((u) => ({ ...u, ...marked(u.pod) })) ?? [],
    victims: made?.victims ?? [],
  };
}
