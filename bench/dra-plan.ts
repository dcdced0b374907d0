// A GPU gang planned as a whole: 1,000 nodes with eight GPUs each (one ResourceSlice per node, two
// NUMA nodes of four), and a pod set of 64 one-GPU pods from a ResourceClaimTemplate, planned by
// greedy, optimize and exact with HiGHS, whose model and bound count the devices. Prints each
// planner's time (wall and CPU), nodes used and bound; the target is a 64-pod GPU gang
// planned in under 2 s. Nothing is asserted.
import { cpuUsage } from 'node:process';
import type { DeviceClass, ResourceClaimTemplate } from '../src/engine/api/dra';
import { seededRandom } from '../src/engine/api/random';
import type { Pod } from '../src/engine/api/types';
import { Snapshot } from '../src/engine/framework/snapshot';
import { buildPlan } from '../src/engine/planner/build';
import { POD_SET_LABEL } from '../src/engine/planner/plan';
import { POD_SET_SCHEDULER_NAME, resolvePodSet } from '../src/engine/planner/podset/podset';
import { podSetFramework } from '../src/engine/planner/scheduler/plugin';
import { describeBound } from '../src/engine/planner/solver/bound';
import { DEFAULT_PROFILE } from '../src/engine/plugins/defaults';
import { highsSolver } from '../src/platform/highs';
import type { Benchmark } from './benchmark';
import { GPU_DRIVER as DRIVER, gpuNodes } from './workloads/gpus';

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');

function workload(nodeCount: number, podCount: number) {
  const { nodes, slices } = gpuNodes(nodeCount, (d) => ({ name: `gpu-${d}`, attributes: { numa: { int: Math.floor(d / 4) } } }));
  const gpu: DeviceClass = { metadata: { name: 'gpu' }, spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] } };
  const template: ResourceClaimTemplate = {
    metadata: { name: 'one-gpu', namespace: 'default' },
    spec: { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu' } }] } } },
  };
  const pods: Pod[] = Array.from({ length: podCount }, (_, i) => ({
    metadata: { name: `train-${i}`, namespace: 'default', labels: { [POD_SET_LABEL]: 'gang', app: 'train' } },
    spec: {
      schedulerName: POD_SET_SCHEDULER_NAME,
      containers: [{ name: 'main', resources: { requests: { cpu: '1', memory: '4Gi' } } }],
      resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'one-gpu' }],
    },
  }));
  return { nodes, pods, objects: { deviceClasses: [gpu], resourceSlices: slices, resourceClaimTemplates: [template] } };
}

async function run(nodeCount: number, podCount: number): Promise<void> {
  console.log(
    `workload: ${nodeCount} nodes × 8 GPUs (one ResourceSlice each), a pod set of ${podCount} pods with one GPU each from a ResourceClaimTemplate`,
  );
  const w = workload(nodeCount, podCount);
  const snapshot = Snapshot.fromCluster({ nodes: w.nodes, pods: [], ...w.objects });
  if (!snapshot.ok) throw new Error(snapshot.error);
  const highs = await highsSolver();
  if (!highs.ok) throw new Error(highs.error);
  const podSet = resolvePodSet(w.pods, { namespace: 'default', name: 'gang' });
  for (const planner of ['greedy', 'optimize', 'exact']) {
    const planning = podSetFramework(DEFAULT_PROFILE, { random: seededRandom(1) });
    if (!planning.ok) throw new Error(planning.error.map((e) => e.message).join('; '));
    const cpuStart = cpuUsage();
    const wallStart = performance.now();
    const plan = buildPlan(
      {
        podSet,
        snapshot: snapshot.value,
        framework: planning.value.framework,
        now: 0,
        solver: { solver: highs.value, timeLimitMs: 60_000, seed: 1 },
      },
      { planner },
    );
    const wallMs = performance.now() - wallStart;
    const cpu = cpuUsage(cpuStart);
    if (!plan.ok) throw new Error(plan.error);
    const used = new Set(plan.value.assignments.map((a) => a.node)).size;
    const bound = plan.value.bound ? describeBound(plan.value.bound, plan.value.assignments.length, used) : 'no bound';
    console.log(
      `${planner}: ${plan.value.assignments.length}/${podCount} placed on ${used} nodes in ${wallMs.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU; ${bound}`,
    );
  }
}

export const benchmarks: Benchmark[] = [
  {
    name: 'dra-plan: a 64-pod one-GPU gang on 1000 nodes × 8 GPUs',
    run: () => run(Math.round(1000 * SCALE), 64),
  },
];
