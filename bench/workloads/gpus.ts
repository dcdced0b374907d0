// GPU nodes as the DRA benchmarks build them: each node with its eight GPUs published in one
// ResourceSlice of its own pool; what a device carries is the caller's.
import type { Device, ResourceSlice } from '../../src/engine/api/dra';
import type { Node } from '../../src/engine/api/types';

export const GPU_DRIVER = 'gpu.example.com';

export function gpuNodes(nodeCount: number, device: (index: number) => Device): { nodes: Node[]; slices: ResourceSlice[] } {
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
        driver: GPU_DRIVER,
        nodeName: name,
        pool: { name, generation: 1, resourceSliceCount: 1 },
        devices: Array.from({ length: 8 }, (_, d) => device(d)),
      },
    });
  }
  return { nodes, slices };
}
