// Schedule Now's confirmation names each file and field it writes, and a partial plan is asked
// about as one.
import assert from 'node:assert/strict';
import { confirmationWords } from '../../../src/extension/commands/schedule-words';
import type { ScheduleWrite } from '../../../src/protocol/requests';
import type { PlanView } from '../../../src/protocol/webview';

const relative = (uri: string) => uri.replace('file:///ws/', '');
const writes: ScheduleWrite[] = [
  {
    uri: 'file:///ws/podset.yaml',
    object: 'ScheduleTrigger analytics/nightly-batch',
    created: false,
    fields: ['spec.state: Planning → Schedule'],
  },
  {
    uri: 'file:///ws/podset.yaml',
    object: 'SchedulePlan analytics/nightly-batch',
    created: true,
    fields: ['spec.plan: 2 pods to nodes', 'status: planner greedy'],
  },
];
const plan = (unplaced: number): PlanView =>
  ({
    podSet: 'nightly-batch',
    assignments: [
      { pod: 'etl-0', node: 'node-a1' },
      { pod: 'etl-1', node: 'node-b1' },
    ],
    unplaced: Array.from({ length: unplaced }, (_, i) => ({ pod: `big-${i}`, message: '0/9 nodes are available: 9 Insufficient cpu.' })),
  }) as unknown as PlanView;

describe('extension/commands/schedule-words', () => {
  it('asks to schedule a whole plan, naming each file, object and field written', () => {
    assert.deepEqual(confirmationWords(plan(0), writes, relative), {
      question: 'Schedule nightly-batch now? 2 pods placed; this writes podset.yaml.',
      detail:
        'podset.yaml: changes ScheduleTrigger analytics/nightly-batch: spec.state: Planning → Schedule\npodset.yaml: adds SchedulePlan analytics/nightly-batch: spec.plan: 2 pods to nodes; status: planner greedy',
      action: 'Schedule',
      done: 'nightly-batch scheduled: 2 pods placed, written to podset.yaml.',
    });
  });

  it('asks about a partial plan as one, with the pods left out and why (the first five)', () => {
    const words = confirmationWords(plan(7), writes, relative);
    assert.equal(words.question, 'The plan of nightly-batch leaves 7 of 9 pods unplaced. Write this partial plan to podset.yaml?');
    assert.equal(words.action, 'Write Partial Plan');
    assert.deepEqual(words.detail.split('\n').slice(2), [
      '',
      'Not placed (7 of 9):',
      ...[0, 1, 2, 3, 4].map((i) => `big-${i}: 0/9 nodes are available: 9 Insufficient cpu.`),
      '… and 2 more',
    ]);
    assert.equal(words.done, 'nightly-batch scheduled: 2 pods placed, 7 left unplaced, written to podset.yaml.');
  });
});
