// What a plan leaves in the Podplan output channel: one summary line, then each pod left out with
// the stage, plugin and upstream message that stopped it, the first twenty listed.
import assert from 'node:assert/strict';
import { boundLogLine, planLogLines } from '../../src/extension/plan-log';
import type { PlanView, UnplacedView } from '../../src/protocol/webview';

const unplaced = (i: number): UnplacedView => ({
  pod: `big-${i}`,
  stage: 'Filter',
  plugin: 'NodeResourcesFit',
  reason: 'Insufficient cpu',
  message: '0/9 nodes are available: 9 Insufficient cpu.',
  reasons: [],
});

const plan = (over: Partial<PlanView>): PlanView => ({
  podSet: 'nightly-batch',
  namespace: 'analytics',
  trigger: 'nightly-batch',
  planner: 'greedy',
  profile: 'podset-planner-scheduler',
  createdAt: 0,
  snapshotHash: 'h',
  assignments: [{ pod: 'etl-0', node: 'node-a1', owner: 'etl' }],
  nodes: [],
  unplaced: [],
  unplacedGroups: [],
  funnel: { subject: 'pod set analytics/nightly-batch', unit: 'pod × node pairs', pods: 1, steps: [] },
  ...over,
});

describe('extension/plan-log', () => {
  it('says what was planned, how, and where it is kept', () => {
    assert.deepEqual(planLogLines(plan({ historyId: 3 }), 'preview'), [
      'preview pod set analytics/nightly-batch (trigger nightly-batch): planner greedy, profile podset-planner-scheduler, history #3: 1 placed, 0 not placed',
    ]);
  });

  it('gives the bound the solver proved, as podplan plan prints it', () => {
    const bound = {
      solver: 'HiGHS 1.8.0',
      optimal: false,
      gap: 0.25,
      text: 'uses 4 nodes; no plan uses fewer than 3 (within 25.0% of the best possible)',
    };
    assert.deepEqual(planLogLines(plan({ bound }), 'preview').slice(1), [
      '  bound (HiGHS 1.8.0): uses 4 nodes; no plan uses fewer than 3 (within 25.0% of the best possible)',
    ]);
    // A preview answered before its bound: the line comes with the bound, or says none was proven.
    assert.deepEqual(planLogLines(plan({ boundPending: 'bound-1' }), 'preview').slice(1), []);
    assert.equal(boundLogLine(bound), '  bound (HiGHS 1.8.0): uses 4 nodes; no plan uses fewer than 3 (within 25.0% of the best possible)');
    assert.equal(boundLogLine(undefined), '  no bound: the solver proved none');
  });

  it('says when the history failed to keep the plan', () => {
    assert.deepEqual(
      planLogLines(plan({ historyError: 'the plan is not kept in the plan history: the disk is full' }), 'preview').slice(1),
      ['  the plan is not kept in the plan history: the disk is full'],
    );
  });

  it('lists each pod left out with the stage, plugin and message, up to twenty, and counts the rest', () => {
    const lines = planLogLines(plan({ trigger: undefined, unplaced: Array.from({ length: 22 }, (_, i) => unplaced(i)) }), 'schedule');
    assert.equal(
      lines[0],
      'schedule pod set analytics/nightly-batch: planner greedy, profile podset-planner-scheduler: 1 placed, 22 not placed',
    );
    assert.equal(lines[1], '  pod analytics/big-0 not placed at Filter NodeResourcesFit: 0/9 nodes are available: 9 Insufficient cpu.');
    assert.equal(lines.length, 22);
    assert.equal(lines.at(-1), '  … and 2 more pods not placed');
  });
});
