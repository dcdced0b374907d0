import assert from 'node:assert/strict';
import { ManualClock } from '../../../../src/engine/api/clock';
import { CycleState } from '../../../../src/engine/framework/cycle-state';
import { podInfo } from '../../../../src/engine/framework/node-info';
import type { Snapshot } from '../../../../src/engine/framework/snapshot';
import { PodSetCoordinator, type PlanCause } from '../../../../src/engine/planner/scheduler/coordinator';
import { PLANNER_LABEL } from '../../../../src/engine/planner/build';
import type { Plan } from '../../../../src/engine/planner/plan';
import type { TriggerSpec } from '../../../../src/engine/planner/podset/trigger';
import { makeNode, makePod, snapshotOf, type PodBuilder } from '../../../builders';
import { planning, setPod } from '../fixtures';

const trigger = (fields: Partial<TriggerSpec> = {}): TriggerSpec => ({
  name: 'web',
  namespace: 'default',
  podSet: 'web',
  state: 'Planning',
  quietTime: '2m0s',
  ...fields,
});

/**
 * A scheduler in miniature: the cluster as a snapshot, the coordinator over it, and a framework of
 * the default profile with PodSetPlanner gated by the coordinator. `schedule` runs a pod's cycle and
 * binds it (into the snapshot) when it is placed.
 */
function scheduler(
  nodes = [
    makeNode('n1').alloc({ cpu: '4', memory: '16Gi', pods: '110' }),
    makeNode('n2').alloc({ cpu: '4', memory: '16Gi', pods: '110' }),
  ],
) {
  const clock = new ManualClock(0);
  const cluster: Snapshot = snapshotOf(nodes);
  const plans: Array<[PlanCause, Record<string, string>, string[]]> = [];
  const scheduled: string[] = [];
  const coordinator = new PodSetCoordinator({
    clock,
    planning: planning(),
    cluster: () => cluster,
    onPlan: (plan: Plan, cause) =>
      plans.push([cause, Object.fromEntries(plan.assignments.map((a) => [a.pod, a.node])), plan.unplaced.map((u) => u.pod)]),
    onScheduled: (t) => scheduled.push(t.name),
  });
  const { framework } = planning(undefined, coordinator);
  /** Puts a pod on a node as if bound outside the pod sets. */
  const bind = (pod: PodBuilder, node: string) => {
    const info = podInfo(pod.node(node).obj);
    assert.ok(info.ok);
    cluster.get(node)?.addPod(info.value);
    cluster.invalidate();
  };
  const schedule = async (pod: PodBuilder): Promise<string> => {
    const info = pod.info;
    const state = new CycleState();
    const cycle = framework.scheduleOne(state, info, cluster);
    if (!cycle.ok) return cycle.diagnosis.message ?? '';
    const committed = await framework.commit(state, info, cycle.candidates, cycle.diagnosis);
    if (!committed.ok) return committed.diagnosis.message ?? '';
    cluster.get(committed.node)?.addPod(info);
    cluster.invalidate();
    return committed.node;
  };
  return { clock, cluster, coordinator, plans, scheduled, bind, schedule };
}
type Scheduler = ReturnType<typeof scheduler>;

const web = (i: number, cpu = '2') => setPod(`web-${i}`).req({ cpu });

// What a 1.35 default profile adds to a held pod's message: the planner's hold is a PreFilter
// rejection, which evicting pods cannot undo.
const NOT_HELPFUL = ' preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.';
describe('engine/planner/scheduler/coordinator', () => {
  it('holds a set while its trigger is Planning: the cycle says why', async () => {
    const s = scheduler();
    assert.deepEqual(s.coordinator.applyTrigger(trigger()), { ok: true, value: undefined });
    assert.equal(
      await s.schedule(web(0)),
      `0/2 nodes are available: pod set default/web is held while its ScheduleTrigger is Planning.${NOT_HELPFUL}`,
    );
  });

  it('a set without a trigger is held too', async () => {
    assert.equal(await scheduler().schedule(web(0)), `0/2 nodes are available: pod set default/web has no ScheduleTrigger.${NOT_HELPFUL}`);
  });

  it('pods outside a pod set are scheduled as ever', async () => {
    assert.equal(await scheduler().schedule(makePod('plain').req({ cpu: '1' })), 'n1');
  });

  it('turns to Schedule once the quiet time has passed since the last pod, plans the whole set, and the pods go where planned', async () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger({ labels: { [PLANNER_LABEL]: 'optimize' } }));
    const pods = [web(0), web(1), web(2, '4')];
    s.coordinator.podAdded(pods[0]!.obj);
    s.clock.advance(60_000);
    s.coordinator.podAdded(pods[1]!.obj);
    s.clock.advance(60_000);
    s.coordinator.podAdded(pods[2]!.obj);
    s.clock.advance(119_999);
    assert.deepEqual(s.coordinator.triggers(), [
      { namespace: 'default', name: 'web', podSet: 'web', state: 'Planning', quietUntil: 240_000 },
    ]);
    s.clock.advance(1);
    assert.deepEqual(s.scheduled, ['web'], 'told, so the trigger object can say Schedule');
    // Pod by pod, the 2-cpu pods would spread and leave no room for the 4-cpu one; planned as a set, all fit.
    assert.deepEqual(s.plans, [['quiet-time', { 'web-0': 'n2', 'web-1': 'n2', 'web-2': 'n1' }, []]]);
    for (const pod of pods)
      assert.equal(
        await s.schedule(pod),
        s.coordinator.plan('default', 'web')?.assignments.find((a) => a.pod === pod.obj.metadata.name)?.node,
      );
  });

  it('set to Schedule by hand, the set is planned at once', () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger());
    s.coordinator.podAdded(web(0).obj);
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    assert.deepEqual(
      s.plans.map(([cause]) => cause),
      ['by-hand'],
    );
    assert.equal(s.coordinator.plan('default', 'web')?.assignments.length, 1);
  });

  it('rebuilds the plan when a planned node no longer holds the pod', async () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    s.coordinator.podAdded(web(0, '3').obj);
    const planned = s.coordinator.plan('default', 'web')?.assignments[0]?.node;
    const other = planned === 'n1' ? 'n2' : 'n1';
    s.bind(makePod('squatter').req({ cpu: '3' }), planned as string);
    assert.equal(await s.schedule(web(0, '3')), other);
    assert.deepEqual(
      s.plans.map(([cause, assignments]) => [cause, assignments]),
      [
        ['late-pod', { 'web-0': planned }],
        ['node-infeasible', { 'web-0': other }],
      ],
    );
  });

  it('a pod joining a set already Schedule rebuilds the plan and is placed at once', async () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger());
    s.coordinator.podAdded(web(0).obj);
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    assert.equal(await s.schedule(web(0)), 'n1');
    const late = web(1, '3');
    assert.equal(await s.schedule(late), 'n2', 'it reaches the scheduler before any add event: it joins there');
    assert.deepEqual(
      s.plans.map(([cause, assignments]) => [cause, assignments]),
      [
        ['by-hand', { 'web-0': 'n1' }],
        ['late-pod', { 'web-0': 'n1', 'web-1': 'n2' }],
      ],
    );
  });

  // A set is planned beside the pods other sets' plans put on nodes and the scheduler has not bound
  // yet: their room is spoken for (a set whose trigger depends on another is planned as soon as
  // that one's plan is complete, before its pods are bound), as plan-all assumes the plans before.
  it('plans a set beside the pods another set’s plan placed and no node holds yet, and records them', async () => {
    const s = scheduler();
    const db = (i: number) => setPod(`db-${i}`, 'db').req({ cpu: '3' });
    s.coordinator.applyTrigger(trigger({ name: 'db', podSet: 'db', state: 'Schedule' }));
    for (const i of [0, 1]) s.coordinator.podAdded(db(i).obj);
    const dbPlan = s.coordinator.plan('default', 'db');
    assert.deepEqual(dbPlan?.unplaced, []);
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    for (const i of [0, 1]) s.coordinator.podAdded(web(i, i === 0 ? '1' : '2').obj);
    const webPlan = s.coordinator.plan('default', 'web');
    assert.deepEqual(
      [webPlan?.assignments.map((a) => a.pod), webPlan?.unplaced.map((u) => u.pod)],
      [['web-0'], ['web-1']],
      'web-1 (2 CPUs) fits no node beside db’s planned pods (3 of 4 CPUs each)',
    );
    assert.deepEqual(
      webPlan?.placedBefore,
      dbPlan?.assignments.map((a) => ({ namespace: 'default', pod: a.pod, node: a.node })),
    );
    // Once db's pods are bound they are on their nodes: nothing is assumed twice, nothing recorded.
    for (const a of dbPlan?.assignments ?? []) assert.equal(await s.schedule(db(Number(a.pod.slice(-1)))), a.node);
    s.coordinator.podAdded(web(2, '1').obj);
    const after = s.coordinator.plan('default', 'web');
    assert.equal(after?.placedBefore, undefined);
    assert.deepEqual(
      after?.unplaced.map((u) => u.pod),
      ['web-1'],
    );
  });

  // A SchedulePlan written in the cluster for a set no trigger plans here, which a set's trigger
  // depends on, stands (placed-before writtenPlansBefore, as plan-all): its pods not on a node yet
  // are put on their nodes before the dependent set is planned. One nothing depends on does not.
  for (const [name, dependsOn, expect] of [
    ['depends on it: planned beside db-0 on n2 and db-1 on n1, recorded', [{ kind: 'PodSet', name: 'db' }], { left: ['web-1'], before: 2 }],
    ['depends on nothing: planned on the nodes alone', [], { left: [], before: 0 }],
  ] as const) {
    it(`a written plan of a set without a trigger: ${name}`, () => {
      const s = scheduler();
      for (const i of [0, 1]) s.coordinator.podAdded(setPod(`db-${i}`, 'db').req({ cpu: '3' }).obj);
      const written: Plan = {
        podSet: 'db',
        namespace: 'default',
        planner: 'greedy',
        profile: '',
        assignments: [
          { pod: 'db-0', node: 'n2' },
          { pod: 'db-1', node: 'n1' },
        ],
        unplaced: [],
        createdAt: 0,
        snapshotHash: '',
      };
      s.coordinator.writtenPlans([written]);
      s.coordinator.applyTrigger(trigger({ state: 'Schedule', dependsOn }));
      for (const i of [0, 1]) s.coordinator.podAdded(web(i, i === 0 ? '1' : '2').obj);
      const webPlan = s.coordinator.plan('default', 'web');
      assert.deepEqual(
        webPlan?.unplaced.map((u) => u.pod),
        expect.left,
      );
      assert.deepEqual(
        webPlan?.placedBefore,
        expect.before > 0 ? written.assignments.map((a) => ({ namespace: 'default', ...a })) : undefined,
      );
    });
  }

  // A SchedulePlan another hand wrote for a set that is Schedule (the editor's Apply writes the plan,
  // then flips the trigger; an earlier leader) is followed as Pallet's scheduler follows it: the
  // planner alone would put web-0 on n1 (see 'set to Schedule by hand'), the written plan says n2.
  const writtenWeb = (assignments: Record<string, string>, createdAt = 1): Plan => ({
    podSet: 'web',
    namespace: 'default',
    planner: 'greedy',
    profile: '',
    assignments: Object.entries(assignments).map(([pod, node]) => ({ pod, node })),
    unplaced: [],
    createdAt,
    snapshotHash: 'editor',
  });
  for (const [name, steps, expected] of [
    [
      'the plan written before the trigger turned Schedule by hand is taken, and its pods go there',
      (s: Scheduler) => {
        s.coordinator.writtenPlans([writtenWeb({ 'web-0': 'n2', 'web-1': 'n2' })]);
        s.coordinator.podAdded(web(0).obj);
        s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
        s.coordinator.podAdded(web(1).obj);
      },
      { causes: ['written'], nodes: ['n2', 'n2'] },
    ],
    [
      'the trigger found Schedule before its pods (informers list in any order) takes the plan; pods joining it plan nothing',
      (s: Scheduler) => {
        s.coordinator.writtenPlans([writtenWeb({ 'web-0': 'n2', 'web-1': 'n2' })]);
        s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
        for (const i of [0, 1]) s.coordinator.podAdded(web(i).obj);
      },
      { causes: ['written'], nodes: ['n2', 'n2'] },
    ],
    [
      'the written plan seen after the trigger turned Schedule (the watch brought the trigger first) replaces the plan made here',
      (s: Scheduler) => {
        s.coordinator.applyTrigger(trigger());
        for (const i of [0, 1]) s.coordinator.podAdded(web(i).obj);
        s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
        s.coordinator.writtenPlans([writtenWeb({ 'web-0': 'n2', 'web-1': 'n2' })]);
      },
      { causes: ['by-hand', 'written'], nodes: ['n2', 'n2'] },
    ],
    [
      'a plan made here, read back from the cluster, is not taken again once a newer one is made',
      (s: Scheduler) => {
        s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
        s.coordinator.podAdded(web(0).obj);
        const first = s.coordinator.plan('default', 'web') as Plan;
        s.coordinator.podAdded(web(1, '3').obj);
        s.coordinator.writtenPlans([first]);
      },
      // The second plan moves web-0 to make room for web-1's 3 CPUs; the first, read back, is not taken.
      { causes: ['late-pod', 'late-pod'], nodes: ['n2', 'n1'] },
    ],
    [
      'a written plan seen while the trigger was Planning does not replace the plan its quiet time made',
      (s: Scheduler) => {
        s.coordinator.applyTrigger(trigger());
        s.coordinator.writtenPlans([writtenWeb({ 'web-0': 'n2', 'web-1': 'n2' })]);
        for (const i of [0, 1]) s.coordinator.podAdded(web(i).obj);
        s.clock.advance(120_000);
        s.coordinator.writtenPlans([writtenWeb({ 'web-0': 'n2', 'web-1': 'n2' })]);
      },
      { causes: ['quiet-time'], nodes: ['n1', 'n2'] },
    ],
  ] as const) {
    it(name, async () => {
      const s = scheduler();
      steps(s);
      assert.deepEqual(
        s.plans.map(([cause]) => cause),
        expected.causes,
      );
      assert.deepEqual(
        await Promise.all([0, 1].map((i) => s.schedule(web(i, i === 1 && expected.causes[0] === 'late-pod' ? '3' : '2')))),
        expected.nodes,
      );
    });
  }

  it('a written plan without Podplan’s status (Pallet’s, kubectl apply) is told from the next one by its entries', () => {
    const s = scheduler();
    const bare = (node: string): Plan => ({ ...writtenWeb({ 'web-0': node }, 0), planner: '', snapshotHash: '' });
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    s.coordinator.writtenPlans([bare('n2')]);
    s.coordinator.writtenPlans([bare('n2')]);
    s.coordinator.writtenPlans([bare('n1')]);
    assert.deepEqual(
      s.plans.map(([cause, assignments]) => [cause, assignments]),
      [
        ['written', { 'web-0': 'n2' }],
        ['written', { 'web-0': 'n1' }],
      ],
    );
  });

  // A set whose trigger is gone binds nothing: its plan holds no room, but its SchedulePlan written
  // in the cluster stands for a set depending on it (once, not with the old plan beside it).
  for (const [name, written] of [
    ['its written plan stands, once', true],
    ['nothing written: planned on the nodes alone', false],
  ] as const) {
    it(`the plan of a set whose trigger is gone holds no room: ${name}`, () => {
      const s = scheduler();
      const db = (i: number) => setPod(`db-${i}`, 'db').req({ cpu: '3' });
      s.coordinator.applyTrigger(trigger({ name: 'db', podSet: 'db', state: 'Schedule' }));
      for (const i of [0, 1]) s.coordinator.podAdded(db(i).obj);
      const dbPlan = s.coordinator.plan('default', 'db') as Plan;
      s.coordinator.deleteTrigger('default', 'db');
      if (written) s.coordinator.writtenPlans([dbPlan]);
      s.coordinator.applyTrigger(trigger({ state: 'Schedule', dependsOn: [{ kind: 'PodSet', name: 'db' }] }));
      s.coordinator.podAdded(web(0, '1').obj);
      const webPlan = s.coordinator.plan('default', 'web');
      assert.deepEqual(
        webPlan?.placedBefore,
        written ? dbPlan.assignments.map((a) => ({ namespace: 'default', pod: a.pod, node: a.node })) : undefined,
      );
      assert.deepEqual(
        webPlan?.unplaced.map((u) => u.pod),
        [],
        'web-0 (1 CPU) fits beside one db pod (3 of 4 CPUs)',
      );
    });
  }

  it('a written plan whose node no longer holds its pod is planned again', async () => {
    const s = scheduler();
    s.coordinator.writtenPlans([writtenWeb({ 'web-0': 'n2' })]);
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    s.coordinator.podAdded(web(0, '3').obj);
    s.bind(makePod('squatter').req({ cpu: '3' }), 'n2');
    assert.equal(await s.schedule(web(0, '3')), 'n1');
    assert.deepEqual(
      s.plans.map(([cause, assignments]) => [cause, assignments]),
      [
        ['written', { 'web-0': 'n2' }],
        ['node-infeasible', { 'web-0': 'n1' }],
      ],
    );
  });

  it('a pod the plan leaves out is told why, in upstream form', async () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    assert.equal(
      await s.schedule(web(0, '8')),
      `0/2 nodes are available: the plan of pod set default/web leaves the pod out (2 Insufficient cpu).${NOT_HELPFUL}`,
    );
  });

  describe('a bad trigger is an error, and holds the set until a good one comes', () => {
    const table: Array<[Partial<TriggerSpec>, string]> = [
      [
        { quietTime: 'soon' },
        'ScheduleTrigger default/web: label planner.ciena.io/quiet-time: the quiet time "soon" is not a Go duration (time: invalid duration "soon"): write one such as 2m0s, 1h30m or 300ms (units ns, us, ms, s, m, h)',
      ],
      [{ state: 'Go' }, 'ScheduleTrigger default/web: unknown state "Go" (one of Planning, Schedule)'],
    ];
    for (const [fields, error] of table) {
      it(error, async () => {
        const s = scheduler();
        assert.deepEqual(s.coordinator.applyTrigger(trigger(fields)), { ok: false, error });
        assert.equal(await s.schedule(web(0)), `0/2 nodes are available: pod set default/web is held: ${error}.${NOT_HELPFUL}`);
        s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
        assert.equal(await s.schedule(web(0)), 'n1');
      });
    }
  });

  it('Reserve and Unreserve keep the plan in step with where the pod was reserved', () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger({ state: 'Schedule' }));
    s.coordinator.podAdded(web(0).obj);
    s.coordinator.reserved(web(0).info, 'n2');
    s.coordinator.unreserved(web(0).info);
    assert.deepEqual(
      s.plans.map(([cause, assignments]) => [cause, assignments]),
      [
        ['late-pod', { 'web-0': 'n1' }],
        ['reserved-elsewhere', { 'web-0': 'n2' }],
        ['unreserved', { 'web-0': 'n1' }],
      ],
    );
  });

  it('a trigger deleted stops its quiet timer', () => {
    const s = scheduler();
    s.coordinator.applyTrigger(trigger());
    s.coordinator.podAdded(web(0).obj);
    s.coordinator.deleteTrigger('default', 'web');
    s.clock.advance(600_000);
    assert.deepEqual(s.plans, []);
    assert.deepEqual(s.coordinator.triggers(), []);
  });
});
