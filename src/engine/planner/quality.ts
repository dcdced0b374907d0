// How good a placement is, so planners' results can be compared: first the pods placed, priority
// by priority from the highest (a high-priority pod outweighs any number of lower ones); then, per
// the objective, fewer nodes taken into use (pack: empty nodes the plan puts pods on, then all the
// nodes it uses) or a lower load on the busiest node (balance).
import type { NodeInfo } from '../framework/node-info';
import type { PlannerResult, PlanRequest } from './planner';

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
}

export function quality(request: PlanRequest, result: PlannerResult): Quality {
  const levels = [...new Set(request.pods.map((p) => p.pod.spec.priority ?? 0))].sort((a, b) => b - a);
  const placedByPriority = levels.map(() => 0);
  const load = new Map<string, { cpu: number; memory: number }>();
  for (const { pod, node } of result.placed) {
    const level = levels.indexOf(pod.pod.spec.priority ?? 0);
    placedByPriority[level] = (placedByPriority[level] ?? 0) + 1;
    const sums = load.get(node) ?? { cpu: 0, memory: 0 };
    sums.cpu += pod.requests.milliCPU;
    sums.memory += pod.requests.memory;
    load.set(node, sums);
  }
  let peak = 0;
  for (const [name, sums] of load) {
    const info = request.snapshot.get(name) as NodeInfo;
    const share = (used: number, capacity: number) => (capacity > 0 ? used / capacity : 0);
    peak = Math.max(
      peak,
      share(info.requested.milliCPU + sums.cpu, info.allocatable.milliCPU),
      share(info.requested.memory + sums.memory, info.allocatable.memory),
    );
  }
  const opened = [...load.keys()].filter((name) => request.snapshot.get(name)?.pods.length === 0).length;
  return { placedByPriority, placed: result.placed.length, nodes: load.size, opened, peak };
}

/** Negative when `a` is better than `b`, positive when worse, 0 when as good. */
export function compareQuality(a: Quality, b: Quality, objective: PlanRequest['objective']): number {
  for (let i = 0; i < a.placedByPriority.length; i++) {
    const diff = (b.placedByPriority[i] ?? 0) - (a.placedByPriority[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return objective === 'pack' ? a.opened - b.opened || a.nodes - b.nodes || a.peak - b.peak : a.peak - b.peak || a.opened - b.opened || a.nodes - b.nodes;
}
