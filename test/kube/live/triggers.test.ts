// ScheduleTriggers carried out live as Pallet does: the set is held while Planning; once the quiet
// time has passed since its last pod, the trigger's spec.state becomes Schedule, one SchedulePlan
// (Pallet's name) is written for the whole set and the pods are bound as planned; a pod arriving
// later is placed at once and the plan follows.
import assert from 'node:assert/strict';
import { schedulePlanName } from '../../../src/engine/planner/podset/name';
import { PLANNER_CRDS } from '../../../src/kube/crds';
import type { KubeObject } from '../apiserver';
import { cli } from '../../cli/run-cli';
import { openTestStore } from '../../store/helpers';
import { node, pod, podRef, podsOf, POD_SETS, runArgs, runLive, startCluster, until, type Cluster } from './cluster';

const TRIGGER = { apiVersion: 'planner.ciena.io/v1alpha1', kind: 'ScheduleTrigger' } as const;
const PLAN = { apiVersion: 'planner.ciena.io/v1alpha1', kind: 'SchedulePlan' } as const;

const member = (name: string) =>
  pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu: '2', labels: { 'planner.ciena.io/pod-set': 'cart' } });

const trigger: KubeObject = {
  ...TRIGGER,
  metadata: { name: 'cart', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'cart', 'planner.ciena.io/quiet-time': '1s' } },
  spec: { state: 'Planning' },
};

describe('kube/live: ScheduleTriggers', function () {
  this.timeout(120_000);
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('flips a trigger after its quiet time, writes one SchedulePlan and binds the set as planned; a late pod is placed at once', async () => {
    cluster = await startCluster([
      node('n1', { cpu: '4', memory: '16Gi', pods: '110' }),
      node('n2', { cpu: '4', memory: '16Gi', pods: '110' }),
      node('n3', { cpu: '4', memory: '16Gi', pods: '110' }),
    ]);
    const { server } = cluster;
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    server.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      trigger,
      member('cart-0'),
      member('cart-1'),
      member('cart-2'),
    );
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    const planName = schedulePlanName('shop', 'cart');
    const plan = () =>
      server.get(PLAN, 'shop', planName) as (KubeObject & { spec: { plan: Array<{ pod: string; node: string }> } }) | undefined;
    const nodeOf = (name: string) => podsOf(server).get(`shop/${name}`)?.spec.nodeName;

    await until('the set is bound', () => ['cart-0', 'cart-1', 'cart-2'].every((p) => nodeOf(p) !== undefined));
    assert.equal((server.get(TRIGGER, 'shop', 'cart') as { spec: { state: string } }).spec.state, 'Schedule', 'the trigger says Schedule');
    await until('the plan is written', () => plan()?.spec.plan.length === 3);
    for (const entry of plan()!.spec.plan) assert.equal(nodeOf(entry.pod), entry.node, `${entry.pod} is bound where the plan put it`);

    server.create(member('cart-3'));
    await until('the late pod is bound', () => nodeOf('cart-3') !== undefined);
    await until('the plan has the late pod', () => plan()?.spec.plan.some((e) => e.pod === 'cart-3') === true);
    assert.equal(plan()!.spec.plan.find((e) => e.pod === 'cart-3')?.node, nodeOf('cart-3'));

    stop('SIGTERM');
    const result = await run;
    assert.match(result.stderr, /ScheduleTrigger shop\/cart: quiet time passed, Schedule/);
    assert.match(result.stderr, /plan of pod set shop\/cart \(late-pod\)/);
    for (const p of ['cart-0', 'cart-1', 'cart-2', 'cart-3']) assert.equal(server.counters.bindings.get(`shop/${p}`), 1);
  });

  // The editor's Apply writes the SchedulePlan, then flips the trigger; an earlier leader leaves its
  // plan. Podplan run binds the set where that plan says (as Pallet's scheduler follows it) and does
  // not write a plan of its own over it. The planner alone would spread the pods over the nodes.
  it('a trigger found Schedule with a SchedulePlan written for its set: the pods are bound where it says, and it is not rewritten', async () => {
    cluster = await startCluster(['n1', 'n2', 'n3'].map((n) => node(n, { cpu: '4', memory: '16Gi', pods: '110' })));
    const { server } = cluster;
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    const planName = schedulePlanName('shop', 'cart');
    const written = [
      { pod: 'cart-0', node: 'n3' },
      { pod: 'cart-1', node: 'n3' },
    ];
    server.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      { ...PLAN, metadata: { name: planName, namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'cart' } }, spec: { plan: written } },
      { ...trigger, spec: { state: 'Schedule' } },
      member('cart-0'),
      member('cart-1'),
    );
    const version = () => (server.get(PLAN, 'shop', planName) as KubeObject).metadata?.resourceVersion;
    const before = version();
    assert.ok(before !== undefined);
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    const nodeOf = (name: string) => podsOf(server).get(`shop/${name}`)?.spec.nodeName;
    await until('the set is bound', () => ['cart-0', 'cart-1'].every((p) => nodeOf(p) !== undefined));
    stop('SIGTERM');
    const result = await run;
    assert.deepEqual(['cart-0', 'cart-1'].map(nodeOf), ['n3', 'n3'], result.stderr);
    assert.match(result.stderr, /plan of pod set shop\/cart \(written\): 2 placed, 0 left out/);
    assert.doesNotMatch(result.stderr, /plan of pod set shop\/cart \((?!written)/);
    assert.equal(version(), before, 'the written plan is left as it was');
    const store = await openTestStore(cluster.db);
    try {
      const plans = store.history({ podSet: 'cart' });
      assert.ok(plans.ok);
      assert.deepEqual(plans.value.items, [], 'a plan taken from the cluster is not recorded as this run’s');
    } finally {
      store.close();
    }
  });

  it('dependsOn with requireReady: the dependent set waits until the pods of its dependency are Ready (their status conditions), not only bound', async () => {
    cluster = await startCluster([
      node('n1', { cpu: '8', memory: '32Gi', pods: '110' }),
      node('n2', { cpu: '8', memory: '32Gi', pods: '110' }),
    ]);
    const { server } = cluster;
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    const setMember = (name: string, set: string) =>
      pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu: '1', labels: { 'planner.ciena.io/pod-set': set } });
    const db: KubeObject = {
      ...TRIGGER,
      metadata: { name: 'db', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'db' } },
      spec: { state: 'Schedule' },
    };
    const web: KubeObject = {
      ...TRIGGER,
      metadata: { name: 'web', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'web' } },
      spec: { state: 'Schedule', dependsOn: [{ name: 'db' }], requireReady: true },
    };
    server.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      db,
      web,
      setMember('db-0', 'db'),
      setMember('db-1', 'db'),
      setMember('web-0', 'web'),
    );
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    const nodeOf = (name: string) => podsOf(server).get(`shop/${name}`)?.spec.nodeName;
    /** Plays the kubelet: the pod's Ready condition. */
    const markReady = (name: string) =>
      server.patch(podRef, 'shop', name, { status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });

    /**
     * Waits for an event rather than a while: a pod of the plain scheduler created now is bound only
     * once the run has taken in every pod event before it (one watch, in order) and acted on it.
     */
    let markers = 0;
    const seen = async (what: string) => {
      const marker = `marker-${markers++}`;
      server.create(pod(marker, { namespace: 'shop', cpu: '10m' }));
      await until(`the run has seen ${what}`, () => nodeOf(marker) !== undefined);
    };

    await until('the db set is bound', () => nodeOf('db-0') !== undefined && nodeOf('db-1') !== undefined);
    // Bound is not Ready: web waits once the watch has brought the bindings back.
    await seen('the db pods bound');
    assert.equal(nodeOf('web-0'), undefined, 'web waits for db to be Ready, not only bound');
    markReady('db-0');
    await seen("db-0's Ready condition");
    assert.equal(nodeOf('web-0'), undefined, 'one of two db pods Ready is not enough');
    markReady('db-1');
    await until('web is bound once db is Ready', () => nodeOf('web-0') !== undefined);

    stop('SIGTERM');
    const result = await run;
    assert.match(result.stderr, /ScheduleTrigger shop\/web waits for ScheduleTrigger\/shop\/db \(their pods Ready\)/);
    for (const p of ['db-0', 'db-1', 'web-0']) assert.equal(server.counters.bindings.get(`shop/${p}`), 1);
  });

  // A set whose trigger depends on another is planned once that one's plan is complete, before its
  // pods are bound: beside them (the coordinator assumes the pods other sets' plans placed), as
  // podplan plan plans it. db's pods take 3 of each node's 4 CPUs: web-1 (2 CPUs) fits nowhere.
  it('dependsOn: the dependent set is planned beside the pods its dependency’s plan placed, not bound yet; explain --plan says why a live plan has no cluster', async () => {
    cluster = await startCluster(['n1', 'n2', 'n3'].map((n) => node(n, { cpu: '4', memory: '16Gi', pods: '110' })));
    const { server } = cluster;
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    const setMember = (name: string, set: string, cpu: string) =>
      pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu, labels: { 'planner.ciena.io/pod-set': set } });
    const triggerOf = (set: string, spec: Record<string, unknown>): KubeObject => ({
      ...TRIGGER,
      metadata: { name: set, namespace: 'shop', labels: { 'planner.ciena.io/pod-set': set } },
      spec: { state: 'Schedule', ...spec },
    });
    server.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      triggerOf('db', {}),
      triggerOf('web', { dependsOn: [{ name: 'db' }] }),
      ...['db-0', 'db-1', 'db-2'].map((name) => setMember(name, 'db', '3')),
      setMember('web-0', 'web', '1'),
      setMember('web-1', 'web', '2'),
    );
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    const nodeOf = (name: string) => podsOf(server).get(`shop/${name}`)?.spec.nodeName;
    await until('db and web-0 are bound', () => ['db-0', 'db-1', 'db-2', 'web-0'].every((p) => nodeOf(p) !== undefined));
    stop('SIGTERM');
    const result = await run;
    const webPlans = [...result.stderr.matchAll(/plan of pod set shop\/web \(([a-z-]+)\): (\d+) placed, (\d+) left out/g)].map((m) =>
      m.slice(1),
    );
    assert.deepEqual(webPlans[0], ['by-hand', '1', '1'], result.stderr);
    assert.ok(!webPlans.some(([cause]) => cause === 'node-infeasible'), 'no planned node turned out taken');
    assert.equal(nodeOf('web-1'), undefined);
    for (const p of ['db-0', 'db-1', 'db-2', 'web-0']) assert.equal(server.counters.bindings.get(`shop/${p}`), 1);
    const store = await openTestStore(cluster.db);
    let id: number | undefined;
    try {
      const plans = store.history({ podSet: 'web' });
      assert.ok(plans.ok);
      const first = plans.value.items.at(-1);
      assert.ok(first);
      id = first.id;
      const db = store.history({ podSet: 'db' });
      assert.ok(db.ok);
      const dbPlan = store.loadPlan(db.value.items.at(-1)!.id);
      const webPlan = store.loadPlan(first.id);
      assert.ok(dbPlan.ok && webPlan.ok);
      assert.deepEqual(
        webPlan.value.placedBefore,
        dbPlan.value.assignments.map((a) => ({ namespace: 'shop', pod: a.pod, node: a.node })),
        'the db pods it was planned beside',
      );
    } finally {
      store.close();
    }
    const explained = await cli(['explain', 'shop/web-1', '--plan', String(id), '--db', cluster.db]);
    assert.equal(explained.code, 2);
    assert.match(
      explained.stderr,
      new RegExp(
        `^podplan explain: plan ${id} was made by a live scheduler \\(podplan run, or the editor's Run Podplan as scheduler\\) on the cluster as it was at that moment, which the history does not keep with a live scheduler's plans: `,
        'm',
      ),
    );
  });

  // A PodSet or SchedulePlan entry stands for the triggers of that set, as podplan plan and the
  // editor read it (engine/planner/placed-before resolveDependency); podplan run held such a
  // trigger for ever (it looked the entry up as a trigger).
  for (const entry of [
    { kind: 'PodSet', name: 'db' },
    { kind: 'SchedulePlan', name: schedulePlanName('shop', 'db') },
  ]) {
    it(`dependsOn ${entry.kind}: the dependent set is planned once its dependency's plan places every pod, beside those pods`, async () => {
      cluster = await startCluster(['n1', 'n2', 'n3'].map((n) => node(n, { cpu: '4', memory: '16Gi', pods: '110' })));
      const { server } = cluster;
      server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
      const setMember = (name: string, set: string, cpu: string) =>
        pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu, labels: { 'planner.ciena.io/pod-set': set } });
      const triggerOf = (set: string, spec: Record<string, unknown>): KubeObject => ({
        ...TRIGGER,
        metadata: { name: set, namespace: 'shop', labels: { 'planner.ciena.io/pod-set': set } },
        spec: { state: 'Schedule', ...spec },
      });
      server.create(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
        triggerOf('db', {}),
        triggerOf('web', { dependsOn: [entry] }),
        ...['db-0', 'db-1', 'db-2'].map((name) => setMember(name, 'db', '3')),
        setMember('web-0', 'web', '1'),
        setMember('web-1', 'web', '2'),
      );
      let stop: (signal: string) => void = () => undefined;
      const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
      const nodeOf = (name: string) => podsOf(server).get(`shop/${name}`)?.spec.nodeName;
      await until('db and web-0 are bound', () => ['db-0', 'db-1', 'db-2', 'web-0'].every((p) => nodeOf(p) !== undefined));
      stop('SIGTERM');
      const result = await run;
      const webPlans = [...result.stderr.matchAll(/plan of pod set shop\/web \(([a-z-]+)\): (\d+) placed, (\d+) left out/g)].map((m) =>
        m.slice(1),
      );
      assert.deepEqual(webPlans[0], ['by-hand', '1', '1'], result.stderr);
      assert.equal(nodeOf('web-1'), undefined, 'no node has 2 CPUs left beside db');
    });
  }

  it('dependsOn a SchedulePlan written for a set no trigger plans: the dependent set is planned beside its pods on their nodes, and records them', async () => {
    cluster = await startCluster(['n1', 'n2', 'n3'].map((n) => node(n, { cpu: '4', memory: '16Gi', pods: '110' })));
    const { server } = cluster;
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    const setMember = (name: string, set: string, cpu: string) =>
      pod(name, { namespace: 'shop', schedulerName: POD_SETS, cpu, labels: { 'planner.ciena.io/pod-set': set } });
    const dbPlan = schedulePlanName('shop', 'db');
    const written = [
      { pod: 'db-0', node: 'n2' },
      { pod: 'db-1', node: 'n3' },
      { pod: 'db-2', node: 'n1' },
    ];
    server.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
      { ...PLAN, metadata: { name: dbPlan, namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'db' } }, spec: { plan: written } },
      {
        ...TRIGGER,
        metadata: { name: 'web', namespace: 'shop', labels: { 'planner.ciena.io/pod-set': 'web' } },
        spec: { state: 'Schedule', dependsOn: [{ kind: 'SchedulePlan', name: dbPlan }] },
      },
      ...['db-0', 'db-1', 'db-2'].map((name) => setMember(name, 'db', '3')),
      setMember('web-0', 'web', '1'),
      setMember('web-1', 'web', '2'),
    );
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    const nodeOf = (name: string) => podsOf(server).get(`shop/${name}`)?.spec.nodeName;
    await until('web-0 is bound', () => nodeOf('web-0') !== undefined);
    stop('SIGTERM');
    const result = await run;
    const webPlans = [...result.stderr.matchAll(/plan of pod set shop\/web \(([a-z-]+)\): (\d+) placed, (\d+) left out/g)].map((m) =>
      m.slice(1),
    );
    assert.deepEqual(webPlans[0], ['by-hand', '1', '1'], result.stderr);
    assert.equal(nodeOf('web-1'), undefined, 'no node has 2 CPUs left beside the written plan’s db pods');
    const store = await openTestStore(cluster.db);
    try {
      const plans = store.history({ podSet: 'web' });
      assert.ok(plans.ok);
      const first = store.loadPlan(plans.value.items.at(-1)!.id);
      assert.ok(first.ok);
      assert.deepEqual(
        first.value.placedBefore,
        written.map((w) => ({ namespace: 'shop', ...w })),
        'the written plan’s pods it was planned beside',
      );
    } finally {
      store.close();
    }
  });
});
