import assert from 'node:assert/strict';
import { Code } from '../../src/engine/framework/status';
import type { Diagnosis } from '../../src/engine/framework/diagnosis';
import type { Plan } from '../../src/engine/planner/plan';
import { fnv32a, planFromManifest, schedulePlanName, readFile, safeEncodeString, writeSchedulePlan } from '../../src/manifests';

const rejected: Diagnosis = {
  pod: 'analytics/batch-2',
  profile: 'default-scheduler',
  nodesTotal: 2,
  nodesEvaluated: 2,
  feasibleNodes: 0,
  status: {
    code: Code.Unschedulable,
    reasons: ['0/2 nodes are available: 2 Insufficient cpu.'],
    plugin: 'NodeResourcesFit',
    stage: 'Filter',
  },
  rejections: [
    { node: 'node-a', plugin: 'NodeResourcesFit', stage: 'Filter', code: Code.Unschedulable, reasons: ['Insufficient cpu'] },
    { node: 'node-b', plugin: 'NodeResourcesFit', stage: 'Filter', code: Code.Unschedulable, reasons: ['Insufficient cpu'] },
  ],
  filters: [{ plugin: 'NodeResourcesFit', evaluated: 2, passed: 0 }],
  scores: [],
  stages: [{ stage: 'PreFilter', plugin: 'NodeResourcesFit', status: { code: Code.Success, reasons: [] } }],
  message: '0/2 nodes are available: 2 Insufficient cpu.',
};

const chosen: Diagnosis = {
  pod: 'analytics/batch-0',
  profile: 'default-scheduler',
  nodesTotal: 2,
  nodesEvaluated: 2,
  feasibleNodes: 2,
  status: { code: Code.Success, reasons: [] },
  chosenNode: 'node-a',
  rejections: [],
  filters: [{ plugin: 'NodeResourcesFit', evaluated: 2, passed: 2 }],
  scores: [{ node: 'node-a', total: 137.5, plugins: [{ plugin: 'NodeResourcesFit', raw: 75, normalized: 75, weight: 1, weighted: 75 }] }],
  stages: [],
};

const plan: Plan = {
  podSet: 'batch',
  namespace: 'analytics',
  trigger: 'batch-trigger',
  planner: 'optimize',
  profile: 'default-scheduler',
  assignments: [
    { pod: 'batch-0', node: 'node-a', diagnosis: chosen },
    { pod: 'batch-1', node: 'node-b' },
  ],
  unplaced: [{ pod: 'batch-2', message: '0/2 nodes are available: 2 Insufficient cpu.', diagnosis: rejected }],
  createdAt: Date.UTC(2025, 0, 2, 3, 4, 5, 678),
  snapshotHash: 'sha256:4f2a',
};

function readBack(text: string) {
  const model = readFile({ name: 'plan.yaml', text });
  assert.deepEqual(model.errors, []);
  const [manifest] = model.plans;
  assert.ok(manifest);
  return manifest.value;
}

describe('manifests/schedule-plan', () => {
  describe("the plan name is Pallet's: <podset>-SafeEncodeString(decimal fnv32a(namespace + podset))", () => {
    it('FNV-1a 32 matches the reference vectors', () => {
      assert.equal(fnv32a(''), 0x811c9dc5);
      assert.equal(fnv32a('a'), 0xe40c292c);
      assert.equal(fnv32a('foobar'), 0xbf9cf968);
      assert.equal(fnv32a('é'), 513665217, 'over UTF-8 bytes, as Go hashes a string');
    });

    it('SafeEncodeString maps each digit into bcdfghjklmnpqrstvwxz2456789 by its code modulo 27', () => {
      assert.equal(safeEncodeString('0123456789'), '456789bcdf');
    });

    const table: Array<[namespace: string, podSet: string, name: string]> = [
      ['default', 'planner-podset', 'planner-podset-d4cd7dc68'],
      ['team-a', 'batch', 'batch-fff9bcc8b'],
    ];
    for (const [namespace, podSet, name] of table) {
      it(`${namespace}/${podSet} → ${name}`, () => assert.equal(schedulePlanName(namespace, podSet), name));
    }
  });

  it('writes a Pallet SchedulePlan with our status', () => {
    assert.equal(
      writeSchedulePlan(plan),
      `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: batch-${safeEncodeString(String(fnv32a('analyticsbatch')))}
  namespace: analytics
  labels:
    planner.ciena.io/pod-set: batch
spec:
  plan:
    - pod: batch-0
      node: node-a
    - pod: batch-1
      node: node-b
status:
  planner: optimize
  profile: default-scheduler
  trigger: batch-trigger
  createdAt: 2025-01-02T03:04:05.678Z
  snapshotHash: sha256:4f2a
  placed: 2
  unplaced:
    - pod: batch-2
      message: "0/2 nodes are available: 2 Insufficient cpu."
`,
    );
  });

  it('a plan that preempts lists the running pods it evicts in its status, and reads back with them', () => {
    const preempting = { ...plan, victims: [{ pod: 'batch-low/old-0', node: 'node-b', by: 'batch-1' }] };
    const text = writeSchedulePlan(preempting);
    assert.match(text, /\n {2}victims:\n {4}- pod: batch-low\/old-0\n {6}node: node-b\n {6}by: batch-1\n/);
    assert.deepEqual(planFromManifest(readBack(text)).victims, preempting.victims);
    assert.doesNotMatch(writeSchedulePlan(plan), /victims/);
  });

  it('leaves out the trigger of a plan nobody triggered', () => {
    const { trigger: _trigger, ...untriggered } = plan;
    const text = writeSchedulePlan(untriggered);
    assert.doesNotMatch(text, /trigger/);
    assert.equal('trigger' in planFromManifest(readBack(text)), false);
  });

  it('written with diagnoses, reading it back gives an equal plan', () => {
    assert.deepEqual(planFromManifest(readBack(writeSchedulePlan(plan, { diagnoses: true }))), plan);
  });

  it('written without, it gives the same placements and messages; diagnoses hold only the message', () => {
    const back = planFromManifest(readBack(writeSchedulePlan(plan)));
    assert.deepEqual(
      back.assignments,
      plan.assignments.map(({ pod, node }) => ({ pod, node })),
    );
    assert.deepEqual({ ...back, assignments: [], unplaced: [] }, { ...plan, assignments: [], unplaced: [] });
    const [unplaced] = back.unplaced;
    assert.equal(unplaced?.message, plan.unplaced[0]?.message);
    assert.deepEqual(unplaced?.diagnosis.status, { code: Code.Unschedulable, reasons: ['0/2 nodes are available: 2 Insufficient cpu.'] });
    assert.equal(unplaced?.diagnosis.pod, 'analytics/batch-2');
  });

  it('a plan Pallet wrote (no status) reads as a plan with its placements only', () => {
    const text = `apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: batch-x
  labels: { planner.ciena.io/pod-set: batch }
spec:
  plan: [{ pod: a, node: n }]
`;
    assert.deepEqual(planFromManifest(readBack(text)), {
      podSet: 'batch',
      namespace: 'default',
      planner: '',
      profile: '',
      assignments: [{ pod: 'a', node: 'n' }],
      unplaced: [],
      createdAt: 0,
      snapshotHash: '',
    });
  });
});
