// Whether a trigger's spec.dependsOn is complete in the workspace, in the words Schedule Now
// refuses with: a dependency counts once every pod of its set is bound, or its trigger is set to
// Schedule and every pod is placed (bound, or in the set's SchedulePlan); with requireReady, once
// every pod is bound and Ready. The rule is the engine's, shared with podplan plan and podplan run
// (test/engine/reconcile/triggers.test.ts checks that the three agree).
import assert from 'node:assert/strict';
import { incompleteDependencies } from '../../../src/server/service/dependencies';
import { docs, node, plan, pod, trigger, workspaceOf } from './fixtures';

/** Trigger `r` of set `r` depending on `entries` (YAML list items under dependsOn). */
const dependent = (entries: string) =>
  `apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata:\n  name: r\n  labels:\n    planner.ciena.io/pod-set: r\nspec:\n  state: Planning\n  dependsOn:\n${entries}`;

function waiting(entries: string, others: string): string[] {
  const analysis = workspaceOf({
    'cluster.yaml': docs(node('n1'), pod('r-0', 'r')),
    'deps.yaml': others,
    'r.yaml': dependent(entries),
  }).analysis();
  const r = analysis.trigger('default', 'r');
  assert.ok(r);
  return incompleteDependencies(r.value, analysis);
}

describe('server/service/dependencies: incompleteDependencies', () => {
  const cases: Array<[string, string, string, string[]]> = [
    [
      'a trigger still Planning',
      '    - name: b\n',
      docs(trigger('b'), pod('b-0', 'b')),
      ['ScheduleTrigger b, which is not complete (it is still Planning, and 1 of its 1 pod is not placed)'],
    ],
    [
      'a trigger set to Schedule whose plan places every pod',
      '    - name: b\n',
      docs(trigger('b', 'Schedule'), pod('b-0', 'b'), plan('b', [['b-0', 'n1']])),
      [],
    ],
    [
      'a trigger set to Schedule whose plan leaves a pod out',
      '    - name: b\n',
      docs(trigger('b', 'Schedule'), pod('b-0', 'b'), pod('b-1', 'b'), plan('b', [['b-0', 'n1']])),
      ['ScheduleTrigger b, which is not complete (1 of its 2 pods is not placed)'],
    ],
    ['a pod set whose pods are bound', '    - { kind: PodSet, name: p }\n', pod('p-0', 'p', '1', '  nodeName: n1\n'), []],
    [
      'a pod set with a pod to place and its trigger Planning',
      '    - { kind: PodSet, name: b }\n',
      docs(trigger('b'), pod('b-0', 'b')),
      ['PodSet b, which is not complete (its trigger b is still Planning, and 1 of its 1 pod is not placed)'],
    ],
    [
      'a SchedulePlan that places its whole set, its trigger set to Schedule',
      '    - { kind: SchedulePlan, name: b-plan }\n',
      docs(trigger('b', 'Schedule'), pod('b-0', 'b'), plan('b', [['b-0', 'n1']])),
      [],
    ],
    [
      'requireReady: a trigger whose pod is bound but not Ready',
      '    - name: b\n  requireReady: true\n',
      docs(trigger('b', 'Schedule'), pod('b-0', 'b', '1', '  nodeName: n1\n')),
      ['ScheduleTrigger b, which is not Ready (1 of its 1 pod is not Ready)'],
    ],
    [
      'requireReady: a trigger whose pod is bound and Ready',
      '    - name: b\n  requireReady: true\n',
      docs(
        trigger('b', 'Schedule'),
        `${pod('b-0', 'b', '1', '  nodeName: n1\n')}status: { conditions: [{ type: Ready, status: "True" }] }\n`,
      ),
      [],
    ],
    [
      'a trigger still Planning whose pods are all bound: nothing is left to plan',
      '    - name: b\n',
      docs(trigger('b'), pod('b-0', 'b', '1', '  nodeName: n1\n')),
      [],
    ],
    ['a name that resolves to nothing', '    - name: ghost\n', pod('x-0', 'x'), ['ScheduleTrigger ghost, which is not in the workspace']],
    [
      'each dependency on its own',
      '    - name: b\n    - name: ghost\n',
      docs(trigger('b', 'Schedule'), pod('b-0', 'b', '1', '  nodeName: n1\n')),
      ['ScheduleTrigger ghost, which is not in the workspace'],
    ],
  ];
  for (const [name, entries, others, expected] of cases) {
    it(name, () => assert.deepEqual(waiting(entries, others), expected));
  }
});
