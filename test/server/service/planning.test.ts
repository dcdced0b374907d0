import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { madeUpClaimName } from '../../../src/engine/plugins/dynamicresources/claims';
import { noHistory } from '../../../src/server/history';
import { explainInPlan, explainPod, planPodSet, planView } from '../../../src/server/service/planning';
import { docs, node, plan, pod, workspaceOf } from './fixtures';

/** Trigger `s` of set `s` with extra labels. */
const labelledTrigger = (labels: string) =>
  `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: s\n  labels:\n    planner.ciena.io/pod-set: s\n${labels}spec:\n  state: Planning\n`;

/** The planner's profile with PodSetPlanner args. */
const plannerProfile = (args: string) =>
  `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: podset-planner-scheduler\n    pluginConfig:\n      - name: PodSetPlanner\n        args: ${args}\n`;

/** The plan of set `s` through its trigger, in short: planner, pods placed and pods left out. */
function planOf(triggerLabels: string, cluster: string, profile = '') {
  const analysis = workspaceOf({
    'cluster.yaml': cluster,
    'trigger.yaml': labelledTrigger(triggerLabels),
    ...(profile ? { 'profile.yaml': profile } : {}),
  }).analysis();
  const made = planPodSet(analysis, { namespace: 'default', podSet: 's', trigger: 's' });
  if (!made.ok) return made.error;
  const plan = made.value;
  return {
    trigger: plan.trigger,
    planner: plan.planner,
    placed: plan.assignments.map((a) => a.pod).sort(),
    left: plan.unplaced.map((u) => u.pod).sort(),
  };
}

describe('server/service/planning: plans are made by the engine’s pod-set planner', () => {
  const room = docs(node('n1', '2'), pod('a', 's'), pod('b', 's'), pod('c', 's'));
  const cases: Array<[string, string, string, ReturnType<typeof planOf>, string?]> = [
    [
      'no planner label: the default planner, on the trigger’s behalf',
      '',
      room,
      { trigger: 's', planner: 'greedy', placed: ['a', 'b'], left: ['c'] },
    ],
    [
      'the trigger’s planner label chooses the planner',
      '    planner.ciena.io/planner: optimize\n',
      room,
      { trigger: 's', planner: 'optimize', placed: ['a', 'b'], left: ['c'] },
    ],
    [
      'a gang larger than what fits places nothing',
      '    planner.ciena.io/min-member: "3"\n',
      room,
      { trigger: 's', planner: 'greedy', placed: [], left: ['a', 'b', 'c'] },
    ],
    [
      'a bound member stays on its node and counts',
      '',
      docs(node('n1', '2'), pod('a', 's', '1', '  nodeName: n1\n'), pod('b', 's'), pod('c', 's')),
      { trigger: 's', planner: 'greedy', placed: ['a', 'b'], left: ['c'] },
    ],
    [
      'the profile’s PodSetPlanner args choose it when no label does',
      '',
      room,
      { trigger: 's', planner: 'optimize', placed: ['a', 'b'], left: ['c'] },
      plannerProfile('{ planner: optimize }'),
    ],
    [
      'a label says before the profile',
      '    planner.ciena.io/planner: greedy\n',
      room,
      { trigger: 's', planner: 'greedy', placed: ['a', 'b'], left: ['c'] },
      plannerProfile('{ planner: optimize }'),
    ],
    [
      'a planner nobody knows is an error naming the label',
      '    planner.ciena.io/planner: clever\n',
      room,
      'label planner.ciena.io/planner: unknown planner "clever" (one of greedy, optimize, exact, pallet)',
    ],
  ];
  for (const [what, labels, cluster, expected, profile] of cases)
    it(what, () => assert.deepEqual(planOf(labels, cluster, profile), expected));
});

describe('server/service/planning: the view models of a plan and of an explanation', () => {
  const cluster = docs(node('n1'), node('n2'), pod('a', 's'), pod('b', 's'), pod('big-1', 's', '8'), pod('big-2', 's', '8'));

  it('every node of the cluster is on the map, the unplaced are one group per reason, the set has a funnel', () => {
    const analysis = workspaceOf({ 'cluster.yaml': cluster }).analysis();
    const made = planPodSet(analysis, { namespace: 'default', podSet: 's' });
    assert.ok(made.ok);
    const view = planView(made.value, analysis);
    assert.deepEqual(
      view.nodes.map((n) => n.node),
      ['n1', 'n2'],
    );
    assert.deepEqual(
      view.nodes.flatMap((n) => n.owners.map((o) => o.owner)),
      view.nodes.flatMap((n) => (n.pods.length > 0 ? ['s'] : [])),
    );
    assert.deepEqual(
      view.unplacedGroups.map((g) => [g.plugin, g.reason, g.pods]),
      [['NodeResourcesFit', 'Insufficient cpu', ['big-1', 'big-2']]],
    );
    assert.equal(view.funnel.pods, 4);
    assert.deepEqual(view.funnel.steps.find((s) => s.plugin === 'NodeResourcesFit')?.podsStopped, ['big-1', 'big-2']);
  });

  it('explaining a planned pod explains its planned node, on the cluster as the plan leaves it', () => {
    const analysis = workspaceOf({
      'cluster.yaml': cluster,
      'plan.yaml': plan('s', [
        ['a', 'n2'],
        ['b', 'n2'],
      ]),
    }).analysis();
    const a = analysis.pod('default', 'a');
    assert.ok(a);
    const x = explainPod(a, analysis);
    assert.equal(x.plannedNode, 'n2');
    assert.equal(x.plan, 's-plan');
    assert.equal(x.cycle, 'now');
    assert.match(x.verdict, /^n2, the planned node, (fits|is where a cycle puts the pod now)/);
    assert.deepEqual(x.matrix.rows.map((r) => r.node).sort(), ['n1', 'n2']);
  });

  it('explaining a pod nothing fits names the closest node and by how much it falls short', () => {
    const analysis = workspaceOf({ 'cluster.yaml': cluster }).analysis();
    const big = analysis.pod('default', 'big-1');
    assert.ok(big);
    const x = explainPod(big, analysis);
    assert.equal(x.matrix.closest?.node, 'n1');
    assert.equal(x.verdict, 'No node fits. Closest: n1, which fails only NodeResourcesFit: Insufficient cpu (short by 4 cpu).');
  });

  it('explaining a DRA pod says per node which device request was not met and why, beside upstream’s reason', () => {
    const files = Object.fromEntries(
      ['classes', 'nodes', 'pods', 'slices'].map((f) => [`dra/${f}.yaml`, readFileSync(`examples/dra/${f}.yaml`, 'utf8')]),
    );
    const analysis = workspaceOf(files).analysis();
    const tooBig = analysis.pod('default', 'too-big');
    assert.ok(tooBig);
    const x = explainPod(tooBig, analysis);
    const row = x.matrix.rows.find((r) => r.node === 'gpu-a1');
    assert.deepEqual(row?.reasons, ['cannot allocate all claims']);
    assert.deepEqual(row?.devices, ['claim default/eight-gpus, request gpus (8 × gpu.example.com): only 4 matching devices on the node']);
    assert.deepEqual(x.devices?.find((n) => n.node === 'cpu-1')?.lines, [
      'claim default/eight-gpus, request gpus (8 × gpu.example.com): the node has no devices',
    ]);
    assert.equal(x.devices?.length, 5);
    assert.match(
      x.matrix.closest?.why ?? '',
      /^fails only DynamicResources: cannot allocate all claims \(claim default\/eight-gpus, request gpus/,
    );
    // A placed pod: the nodes DynamicResources rejected for it still say why.
    const trainer = analysis.pod('default', 'trainer-0');
    assert.ok(trainer);
    const t = explainPod(trainer, analysis);
    assert.ok(t.chosenNode);
    assert.equal(t.devices?.find((n) => n.node === 'cpu-1')?.lines.length, 1);
    assert.match(
      t.devices?.find((n) => n.node === 'cpu-1')?.lines[0] ?? '',
      /^claim default\/trainer-0-gpus-\w{5}, request gpus \(2 × large-gpu\.example\.com\): the node has no devices$/,
    );
  });

  it('explaining a DRA pod a SchedulePlan places: on the cluster as the plan leaves it, the devices of the pods planned before it are taken', () => {
    // test/fixtures/dra/plan: train-0, train-1 and train-2 planned on g1, which has two GPUs.
    const dir = 'test/fixtures/dra/plan';
    const analysis = workspaceOf(
      Object.fromEntries(['cluster', 'gang', 'plan'].map((f) => [`${f}.yaml`, readFileSync(`${dir}/${f}.yaml`, 'utf8')])),
    ).analysis();
    const pod = analysis.pod('default', 'train-2');
    assert.ok(pod);
    const x = explainPod(pod, analysis);
    assert.equal(x.plannedNode, 'g1');
    assert.equal(x.verdict, 'g1, the planned node, rejects the pod at Filter: DynamicResources: cannot allocate all claims.');
    const claim = `claim default/${madeUpClaimName(pod.value, 'gpu')}, request gpu (1 × gpu.example.com)`;
    assert.deepEqual(x.devices, [
      {
        node: 'g1',
        lines: [`${claim}: 0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan`],
      },
      { node: 'c1', lines: [`${claim}: the node has no devices`] },
    ]);
    assert.equal(x.chosenNode, 'g2', 'a cycle puts it where a GPU is free');
  });

  it('a DRA pod set: each placed pod’s devices in the plan, and per node its devices by class: allocated, planned, in all', () => {
    const files = {
      ...Object.fromEntries(['classes', 'nodes', 'slices'].map((f) => [`dra/${f}.yaml`, readFileSync(`examples/dra/${f}.yaml`, 'utf8')])),
      'dra/gang.yaml': readFileSync('test/fixtures/dra/gang.yaml', 'utf8'),
    };
    const analysis = workspaceOf(files).analysis();
    const made = planPodSet(analysis, { namespace: 'default', podSet: 'gang', trigger: 'gang' });
    assert.ok(made.ok, made.ok ? '' : made.error);
    const plan = made.value;
    assert.equal(plan.assignments.length, 6);
    // One GPU each, none twice.
    const devices = plan.assignments.map((a) => a.devices ?? []);
    assert.ok(devices.every((d) => d.length === 1 && d[0]?.request === 'gpu' && /^default\/train-\d+-gpu-\w{5}$/.test(d[0].claim)));
    const ids = devices.map((d) => `${d[0]?.pool}/${d[0]?.device}`);
    assert.equal(new Set(ids).size, 6);
    ids.forEach((id, i) => assert.equal(id.split('/')[0], plan.assignments[i]?.node));
    const view = planView(plan, analysis);
    const used = view.nodes.filter((n) => n.pods.length > 0);
    for (const n of used)
      assert.deepEqual(
        n.devices?.find((d) => d.deviceClass === 'gpu.example.com'),
        { deviceClass: 'gpu.example.com', total: 4, allocated: 0, planned: n.pods.length },
      );
    assert.deepEqual(view.nodes.find((n) => n.node === 'cpu-1')?.devices, undefined);
    // The large-GPU class counts the A100s of gpu-a1 and gpu-b1 only.
    assert.equal(view.nodes.find((n) => n.node === 'gpu-a1')?.devices?.find((d) => d.deviceClass === 'large-gpu.example.com')?.total, 4);
    assert.equal(
      view.nodes.find((n) => n.node === 'gpu-a2')?.devices?.some((d) => d.deviceClass === 'large-gpu.example.com'),
      false,
    );
  });

  it('explaining a pod in a preview plan reads the planner’s own cycle for it, about the node it got there', async () => {
    const analysis = workspaceOf({ 'cluster.yaml': cluster }).analysis();
    const made = planPodSet(analysis, { namespace: 'default', podSet: 's' });
    assert.ok(made.ok);
    const node = made.value.assignments.find((a) => a.pod === 'b')?.node;
    const b = analysis.pod('default', 'b');
    const big = analysis.pod('default', 'big-2');
    assert.ok(b && big && node);
    const x = await explainInPlan(b, analysis, { podSet: 's' }, noHistory('not needed'));
    assert.deepEqual([x?.plannedNode, x?.plan, x?.cycle], [node, 'the preview of s', 'planner']);
    assert.match(
      x?.verdict ?? '',
      new RegExp(`^${node}, the planned node, is where the planner’s cycle put the pod: the best of \\d feasible nodes`),
    );
    const left = await explainInPlan(big, analysis, { podSet: 's' }, noHistory('not needed'));
    assert.equal(left?.plannedNode, undefined);
    // The closest node with its shortfall on the cluster as the plan leaves it (b's cpu on its node).
    assert.equal(left?.verdict, 'No node fits. Closest: n1, which fails only NodeResourcesFit: Insufficient cpu (short by 5 cpu).');
    assert.match(left?.matrix.closest?.why ?? '', /\(short by 5 cpu\)$/);
    // A stored plan the history cannot give: no explanation in it (the caller explains the pod as it is).
    assert.equal(await explainInPlan(b, analysis, { podSet: 's', historyId: 7 }, noHistory('off')), undefined);
  });
});

describe('server/service/planning: preemption in an explanation', () => {
  /** A default-scheduler pod of `cpu` at `priority`, bound to `nodeName` when given. */
  const running = (name: string, cpu: string, priority: number, nodeName?: string) =>
    `apiVersion: v1\nkind: Pod\nmetadata: { name: ${name} }\nspec:\n${nodeName ? `  nodeName: ${nodeName}\n` : ''}  priority: ${priority}\n  containers: [{ name: main, resources: { requests: { cpu: "${cpu}" } } }]\n`;

  it('which victims make room on which node, and why the other candidate lost', () => {
    const cluster = docs(
      node('n1', '2'),
      node('n2', '2'),
      running('a', '1', 10, 'n1'),
      running('b', '1', 10, 'n1'),
      running('c', '2', 10, 'n2'),
      running('urgent', '2', 100),
    );
    const analysis = workspaceOf({ 'cluster.yaml': cluster }).analysis();
    const urgent = analysis.pod('default', 'urgent');
    assert.ok(urgent);
    const x = explainPod(urgent, analysis);
    assert.equal(x.verdict, 'No node fits as the cluster stands. Preemption makes room on n2 by evicting default/c.');
    assert.deepEqual(x.preemption, {
      node: 'n2',
      victims: ['default/c'],
      reportOnly: false,
      candidates: [
        { node: 'n2', victims: [{ pod: 'default/c', priority: 10, violatesPdb: false }], pdbViolations: 0 },
        {
          node: 'n1',
          victims: [
            { pod: 'default/a', priority: 10, violatesPdb: false },
            { pod: 'default/b', priority: 10, violatesPdb: false },
          ],
          pdbViolations: 0,
          lostOn: 'smaller sum of victim priorities',
        },
      ],
      failures: [],
    });
  });

  it('priorities as admission gives them: a pod naming a PriorityClass preempts as its value says', () => {
    const urgentClass = 'apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: urgent }\nvalue: 100\n';
    const byClass = running('urgent', '2', 0).replace('  priority: 0\n', '  priorityClassName: urgent\n');
    const analysis = workspaceOf({ 'cluster.yaml': docs(urgentClass, node('n1', '2'), running('c', '2', 10, 'n1'), byClass) }).analysis();
    const urgent = analysis.pod('default', 'urgent');
    assert.ok(urgent);
    assert.equal(urgent.value.spec.priority, 100);
    assert.deepEqual(explainPod(urgent, analysis).preemption?.victims, ['default/c']);
  });

  it('in a plan whose profile does not let it preempt: what preemption would evict, and that the plan does not', async () => {
    const analysis = workspaceOf({
      'cluster.yaml': docs(node('n1', '2'), running('filler', '2', 10, 'n1'), pod('a', 's', '2', '  priority: 100\n')),
    }).analysis();
    const a = analysis.pod('default', 'a');
    assert.ok(a);
    const x = await explainInPlan(a, analysis, { podSet: 's' }, noHistory('not needed'));
    assert.equal(
      x?.verdict,
      'No node fits. Preemption would make room on n1 by evicting default/filler; the plan does not preempt (PodSetPlanner args allowPreemption).',
    );
    assert.deepEqual([x?.preemption?.node, x?.preemption?.victims, x?.preemption?.reportOnly], ['n1', ['default/filler'], true]);
  });

  it('a plan whose profile lets it preempt lists its victims in the plan view', () => {
    const cluster = docs(node('n1', '2'), running('filler', '2', 10, 'n1'), pod('a', 's', '2', '  priority: 100\n'));
    const analysis = workspaceOf({ 'cluster.yaml': cluster, 'profile.yaml': plannerProfile('{ allowPreemption: true }') }).analysis();
    const made = planPodSet(analysis, { namespace: 'default', podSet: 's' });
    assert.ok(made.ok);
    const view = planView(made.value, analysis);
    assert.deepEqual(
      [view.assignments.map((x) => [x.pod, x.node]), view.victims],
      [[['a', 'n1']], [{ pod: 'default/filler', node: 'n1', by: 'a' }]],
    );
  });

  it('a pod no eviction helps: the nodes tried, by reason', () => {
    const cluster = docs(node('n1', '2'), running('d', '2', 200, 'n1'), running('urgent', '2', 100));
    const analysis = workspaceOf({ 'cluster.yaml': cluster }).analysis();
    const urgent = analysis.pod('default', 'urgent');
    assert.ok(urgent);
    const x = explainPod(urgent, analysis);
    assert.match(x.message ?? '', /preemption: 0\/1 nodes are available: 1 No preemption victims found for incoming pod\.$/);
    assert.deepEqual(x.preemption, {
      victims: [],
      reportOnly: false,
      candidates: [],
      failures: [{ reason: 'No preemption victims found for incoming pod', nodes: ['n1'] }],
    });
  });
});
