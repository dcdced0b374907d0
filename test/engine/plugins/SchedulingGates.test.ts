import assert from 'node:assert/strict';
import * as SchedulingGates from '../../../src/engine/plugins/SchedulingGates';
import { ActionType } from '../../../src/engine/framework/events';
import { makePod, type PodBuilder } from '../../builders';
import { Code } from '../../../src/engine/framework/status';
import { build, verdict, type Verdict } from './harness';

// pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates_test.go, TestPreEnqueue
describe('engine/plugins/SchedulingGates', () => {
  const plugin = build(SchedulingGates.factory) as SchedulingGates.SchedulingGates;
  const table: Array<[string, PodBuilder, Verdict]> = [
    ['pod does not carry scheduling gates', makePod('p'), 'ok'],
    [
      'pod carries scheduling gates',
      makePod('p').gate('foo').gate('bar'),
      { code: Code.UnschedulableAndUnresolvable, reasons: ['waiting for scheduling gates: [foo bar]'] },
    ],
  ];
  for (const [name, pod, want] of table) it(name, () => assert.deepEqual(verdict(plugin.preEnqueue(pod.obj)), want));
});

// upstream schedulinggates/scheduling_gates_test.go TestIsSchedulableAfterUpdateTargetPodSchedulingGatesEliminated:
// the last gate removed queues the pod; registered for TargetPod/UpdatePodSchedulingGatesEliminated only.
describe('SchedulingGates queueing hint', () => {
  it('isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated: queues', () => {
    assert.equal(SchedulingGates.isSchedulableAfterUpdateTargetPodSchedulingGatesEliminated(), 'Queue');
    assert.deepEqual(
      SchedulingGates.EVENTS.map((e) => [e.event.resource, e.event.actionType]),
      [['TargetPod', ActionType.UpdatePodSchedulingGatesEliminated]],
    );
  });
});
