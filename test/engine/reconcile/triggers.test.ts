import assert from 'node:assert/strict';
import { Reconciler, terminal, type Terminal } from '../../../src/engine/reconcile/reconciler';
import {
  dependencyId,
  parseNodeId,
  triggerDispatcher,
  type DependencyRef,
  type TriggerCallbacks,
  type TriggerDescriptor,
} from '../../../src/engine/reconcile/triggers';
import { flush, summary } from './fake';
import { ManualClock } from '../../../src/engine/api/clock';
import { InMemoryBinder } from '../../../src/engine/framework/binder';
import { planWorkspace } from '../../../src/engine/planner/plan-all';
import type { TriggerSpec } from '../../../src/engine/planner/podset/trigger';
import { composeLiveScheduler } from '../../../src/kube/live/compose';
import { liveCache } from '../../../src/kube/live/scheduler';
import { incompleteDependencies } from '../../../src/server/service/dependencies';
import { makeNode, type PodBuilder } from '../../builders';
import { planning, setPod } from '../planner/fixtures';
import { docs, node, plan, trigger as triggerYaml, workspaceOf } from '../../server/service/fixtures';

/** A trigger in namespace prod; a dependency given as a string is a trigger name in prod. */
function trigger(name: string, dependsOn: Array<string | DependencyRef> = [], requireReady = false): TriggerDescriptor {
  return { id: `ScheduleTrigger/prod/${name}`, dependsOn: dependsOn.map((d) => (typeof d === 'string' ? { name: d } : d)), requireReady };
}

/** Stands in for the planner: records the order it plans in; a trigger's plan places every pod unless told otherwise. */
class FakePlanner implements TriggerCallbacks {
  readonly planned: string[] = [];
  readonly podsReady = new Set<string>();
  private readonly results = new Map<string, Terminal>();

  constructor(
    private readonly unplaced: Record<string, number> = {},
    private readonly errors: Record<string, string> = {},
  ) {}

  async plan(t: TriggerDescriptor): Promise<Terminal> {
    const name = t.id.split('/')[2] ?? t.id;
    this.planned.push(name);
    await Promise.resolve();
    const error = this.errors[name];
    if (error !== undefined) throw new Error(error);
    const missing = this.unplaced[name] ?? 0;
    const result = missing > 0 ? terminal(false, `${missing} pods not placed`) : terminal(true);
    this.results.set(t.id, result);
    return result;
  }

  progress(id: string) {
    return { complete: this.results.get(id)?.ready ?? false, ready: this.podsReady.has(id) };
  }
}

function setup(triggers: TriggerDescriptor[], planner = new FakePlanner()) {
  const reconciler = new Reconciler(triggerDispatcher(new Map(triggers.map((t) => [t.id, t])), planner), { poolSize: 4 });
  reconciler.seed(triggers.map((t) => t.id));
  return { reconciler, planner };
}

/** The summary keyed by trigger name rather than full id. */
function byName(reconciler: Reconciler): Record<string, string> {
  return Object.fromEntries(Object.entries(summary(reconciler)).map(([id, s]) => [id.split('/')[2] ?? id, s]));
}

describe('engine/reconcile/triggers', () => {
  describe('node ids are kind/namespace/name, defaulting to a ScheduleTrigger in the dependent’s namespace', () => {
    const table: Array<[ref: DependencyRef, id: string]> = [
      [{ name: 'db' }, 'ScheduleTrigger/prod/db'],
      [{ name: 'db', namespace: 'data' }, 'ScheduleTrigger/data/db'],
      [{ name: 'db', kind: 'SchedulePlan' }, 'SchedulePlan/prod/db'],
      [{ name: 'db', namespace: 'data', kind: 'PodSet' }, 'PodSet/data/db'],
    ];
    for (const [ref, id] of table) {
      it(`${JSON.stringify(ref)} from prod is ${id}`, () => {
        assert.equal(dependencyId(ref, 'prod'), id);
        assert.deepEqual(parseNodeId(id), {
          ok: true,
          value: { kind: ref.kind ?? 'ScheduleTrigger', namespace: ref.namespace ?? 'prod', name: 'db' },
        });
      });
    }
    for (const bad of ['ScheduleTrigger/db', 'a/b/c/d', 'ScheduleTrigger//db']) {
      it(`"${bad}" is not an id`, () => assert.equal(parseNodeId(bad).ok, false));
    }
  });

  describe('plans a trigger only once what it depends on is complete (or Ready)', () => {
    const table: Array<{
      name: string;
      triggers: TriggerDescriptor[];
      planner?: FakePlanner;
      planned: string[];
      expect: Record<string, string>;
    }> = [
      {
        name: 'triggers without dependsOn are planned in seed order',
        triggers: [trigger('a'), trigger('b')],
        planned: ['a', 'b'],
        expect: { a: 'ready', b: 'ready' },
      },
      {
        name: 'an application set waits for its database set, seeded first',
        triggers: [trigger('app', ['db', 'cache']), trigger('db'), trigger('cache', ['db'])],
        planned: ['db', 'cache', 'app'],
        expect: { app: 'ready', db: 'ready', cache: 'ready' },
      },
      {
        name: 'a dependency in another namespace',
        triggers: [trigger('app', [{ name: 'db', namespace: 'data' }]), { id: 'ScheduleTrigger/data/db' }],
        planned: ['db', 'app'],
        expect: { app: 'ready', db: 'ready' },
      },
      {
        name: 'a dependency that does not exist',
        triggers: [trigger('app', ['cache'])],
        planned: [],
        expect: { app: 'failed: dependency not found: ScheduleTrigger/prod/cache' },
      },
      {
        name: 'a dependency whose plan leaves pods unplaced is never complete',
        triggers: [trigger('app', ['db']), trigger('db')],
        planner: new FakePlanner({ db: 2 }),
        planned: ['db'],
        expect: { app: 'failed: dependency not ready: ScheduleTrigger/prod/db', db: 'not ready' },
      },
      {
        name: 'a dependency whose planning throws',
        triggers: [trigger('app', ['db']), trigger('db')],
        planner: new FakePlanner({}, { db: 'profile "fast" not found' }),
        planned: ['db'],
        expect: {
          app: 'failed: dependency failed: ScheduleTrigger/prod/db: profile "fast" not found',
          db: 'failed: profile "fast" not found',
        },
      },
      {
        name: 'triggers that depend on each other',
        triggers: [trigger('a', ['b']), trigger('b', ['a'])],
        planned: [],
        expect: {
          a: 'failed: dependency cycle: ScheduleTrigger/prod/a → ScheduleTrigger/prod/b → ScheduleTrigger/prod/a',
          b: 'failed: dependency cycle: ScheduleTrigger/prod/b → ScheduleTrigger/prod/a → ScheduleTrigger/prod/b',
        },
      },
      {
        name: 'requireReady: a complete plan is not enough while the pods are not Ready',
        triggers: [trigger('app', ['db'], true), trigger('db')],
        planned: ['db'],
        expect: { app: 'failed: dependency not ready: ScheduleTrigger/prod/db', db: 'ready' },
      },
    ];
    for (const { name, triggers, planner, planned, expect } of table) {
      it(name, async () => {
        const { reconciler, planner: used } = setup(triggers, planner);
        await reconciler.run();
        assert.deepEqual(used.planned, planned);
        assert.deepEqual(byName(reconciler), expect);
      });
    }
  });

  it('requireReady: the dependent is planned when a status wake reports the pods Ready', async () => {
    let release = (): void => undefined;
    const planner = new FakePlanner();
    const slow = trigger('slow');
    // A trigger still planning keeps the run from reaching its fixpoint while the pods come up.
    const plan = planner.plan.bind(planner);
    planner.plan = async (t) => {
      if (t.id === slow.id) await new Promise<void>((resolve) => (release = resolve));
      return plan(t);
    };
    const { reconciler } = setup([trigger('app', ['db'], true), trigger('db'), slow], planner);
    const run = reconciler.run();
    await flush();
    assert.equal(reconciler.status('ScheduleTrigger/prod/app')?.state, 'parked');
    planner.podsReady.add('ScheduleTrigger/prod/db');
    reconciler.onStatusWake('ScheduleTrigger/prod/db', true, false);
    await flush();
    assert.equal(reconciler.status('ScheduleTrigger/prod/app')?.ready, true);
    release();
    await run;
    assert.deepEqual(planner.planned, ['db', 'app', 'slow'], 'app went ahead while slow was still planning');
  });

  it('a node that is not a known trigger fails with a clear message', async () => {
    const reconciler = new Reconciler(triggerDispatcher(new Map([['bad', { id: 'bad' }]]), new FakePlanner()));
    reconciler.seed(['ScheduleTrigger/prod/gone', 'bad']);
    await reconciler.run();
    assert.deepEqual(summary(reconciler), {
      'ScheduleTrigger/prod/gone': 'failed: unknown trigger: ScheduleTrigger/prod/gone',
      bad: 'failed: "bad" is not a node id (kind/namespace/name)',
    });
  });
});

describe('engine/reconcile/triggers: podplan plan, podplan run and the editor apply the same rule', () => {
  // One dependency `db` (one pod) and its dependent `web` (one pod), the same facts given to the
  // three: the CLI's planWorkspace, the live scheduler, and the editor's Schedule Now check.
  const NODE = makeNode('n1').alloc({ cpu: '8', memory: '16Gi', pods: '110' });
  type DbPod = 'pending' | 'bound' | 'bound and Ready';
  const dbPod = (state: DbPod) => {
    const b = setPod('db-0', 'db').req({ cpu: '1' });
    return state === 'pending' ? b : state === 'bound' ? b.node('n1') : b.node('n1').ready();
  };
  const webPod = () => setPod('web-0', 'web').req({ cpu: '1' });
  const spec = (name: string, state: 'Planning' | 'Schedule', requireReady: boolean, dependsOn: DependencyRef[] = []): TriggerSpec => ({
    name,
    namespace: 'default',
    podSet: name,
    state,
    dependsOn,
    ...(requireReady ? { requireReady: true } : {}),
  });

  async function cli(state: DbPod, requireReady: boolean): Promise<boolean> {
    const outcomes = await planWorkspace({
      cluster: { nodes: [NODE.obj], pods: [dbPod(state).obj, webPod().obj] },
      triggers: [spec('web', 'Planning', requireReady, [{ name: 'db' }]), spec('db', 'Planning', false)],
      planning: planning(),
      now: 0,
    });
    assert.ok(outcomes.ok);
    return outcomes.value.find((o) => o.trigger.name === 'web')?.plan !== undefined;
  }

  async function live(state: DbPod, requireReady: boolean): Promise<boolean> {
    const clock = new ManualClock(0);
    const binder = new InMemoryBinder();
    const composed = composeLiveScheduler({
      clock,
      cache: liveCache(clock, 30_000),
      binder,
      writer: { writePlan: () => Promise.resolve({ ok: true }), setTriggerState: () => Promise.resolve({ ok: true }) },
      report: { decision: () => undefined, plan: () => undefined, triggerScheduled: () => undefined, warning: () => undefined },
    });
    assert.ok(composed.ok);
    const s = composed.value;
    s.nodeAdded(NODE.obj);
    for (const p of [dbPod(state).obj, webPod().obj]) s.podAdded(p);
    s.setLeading(true);
    s.triggerApplied(spec('db', 'Schedule', false));
    s.triggerApplied(spec('web', 'Schedule', requireReady, [{ name: 'db' }]));
    for (let i = 0; i < 10; i++) {
      clock.advance(1_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const planned = s.counts().triggersWaiting === 0 && binder.bindings.has('default/web-0');
    await s.stop();
    return planned;
  }

  function editor(state: DbPod, requireReady: boolean): boolean {
    // The API's JSON shape is YAML too.
    const yaml = (b: PodBuilder) => `${JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...b.obj })}\n`;
    const files = {
      'cluster.yaml': docs(node('n1', '8'), yaml(dbPod(state)), yaml(webPod())),
      // What podplan plan and podplan run would have written for db: its trigger set to Schedule and a plan placing a pending pod.
      'db.yaml': docs(triggerYaml('db', 'Schedule'), ...(state === 'pending' ? [plan('db', [['db-0', 'n1']])] : [])),
      'web.yaml': `${triggerYaml('web')}  dependsOn:\n    - name: db\n${requireReady ? '  requireReady: true\n' : ''}`,
    };
    const analysis = workspaceOf(files).analysis();
    const web = analysis.trigger('default', 'web');
    assert.ok(web);
    return incompleteDependencies(web.value, analysis).length === 0;
  }

  const table: Array<[state: DbPod, requireReady: boolean, goes: boolean]> = [
    ['pending', false, true],
    ['pending', true, false],
    ['bound', false, true],
    ['bound', true, false],
    ['bound and Ready', false, true],
    ['bound and Ready', true, true],
  ];
  for (const [state, requireReady, goes] of table) {
    it(`db's pod ${state}, requireReady ${requireReady}: web ${goes ? 'is planned' : 'waits'} in all three`, async () => {
      assert.deepEqual(
        { cli: await cli(state, requireReady), live: await live(state, requireReady), editor: editor(state, requireReady) },
        { cli: goes, live: goes, editor: goes },
      );
    });
  }
});
