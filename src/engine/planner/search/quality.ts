// How good a placement is, so planners' results can be compared: first the pods placed, priority
// by priority from the highest (a high-priority pod outweighs any number of lower ones); then, per
// the objective, fewer nodes taken into use (pack: empty nodes the plan puts pods on, then all the
// nodes it uses), a lower load on the busiest node (balance), fewer of the set's pods on its
// busiest node (spread), a lower cost of the nodes used (cost), or fewer pods moved from the
// current plan (moves).
import type { NodeInfo } from '../../framework/node-info';
import { nodeCost, type PlannerResult, type PlanRequest } from '../planner';

export interface Quality {
  /** Pods placed per priority level, highest priority first (levels of the request's pods). */
  readonly placedByPriority: readonly number[];
  readonly placed: number;
  /** Distinct nodes the set's pods are placed on. */
  readonly nodes: number;
  /** Of those, the ones that held no pod before. */
  readonly opened: number;
  /** The busiest cpu or memory share among those nodes, other pods included (0..1). */
  readonly peak: number;
  /** The most pods of the set on one node. */
  readonly crowd: number;
  /** The summed cost of the nodes the set uses (nodeCost). */
  readonly cost: number;
  /** Pods placed on another node than the current plan's (request.previous). */
  readonly moved: number;
}

export function quality(request: PlanRequest, result: PlannerResult): Quality {
  const levels = [...new Set(request.pods.map((p) => p.pod.spec.priority ?? 0))].sort((a, b) => b - a);
  const placedByPriority = levels.map(() => 0);
  const load = new Map<string, { cpu: number; memory: number; pods: number }>();
  let moved = 0;
  for (const { pod, node } of result.placed) {
    const previous = request.previous?.get(pod.key);
    if (previous !== undefined && previous !== node) moved++;
    const level = levels.indexOf(pod.pod.spec.priority ?? 0);
    placedByPriority[level] = (placedByPriority[level] ?? 0) + 1;
    const sums = load.get(node) ?? { cpu: 0, memory: 0, pods: 0 };
    sums.pods++;
    sums.cpu += pod.requests.milliCPU;
    sums.memory += pod.requests.memory;
    load.set(node, sums);
  }
  let peak = 0;
  let crowd = 0;
  let cost = 0;
  for (const [name, sums] of load) {
    const info = request.snapshot.get(name) as NodeInfo;
    crowd = Math.max(crowd, sums.pods);
    cost += nodeCost(info.node);
    const share = (used: number, capacity: number) => (capacity > 0 ? used / capacity : 0);
    peak = Math.max(
      peak,
      share(info.requested.milliCPU + sums.cpu, info.allocatable.milliCPU),
      share(info.requested.memory + sums.memory, info.allocatable.memory),
    );
  }
  const opened = [...load.keys()].filter((name) => request.snapshot.get(name)?.pods.length === 0).length;
  return { placedByPriority, placed: result.placed.length, nodes: load.size, opened, peak, crowd, cost, moved };
}

/** Negative when `a` is better than `b`, positive when worse, 0 when as good. */
export function compareQuality(a: Quality, b: Quality, objective: PlanRequest['objective']): number {
  for (let i = 0; i < a.placedByPriority.length; i++) {
    const diff = (b.placedByPriority[i] ?? 0) - (a.placedByPriority[i] ?? 0);
    if (diff !== 0) return diff;
  }
  const packed = a.opened - b.opened || a.nodes - b.nodes;
  switch (objective) {
    case 'pack':
      return packed || a.peak - b.peak;
    case 'balance':
      return a.peak - b.peak || packed;
    case 'spread':
      return a.crowd - b.crowd || a.peak - b.peak || packed;
    case 'cost':
      return a.cost - b.cost || packed;
    case 'moves':
      return a.moved - b.moved || packed;
  }
}
