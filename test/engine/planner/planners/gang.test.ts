import assert from 'node:assert/strict';
import { Code } from '../../../../src/engine/framework/status';
import { applyGang } from '../../../../src/engine/planner/planners/gang';
import { greedy } from '../../../../src/engine/planner/planners/greedy';
import { makeNode } from '../../../builders';
import { outcome, request, setPod } from '../fixtures';

const node = (name: string) => makeNode(name).alloc({ cpu: '4', memory: '16Gi', pods: '110' });
const frame = { profile: 'default-scheduler', nodesTotal: 1 };

describe('engine/planner/planners/gang', () => {
  // Two of the three 2-cpu workers fit the one 4-cpu node.
  const planned = greedy.plan(
    request(
      [node('n1')],
      ['w-0', 'w-1', 'w-2'].map((n) => setPod(n).req({ cpu: '2' })),
    ),
  );

  it('a gang whose minimum is met keeps the plan as it is', () => {
    assert.equal(applyGang(planned, 'default/workers', 2, frame), planned);
  });

  it('members already running count towards the minimum', () => {
    assert.equal(applyGang(planned, 'default/workers', 3, frame, 1), planned);
  });

  it('a gang whose minimum cannot be met places nothing, and each pod says why', () => {
    const gang = applyGang(planned, 'default/workers', 3, frame);
    assert.deepEqual(outcome(gang), { placed: {}, unplaced: ['w-0', 'w-1', 'w-2'] });
    const why = 'pod set default/workers is a gang of at least 3 pods: only 2 of 3 could be placed, so none is';
    assert.deepEqual(
      gang.unplaced.map((u) => u.message),
      [why, why, `${why}; this pod: 0/1 nodes are available: 1 Insufficient cpu.`],
    );
  });

  it('the pods held back carry a Permit rejection by PodSetPlanner, and no chosen node', () => {
    const [held] = applyGang(planned, 'default/workers', 3, frame).unplaced;
    assert.deepEqual(held?.diagnosis.status, {
      code: Code.Unschedulable,
      reasons: [held?.message],
      plugin: 'PodSetPlanner',
      stage: 'Permit',
    });
    assert.equal(held?.diagnosis.chosenNode, undefined);
    assert.equal(held?.diagnosis.message, held?.message);
  });
});
