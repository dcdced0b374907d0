// `podplan run` hands the engine the cluster's other objects (PVCs, PVs, StorageClasses, Namespaces,
// PDBs, ...) from informers, to the pod scheduler and to the pod-set planner, and again whenever
// they change: a pod whose bound PVC's PV is pinned to one node lands on that node, a pod whose PVC
// does not exist stays unplaced with upstream's message until the claim appears, namespace labels
// reach affinity's namespaceSelector. An object that does not decode is reported and left out; a
// kind the user may not list is a warning, not a failure.
import assert from 'node:assert/strict';
import { PLANNER_CRDS } from '../../../src/kube/crds';
import type { KubeObject } from '../apiserver';
import { DRA_API, gpuClaim, gpuClass, gpuSlice, ONE_GPU } from '../support';
import { node, pod, podsOf, POD_SETS, runArgs, runLive, startCluster, until, type Cluster, type PodInit } from './cluster';

/** A PV of 10Gi whose node affinity allows only `onNode`, bound to claim default/`claim`. */
const pinnedVolume = (name: string, onNode: string, claim: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: {
    capacity: { storage: '10Gi' },
    accessModes: ['ReadWriteOnce'],
    storageClassName: 'local',
    claimRef: { namespace: 'default', name: claim },
    local: { path: '/mnt/disk' },
    nodeAffinity: {
      required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [onNode] }] }] },
    },
  },
  status: { phase: 'Bound' },
});

const boundClaim = (name: string, volume: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local', volumeName: volume, resources: { requests: { storage: '10Gi' } } },
  status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } },
});

/** A pod (of podplan unless `init` says) that mounts the claim `claim`. */
const podWithClaim = (name: string, claim: string, init: PodInit = {}): KubeObject => {
  const base = pod(name, init);
  return { ...base, spec: { ...(base.spec as object), volumes: [{ name: 'data', persistentVolumeClaim: { claimName: claim } }] } };
};

const nodes = [node('node-a'), node('node-b'), node('node-c')];

/** A pod (of podplan) that uses the ResourceClaim `claim` by name. */
const podWithResourceClaim = (name: string, claim: string): KubeObject => {
  const base = pod(name);
  return { ...base, spec: { ...(base.spec as object), resourceClaims: [{ name: 'gpu', resourceClaimName: claim }] } };
};

/** A DeviceClass `gpu`, one GPU on `onNode`, and one claim of a GPU per name. */
const oneGpu = (onNode: string, ...claims: string[]): KubeObject[] => [
  gpuClass(),
  gpuSlice(onNode),
  ...claims.map((name) => gpuClaim(name)),
];

describe('kube/live: podplan run with the cluster objects plugins read', function () {
  this.timeout(60_000);
  let cluster: Cluster | undefined;
  afterEach(async () => {
    await cluster?.close();
    cluster = undefined;
  });

  it('binds a pod to the one node its bound PVC’s volume allows, and leaves a pod whose PVC does not exist unplaced with upstream’s message', async () => {
    cluster = await startCluster([
      ...nodes,
      pinnedVolume('pv-b', 'node-b', 'data'),
      boundClaim('data', 'pv-b'),
      podWithClaim('db', 'data'),
      podWithClaim('orphan', 'missing'),
    ]);
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^1 pods? bound, 1 not placed\.$/m);
    assert.match(run.stdout, /not placed default\/orphan: 0\/3 nodes are available: persistentvolumeclaim "missing" not found\./);
    const pods = podsOf(cluster.server);
    assert.equal(pods.get('default/db')?.spec.nodeName, 'node-b');
    assert.equal(pods.get('default/orphan')?.spec.nodeName, undefined);
  });

  it('writes the allocation and reservation to a ResourceClaim before binding its pod; the next pod finds the one GPU taken', async () => {
    cluster = await startCluster([
      ...nodes,
      ...oneGpu('node-b', 'gpu-1', 'gpu-2'),
      podWithResourceClaim('first', 'gpu-1'),
      podWithResourceClaim('second', 'gpu-2'),
    ]);
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /^1 pods? bound, 1 not placed\.$/m);
    assert.match(run.stdout, /not placed default\/(first|second): 0\/3 nodes are available: 3 cannot allocate all claims\./);
    const pods = podsOf(cluster.server);
    const bound = ['first', 'second'].find((n) => pods.get(`default/${n}`)?.spec.nodeName !== undefined)!;
    assert.equal(pods.get(`default/${bound}`)?.spec.nodeName, 'node-b');
    const claim = cluster.server.get(
      { apiVersion: DRA_API, kind: 'ResourceClaim' },
      'default',
      bound === 'first' ? 'gpu-1' : 'gpu-2',
    ) as KubeObject & {
      metadata: { finalizers?: string[] };
      status?: { allocation?: { devices?: { results?: unknown[] } }; reservedFor?: unknown[] };
    };
    assert.deepEqual(claim.metadata.finalizers, ['resource.kubernetes.io/delete-protection']);
    assert.deepEqual(claim.status?.allocation?.devices?.results, [
      { request: 'gpu', driver: 'gpu.example.com', pool: 'node-b', device: 'gpu-0' },
    ]);
    assert.deepEqual(claim.status?.reservedFor, [
      { resource: 'pods', name: bound, uid: (pods.get(`default/${bound}`)?.metadata as { uid: string }).uid },
    ]);
  });

  it('holds a pod whose template claim is not created yet (no controller runs here) until its claim is created and named, then binds it', async () => {
    const template = {
      apiVersion: DRA_API,
      kind: 'ResourceClaimTemplate',
      metadata: { name: 'one-gpu', namespace: 'default' },
      spec: { spec: ONE_GPU },
    };
    const base = pod('t');
    const fromTemplate = {
      ...base,
      spec: { ...(base.spec as object), resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }] },
    };
    cluster = await startCluster([...nodes, ...oneGpu('node-b'), template, fromTemplate, pod('plain')]);
    const { server } = cluster;
    let stdout = '';
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)), onStdout: (t) => void (stdout += t) });
    // The pod after it in the queue is bound; t is held at PreEnqueue: no attempt, no message, no claim written.
    await until('the other pod is bound', () => podsOf(server).get('default/plain')?.spec.nodeName !== undefined);
    assert.doesNotMatch(stdout, /default\/t/);
    assert.deepEqual(server.list({ apiVersion: DRA_API, kind: 'ResourceClaim' }), []);
    // What the resourceclaim controller does: the claim, owned by the pod, then its name in the pod's status.
    const uid = (podsOf(server).get('default/t')?.metadata as { uid: string }).uid;
    server.create({
      apiVersion: DRA_API,
      kind: 'ResourceClaim',
      metadata: {
        name: 't-gpu-x7k2p',
        namespace: 'default',
        annotations: { 'resource.kubernetes.io/pod-claim-name': 'gpu' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 't', uid, controller: true, blockOwnerDeletion: true }],
      },
      spec: ONE_GPU,
    });
    assert.equal(podsOf(server).get('default/t')?.spec.nodeName, undefined);
    server.patch({ apiVersion: 'v1', kind: 'Pod' }, 'default', 't', {
      status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 't-gpu-x7k2p' }] },
    });
    await until('t is bound', () => podsOf(server).get('default/t')?.spec.nodeName !== undefined);
    stop('SIGTERM');
    await run;
    assert.equal(podsOf(server).get('default/t')?.spec.nodeName, 'node-b', stdout);
    assert.doesNotMatch(stdout, /not placed default\/t/);
    const claim = server.get({ apiVersion: DRA_API, kind: 'ResourceClaim' }, 'default', 't-gpu-x7k2p') as KubeObject & {
      status?: { reservedFor?: Array<{ name: string; uid: string }> };
    };
    assert.deepEqual(
      claim.status?.reservedFor?.map((r) => [r.name, r.uid]),
      [['t', uid]],
    );
  });

  it('places a pod rejected for a missing PVC once the claim and its volume are created', async () => {
    cluster = await startCluster([...nodes, podWithClaim('late', 'later')]);
    const { server } = cluster;
    let stdout = '';
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)), onStdout: (t) => void (stdout += t) });
    await until('the pod is found unschedulable', () => /not placed default\/late: .*persistentvolumeclaim "later" not found/.test(stdout));
    server.create(pinnedVolume('pv-c', 'node-c', 'later'), boundClaim('later', 'pv-c'));
    await until('the pod is bound', () => podsOf(server).get('default/late')?.spec.nodeName !== undefined);
    stop('SIGTERM');
    const result = await run;
    assert.equal(podsOf(server).get('default/late')?.spec.nodeName, 'node-c', result.stdout);
  });

  it('plans a pod set with the claims its pods mount: each lands on the node its volume allows', async () => {
    cluster = await startCluster(nodes);
    const { server } = cluster;
    server.create(...(PLANNER_CRDS as unknown as KubeObject[]));
    const member = (name: string, claim: string) =>
      podWithClaim(name, claim, { schedulerName: POD_SETS, labels: { 'planner.ciena.io/pod-set': 'db' } });
    const trigger = {
      apiVersion: 'planner.ciena.io/v1alpha1',
      kind: 'ScheduleTrigger',
      metadata: { name: 'db', namespace: 'default', labels: { 'planner.ciena.io/pod-set': 'db', 'planner.ciena.io/quiet-time': '1s' } },
      spec: { state: 'Planning' },
    };
    server.create(
      pinnedVolume('pv-a', 'node-a', 'data-0'),
      boundClaim('data-0', 'pv-a'),
      pinnedVolume('pv-c', 'node-c', 'data-1'),
      boundClaim('data-1', 'pv-c'),
      trigger,
      member('db-0', 'data-0'),
      member('db-1', 'data-1'),
    );
    let stop: (signal: string) => void = () => undefined;
    const run = runLive(runArgs(cluster), { stop: new Promise((resolve) => (stop = resolve)) });
    const nodeOf = (name: string) => podsOf(server).get(`default/${name}`)?.spec.nodeName;
    await until('the set is bound', () => nodeOf('db-0') !== undefined && nodeOf('db-1') !== undefined);
    stop('SIGTERM');
    const result = await run;
    assert.equal(nodeOf('db-0'), 'node-a', result.stdout);
    assert.equal(nodeOf('db-1'), 'node-c', result.stdout);
  });

  it('reads namespace labels: a pod whose affinity selects pods by their namespace’s labels joins them', async () => {
    cluster = await startCluster(nodes);
    const { server } = cluster;
    const follower = pod('follower');
    const affinity = {
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          {
            labelSelector: { matchLabels: { app: 'anchor' } },
            namespaceSelector: { matchLabels: { team: 'blue' } },
            topologyKey: 'kubernetes.io/hostname',
          },
        ],
      },
    };
    server.create(
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'blue', labels: { team: 'blue' } } },
      pod('anchor', { namespace: 'blue', schedulerName: 'default-scheduler', nodeName: 'node-b', labels: { app: 'anchor' } }),
      { ...follower, spec: { ...(follower.spec as object), affinity } },
    );
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(podsOf(server).get('default/follower')?.spec.nodeName, 'node-b');
  });

  it('reports an object that does not decode, and a pod mounting it stays unplaced', async () => {
    const broken = boundClaim('broken', 'pv-b');
    cluster = await startCluster([
      ...nodes,
      { ...broken, spec: { ...(broken.spec as object), resources: { requests: { storage: 'lots' } } } },
      podWithClaim('db', 'broken'),
    ]);
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /PersistentVolumeClaim default\/broken is left out: /);
    assert.match(run.stdout, /not placed default\/db: 0\/3 nodes are available: persistentvolumeclaim "broken" not found\./);
  });

  it('warns about a kind it may not list and schedules without it', async () => {
    cluster = await startCluster([...nodes, pod('web')]);
    cluster.server.setFaults({ forbiddenResources: ['poddisruptionbudgets.policy'] });
    const run = await runLive(runArgs(cluster, '--once'));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /poddisruptionbudgets/);
    assert.ok(podsOf(cluster.server).get('default/web')?.spec.nodeName, 'the pod is bound');
  });
});
