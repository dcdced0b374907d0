import assert from 'node:assert/strict';
import { Code } from '../../../src/engine/framework/status';
import type { Plan } from '../../../src/engine/planner/plan';
import { schedulePlanObject } from '../../../src/engine/planner/schedule-plan';

describe('engine/planner/schedule-plan', () => {
  const plan: Plan = {
    podSet: 'web',
    namespace: 'default',
    trigger: 'web-trigger',
    planner: 'default',
    profile: 'default-scheduler',
    createdAt: Date.UTC(2024, 4, 1, 12, 30, 0, 250),
    snapshotHash: 'sha256:abc',
    assignments: [
      { pod: 'web-1', node: 'n2' },
      { pod: 'web-0', node: 'n1' },
    ],
    unplaced: [
      {
        pod: 'web-2',
        message: '0/2 nodes are available: 2 Insufficient cpu.',
        diagnosis: { pod: 'default/web-2', profile: 'default-scheduler', nodesTotal: 2, nodesEvaluated: 2, feasibleNodes: 0, status: { code: Code.Unschedulable, reasons: ['Insufficient cpu'] }, rejections: [], filters: [], scores: [], stages: [] },
      },
    ],
  };

  it('is a planner.ciena.io/v1alpha1 SchedulePlan under Pallet\'s name, with spec.plan in the planner\'s order and our status beside it', () => {
    assert.deepEqual(schedulePlanObject(plan), {
      apiVersion: 'planner.ciena.io/v1alpha1',
      kind: 'SchedulePlan',
      metadata: { name: 'web-759dc7fd44', namespace: 'default', labels: { 'planner.ciena.io/pod-set': 'web' } },
      spec: {
        plan: [
          { pod: 'web-1', node: 'n2' },
          { pod: 'web-0', node: 'n1' },
        ],
      },
      status: {
        planner: 'default',
        profile: 'default-scheduler',
        trigger: 'web-trigger',
        snapshotHash: 'sha256:abc',
        createdAt: '2024-05-01T12:30:00.250Z',
        unplaced: [{ pod: 'web-2', message: '0/2 nodes are available: 2 Insufficient cpu.' }],
      },
    });
  });

  it('leaves out the trigger of a plan nobody triggered, and carries no diagnosis', () => {
    const { trigger: _trigger, ...untriggered } = plan;
    const object = schedulePlanObject(untriggered);
    assert.equal('trigger' in object.status, false);
    assert.equal(JSON.stringify(object).includes('rejections'), false);
  });
});
