// ScheduleTriggers carried out live as Pallet does: the set is held while Planning; once the quiet
// time has passed since its last pod, the trigger's spec.state becomes Schedule, one SchedulePlan
// (Pallet's name) is written for the whole set and the pods are bound as planned; a pod arriving
// later is placed at once and the plan follows.
import assert from 'node:assert/strict';
import { schedulePlanName } from '../../../src/engine/planner/podset/name';
import { PLANNER_CRDS } from '../../../src/kube/crds';
import type { KubeObject } from '../apiserver';
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
});
