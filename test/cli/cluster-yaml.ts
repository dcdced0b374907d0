// A large cluster as manifest text, for the CLI at scale (the reduced-scale test and bench/cli.ts):
// nodes in three zones, pending pods of varied requests, some too big for any node, and one pod set.
export interface ClusterShape {
  readonly nodes: number;
  readonly pods: number;
  /** How many of the pods form pod set `batch` (scheduled by the pod-set planner). */
  readonly podSet: number;
}

export function clusterYaml(shape: ClusterShape): string {
  const out: string[] = [];
  for (let i = 0; i < shape.nodes; i++) {
    out.push(`apiVersion: v1
kind: Node
metadata:
  name: node-${i}
  labels: { kubernetes.io/hostname: node-${i}, topology.kubernetes.io/zone: zone-${i % 3} }
status:
  allocatable: { cpu: "8", memory: 32Gi, pods: "110" }
`);
  }
  for (let i = 0; i < shape.pods; i++) {
    const inSet = i < shape.podSet;
    // One pod in 200 asks for more than any node has: its diagnosis rejects every node.
    const cpu = i % 200 === 199 ? '16' : `${100 + (i % 7) * 150}m`;
    out.push(`apiVersion: v1
kind: Pod
metadata:
  name: pod-${i}
  namespace: ns-${i % 5}
  labels: { app: app-${i % 40}${inSet ? ', planner.ciena.io/pod-set: batch' : ''} }
spec:
${inSet ? '  schedulerName: podset-planner-scheduler\n' : ''}  containers:
    - name: main
      resources: { requests: { cpu: ${cpu}, memory: ${256 + (i % 5) * 256}Mi } }
`);
  }
  return out.join('---\n');
}
