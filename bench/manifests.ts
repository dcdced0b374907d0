// Reading manifests: the language server re-reads a whole file on each change, so a 5,000-line file
// of mixed objects must parse, convert and combine in well under 100 ms.
import { combine, readFile } from '../src/manifests';
import type { Benchmark } from './benchmark';

/** About 5,000 lines: 500 nodes, 50 Deployments of 40 replicas (2,000 pods), 10 triggers, one 300-entry plan. */
export function mixedWorkspace(): string {
  const docs: string[] = [];
  for (let i = 0; i < 500; i++) {
    docs.push(`apiVersion: v1
kind: Node
metadata: { name: node-${i}, labels: { topology.kubernetes.io/zone: zone-${i % 3}, kubernetes.io/hostname: node-${i} } }
status:
  allocatable: { cpu: "8", memory: 32Gi, pods: "110" }`);
  }
  for (let i = 0; i < 50; i++) {
    docs.push(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}
  namespace: team-${i % 5}
spec:
  replicas: 40
  selector:
    matchLabels: { app: app-${i} }
  template:
    metadata:
      labels: { app: app-${i}, planner.ciena.io/pod-set: set-${i % 10} }
    spec:
      schedulerName: podset-planner-scheduler
      containers:
        - name: main
          image: registry.example/app-${i}:1.0
          resources:
            requests: { cpu: 250m, memory: 512Mi }`);
  }
  for (let i = 0; i < 10; i++) {
    docs.push(`apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata:
  name: set-${i}
  namespace: team-${i % 5}
  labels: { planner.ciena.io/pod-set: set-${i}, planner.ciena.io/quiet-time: 2m0s }
spec:
  state: Planning`);
  }
  const entries = Array.from({ length: 300 }, (_, i) => `    - pod: app-0-${i % 40}\n      node: node-${i}`);
  docs.push(`apiVersion: planner.ciena.io/v1alpha1
kind: SchedulePlan
metadata:
  name: set-0-plan
  namespace: team-0
  labels: { planner.ciena.io/pod-set: set-0 }
spec:
  plan:
${entries.join('\n')}`);
  return docs.join('\n---\n') + '\n';
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** Wall and CPU time per run (CPU time is less disturbed by other processes on a shared machine). */
function time(runs: number, f: () => void): string {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const startCpu = process.cpuUsage();
    f();
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
    wall.push(performance.now() - start);
  }
  return `median ${median(wall).toFixed(1)} ms wall, ${median(cpu).toFixed(1)} ms cpu (max ${Math.max(...wall).toFixed(1)} ms wall)`;
}

export const benchmarks: readonly Benchmark[] = [
  {
    name: 'manifests: read a 5,000-line mixed file',
    run() {
      const text = mixedWorkspace();
      const lines = text.split('\n').length;
      const file = { name: 'workspace.yaml', text };
      for (let i = 0; i < 5; i++) readFile(file); // warm up the JIT
      const model = readFile(file);
      console.log(
        `workload: ${lines} lines, ${model.documents.length} documents → ${model.nodes.length} nodes, ${model.pods.length} pods, ${model.triggers.length} triggers, ${model.plans.length} plans, ${model.errors.length} errors`,
      );
      const edited = { name: file.name, text: text.replace('replicas: 40', 'replicas: 41') };
      console.log(`readFile, first read (parse + convert):  ${time(20, () => readFile(file))}`);
      console.log(`readFile after a one-line edit:          ${time(20, () => readFile(edited, model))}`);
      console.log(`combine (DaemonSets, duplicates):        ${time(20, () => combine([model]))}`);
      console.log(
        `locate one field in each document:       ${time(20, () => {
          for (const doc of readFile(file).documents) doc.source.locate('spec.template.spec.containers[0].resources.requests.cpu');
        })}`,
      );
      return Promise.resolve();
    },
  },
];
