// Dynamic Resource Allocation in the scheduling loop: 1,000 nodes with eight GPUs each published as
// ResourceSlices (one per node), a DeviceClass with a CEL selector, and 10,000 pods with one
// ResourceClaim each (one GPU), scheduled one by one through the default profile (DynamicResources
// allocating from the slices, Reserve taking the devices). Prints pods/s by wall and by CPU time
// (what this process used: the figure that means something on a loaded machine) and placements; the
// target the issue sets is 1,000 pods/s. Nothing is asserted.
import { loadavg } from 'node:os';
import { cpuUsage } from 'node:process';
import { ManualClock } from '../src/engine/api/clock';
import type { DeviceClass, ResourceClaim, ResourceSlice } from '../src/engine/api/dra';
import { seededRandom } from '../src/engine/api/random';
import type { Node, Pod } from '../src/engine/api/types';
import { ClusterCache } from '../src/engine/cache/cache';
import { Framework } from '../src/engine/framework/runtime';
import { DEFAULT_PROFILE } from '../src/engine/plugins/defaults';
import { inTreeRegistry } from '../src/engine/plugins/registry';
import { Scheduler } from '../src/engine/scheduler/scheduler';
import type { Benchmark } from './benchmark';

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');
const DRIVER = 'gpu.example.com';

function workload(nodeCount: number, podCount: number) {
  const nodes: Node[] = [];
  const slices: ResourceSlice[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const name = `node-${i}`;
    nodes.push({
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 3}` } },
      status: { allocatable: { cpu: '64', memory: '512Gi', pods: '110' } },
    });
    slices.push({
      metadata: { name: `${name}-gpus` },
      spec: {
        driver: DRIVER,
        nodeName: name,
        pool: { name, generation: 1, resourceSliceCount: 1 },
        devices: Array.from({ length: 8 }, (_, d) => ({
          name: `gpu-${d}`,
          attributes: { model: { string: 'h100' }, numa: { int: d % 2 } },
          capacity: { memory: { value: '80Gi' } },
        })),
      },
    });
  }
  const deviceClass: DeviceClass = {
    metadata: { name: 'gpu' },
    spec: { selectors: [{ cel: { expression: `device.driver == "${DRIVER}"` } }] },
  };
  const claims: ResourceClaim[] = [];
  const pods: Pod[] = [];
  for (let i = 0; i < podCount; i++) {
    const name = `pod-${i}`;
    claims.push({
      metadata: { name: `${name}-gpu`, namespace: 'default', uid: `claim-${i}` },
      spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 } }] } },
    });
    pods.push({
      metadata: { name, namespace: 'default', uid: `uid-${i}` },
      spec: {
        containers: [{ name: 'main', resources: { requests: { cpu: '1', memory: '4Gi' } } }],
        resourceClaims: [{ name: 'gpu', resourceClaimName: `${name}-gpu` }],
      },
    });
  }
  return { nodes, pods, objects: { deviceClasses: [deviceClass], resourceSlices: slices, resourceClaims: claims } };
}

async function run(nodeCount: number, podCount: number): Promise<void> {
  console.log(
    `workload: ${nodeCount} nodes × 8 GPUs (one ResourceSlice each), ${podCount} pods with one ResourceClaim (1 GPU) each, default profile`,
  );
  const w = workload(nodeCount, podCount);
  const registry = inTreeRegistry();
  if (!registry.ok) throw new Error(registry.error);
  const framework = Framework.build(registry.value, { ...DEFAULT_PROFILE, recordScores: 3 }, { random: seededRandom(1) });
  if (!framework.ok) throw new Error(framework.error.map((e) => e.message).join('; '));
  framework.value.useObjects(w.objects);
  const clock = new ManualClock(0);
  const cache = new ClusterCache({ clock, assumedPodTtlMs: 0 });
  const scheduler = new Scheduler({ framework: framework.value, cache, clock });
  for (const node of w.nodes) scheduler.onNodeAdd(node);
  for (const pod of w.pods) scheduler.onPodAdd(pod);
  const cpuStart = cpuUsage();
  const wallStart = performance.now();
  for (;;) {
    const outcome = await scheduler.scheduleNext();
    if (!outcome) break;
  }
  const wallMs = performance.now() - wallStart;
  const cpu = cpuUsage(cpuStart);
  const placed = [...scheduler.outcomes.values()].filter((o) => o.node).length;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  // On a shared machine wall time counts other processes' turns too: CPU time is this process's own
  // work (the engine is single-threaded; the garbage collector's helper threads add a little).
  console.log(
    `placed ${placed}/${podCount} in ${wallMs.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU: ${((podCount / wallMs) * 1000).toFixed(0)} pods/s wall, ${((podCount / cpuMs) * 1000).toFixed(0)} pods/s CPU (target 1,000 pods/s); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

export const benchmarks: Benchmark[] = [
  { name: 'dra: 1000 nodes × 8 GPUs, 10000 pods with one claim', run: () => run(Math.round(1000 * SCALE), Math.round(10000 * SCALE)) },
];
