import assert from 'node:assert/strict';
import type { DependencyRef } from '../../../src/engine/reconcile/triggers';
import { schedulePlanName } from '../../../src/engine/planner/podset/name';
import { planOnePodSet, planWorkspace, type TriggerOutcome } from '../../../src/engine/planner/plan-all';
import type { Plan } from '../../../src/engine/planner/plan';
import type { TriggerSpec } from '../../../src/engine/planner/podset/trigger';
import { makeNode, type PodBuilder } from '../../builders';
import { planning, setPod } from './fixtures';

const nodes = [
  makeNode('n1').alloc({ cpu: '4', memory: '16Gi', pods: '110' }),
  makeNode('n2').alloc({ cpu: '4', memory: '16Gi', pods: '110' }),
];
const HOSTNAME = 'kubernetes.io/hostname';

const trigger = (set: string, dependsOn: Array<string | DependencyRef> = [], fields: Partial<TriggerSpec> = {}): TriggerSpec => ({
  name: set,
  namespace: 'default',
  podSet: set,
  state: 'Planning',
  dependsOn: dependsOn.map((d) => (typeof d === 'string' ? { name: d } : d)),
  ...fields,
});

async function plan(triggers: TriggerSpec[], pods: PodBuilder[], plans: Plan[] = []): Promise<TriggerOutcome[]> {
  const outcomes = await planWorkspace({
    cluster: { nodes: nodes.map((n) => n.obj), pods: pods.map((p) => p.obj) },
    triggers,
    plans,
    planning: planning(),
    now: 0,
    poolSize: 2,
  });
  assert.ok(outcomes.ok);
  return outcomes.value;
}

/** trigger name → "ready" | "not ready: …" | "failed: …" */
const statuses = (outcomes: TriggerOutcome[]) =>
  Object.fromEntries(
    outcomes.map((o) => [o.trigger.name, o.ready ? 'ready' : o.failed ? `failed: ${o.message}` : `not ready: ${o.message}`]),
  );

const db = (i: number) => setPod(`db-${i}`, 'db').labels({ app: 'db' }).req({ cpu: '1' });
/** An app pod that must run beside a db pod (same node). */
const app = (i: number) =>
  setPod(`app-${i}`, 'app')
    .req({ cpu: '1' })
    .requirePods('podAffinity', { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'db' } } });

describe('engine/planner/plan-all', () => {
  it('plans a trigger after the one it depends on, on the cluster with that plan assumed', async () => {
    const outcomes = await plan([trigger('app', ['db']), trigger('db')], [app(0), db(0)]);
    assert.deepEqual(statuses(outcomes), { app: 'ready', db: 'ready' });
    const [appPlan, dbPlan] = outcomes.map((o) => o.plan);
    assert.equal(appPlan?.assignments[0]?.node, dbPlan?.assignments[0]?.node, 'the app pod found its db pod planned');
  });

  it('triggers without dependencies are all planned, each seeing the placements before it', async () => {
    const outcomes = await plan([trigger('a'), trigger('b')], [setPod('a-0', 'a').req({ cpu: '4' }), setPod('b-0', 'b').req({ cpu: '4' })]);
    assert.deepEqual(statuses(outcomes), { a: 'ready', b: 'ready' });
    assert.notEqual(outcomes[0]?.plan?.assignments[0]?.node, outcomes[1]?.plan?.assignments[0]?.node);
  });

  // The cluster a plan was made on is the input's with what the plans before it placed: the plan
  // records those pods (Plan.placedBefore), which the history keeps and explain places again.
  it('records on each plan the pods the plans before it placed, in the order they were placed', async () => {
    const outcomes = await plan([trigger('app', ['db']), trigger('db')], [app(0), db(0), db(1)]);
    const [appPlan, dbPlan] = outcomes.map((o) => o.plan);
    assert.equal(dbPlan?.placedBefore, undefined, 'planned first: on the input as it is');
    assert.deepEqual(
      appPlan?.placedBefore,
      dbPlan?.assignments.map((a) => ({ namespace: 'default', pod: a.pod, node: a.node })),
    );
    const chained = await plan(
      [trigger('a'), trigger('b', ['a']), trigger('c', ['b'])],
      [setPod('a-0', 'a').req({ cpu: '1' }), setPod('b-0', 'b').req({ cpu: '1' }), setPod('c-0', 'c').req({ cpu: '1' })],
    );
    const placed = (set: string) => chained.find((o) => o.trigger.name === set)?.plan?.placedBefore?.map((p) => p.pod);
    assert.deepEqual([placed('a'), placed('b'), placed('c')], [undefined, ['a-0'], ['a-0', 'b-0']]);
  });

  describe('what can never proceed ends with a clear status', () => {
    const table: Array<{ name: string; triggers: TriggerSpec[]; pods: PodBuilder[]; expect: Record<string, string> }> = [
      {
        name: 'a dependency that does not exist',
        triggers: [trigger('app', ['cache'])],
        pods: [app(0)],
        expect: { app: 'failed: dependency not found: ScheduleTrigger/default/cache' },
      },
      {
        name: 'a dependency whose pod set has no pods',
        triggers: [trigger('app', ['db']), trigger('db')],
        pods: [app(0)],
        expect: {
          app: 'failed: dependency failed: ScheduleTrigger/default/db: pod set default/db has no pods',
          db: 'failed: pod set default/db has no pods',
        },
      },
      {
        name: 'a dependency that leaves a pod out is never complete',
        triggers: [trigger('app', ['db']), trigger('db')],
        pods: [app(0), db(0), setPod('db-big', 'db').req({ cpu: '8' })],
        expect: { app: 'failed: dependency not ready: ScheduleTrigger/default/db', db: 'not ready: planned 1 of 2 pods; left out: db-big' },
      },
      {
        name: 'triggers that wait on each other',
        triggers: [trigger('a', ['b']), trigger('b', ['a'])],
        pods: [setPod('a-0', 'a'), setPod('b-0', 'b')],
        expect: {
          a: 'failed: dependency cycle: ScheduleTrigger/default/a → ScheduleTrigger/default/b → ScheduleTrigger/default/a',
          b: 'failed: dependency cycle: ScheduleTrigger/default/b → ScheduleTrigger/default/a → ScheduleTrigger/default/b',
        },
      },
      {
        name: 'a trigger with an unknown state',
        triggers: [trigger('db', [], { state: 'Later' })],
        pods: [db(0)],
        expect: { db: 'failed: ScheduleTrigger default/db: unknown state "Later" (one of Planning, Schedule)' },
      },
      {
        name: 'a trigger with a quiet time that does not parse',
        triggers: [trigger('db', [], { quietTime: '5 minutes' })],
        pods: [db(0)],
        expect: {
          db: 'failed: ScheduleTrigger default/db: label planner.ciena.io/quiet-time: the quiet time "5 minutes" is not a Go duration (time: unknown unit " minutes" in duration "5 minutes"); write 5m0s',
        },
      },
      {
        name: 'a second trigger for a pod set already planned by another',
        triggers: [trigger('db'), { ...trigger('db'), name: 'db-again' }],
        pods: [db(0)],
        expect: { db: 'ready', 'db-again': 'failed: pod set default/db is planned by ScheduleTrigger default/db' },
      },
    ];
    for (const { name, triggers, pods, expect } of table)
      it(name, async () => assert.deepEqual(statuses(await plan(triggers, pods)), expect));
  });

  describe('requireReady waits for the dependency’s pods to be Ready, not only planned', () => {
    it('planned but not running: never ready', async () => {
      const outcomes = await plan([trigger('app', ['db'], { requireReady: true }), trigger('db')], [app(0), db(0)]);
      assert.deepEqual(statuses(outcomes), { app: 'failed: dependency not ready: ScheduleTrigger/default/db', db: 'ready' });
    });

    it('running and Ready', async () => {
      const outcomes = await plan([trigger('app', ['db'], { requireReady: true }), trigger('db')], [app(0), db(0).node('n2').ready()]);
      assert.deepEqual(statuses(outcomes), { app: 'ready', db: 'ready' });
      assert.equal(outcomes[0]?.plan?.assignments[0]?.node, 'n2');
    });
  });

  describe('a dependency may name a pod set or a plan', () => {
    const table: Array<[DependencyRef, string]> = [
      [{ kind: 'PodSet', name: 'db' }, 'ready'],
      [{ kind: 'SchedulePlan', name: schedulePlanName('default', 'db') }, 'ready'],
      [{ kind: 'PodSet', name: 'cache' }, 'failed: dependency not found: PodSet/default/cache'],
    ];
    for (const [ref, expect] of table) {
      it(`${ref.kind}/${ref.name}: ${expect}`, async () => {
        assert.equal(statuses(await plan([trigger('app', [ref]), trigger('db')], [app(0), db(0)]))['app'], expect);
      });
    }
  });

  // A SchedulePlan already in the files that a trigger depends on and no trigger of the run plans
  // again stands: the scheduler binds its pods as written, so the dependent is planned beside them.
  describe('a written plan a trigger depends on and the run does not plan again', () => {
    /** db's plan as written: db-0 on n2 (greedy alone would take n1). */
    const written: Plan = {
      podSet: 'db',
      namespace: 'default',
      planner: 'greedy',
      profile: 'podset-planner-scheduler',
      assignments: [{ pod: 'db-0', node: 'n2' }],
      unplaced: [],
      createdAt: 0,
      snapshotHash: '',
    };
    const onN2 = [{ namespace: 'default', pod: 'db-0', node: 'n2' }];
    const table: Array<[string, TriggerSpec[], { node?: string; placedBefore?: unknown; status: string }]> = [
      [
        'SchedulePlan entry: app beside db-0 on n2, recorded',
        [trigger('app', [{ kind: 'SchedulePlan', name: schedulePlanName('default', 'db') }])],
        { node: 'n2', placedBefore: onN2, status: 'ready' },
      ],
      ['PodSet entry: the same', [trigger('app', [{ kind: 'PodSet', name: 'db' }])], { node: 'n2', placedBefore: onN2, status: 'ready' }],
      [
        'db has a trigger in the run: planned again, the written plan not placed',
        [trigger('app', [{ kind: 'SchedulePlan', name: schedulePlanName('default', 'db') }]), trigger('db')],
        { node: 'n1', placedBefore: [{ namespace: 'default', pod: 'db-0', node: 'n1' }], status: 'ready' },
      ],
      [
        'no trigger depends on it: not placed, so app-0 has no db pod to sit beside',
        [trigger('app')],
        { status: 'not ready: planned 0 of 1 pods; left out: app-0' },
      ],
    ];
    for (const [name, triggers, expect] of table) {
      it(name, async () => {
        const outcomes = await plan(triggers, [app(0), db(0)], [written]);
        const made = outcomes.find((o) => o.trigger.name === 'app');
        assert.equal(statuses(outcomes)['app'], expect.status);
        assert.equal(made?.plan?.assignments[0]?.node, expect.node);
        assert.deepEqual(made?.plan?.placedBefore, expect.placedBefore);
      });
    }

    it('an entry of the written plan naming a pod of another set is not that pod: only db’s own pods are placed before', async () => {
      const naming = { ...written, assignments: [...written.assignments, { pod: 'app-0', node: 'n1' }] };
      const outcomes = await plan([trigger('app', [{ kind: 'PodSet', name: 'db' }])], [app(0), db(0)], [naming]);
      const made = outcomes.find((o) => o.trigger.name === 'app');
      assert.deepEqual(made?.plan?.placedBefore, onN2);
      assert.equal(made?.plan?.assignments[0]?.node, 'n2');
    });

    it('planOnePodSet (podplan plan, the editor’s preview) plans the dependent the same way', async () => {
      const one = await planOnePodSet(
        {
          cluster: { nodes: nodes.map((n) => n.obj), pods: [app(0).obj, db(0).obj] },
          triggers: [trigger('app', [{ kind: 'PodSet', name: 'db' }])],
          plans: [written],
          planning: planning(),
          now: 0,
        },
        { namespace: 'default', name: 'app' },
      );
      assert.ok(one.ok);
      assert.deepEqual(
        one.value.plan?.assignments.map((a) => [a.pod, a.node]),
        [['app-0', 'n2']],
      );
      assert.deepEqual(one.value.plan?.placedBefore, onN2);
    });
  });
});
