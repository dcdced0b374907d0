import assert from 'node:assert/strict';
import { planPodSet } from '../../../src/server/service/planning';
import { docs, node, pod, workspaceOf } from './fixtures';

/** Trigger `s` of set `s` with extra labels. */
const labelledTrigger = (labels: string) =>
  `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: s\n  labels:\n    planner.ciena.io/pod-set: s\n${labels}spec:\n  state: Planning\n`;

/** The planner's profile with PodSetPlanner args. */
const plannerProfile = (args: string) =>
  `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: podset-planner-scheduler\n    pluginConfig:\n      - name: PodSetPlanner\n        args: ${args}\n`;

/** The plan of set `s` through its trigger, in short: planner, pods placed and pods left out. */
function planOf(triggerLabels: string, cluster: string, profile = '') {
  const analysis = workspaceOf({ 'cluster.yaml': cluster, 'trigger.yaml': labelledTrigger(triggerLabels), ...(profile ? { 'profile.yaml': profile } : {}) }).analysis();
  const made = planPodSet(analysis, { namespace: 'default', podSet: 's', trigger: 's' });
  if (!made.ok) return made.error;
  const plan = made.value;
  return { trigger: plan.trigger, planner: plan.planner, placed: plan.assignments.map((a) => a.pod).sort(), left: plan.unplaced.map((u) => u.pod).sort() };
}

describe('server/service/planning: plans are made by the engine’s pod-set planner', () => {
  const room = docs(node('n1', '2'), pod('a', 's'), pod('b', 's'), pod('c', 's'));
  const cases: Array<[string, string, string, ReturnType<typeof planOf>, string?]> = [
    ['no planner label: the default planner, on the trigger’s behalf', '', room, { trigger: 's', planner: 'greedy', placed: ['a', 'b'], left: ['c'] }],
    ['the trigger’s planner label chooses the planner', '    planner.ciena.io/planner: optimize\n', room, { trigger: 's', planner: 'optimize', placed: ['a', 'b'], left: ['c'] }],
    ['a gang larger than what fits places nothing', '    planner.ciena.io/min-member: "3"\n', room, { trigger: 's', planner: 'greedy', placed: [], left: ['a', 'b', 'c'] }],
    [
      'a bound member stays on its node and counts',
      '',
      docs(node('n1', '2'), pod('a', 's', '1', '  nodeName: n1\n'), pod('b', 's'), pod('c', 's')),
      { trigger: 's', planner: 'greedy', placed: ['a', 'b'], left: ['c'] },
    ],
    ['the profile’s PodSetPlanner args choose it when no label does', '', room, { trigger: 's', planner: 'optimize', placed: ['a', 'b'], left: ['c'] }, plannerProfile('{ planner: optimize }')],
    ['a label says before the profile', '    planner.ciena.io/planner: greedy\n', room, { trigger: 's', planner: 'greedy', placed: ['a', 'b'], left: ['c'] }, plannerProfile('{ planner: optimize }')],
    ['a planner nobody knows is an error naming the label', '    planner.ciena.io/planner: clever\n', room, 'label planner.ciena.io/planner: unknown planner "clever" (one of greedy, optimize, pallet)'],
  ];
  for (const [what, labels, cluster, expected, profile] of cases) it(what, () => assert.deepEqual(planOf(labels, cluster, profile), expected));
});
