import assert from 'node:assert/strict';
import type { DeviceClass, ResourceClaimTemplate, ResourceSlice } from '../../../src/engine/api/dra';
import type { Pod } from '../../../src/engine/api/types';
import { deviceFailureText } from '../../../src/engine/explain/devices';
import { podInfo, type PodInfo } from '../../../src/engine/framework/node-info';
import { Snapshot } from '../../../src/engine/framework/snapshot';
import { statusMessage } from '../../../src/engine/framework/status';
import { PlanCluster, planClusterOf } from '../../../src/engine/planner/plan-cluster';
import { madeUpClaimName } from '../../../src/engine/plugins/dynamicresources/claims';
import { makeNode } from '../../builders';
import { planning } from './fixtures';

// The cluster as a plan leaves it, judged as the planners judge their what-ifs: the plan's pods on
// their nodes (placed, not reserved), the devices of their claims (from a template, not allocated)
// taken there. Two GPUs on g1 and g2, none on c1; one-GPU pods.
const GPU = 'gpu.example.com';
const gpuClass: DeviceClass = { metadata: { name: GPU }, spec: { selectors: [{ cel: { expression: `device.driver == "${GPU}"` } }] } };
const slice = (node: string): ResourceSlice => ({
  metadata: { name: `${node}-gpus` },
  spec: {
    driver: GPU,
    nodeName: node,
    pool: { name: node, generation: 1, resourceSliceCount: 1 },
    devices: [{ name: 'gpu-0' }, { name: 'gpu-1' }],
  },
});
const oneGpu: ResourceClaimTemplate = {
  metadata: { name: 'one-gpu', namespace: 'default' },
  spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: GPU } }] } } },
};
const gpuPod = (name: string, cpu = '1'): PodInfo => {
  const pod: Pod = {
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: {
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
      containers: [{ name: 'main', resources: { requests: { cpu } } }],
    },
  };
  const info = podInfo(pod);
  assert.ok(info.ok);
  return info.value;
};
const base = (): Snapshot => {
  const built = Snapshot.fromCluster({
    nodes: ['g1', 'g2', 'c1'].map((n) => makeNode(n).obj),
    pods: [],
    deviceClasses: [gpuClass],
    resourceSlices: [slice('g1'), slice('g2')],
    resourceClaimTemplates: [oneGpu],
  });
  assert.ok(built.ok);
  return built.value;
};

describe('engine/planner/plan-cluster', () => {
  const framework = planning().framework;
  const verdict = (cluster: PlanCluster, pod: PodInfo, node: string) => {
    const s = cluster.checkNode(framework, pod, node);
    return s.code === 'Success' ? 'fits' : `${s.plugin}: ${statusMessage(s)}`;
  };

  const table: Array<{ name: string; placed: Array<[string, string]>; pod: string; cpu?: string; want: Record<string, string> }> = [
    {
      name: 'nothing placed: a one-GPU pod fits either GPU node, not the one without devices',
      placed: [],
      pod: 'p',
      want: { g1: 'fits', g2: 'fits', c1: 'DynamicResources: cannot allocate all claims' },
    },
    {
      name: 'one pod planned on g1: one of its two GPUs is left',
      placed: [['a', 'g1']],
      pod: 'p',
      want: { g1: 'fits', g2: 'fits', c1: 'DynamicResources: cannot allocate all claims' },
    },
    {
      name: 'two pods planned on g1 take both its GPUs: the third does not fit there, as in the planners',
      placed: [
        ['a', 'g1'],
        ['b', 'g1'],
      ],
      pod: 'p',
      want: { g1: 'DynamicResources: cannot allocate all claims', g2: 'fits', c1: 'DynamicResources: cannot allocate all claims' },
    },
    {
      name: 'the other resources count as before: cpu taken by the planned pods',
      placed: [
        ['a', 'g2'],
        ['b', 'g1'],
      ],
      pod: 'p',
      cpu: '4',
      want: {
        g1: 'NodeResourcesFit: Insufficient cpu',
        g2: 'NodeResourcesFit: Insufficient cpu',
        c1: 'DynamicResources: cannot allocate all claims',
      },
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const cluster = PlanCluster.on(base());
      for (const [pod, node] of row.placed) assert.ok(cluster.place(node, gpuPod(pod)));
      const pod = gpuPod(row.pod, row.cpu);
      assert.deepEqual(Object.fromEntries(['g1', 'g2', 'c1'].map((n) => [n, verdict(cluster, pod, n)])), row.want);
    });
  }

  // planClusterOf rebuilds a plan's cluster from a cluster and the plan's placements: first the pods
  // the sets planned before it placed (Plan.placedBefore: the cluster it was made on), then its own.
  describe('planClusterOf: the cluster a plan saw, and as it leaves it', () => {
    const pod = (name: string, namespace: string, nodeName?: string): Pod => ({
      metadata: { name, namespace, uid: `uid-${namespace}-${name}` },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'main', resources: { requests: { cpu: '3' } } }] },
    });
    const cluster = {
      nodes: ['n1', 'n2'].map((n) => makeNode(n).alloc({ cpu: '4', memory: '16Gi', pods: '110' }).obj),
      pods: [pod('first-0', 'jobs'), pod('first-1', 'jobs'), pod('second-0', 'jobs'), pod('bound', 'web', 'n2'), pod('second-1', 'jobs')],
    };
    const judged = pod('p', 'jobs');
    const verdicts = (placements: Parameters<typeof planClusterOf>[1], without?: string) => {
      const built = planClusterOf({ ...cluster, pods: [...cluster.pods, judged] }, placements, without);
      assert.ok(built.ok);
      const info = podInfo(judged);
      assert.ok(info.ok);
      return Object.fromEntries(['n1', 'n2'].map((n) => [n, verdict(built.value, info.value, n)]));
    };
    const table: Array<{ name: string; placements: Parameters<typeof planClusterOf>[1]; without?: string; want: Record<string, string> }> =
      [
        {
          name: 'the plan alone: its pods on their nodes (a bound pod stays where it is)',
          placements: { namespace: 'jobs', assignments: [{ pod: 'second-0', node: 'n1' }] },
          want: { n1: 'NodeResourcesFit: Insufficient cpu', n2: 'NodeResourcesFit: Insufficient cpu' },
        },
        {
          name: 'the pods placed before it too, by namespace, whatever the plan’s own',
          placements: { namespace: 'web', assignments: [], placedBefore: [{ namespace: 'jobs', pod: 'first-0', node: 'n1' }] },
          want: { n1: 'NodeResourcesFit: Insufficient cpu', n2: 'NodeResourcesFit: Insufficient cpu' },
        },
        {
          name: 'the judged pod of the plan left out',
          placements: { namespace: 'jobs', assignments: [{ pod: 'second-1', node: 'n1' }] },
          without: 'second-1',
          want: { n1: 'fits', n2: 'NodeResourcesFit: Insufficient cpu' },
        },
        {
          name: 'a pod placed before it never is: it is no pod of the plan',
          placements: { namespace: 'jobs', assignments: [], placedBefore: [{ namespace: 'jobs', pod: 'first-1', node: 'n1' }] },
          without: 'first-1',
          want: { n1: 'NodeResourcesFit: Insufficient cpu', n2: 'NodeResourcesFit: Insufficient cpu' },
        },
        {
          name: 'nothing placed: the cluster as it is',
          placements: { namespace: 'jobs', assignments: [] },
          want: { n1: 'fits', n2: 'NodeResourcesFit: Insufficient cpu' },
        },
      ];
    for (const row of table) it(row.name, () => assert.deepEqual(verdicts(row.placements, row.without), row.want));
  });

  it('a placement on a node that does not exist is refused', () => {
    assert.equal(PlanCluster.on(base()).place('nowhere', gpuPod('a')), false);
  });

  it('without one of its pods: a copy where that pod’s GPU is free again; the cluster itself and its base stay as they were', () => {
    const snapshot = base();
    const cluster = PlanCluster.on(snapshot);
    const a = gpuPod('a');
    cluster.place('g1', a);
    cluster.place('g1', gpuPod('b'));
    const p = gpuPod('p');
    assert.equal(verdict(cluster.without('g1', a), p, 'g1'), 'fits');
    assert.equal(verdict(cluster, p, 'g1'), 'DynamicResources: cannot allocate all claims');
    assert.equal(snapshot.get('g1')?.pods.length, 0);
    assert.equal(cluster.snapshot.get('g2'), snapshot.get('g2'), 'a node the plan leaves alone is not copied');
  });

  it('a cycle places the pod where a GPU is left; one fitting nowhere is explained per node, the planned pods’ devices named', () => {
    const cluster = PlanCluster.on(base());
    for (const [pod, node] of [
      ['a', 'g1'],
      ['b', 'g1'],
      ['c', 'g2'],
    ] as const)
      cluster.place(node, gpuPod(pod));
    const p = gpuPod('p');
    const placed = cluster.scheduleOne(framework, p);
    assert.equal(placed.ok && placed.suggestedHost, 'g2');
    cluster.place('g2', gpuPod('d'));
    const left = cluster.scheduleOne(framework, p);
    assert.equal(left.ok, false);
    const verdicts = cluster.verdicts(framework, p, left.diagnosis);
    const claim = `claim default/${madeUpClaimName(p.pod, 'gpu')}, request gpu (1 × gpu.example.com)`;
    const taken = `${claim}: 0 of the node's 2 matching devices free, 2 taken by 2 devices for pods placed earlier in this plan`;
    assert.deepEqual(
      Object.fromEntries(verdicts.map((v) => [v.node, v.failures.flatMap((f) => (f.devices ?? []).map(deviceFailureText))])),
      { g1: [taken], g2: [taken], c1: [`${claim}: the node has no devices`] },
    );
    assert.deepEqual(
      cluster.nodeVerdicts(framework, p, ['g1']).map((v) => v.node),
      ['g1'],
    );
  });
});
