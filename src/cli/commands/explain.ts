// `podplan explain`: why one pod went to its node, or why it could not be placed: the decision, the
// stage funnel, the rejected nodes grouped by reason, the best nodes' scores plugin by plugin, the
// closest node for an unplaceable pod, and one node in full (--node). The layout comes from the
// engine's explain report (src/engine/explain/report.ts), the same value the editor's views read.
import { podKey, type ClusterSnapshot, type Pod } from '../../engine/api/types';
import { deviceFailureText } from '../../engine/explain/devices';
import { placedBeforeWords } from '../../engine/explain/placed-before-words';
import { podReport, type NodeDetail, type PodReport, type PreemptionReport } from '../../engine/explain/report';
import { nodeVerdicts, type FilterFailure, type NodeVerdict, type Shortfall } from '../../engine/explain/verdicts';
import type { Diagnosis, NodeScoreRecord } from '../../engine/framework/diagnosis';
import { podInfo } from '../../engine/framework/node-info';
import { planClusterOf } from '../../engine/planner/plan-cluster';
import { POD_SET_LABEL, type PlacedPod, type Plan } from '../../engine/planner/plan';
import { POD_SET_SCHEDULER_NAME, podSetsIn } from '../../engine/planner/podset/podset';
import { simulate } from '../../engine/scheduler/simulate';
import { seededRandom } from '../../engine/api/random';
import type { Profile } from '../../engine/framework/profile';
import { podSetFramework } from '../../engine/planner/scheduler/plugin';
import { stringify } from 'yaml';
import { OUTPUT_OPTION, outputFormat, outputHelp, parseCommand, type OutputFormat } from '../arguments';
import { STRICT_HELP, STRICT_OPTION } from '../input';
import { EXIT, type CliIO, type Command } from '../io';
import { loadPlanning, planSet, type Planning } from '../planning';
import { DB_HELP, DB_OPTION, formatTime, planId, readHistory } from '../plan-store';
import { ALL_PENDING_PODS, type PlanStore } from '../../store/store';
import type { PlanSummary, StoredAssignment, StoredUnplaced } from '../../store/types';
import { loadScheduling, runProfile } from '../scheduling';
import { isClusterSource, sourceHelp, SOURCE_OPTIONS, sourceProblem, type SourceArgs } from '../source';
import { heading, paint, placement, tablePaint, type Paint } from '../colour';
import { formatTable } from '../table';
import { formatAmount, unitOf } from '../../protocol/amounts';

const HELP = `Usage: podplan explain <paths…> POD [-n NS] [--node NODE] [-o json|yaml] [--all] [--profile file] [--seed n] [--strict]
       podplan explain --context NAME [--kubeconfig file] POD [options]
       podplan explain POD --plan ID [--db file] [options]

Explains where one pending pod (POD as namespace/name, or name with -n or when only one namespace has it)
goes and why, as podplan schedule places it (the same run, the same seed): the decision (its node,
or kube-scheduler's message), the stage funnel (nodes left after PreFilter, sampling and each
Filter plugin), the rejected nodes grouped by reason with the plugin that said so, the best nodes
with each Score plugin's raw, normalized and weighted score, and, when no node fits, the closest
nodes (fewest failing filters, a lone untolerated taint before a lone shortfall, then the smallest
resource shortfall; the editor ranks them the same way). A pod of a pod set (label
${POD_SET_LABEL}, scheduled by the pod-set planner) is explained at its planned node.

With --plan, a pod of a pod-set plan the history keeps (podplan history lists the ids) is explained
as that plan judged it: the planner's own cycle for it, and each node's verdict on the cluster the
plan was made on (with the pods the sets planned before it placed: its trigger's dependencies),
with the plan's other pods on their nodes, under the pod-set profile it was made with (all kept
with it). No paths are read (any given are ignored), and --profile does not apply. A plan recorded
before the history kept its cluster and profile, or made by a live scheduler (podplan run, whose
plans it keeps without the cluster, which moves), is refused, saying so.

Options:
${sourceHelp(20)}
  --node <name>     that node's complete verdict: every Filter plugin that rejects it, what it lacks,
                    its scores and rank
  --all             list every node (lists are cut to 10 with the count of the rest otherwise)
  -n, --namespace <ns>
                    the namespace of POD (as kubectl's -n)
${outputHelp(['json', 'yaml'], 20, ['json'])}
                    the explanation
  --profile <file>  a KubeSchedulerConfiguration, as podplan schedule takes it
  --seed <n>        seed for sampling and tie-breaking (default 1)
  --plan <id>       explain the pod in that plan of the history, on the cluster and profile it was made with
${DB_HELP}
${STRICT_HELP}
  -h, --help        this help

Exit codes: 0 the pod is placed, 1 it cannot be, 2 bad input or no such pod.

Examples:
  podplan explain examples/cluster ml/trainer
  podplan explain examples/cluster web-0 --node node-b1
  podplan explain analytics/batch-0 --plan 12
`;

/** How many nodes each list shows without --all. */
const LIST_LIMIT = 10;

export const explainCommand: Command = {
  name: 'explain',
  summary: 'explain why one pod goes to its node, or why it cannot be placed',
  help: HELP,
  async run(args, io) {
    const parsed = parseCommand(
      'explain',
      args,
      {
        ...SOURCE_OPTIONS,
        ...STRICT_OPTION,
        node: { type: 'string' },
        namespace: { type: 'string' },
        ...OUTPUT_OPTION,
        json: { type: 'boolean' },
        all: { type: 'boolean' },
        profile: { type: 'string' },
        seed: { type: 'string' },
        plan: { type: 'string' },
        ...DB_OPTION,
      },
      Infinity,
      io,
    );
    if (!parsed) return EXIT.badInput;
    const { positionals, values } = parsed;
    const fail = (message: string) => (io.stderr(`podplan explain: ${message}\n`), EXIT.badInput);
    const format = outputFormat('explain', values, ['text', 'json', 'yaml'], io);
    if (!format) return EXIT.badInput;
    const last = positionals.at(-1);
    // -n ns names the pod's namespace, as kubectl's does (a namespace/name given wins, if they agree).
    if (last?.includes('/') && values.namespace !== undefined && !last.startsWith(`${values.namespace}/`))
      return fail(`${last} is not in namespace ${values.namespace} (-n)`);
    const wanted = last !== undefined && values.namespace !== undefined && !last.includes('/') ? `${values.namespace}/${last}` : last;
    // --plan reads the cluster and profile the history kept with the plan: no paths.
    const pathsNeeded = !isClusterSource({ positionals, values }) && values.plan === undefined;
    if (wanted === undefined || (pathsNeeded && positionals.length < 2))
      return fail(`${pathsNeeded ? 'paths and a pod are' : 'a pod is'} needed\n\n${HELP}`);
    // The last word is the pod; the words before it are the paths (none with --context).
    const source: SourceArgs = { positionals: positionals.slice(0, -1), values };
    if (values.plan !== undefined) {
      if (values.profile !== undefined)
        return fail('--profile does not apply with --plan: a stored plan is judged with the pod-set profile it was made with');
      const id = planId('explain', values.plan, io);
      if (id === undefined) return EXIT.badInput;
      return explainStored(id, wanted, values, format, values.all ? Infinity : LIST_LIMIT, io);
    }
    const problem = sourceProblem(source);
    if (problem) return fail(`${problem}\n\n${HELP}`);
    const scheduling = await loadScheduling('explain', source, values, io);
    if (!scheduling) return EXIT.badInput;
    const { workspace } = scheduling;
    const found = findPod(workspace.cluster.pods, wanted);
    if (typeof found === 'string') return fail(found);
    const key = podKey(found);
    if (values.node !== undefined && !workspace.cluster.nodes.some((n) => n.metadata.name === values.node))
      return fail(`no node ${values.node} in the files`);
    if (found.spec.nodeName)
      return fail(`${key} is already bound to ${found.spec.nodeName} (spec.nodeName): there is no decision to explain`);
    const limit = values.all ? Infinity : LIST_LIMIT;
    const generated = workspace.generated.has(key);

    const podSet = found.metadata.labels?.[POD_SET_LABEL];
    if (podSet !== undefined && found.spec.schedulerName === POD_SET_SCHEDULER_NAME)
      return explainPlanned(source, found, podSet, values, format, limit, io);

    let verdicts: NodeVerdict[] | undefined;
    const result = await simulate(workspace.cluster, {
      profile: runProfile(scheduling, 0),
      seed: scheduling.seed,
      beforeCycle: (framework, state, pod, snapshot) => {
        if (pod.key !== key) return;
        // This pod's cycle keeps every score, and every node's complete verdict is taken on the same snapshot.
        state.recordScores = Infinity;
        verdicts = nodeVerdicts(framework, pod, snapshot);
      },
    });
    if (!result.ok) {
      for (const e of result.error) io.stderr(`${scheduling.profile ? scheduling.profile.locate(e) : e.message}\n`);
      return EXIT.badInput;
    }
    const outcome = result.value.outcomes.find((o) => o.pod === key);
    if (!outcome) {
      const why =
        result.value.waiting.find((w) => w.pod === key)?.reason ??
        result.value.rejected.find((r) => r.pod === key)?.error ??
        result.value.otherScheduler.find((o) => o.pod === key)?.schedulerName;
      return fail(`${key} was not scheduled by this run${why ? `: ${why}` : ''}`);
    }
    const report = podReport(outcome.diagnosis, {
      limit,
      ...(verdicts ? { verdicts } : {}),
      ...(values.node !== undefined ? { node: values.node } : {}),
    });
    io.stdout(structured(format, { ...report, generated, attempts: outcome.attempts }) ?? formatReport(report, generated, paint(io.color)));
    return report.placed ? EXIT.ok : EXIT.unplaced;
  },
};

/** The value as -o json or yaml prints it; undefined for the text report. */
function structured(format: OutputFormat, value: unknown): string | undefined {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  if (format === 'yaml') return stringify(value);
  return undefined;
}

/** `name` or `namespace/name` among the pods; a string saying why when it is not exactly one. */
function findPod(pods: readonly Pod[], wanted: string): Pod | string {
  const matches = wanted.includes('/') ? pods.filter((p) => podKey(p) === wanted) : pods.filter((p) => p.metadata.name === wanted);
  if (matches.length === 1) return matches[0] as Pod;
  if (matches.length > 1) return `pod ${wanted} is in several namespaces (${matches.map(podKey).join(', ')}): name it as namespace/name`;
  const near = pods
    .filter((p) => p.metadata.name.startsWith(wanted.split('/').pop() ?? wanted))
    .slice(0, 5)
    .map(podKey);
  return `no pod ${wanted} in the files${near.length ? ` (pods named like it: ${near.join(', ')})` : ''}`;
}

/** A pod of a pod set: planned with its set, as podplan plan would, and explained at its planned node. */
async function explainPlanned(
  source: SourceArgs,
  pod: Pod,
  podSet: string,
  values: { node?: string | undefined; profile?: string | undefined; seed?: string | undefined; strict?: boolean | undefined },
  format: OutputFormat,
  limit: number,
  io: CliIO,
): Promise<number> {
  const planning = await loadPlanning('explain', source, values, io);
  if (!planning) return EXIT.badInput;
  const namespace = pod.metadata.namespace ?? 'default';
  const ref = podSetsIn(planning.workspace.cluster.pods, planning.planning.args.schedulerName).find(
    (s) => s.name === podSet && s.namespace === namespace,
  );
  if (!ref) {
    io.stderr(`podplan explain: ${podKey(pod)} is in pod set ${podSet} but not scheduled by ${planning.planning.args.schedulerName}\n`);
    return EXIT.badInput;
  }
  const outcome = await planSet(planning, ref, {}, io.clock.now());
  if (typeof outcome === 'string') {
    io.stderr(`podplan explain: ${outcome}\n`);
    return EXIT.badInput;
  }
  const plan = outcome.plan;
  const assigned = plan?.assignments.find((a) => a.pod === pod.metadata.name);
  const unplaced = plan?.unplaced.find((u) => u.pod === pod.metadata.name);
  const diagnosis = assigned?.diagnosis ?? unplaced?.diagnosis;
  const lead = `${podKey(pod)} is in pod set ${podSet}: planned with its set by the ${plan?.planner ?? 'pod-set'} planner${outcome.trigger ? ` (ScheduleTrigger ${outcome.trigger})` : ''}.`;
  if (!diagnosis) {
    const text = assigned
      ? `${lead}\nPlanned node: ${assigned.node} (the planner chose it for the set as a whole; it records no cycle for this pod).\n`
      : `${lead}\nNot in the plan: ${outcome.message ?? 'not planned'}\n`;
    io.stdout(
      structured(format, {
        pod: podKey(pod),
        podSet,
        planner: plan?.planner ?? null,
        node: assigned?.node ?? null,
        message: outcome.message ?? null,
      }) ?? text,
    );
    return assigned ? EXIT.ok : EXIT.unplaced;
  }
  const cycle = { ...diagnosis, ...(assigned ? { chosenNode: assigned.node } : {}) };
  const verdicts = plan ? planVerdicts(planning, pod, plan, cycle) : [];
  const report = podReport(cycle, {
    limit,
    ...(verdicts.length > 0 ? { verdicts } : {}),
    ...(values.node !== undefined ? { node: values.node } : {}),
  });
  io.stdout(
    structured(format, { ...report, podSet, planner: plan?.planner }) ?? `${lead}\n${formatReport(report, false, paint(io.color))}`,
  );
  return report.placed ? EXIT.ok : EXIT.unplaced;
}

/**
 * The verdicts explain shows beside the planner's cycle for a pod of a set (the closest nodes, the
 * device requests not met per node), as the editor's explain view has them: on the cluster as the
 * set's plan leaves it, the pods of the sets planned before it (its trigger's dependencies) and the
 * set's other placed pods on their nodes (engine/planner/plan-cluster.ts, which the editor's plan
 * check and ranking judge on too), where the claims they share or take count as allocated there.
 */
function planVerdicts(planning: Planning, pod: Pod, plan: Plan, cycle: Diagnosis): NodeVerdict[] {
  const info = podInfo(pod);
  const cluster = planClusterOf(planning.workspace.cluster, plan, pod.metadata.name);
  if (!info.ok || !cluster.ok) return [];
  return cluster.value.verdicts(planning.planning.framework, info.value, cycle);
}

/** What the history keeps of a plan for explaining one of its pods, or why it cannot be. */
interface StoredForExplain {
  readonly summary: PlanSummary;
  readonly pod: Pod;
  readonly cluster: ClusterSnapshot;
  readonly profile: Profile;
  /** The pods the plans of other sets placed before it; undefined when the history did not keep them (before schema version 10). */
  readonly placedBefore: readonly PlacedPod[] | undefined;
  readonly assignments: readonly StoredAssignment[];
  readonly unplaced?: StoredUnplaced;
  readonly diagnosis: Diagnosis | undefined;
}

/** The plan, its cluster and the pod's kept cycle from the history; a message when one is missing. */
function readStored(store: PlanStore, id: number, wanted: string): StoredForExplain | string {
  const plan = store.getPlan(id);
  if (!plan.ok) return plan.error.message;
  const { summary, assignments, unplaced } = plan.value;
  if (summary.podSet === ALL_PENDING_PODS)
    return `plan ${id} records podplan schedule's decisions, not a pod set's plan: --plan explains a pod of a pod set's plan (podplan show ${id} prints where each pod went and why)`;
  const name = wanted.includes('/') ? wanted.slice(wanted.indexOf('/') + 1) : wanted;
  if (wanted.includes('/') && !wanted.startsWith(`${summary.namespace}/`))
    return `plan ${id} is of pod set ${summary.namespace}/${summary.podSet}: it has no pod ${wanted}`;
  const key = `${summary.namespace}/${name}`;
  if (!assignments.some((a) => a.pod === name) && !unplaced.some((u) => u.pod === name))
    return `plan ${id} (pod set ${summary.namespace}/${summary.podSet}) has no pod ${key}`;
  const basis = store.planBasis(id);
  if (!basis.ok) return basis.error.message;
  const instead = `podplan show ${id} prints where each pod went and why; podplan explain without --plan explains ${key} on the files as they are`;
  if (!basis.value && summary.runKind === 'live')
    return `plan ${id} was made by a live scheduler (podplan run, or the editor's Run Podplan as scheduler) on the cluster as it was at that moment, which the history does not keep with a live scheduler's plans: its pods cannot be judged as it left the cluster, and judging them on today's files would be another plan's answer (${instead})`;
  if (!basis.value)
    return `plan ${id} was recorded before the plan history kept the cluster a plan is made on (history schema version 8): its pods cannot be judged as it left the cluster, and judging them on today's files would be another plan's answer (${instead})`;
  const { cluster, profile, placedBefore } = basis.value;
  if (!profile)
    return `plan ${id} was recorded before the plan history kept the pod-set profile a plan is made with (history schema version 9): its pods cannot be judged as it judged them, and judging them with today's profile would be another plan's answer (${instead})`;
  const pod = cluster.pods.find((p) => (p.metadata.namespace ?? 'default') === summary.namespace && p.metadata.name === name);
  if (!pod) return `plan ${id}'s cluster has no pod ${key} (a name made up for a workload's replica is not kept as a pod)`;
  const diagnosis = store.diagnosis(id, name);
  if (!diagnosis.ok) return diagnosis.error.message;
  const u = unplaced.find((x) => x.pod === name);
  return { summary, pod, cluster, profile, placedBefore, assignments, ...(u ? { unplaced: u } : {}), diagnosis: diagnosis.value };
}

/**
 * A pod of a stored plan, explained as that plan judged it: the planner's kept cycle, and every
 * node's verdict on the cluster the plan was made on with its other pods on their nodes (the same
 * judgement as for a plan made now, planVerdicts), under the pod-set profile it was made with.
 */
async function explainStored(
  id: number,
  wanted: string,
  values: { db?: string | undefined; node?: string | undefined; seed?: string | undefined },
  format: OutputFormat,
  limit: number,
  io: CliIO,
): Promise<number> {
  let found: StoredForExplain | string | undefined;
  const read = await readHistory('explain', values.db, io, (store) => {
    found = readStored(store, id, wanted);
    return EXIT.ok;
  });
  if (read !== EXIT.ok || found === undefined) return read;
  if (typeof found === 'string') {
    io.stderr(`podplan explain: ${found}\n`);
    return EXIT.badInput;
  }
  if (values.node !== undefined && !found.cluster.nodes.some((n) => n.metadata.name === values.node)) {
    io.stderr(`podplan explain: no node ${values.node} in the cluster plan ${id} was made on\n`);
    return EXIT.badInput;
  }
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isInteger(seed)) {
    io.stderr(`podplan explain: --seed must be a whole number, not "${values.seed}"\n`);
    return EXIT.badInput;
  }
  const planning = podSetFramework(found.profile, { random: seededRandom(seed) });
  if (!planning.ok) {
    io.stderr(`podplan explain: the profile plan ${id} was made with does not build: ${planning.error.map((e) => e.message).join('; ')}\n`);
    return EXIT.badInput;
  }
  const { summary, pod, diagnosis } = found;
  const key = podKey(pod);
  const assigned = found.assignments.find((a) => a.pod === pod.metadata.name);
  const lead = `${key} in plan ${id} (pod set ${summary.namespace}/${summary.podSet}, planner ${summary.planner}, made ${formatTime(summary.createdAt)}): ${judgedOn(found)}`;
  if (!diagnosis) {
    const text = assigned
      ? `${lead}\nPlanned node: ${assigned.node} (the planner chose it for the set as a whole; it records no cycle for this pod).\n`
      : `${lead}\nNot placed: ${found.unplaced?.message ?? 'not planned'}\n`;
    io.stdout(structured(format, { pod: key, plan: id, planner: summary.planner, node: assigned?.node ?? null }) ?? text);
    return assigned ? EXIT.ok : EXIT.unplaced;
  }
  const cycle = { ...diagnosis, ...(assigned ? { chosenNode: assigned.node } : {}) };
  const info = podInfo(pod);
  const cluster = planClusterOf(
    found.cluster,
    { namespace: summary.namespace, assignments: found.assignments, ...(found.placedBefore ? { placedBefore: found.placedBefore } : {}) },
    pod.metadata.name,
  );
  const verdicts = info.ok && cluster.ok ? cluster.value.verdicts(planning.value.framework, info.value, cycle) : [];
  const report = podReport(cycle, {
    limit,
    ...(verdicts.length > 0 ? { verdicts } : {}),
    ...(values.node !== undefined ? { node: values.node } : {}),
  });
  io.stdout(
    structured(format, { ...report, plan: id, podSet: summary.podSet, planner: summary.planner }) ??
      `${lead}\n${formatReport(report, false, paint(io.color))}`,
  );
  return report.placed ? EXIT.ok : EXIT.unplaced;
}

/** Where a stored plan's pod is judged, in words: the cluster as that plan saw it, and what of it the history did not keep. */
function judgedOn(found: StoredForExplain): string {
  const { seen, unknown } = placedBeforeWords(found.placedBefore, found.summary.trigger);
  return `judged on the cluster that plan was made on${seen}, with its other pods on their planned nodes, under the profile it was made with.${unknown}`;
}

function more(count: number, shown: number): string {
  return count > shown ? ` … and ${count - shown} more (--all lists them)` : '';
}

function formatFailure(f: FilterFailure): string {
  return `${f.plugin} (${f.stage}): ${f.reasons.join('; ') || f.code}`;
}

/** A failure's line and, under it, each device request it could not meet (DynamicResources). */
function failureLines(f: FilterFailure, lead: string, prefix = ''): string[] {
  return [`${lead}${prefix}${formatFailure(f)}`, ...(f.devices ?? []).map((d) => `${lead}  - ${deviceFailureText(d)}`)];
}

function formatShortfall(s: readonly Shortfall[]): string {
  return s.map((x) => `${x.resource} short by ${formatAmount(x.missing, unitOf(x.resource))}`).join(', ');
}

function scoreTable(records: readonly NodeScoreRecord[], p: Paint, firstRank = 1): string {
  const plugins = records[0]?.plugins.map((p) => p.plugin) ?? [];
  const rows = records.map((r, i) => [
    String(firstRank + i),
    r.node,
    String(Math.round(r.total)),
    ...plugins.map((name) => {
      const p = r.plugins.find((x) => x.plugin === name);
      return p ? `${round(p.raw)}/${round(p.normalized)}×${p.weight}=${round(p.weighted)}` : '';
    }),
  ]);
  return formatTable(['#', 'NODE', 'TOTAL', ...plugins], rows, tablePaint(p));
}

function round(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

/** The report as a terminal shows it: every list cut to `limit` with the count of the rest. */
function formatReport(r: PodReport, generated: boolean, p: Paint): string {
  const lines: string[] = [];
  lines.push(`${p.bold(`Pod ${r.pod}`)}${generated ? " (a name made up for a workload's replica that has no pod in the files)" : ''}`);
  lines.push(
    r.placed ? `Decision: ${placement(p, true, `placed on ${r.node}`)}` : `Decision: ${placement(p, false, `not placed: ${r.message}`)}`,
  );
  lines.push('', heading(p, 'Stage funnel (nodes left):'));
  lines.push(
    indent(
      formatTable(
        ['STEP', 'NODES'],
        r.funnel.map((s) => [s.step, String(s.nodes)]),
        tablePaint(p),
      ),
    ),
  );
  if (r.rejected.length > 0) {
    lines.push('', heading(p, 'Rejected nodes by reason:'));
    for (const g of r.rejected)
      lines.push(`  ${g.count} × ${g.reason} [${g.plugin}, ${g.stage}]: ${g.nodes.join(', ')}${more(g.count, g.nodes.length)}`);
  }
  if (r.best.length > 0) {
    lines.push('', heading(p, `Best nodes (of ${r.scoredNodes} scored; each plugin raw/normalized×weight=weighted):`));
    lines.push(indent(scoreTable(r.best, p)));
    if (r.scoredNodes > r.best.length) lines.push(`  … and ${r.scoredNodes - r.best.length} more scored nodes (--all lists them)`);
  } else if (r.placed && r.nominatedNode !== undefined) {
    lines.push(
      '',
      `Not scored: the pod's nominated node (${r.nominatedNode}, kept for it by preemption) fits, which kube-scheduler takes without searching further.`,
    );
  } else if (r.placed) {
    lines.push('', 'Not scored: the only feasible node, which kube-scheduler takes without scoring.');
  }
  if (r.closest.length > 0) {
    lines.push(
      '',
      heading(p, 'Closest nodes (fewest failing filters, a lone taint before a lone shortfall, then the smallest shortfall):'),
    );
    for (const c of r.closest) {
      lines.push(
        `  ${c.node}: ${c.failures.length} failing filter${c.failures.length === 1 ? '' : 's'}${c.shortfall.length ? `; ${formatShortfall(c.shortfall)}` : ''}`,
      );
      for (const f of c.failures) lines.push(...failureLines(f, '    '));
    }
  }
  if (r.devices.length > 0) {
    lines.push('', heading(p, 'Device requests not met (DynamicResources; per node, what stood in the way):'));
    for (const n of r.devices) {
      lines.push(`  ${n.node}:`);
      for (const d of n.devices) lines.push(`    - ${deviceFailureText(d)}`);
    }
    if (r.moreDevices > 0) lines.push(`  … and ${r.moreDevices} more nodes (--all lists them)`);
  }
  if (r.preemption) lines.push('', ...formatPreemption(r.preemption, p));
  if (r.detail) lines.push('', ...formatDetail(r.detail, p));
  return `${lines.join('\n')}\n`;
}

/** Which victims make room on which node, each other candidate with the criterion it lost on, and the nodes it could not help. */
function formatPreemption(p: PreemptionReport, paint: Paint): string[] {
  const lines: string[] = [];
  const victims = p.victims.join(', ');
  if (p.node === undefined) lines.push('Preemption: no eviction of lower-priority pods makes room on any node.');
  else if (p.reportOnly)
    lines.push(
      `Preemption (not done: plans do not preempt unless the profile allows it: PodSetPlanner args allowPreemption): evicting ${victims} from ${p.node} would make room.`,
    );
  else lines.push(`Preemption: evicting ${victims} from ${p.node} makes room.`);
  if (p.candidates.length > 0) {
    lines.push(
      '  Candidate nodes (upstream pickOneNodeForPreemption: fewest PDB violations, lowest highest victim priority, smallest priority sum, fewest victims, latest start):',
    );
    const rows = p.candidates.map((c) => [
      c.node,
      c.victims.map((v) => `${v.pod} (${v.priority}${v.violatesPdb ? ', breaks a PDB' : ''})`).join(', '),
      String(c.pdbViolations),
      c.lostOn === undefined ? 'chosen' : `lost: ${p.node ?? ''} has ${c.lostOn}`,
    ]);
    lines.push(indent(indent(formatTable(['NODE', 'VICTIMS (PRIORITY)', 'PDB VIOLATIONS', 'VERDICT'], rows, tablePaint(paint)))));
    if (p.moreCandidates > 0) lines.push(`    … and ${p.moreCandidates} more candidates (--all lists them)`);
  }
  if (p.failures.length > 0) {
    lines.push('  Nodes where evicting would not help:');
    for (const f of p.failures) lines.push(`    ${f.count} × ${f.reason}: ${f.nodes.join(', ')}${more(f.count, f.nodes.length)}`);
  }
  if (p.notTried > 0)
    lines.push(
      `  ${p.notTried} node${p.notTried === 1 ? '' : 's'} not tried (rejected for a reason no eviction resolves, or enough candidates were found first)`,
    );
  return lines;
}

function formatDetail(d: NodeDetail, p: Paint): string[] {
  const lines = [`${heading(p, `Node ${d.node}`)}: ${d.standing}${d.rank !== undefined ? ` (rank ${d.rank})` : ''}`];
  if (d.rejection) lines.push(`  rejected by ${d.rejection.plugin} at ${d.rejection.stage}: ${d.rejection.reasons.join('; ')}`);
  if (d.failures) {
    if (d.failures.length === 0) lines.push('  every Filter plugin passes it');
    else for (const f of d.failures) lines.push(...failureLines(f, '  ', 'fails '));
  }
  if (d.shortfall && d.shortfall.length > 0) lines.push(`  lacks: ${formatShortfall(d.shortfall)}`);
  if (d.score) lines.push(indent(scoreTable([d.score], p, d.rank)));
  if (d.note) lines.push(`  ${d.note}`);
  return lines;
}
