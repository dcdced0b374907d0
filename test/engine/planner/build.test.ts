import assert from 'node:assert/strict';
import {
  buildPlan,
  MIN_MEMBER_LABEL,
  planPodSet,
  PLANNER_LABEL,
  settingsFromLabels,
  type PlanInput,
} from '../../../src/engine/planner/build';
import { snapshotHash } from '../../../src/engine/planner/podset/hash';
import { planStatus } from '../../../src/engine/planner/plan';
import { resolvePodSet } from '../../../src/engine/planner/podset/podset';
import { makeNode, snapshotOf, type PodBuilder } from '../../builders';
import { planning, setPod } from './fixtures';

const nodes = [
  makeNode('n1').alloc({ cpu: '4', memory: '16Gi', pods: '110' }),
  makeNode('n2').alloc({ cpu: '2', memory: '16Gi', pods: '110' }),
];
const NOW = Date.UTC(2026, 0, 1);

function input(pods: PodBuilder[], name = 'web'): PlanInput {
  const objects = pods.map((p) => p.obj);
  return {
    podSet: resolvePodSet(objects, { namespace: 'default', name }),
    snapshot: snapshotOf(nodes, pods),
    framework: planning().framework,
    now: NOW,
  };
}

describe('engine/planner/build', () => {
  const pods = [setPod('web-0').req({ cpu: '3' }).node('n1'), setPod('web-1').req({ cpu: '2' }), setPod('web-2').req({ cpu: '2' })];

  it('plans the pending pods; bound members stay where they are; the plan says who made it, when, from what', () => {
    const plan = buildPlan(input(pods), { planner: 'optimize', trigger: 'web-trigger' });
    assert.ok(plan.ok);
    const { assignments, unplaced, ...rest } = plan.value;
    assert.deepEqual(rest, {
      podSet: 'web',
      namespace: 'default',
      trigger: 'web-trigger',
      planner: 'optimize',
      objective: 'pack',
      profile: 'default-scheduler',
      createdAt: NOW,
      snapshotHash: snapshotHash(
        nodes.map((n) => n.obj),
        pods.map((p) => p.obj),
      ),
    });
    assert.deepEqual(
      assignments.map((a) => [a.pod, a.node]),
      [
        ['web-0', 'n1'],
        ['web-1', 'n2'],
      ],
    );
    assert.deepEqual(
      unplaced.map((u) => [u.pod, u.message, u.diagnosis.pod]),
      [['web-2', '0/2 nodes are available: 2 Insufficient cpu.', 'default/web-2']],
    );
  });

  it('its status: counts, reasons, planner, profile, snapshot hash, created time', () => {
    const plan = buildPlan(input(pods));
    assert.ok(plan.ok);
    assert.deepEqual(planStatus(plan.value), {
      placed: 2,
      unplaced: 1,
      reasons: [{ pod: 'web-2', message: '0/2 nodes are available: 2 Insufficient cpu.' }],
      planner: 'greedy',
      objective: 'pack',
      profile: 'default-scheduler',
      snapshotHash: plan.value.snapshotHash,
      createdAt: NOW,
    });
  });

  it('a gang too small to run places nothing', () => {
    const plan = buildPlan(input(pods), { minMember: 3 });
    assert.ok(plan.ok);
    assert.deepEqual(
      plan.value.assignments.map((a) => a.pod),
      ['web-0'],
      'the running member stays',
    );
    assert.deepEqual(
      plan.value.unplaced.map((u) => u.pod),
      ['web-1', 'web-2'],
    );
  });

  describe('what cannot be planned is an error saying so', () => {
    it('a pod set with no pods', () =>
      assert.deepEqual(buildPlan(input(pods, 'cache')), { ok: false, error: 'pod set default/cache has no pods' }));
    it('an unknown planner', () =>
      assert.deepEqual(buildPlan(input(pods), { planner: 'magic' }), {
        ok: false,
        error: 'planner: unknown planner "magic" (one of greedy, optimize, exact, pallet)',
      }));
    it('a pod with a malformed request', () => {
      const error = buildPlan(input([setPod('web-9').req({ cpu: 'lots' })]));
      assert.equal(error.ok, false);
      assert.match(error.ok ? '' : error.error, /^pod default\/web-9: spec\.containers\[0\]\.resources\.requests\.cpu: /);
    });
  });

  it('planPodSet, the one entry point, refuses a set with pending pods that do not decode, naming every one', () => {
    const bad = [setPod('web-0').req({ cpu: 'lots' }), setPod('web-1').req({ cpu: '1' }), setPod('web-2').req({ memory: 'much' })];
    const made = planPodSet(planning(), {
      podSet: resolvePodSet(
        bad.map((p) => p.obj),
        { namespace: 'default', name: 'web' },
      ),
      snapshot: snapshotOf(nodes),
      now: NOW,
    });
    assert.equal(made.ok, false);
    const error = made.ok ? '' : made.error;
    assert.match(error, /^pod set default\/web cannot be planned: pod default\/web-0: .*cpu.*; pod default\/web-2: .*memory/);
    assert.doesNotMatch(error, /web-1/);
  });

  describe('settings from labels: the first that has each label', () => {
    it('planner and gang size', () => {
      assert.deepEqual(
        settingsFromLabels([undefined, { [PLANNER_LABEL]: 'optimize' }, { [PLANNER_LABEL]: 'greedy', [MIN_MEMBER_LABEL]: '4' }]),
        {
          ok: true,
          value: { planner: 'optimize', minMember: 4 },
        },
      );
    });
    it('none', () => assert.deepEqual(settingsFromLabels([{ app: 'web' }]), { ok: true, value: {} }));
  });
});
