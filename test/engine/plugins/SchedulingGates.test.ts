import assert from 'node:assert/strict';
import * as SchedulingGates from '../../../src/engine/plugins/SchedulingGates';
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
