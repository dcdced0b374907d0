import assert from 'node:assert/strict';
import type { PodInfo } from '../../../../src/engine/framework/node-info';
import { buildPlan } from '../../../../src/engine/planner/build';
import { describeBound, proveBound } from '../../../../src/engine/planner/solver/bound';
import { exact } from '../../../../src/engine/planner/planners/exact';
import { optimize, SOLVER_WORK } from '../../../../src/engine/planner/planners/optimize';
import type { PlanRequest, SolverSettings } from '../../../../src/engine/planner/planner';
import { resolvePodSet } from '../../../../src/engine/planner/podset/podset';
import type { MilpOptions, MilpSolver } from '../../../../src/engine/planner/solver/solver';
import { highsSolver } from '../../../../src/platform/highs';
import { generatePodSet } from '../../../../bench/workloads/podsets';
import { Snapshot } from '../../../../src/engine/framework/snapshot';
import { WhatIf } from '../../../../src/engine/planner/search/what-if';
import { podInfo } from '../../../../src/engine/framework/node-info';
import type { DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice } from '../../../../src/engine/api/dra';
import { makeNode } from '../../../builders';
import { assertEngineAccepts, nodesUsed, outcome, planning, request, setPod } from '../fixtures';

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';
const node = (name: string, cpu = '4') => makeNode(name).alloc({ cpu, memory: '64Gi', pods: '110' });

let highs: MilpSolver;
const solving = (req: PlanRequest, timeLimitMs = 20_000): PlanRequest => ({ ...req, solver: { solver: highs, timeLimitMs, seed: 1 } });

describe('engine/planner/solver/solve-milp (HiGHS through the MilpSolver seam)', function () {
  this.timeout(120_000);
  before(async () => {
    const loaded = await highsSolver();
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.error);
    highs = loaded.value;
  });

  describe('small instances whose optimum is known by construction', () => {
    const table: Array<{ name: string; req: () => PlanRequest; nodes: number; placed: number }> = [
      {
        // 6 cpu of pods: the 4-cpu node and one 2-cpu node, where first fit on small nodes takes 3.
        name: 'six 1-cpu pods: one big node and one small one',
        req: () =>
          request(
            [node('s1', '2'), node('s2', '2'), node('s3', '2'), node('big', '4')],
            ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => setPod(n).req({ cpu: '1' })),
          ),
        nodes: 2,
        placed: 6,
      },
      {
        // Sizes 3,3,2,2,2 on 6-cpu nodes: 3+3 and 2+2+2, two nodes, no slack.
        name: 'bin packing without slack: 3+3 and 2+2+2',
        req: () =>
          request(
            [node('n1', '6'), node('n2', '6'), node('n3', '6')],
            [
              setPod('a').req({ cpu: '3' }),
              setPod('b').req({ cpu: '2' }),
              setPod('c').req({ cpu: '3' }),
              setPod('d').req({ cpu: '2' }),
              setPod('e').req({ cpu: '2' }),
            ],
          ),
        nodes: 2,
        placed: 5,
      },
      {
        name: 'three anti-affine replicas take a node each',
        req: () => {
          const term = { topologyKey: HOSTNAME, labelSelector: { matchLabels: { app: 'db' } } };
          const pods = ['db-0', 'db-1', 'db-2'].map((n) =>
            setPod(n).labels({ app: 'db' }).req({ cpu: '1' }).requirePods('podAntiAffinity', term),
          );
          return request([node('n1', '8'), node('n2', '8'), node('n3', '8'), node('n4', '8')], pods);
        },
        nodes: 3,
        placed: 3,
      },
      {
        // Six pods over three zones at maxSkew 1: two per zone, one node per zone.
        name: 'zone spread: one node in each of three zones',
        req: () => {
          const zoned = (name: string, zone: string) => node(name, '8').labels({ [ZONE]: zone });
          const constraint = {
            maxSkew: 1,
            topologyKey: ZONE,
            whenUnsatisfiable: 'DoNotSchedule' as const,
            labelSelector: { matchLabels: { app: 'web' } },
          };
          const pods = ['w0', 'w1', 'w2', 'w3', 'w4', 'w5'].map((n) =>
            setPod(n).labels({ app: 'web' }).req({ cpu: '1' }).spread(constraint),
          );
          return request(
            [zoned('a1', 'a'), zoned('a2', 'a'), zoned('b1', 'b'), zoned('b2', 'b'), zoned('c1', 'c'), zoned('c2', 'c')],
            pods,
          );
        },
        nodes: 3,
        placed: 6,
      },
      {
        // 3 + 3 cpu on two 4-cpu nodes and one pod of 5 cpu that fits nowhere: 2 of 3 at best.
        name: 'not every pod placeable: the most that are',
        req: () =>
          request([node('n1'), node('n2')], [setPod('a').req({ cpu: '3' }), setPod('b').req({ cpu: '3' }), setPod('c').req({ cpu: '5' })]),
        nodes: 2,
        placed: 2,
      },
    ];
    for (const { name, req, nodes, placed } of table) {
      it(`${name}: ${placed} pods on ${nodes} nodes, proven optimal, every placement accepted by the filters`, () => {
        const r = solving(req());
        const result = exact.plan(r);
        assert.equal(result.placed.length, placed);
        assert.equal(nodesUsed(result), nodes);
        assert.equal(result.bound?.optimal, true);
        assert.equal(result.bound?.gap, 0);
        assertEngineAccepts(r, result);
      });
    }
  });

  describe('on generated pod sets (seeded) where the solver proves the optimum', () => {
    for (const [pods, nodes] of [
      [20, 10],
      [30, 12],
    ] as const) {
      for (const seed of [1, 2, 3, 4, 5]) {
        it(`${pods} pods on ${nodes} nodes, seed ${seed}: optimize within 1.02x of it, placing every pod it proves placeable; the bound never above it`, () => {
          const workload = generatePodSet({ pods, nodes, seed, load: 0.75 });
          const snapshot = Snapshot.fromCluster({ nodes: workload.nodes, pods: [] });
          assert.ok(snapshot.ok);
          const infos = workload.pods.map((p) => (podInfo(p) as { ok: true; value: PodInfo }).value);
          const base = (): PlanRequest => ({ pods: infos, snapshot: snapshot.value, framework: planning().framework, objective: 'pack' });
          const proven = exact.plan(solving(base()));
          assert.equal(proven.bound?.optimal, true, 'the instance is settled by the solver');
          const optimized = optimize.plan(solving(base()));
          assert.ok(
            optimized.placed.length >= proven.placed.length,
            `optimize placed ${optimized.placed.length} of ${proven.placed.length} placeable`,
          );
          assert.ok(
            nodesUsed(optimized) <= 1.02 * nodesUsed(proven),
            `optimize uses ${nodesUsed(optimized)} nodes, the optimum ${nodesUsed(proven)}`,
          );
          assertEngineAccepts(base(), optimized);
          const bound = proveBound(solving(base()));
          assert.ok(bound);
          if (bound.nodes !== undefined)
            assert.ok(bound.nodes <= nodesUsed(proven), `bound ${bound.nodes} above the optimum ${nodesUsed(proven)}`);
          if (bound.placeable !== undefined) assert.ok(bound.placeable >= proven.placed.length);
        });
      }
    }
  });

  it("optimize's solves end by its work limit, not by the clock: the same plan and bound whether the time limit is 20 s or 2,000 s", () => {
    for (const seed of [3, 4]) {
      const workload = generatePodSet({ pods: 30, nodes: 12, seed, load: 0.75 });
      const snapshot = Snapshot.fromCluster({ nodes: workload.nodes, pods: [] });
      assert.ok(snapshot.ok);
      const infos = workload.pods.map((p) => (podInfo(p) as { ok: true; value: PodInfo }).value);
      const solves: MilpOptions[] = [];
      const recording: MilpSolver = { name: highs.name, solve: (model, options) => (solves.push(options), highs.solve(model, options)) };
      const planned = (timeLimitMs: number) => {
        const result = optimize.plan({
          pods: infos,
          snapshot: snapshot.value,
          framework: planning().framework,
          objective: 'pack',
          solver: { solver: recording, timeLimitMs, seed: 1 },
        });
        return { ...outcome(result), bound: result.bound };
      };
      const quick = planned(20_000);
      assert.deepEqual(planned(2_000_000), quick, `seed ${seed}`);
      assert.ok(solves.length > 0 && solves.every((options) => options.work === SOLVER_WORK), 'every solve carries the work limit');
    }
  });

  it('the bound beside a plan: fewest nodes for every pod, and the gap of a plan above it', () => {
    const r = solving(
      request(
        [node('s1', '2'), node('s2', '2'), node('s3', '2'), node('big', '4')],
        ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => setPod(n).req({ cpu: '1' })),
      ),
    );
    const pods = resolvePodSet(
      r.pods.map((p) => p.pod),
      { namespace: 'default', name: 'web' },
    );
    const plan = buildPlan(
      { podSet: pods, snapshot: r.snapshot, framework: r.framework, now: 0, solver: r.solver as SolverSettings },
      { planner: 'greedy' },
    );
    assert.ok(plan.ok);
    const bound = plan.value.bound;
    assert.ok(bound);
    assert.equal(bound.nodes, 2);
    const used = new Set(plan.value.assignments.map((a) => a.node)).size;
    assert.equal(bound.gap, (used - 2) / used);
    assert.equal(
      describeBound(bound, 6, used),
      `uses ${used} nodes; no plan uses fewer than 2 (within ${(bound.gap * 100).toFixed(1)}% of the best possible)`,
    );
    assert.equal(plan.value.objective, 'pack');
  });

  it('a bound deferred (deferBound) is proven later as it would have been now, though the cluster changed in between; a planner that solves still brings its own', () => {
    const r = solving(
      request(
        [node('s1', '2'), node('s2', '2'), node('s3', '2'), node('big', '4')],
        ['a', 'b', 'c', 'd', 'e', 'f', 'huge'].map((n) => setPod(n).req({ cpu: n === 'huge' ? '8' : '1' })),
      ),
    );
    const podSet = resolvePodSet(
      r.pods.map((p) => p.pod),
      { namespace: 'default', name: 'web' },
    );
    const settings = r.solver as SolverSettings;
    const now = buildPlan({ podSet, snapshot: r.snapshot, framework: r.framework, now: 0, solver: settings }, { planner: 'greedy' });
    assert.ok(now.ok && now.value.bound);
    // The working copy a workspace's plans share: the next plan's pods are assumed on it after this one.
    const working = new WhatIf(r.snapshot);
    const handed: Array<{ plan: unknown; prove: () => unknown }> = [];
    const deferred = (planner: string) =>
      buildPlan(
        {
          podSet,
          snapshot: working.snapshot,
          framework: r.framework,
          now: 0,
          solver: { ...settings, deferBound: (plan, prove) => handed.push({ plan, prove }) },
        },
        { planner },
      );
    const later = deferred('greedy');
    assert.ok(later.ok);
    assert.equal(later.value.bound, undefined, 'made without its bound');
    assert.equal(handed.length, 1);
    assert.equal(handed[0]?.plan, later.value, 'the proof is handed with the plan it is for');
    // Six cpu of the ten taken: proven on the changed copy, the bound would say 4 pods fit, not 6.
    for (let i = 0; i < 6; i++) working.assume(r.pods[i] as PodInfo, working.indexOf(`s${(i % 3) + 1}`) as number);
    assert.deepEqual(handed[0]?.prove(), now.value.bound);
    // exact solves the plan itself: its bound is its own, given with the plan, and nothing is handed over.
    const solved = deferred('exact');
    assert.ok(solved.ok && solved.value.bound);
    assert.equal(handed.length, 1);
  });

  it('a gang whose minimum cannot be met places nothing; one that can be met runs', () => {
    const r = solving(
      request(
        [node('n1'), node('n2')],
        ['a', 'b', 'c'].map((n) => setPod(n).req({ cpu: '3' })),
      ),
    );
    const podSet = resolvePodSet(
      r.pods.map((p) => p.pod),
      { namespace: 'default', name: 'web' },
    );
    const plan = (minMember: number) =>
      buildPlan(
        { podSet, snapshot: r.snapshot, framework: r.framework, now: 0, solver: r.solver as SolverSettings },
        { planner: 'exact', minMember },
      );
    const tooMany = plan(3);
    assert.ok(tooMany.ok);
    assert.equal(tooMany.value.assignments.length, 0);
    const enough = plan(2);
    assert.ok(enough.ok);
    assert.equal(enough.value.assignments.length, 2);
  });

  it('a time limit returns the best plan found so far, with its gap to what is proven', () => {
    const workload = generatePodSet({ pods: 100, nodes: 50, seed: 1, load: 0.75 });
    const snapshot = Snapshot.fromCluster({ nodes: workload.nodes, pods: [] });
    assert.ok(snapshot.ok);
    const pods = workload.pods.map((p) => (podInfo(p) as { ok: true; value: PodInfo }).value);
    const base: PlanRequest = { pods, snapshot: snapshot.value, framework: planning().framework, objective: 'pack' };
    const heuristic = optimize.plan(base);
    const result = exact.plan(solving(base, 1));
    assert.equal(result.placed.length, heuristic.placed.length);
    assert.ok(nodesUsed(result) <= nodesUsed(heuristic));
    assert.equal(result.bound?.optimal, false);
    assert.ok((result.bound?.gap ?? 0) > 0);
    assertEngineAccepts(base, result);
  });

  it('the same seed gives the same plan', () => {
    const req = () =>
      solving(
        request(
          [node('n1', '6'), node('n2', '6'), node('n3', '6')],
          ['a', 'b', 'c', 'd', 'e', 'f'].map((n) => setPod(n).req({ cpu: '2' })),
        ),
      );
    assert.deepEqual(outcome(exact.plan(req())), outcome(exact.plan(req())));
  });

  it('the engine has the last word: a solution the filters reject is not taken', () => {
    // A solver that claims every column at its upper bound: both pods on both nodes, which no filter allows.
    const liar: MilpSolver = {
      name: 'liar',
      solve: (model) => ({ status: 'optimal', values: model.upper.slice(), objective: 0, bound: 0 }),
    };
    const r = request([node('n1', '2'), node('n2', '2')], [setPod('a').req({ cpu: '2' }), setPod('b').req({ cpu: '2' })]);
    const result = exact.plan({ ...r, solver: { solver: liar, timeLimitMs: 20_000, seed: 1 } });
    assertEngineAccepts(r, result);
    assert.equal(result.placed.length, 2);
  });

  it('without a solver the exact planner is the optimizing planner, and carries no bound', () => {
    const r = request([node('n1'), node('n2')], [setPod('a').req({ cpu: '1' })]);
    const result = exact.plan(r);
    assert.equal(result.bound, undefined);
    assert.deepEqual(outcome(result), outcome(optimize.plan(r)));
  });

  it('works on nodes that already hold pods: they count as used, not opened', () => {
    const r = solving(
      request([node('n1'), node('n2')], [setPod('a').req({ cpu: '1' })], { bound: [setPod('x', 'other').node('n2').req({ cpu: '1' })] }),
    );
    const result = exact.plan(r);
    assert.deepEqual(outcome(result).placed, { a: 'n2' });
    assert.equal(result.bound?.optimal, true);
  });

  describe('devices as resources (DRA): the model and its bound count them', () => {
    const DRIVER = 'gpu.example.com';
    const gpu: DeviceClass = { metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } };
    const gpuSlice = (node: string, numas: number[]): ResourceSlice => ({
      metadata: { name: `${node}-gpus` },
      spec: {
        driver: DRIVER,
        nodeName: node,
        pool: { name: node, generation: 1, resourceSliceCount: 1 },
        devices: numas.map((numa, i) => ({ name: `gpu-${i}`, attributes: { numa: { int: numa } } })),
      },
    });
    const template = (name: string, count: number, sameNuma: boolean): ResourceClaimTemplate => ({
      metadata: { name, namespace: 'default' },
      spec: {
        spec: {
          devices: {
            requests: [{ name: 'gpus', exactly: { deviceClassName: 'gpu', count } }],
            ...(sameNuma ? { constraints: [{ matchAttribute: `${DRIVER}/numa` }] } : {}),
          },
        },
      },
    });
    /** A plan of `pods` one-template pods with the bound, by the exact planner, on nodes with these GPUs (by NUMA node). */
    function planWith(gpus: Record<string, number[]>, pods: number, claim: ResourceClaimTemplate) {
      const nodes = Object.keys(gpus).map((name) => node(name, '64').obj);
      const members = Array.from(
        { length: pods },
        (_, i) => setPod(`w-${i}`).req({ cpu: '1' }).deviceClaims({ template: claim.metadata.name }).obj,
      );
      const snapshot = Snapshot.fromCluster({
        nodes,
        pods: [],
        deviceClasses: [gpu],
        resourceSlices: Object.entries(gpus).map(([n, numas]) => gpuSlice(n, numas)),
        resourceClaimTemplates: [claim],
      });
      assert.ok(snapshot.ok);
      const plan = buildPlan(
        {
          podSet: resolvePodSet(members, { namespace: 'default', name: 'web' }),
          snapshot: snapshot.value,
          framework: planning().framework,
          now: 0,
          solver: { solver: highs, timeLimitMs: 20_000, seed: 1 },
        },
        { planner: 'exact' },
      );
      assert.ok(plan.ok, plan.ok ? '' : JSON.stringify(plan.error));
      return { plan: plan.value, used: new Set(plan.value.assignments.map((a) => a.node)).size };
    }

    it('a gang of 8 one-GPU pods on nodes of 4 GPUs: two nodes, proven optimal (cpu alone would say one)', () => {
      const { plan, used } = planWith(
        { n1: [0, 0, 1, 1], n2: [0, 0, 1, 1], n3: [0, 0, 1, 1], n4: [0, 0, 1, 1] },
        8,
        template('one', 1, false),
      );
      assert.equal(plan.assignments.length, 8);
      assert.equal(plan.unplaced.length, 0);
      assert.equal(used, 2);
      assert.equal(plan.bound?.nodes, 2);
      assert.equal(plan.bound?.optimal, true);
    });

    it('8 GPUs on one node take a gang of 8 there: one node', () => {
      const { plan, used } = planWith({ small: [0, 0, 1, 1], big: [0, 0, 0, 0, 1, 1, 1, 1] }, 8, template('one', 1, false));
      assert.deepEqual([...new Set(plan.assignments.map((a) => a.node))], ['big']);
      assert.equal(used, 1);
      assert.equal(plan.bound?.optimal, true);
    });

    it('a claim the pods share (two GPUs on one NUMA node): one node for all of them, as many as fit there, proven optimal', () => {
      const claim: ResourceClaim = {
        metadata: { name: 'shared', namespace: 'default' },
        spec: {
          devices: {
            requests: [{ name: 'gpus', exactly: { deviceClassName: 'gpu', count: 2 } }],
            constraints: [{ matchAttribute: `${DRIVER}/numa` }],
          },
        },
      };
      const members = ['p-0', 'p-1', 'p-2'].map((n) => setPod(n).req({ cpu: '12' }).deviceClaims({ claim: 'shared' }).obj);
      const snapshot = Snapshot.fromCluster({
        nodes: ['a', 'b', 'c'].map((n) => node(n, '32').obj),
        pods: [],
        deviceClasses: [gpu],
        resourceSlices: [gpuSlice('a', [0, 1]), gpuSlice('b', [0, 0, 1, 1]), gpuSlice('c', [0, 0])],
        resourceClaims: [claim],
      });
      assert.ok(snapshot.ok);
      for (const planner of ['greedy', 'optimize', 'exact']) {
        const plan = buildPlan(
          {
            podSet: resolvePodSet(members, { namespace: 'default', name: 'web' }),
            snapshot: snapshot.value,
            framework: planning().framework,
            now: 0,
            solver: { solver: highs, timeLimitMs: 20_000, seed: 1 },
          },
          { planner },
        );
        assert.ok(plan.ok);
        // Node a has no two GPUs on one NUMA node; 32 cpu take two 12-cpu pods.
        const nodes = new Set(plan.value.assignments.map((x) => x.node));
        assert.equal(nodes.size, 1, `${planner}: ${JSON.stringify(plan.value.assignments.map((x) => [x.pod, x.node]))}`);
        assert.ok(!nodes.has('a'), planner);
        assert.equal(plan.value.assignments.length, 2, planner);
        // The bound knows the claim puts them on one node: no plan places more than 2 (the solvers prove theirs optimal).
        if (planner === 'greedy') assert.equal(plan.value.bound?.placeable, 2, JSON.stringify(plan.value.bound));
        else assert.equal(plan.value.bound?.optimal, true, `${planner}: ${JSON.stringify(plan.value.bound)}`);
        // The claim is allocated once: both pods name the same devices.
        const devices = plan.value.assignments.map((x) => JSON.stringify(x.devices));
        assert.equal(new Set(devices).size, 1, planner);
      }
    });

    it('two GPUs on one NUMA node per pod: a node with NUMA 0,0,0,1 takes one pod, not two; the bound knows it', () => {
      const { plan, used } = planWith(
        { a: [0, 0, 1, 1], b1: [0, 0, 0, 1], b2: [0, 0, 0, 1], b3: [0, 0, 0, 1] },
        4,
        template('pair', 2, true),
      );
      assert.equal(plan.assignments.length, 4);
      assert.equal(used, 3);
      // Devices counted alone (8 GPUs, 4 a node) would allow 2.
      assert.equal(plan.bound?.nodes, 3);
      assert.equal(plan.bound?.optimal, true);
      assert.equal(plan.assignments.filter((a) => a.node === 'a').length, 2);
    });
  });
});
