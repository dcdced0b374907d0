// The workspace of the scale tests (test/e2e/scale.test.ts) and of the editor's startup bench
// (bench/editor.ts): 5,000 nodes in three zones, 9,700 running pods bound to them round-robin and a
// pod set of 300 pods (three of them too big for any node) with its ScheduleTrigger: 10,000 pods.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

export const NODES = 5_000;
export const PODS = 300;
/** Pods already running, bound to the nodes round-robin: with the set, 10,000 pods in the workspace. */
export const RUNNING = 9_700;
/** Pods of the set that fit no node (64 cpu on 4-cpu nodes). */
export const TOO_BIG = 3;
/** The pod set's name (and its trigger's), in namespace `big`. */
export const POD_SET = 'big-set';

function node(i: number): string {
  const name = `node-${String(i).padStart(4, '0')}`;
  return `apiVersion: v1
kind: Node
metadata: { name: ${name}, labels: { kubernetes.io/hostname: ${name}, topology.kubernetes.io/zone: zone-${i % 3} } }
status:
  allocatable: { cpu: "4", memory: 16Gi, pods: "110" }
  capacity: { cpu: "4", memory: 16Gi, pods: "110" }
`;
}

function pod(i: number, cpu: string): string {
  return `apiVersion: v1
kind: Pod
metadata: { name: batch-${i}, namespace: big, labels: { planner.ciena.io/pod-set: ${POD_SET}, app: batch } }
spec:
  schedulerName: podset-planner-scheduler
  containers: [{ name: main, image: busybox, resources: { requests: { cpu: "${cpu}", memory: 1Gi } } }]
`;
}

function running(i: number): string {
  return `apiVersion: v1
kind: Pod
metadata: { name: app-${i}, namespace: apps, labels: { app: app-${i % 40} } }
spec:
  nodeName: node-${String(i % NODES).padStart(4, '0')}
  containers: [{ name: main, image: busybox, resources: { requests: { cpu: 100m, memory: 128Mi } } }]
`;
}

const TRIGGER = `apiVersion: planner.ciena.io/v1alpha1
kind: ScheduleTrigger
metadata:
  name: ${POD_SET}
  namespace: big
  labels: { planner.ciena.io/pod-set: ${POD_SET} }
spec:
  state: Planning
`;

/** The workspace's files by name: nodes.yaml, podset.yaml (the trigger and the set), running.yaml. */
export function scaleWorkspaceFiles(): Record<string, string> {
  return {
    'nodes.yaml': Array.from({ length: NODES }, (_, i) => node(i)).join('---\n'),
    'podset.yaml': [TRIGGER, ...Array.from({ length: PODS }, (_, i) => pod(i, i < TOO_BIG ? '64' : '1'))].join('---\n'),
    'running.yaml': Array.from({ length: RUNNING }, (_, i) => running(i)).join('---\n'),
  };
}

/** Writes the workspace's files into `folder`. */
export async function writeScaleWorkspace(folder: string): Promise<void> {
  for (const [name, text] of Object.entries(scaleWorkspaceFiles())) await writeFile(path.join(folder, name), text);
}
