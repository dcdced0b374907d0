// Dynamic Resource Allocation in the scheduling loop: 1,000 nodes with eight GPUs each published as
// ResourceSlices (one per node), a DeviceClass with a CEL selector, and 10,000 pods with one
// ResourceClaim each (one GPU), scheduled one by one through the default profile (DynamicResources
// allocating from the slices, Reserve taking the devices). Prints pods/s by wall and by CPU time
// (what this process used: the figure that means something on a loaded machine) and placements; the
// target the issue sets is 1,000 pods/s. Then a 64-pod GPU gang planned by the built CLI
// (bin/podplan.js plan, a child process, under /usr/bin/time) with each planner: 80 nodes × 8 GPUs,
// the gang's pods one claim each from a template (one GPU; eight GPUs on one model), min-member 64;
// the target is under 2 s. Nothing is asserted.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { cpuUsage } from 'node:process';
import { ManualClock } from '../src/engine/api/clock';
import type { DeviceClass, ResourceClaim } from '../src/engine/api/dra';
import { seededRandom } from '../src/engine/api/random';
import type { Pod } from '../src/engine/api/types';
import { ClusterCache } from '../src/engine/cache/cache';
import { Framework } from '../src/engine/framework/runtime';
import { DEFAULT_PROFILE } from '../src/engine/plugins/defaults';
import { inTreeRegistry } from '../src/engine/plugins/registry';
import { Scheduler } from '../src/engine/scheduler/scheduler';
import { BIN, ensureBuilt, ROOT } from '../test/cli/bundle';
import type { Benchmark } from './benchmark';
import { GPU_DRIVER as DRIVER, gpuNodes } from './workloads/gpus';

const SCALE = Number(process.env['PODPLAN_BENCH_SCALE'] ?? '1');

function workload(nodeCount: number, podCount: number) {
  const { nodes, slices } = gpuNodes(nodeCount, (d) => ({
    name: `gpu-${d}`,
    attributes: { model: { string: 'h100' }, numa: { int: d % 2 } },
    capacity: { memory: { value: '80Gi' } },
  }));
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
    `placed ${placed}/${podCount} in ${wallMs.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU: ${((podCount / wallMs) * 1000).toFixed(0)} pods/s wall, ${((podCount / cpuMs) * 1000).toFixed(0)} pods/s CPU (target 1,000 pods/s); load average ${load()}`,
  );
}

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** The gang's cluster (nodes and their slices) and the gang itself, as YAML files in `dir`. */
function writeGang(dir: string, nodeCount: number, gpusPerPod: number): void {
  mkdirSync(dir, { recursive: true });
  const docs: string[] = [];
  for (let i = 0; i < nodeCount; i++) {
    const name = `gpu-${String(i).padStart(3, '0')}`;
    const devices = Array.from(
      { length: 8 },
      (_, d) => `    - {name: gpu-${d}, attributes: {model: {string: h100}, numa: {int: ${d >> 2}}}, capacity: {memory: {value: 80Gi}}}\n`,
    ).join('');
    docs.push(
      `apiVersion: v1\nkind: Node\nmetadata: {name: ${name}, labels: {kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: zone-${'abcd'[i % 4]}}}\n` +
        `status: {allocatable: {cpu: "96", memory: 1024Gi, pods: "110"}}\n---\n` +
        `apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: ${name}-gpus}\nspec:\n  driver: ${DRIVER}\n  nodeName: ${name}\n` +
        `  pool: {name: ${name}, generation: 1, resourceSliceCount: 1}\n  devices:\n${devices}`,
    );
  }
  writeFileSync(path.join(dir, 'cluster.yaml'), docs.join('---\n'));
  const cpu = gpusPerPod * 8;
  writeFileSync(
    path.join(dir, 'gang.yaml'),
    `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec: {selectors: [{cel: {expression: 'device.driver == "${DRIVER}"'}}]}
---
apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata: {name: train, namespace: default, labels: {planner.ciena.io/pod-set: train, planner.ciena.io/min-member: "64"}}
spec: {state: Schedule}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpus}
spec:
  spec:
    devices:
      requests: [{name: gpus, exactly: {deviceClassName: gpu, count: ${gpusPerPod}}}]
      constraints: [{matchAttribute: ${DRIVER}/model}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: train}
spec:
  parallelism: 64
  completions: 64
  template:
    metadata: {labels: {planner.ciena.io/pod-set: train}}
    spec:
      schedulerName: podset-planner-scheduler
      restartPolicy: Never
      resourceClaims: [{name: gpus, resourceClaimTemplateName: gpus}]
      containers: [{name: t, image: t, resources: {requests: {cpu: "${cpu}", memory: ${cpu * 8}Gi}, claims: [{name: gpus}]}}]
`,
  );
}

async function gang(): Promise<void> {
  ensureBuilt();
  console.log(`load average ${load()} (2 cores shared)`);
  for (const gpusPerPod of [1, 8]) {
    const dir = path.join(ROOT, '.cache/bench-dra', `gang-${gpusPerPod}`);
    writeGang(dir, 80, gpusPerPod);
    console.log(
      `workload: 80 nodes × 8 GPUs (ResourceSlices), a gang of 64 pods with ${gpusPerPod} GPU(s) each on one model, min-member 64`,
    );
    for (const planner of ['greedy', 'optimize', 'exact']) {
      const started = performance.now();
      const child = spawnSync(
        '/usr/bin/time',
        ['-f', '%U %S', process.execPath, BIN, 'plan', dir, '--pod-set', 'default/train', '--planner', planner, '--no-history'],
        { cwd: ROOT, encoding: 'utf8' },
      );
      const wall = (performance.now() - started) / 1000;
      const [user, system] = (child.stderr.trimEnd().split('\n').at(-1) ?? '').split(' ').map(Number);
      const summary = /^Pod set .*$/m.exec(child.stdout)?.[0] ?? `exit ${child.status}: ${child.stderr.trim().split('\n')[0]}`;
      console.log(
        `  plan --planner ${planner.padEnd(8)} ${wall.toFixed(2)} s wall, ${((user ?? NaN) + (system ?? NaN)).toFixed(2)} s CPU (target < 2 s): ${summary}`,
      );
    }
  }
}

export const benchmarks: Benchmark[] = [
  { name: 'dra: 1000 nodes × 8 GPUs, 10000 pods with one claim', run: () => run(Math.round(1000 * SCALE), Math.round(10000 * SCALE)) },
  { name: 'dra: a 64-pod GPU gang planned by the CLI', run: gang },
];
