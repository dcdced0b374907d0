// Solver-guided construction, for sets of any size: the aggregated model (milp.ts: alike empty
// nodes pooled into classes) says how many pods of each shape go to each class of nodes, and its
// LP relaxation is solved quickly even for thousands of pods; the pods of each class are packed onto
// its nodes best-fit decreasing (largest share of a node first, each to the node it leaves least
// room on, else the next node), one per node for anti-affine replicas. The result is targets only: the optimizing planner carries them out through the filter
// plugins (replay) and improves from there.
import type { PodInfo } from '../../framework/node-info';
import { placementModel, type PlacementModel } from '../solver/milp';
import { solveOptions, type PlannerResult, type PlanRequest, type SolverSettings } from '../planner';

/**
 * Targets for the request's pods from the LP relaxation of the aggregated model (solved in a
 * fraction of the MILP's time, and near integral in the pods per class): the whole pods of each
 * class's share, packed node by node; the pods the rounding leaves over get no target.
 */
export function guidedTargets(request: PlanRequest, settings: SolverSettings, incumbent: PlannerResult): Map<PodInfo, string> | undefined {
  // Every pod on the fewest nodes when the incumbent shows that possible; else the planner's own weighing.
  const goal = incumbent.placed.length === request.pods.length ? 'every-pod' : 'plan';
  const placement = placementModel(request, { aggregate: true, goal });
  const solution = settings.solver.solve(placement.model, { ...solveOptions(settings), relaxation: true });
  return solution.values ? disaggregate(placement, solution.values) : undefined;
}

/** Each class's pods onto its nodes, best fit decreasing. */
function disaggregate(placement: PlacementModel, values: Float64Array): Map<PodInfo, string> {
  const targets = new Map<PodInfo, string>();
  const next = placement.groups.map(() => 0);
  const perBin = placement.bins.map(() => [] as number[]);
  for (const { group, bin, column } of placement.assignments)
    for (let k = Math.floor((values[column] as number) + 1e-6); k > 0; k--) perBin[bin]?.push(group);
  placement.bins.forEach((bin, b) => {
    const groups = perBin[b] as number[];
    if (groups.length === 0) return;
    const R = bin.free.length;
    const share = (g: number) => {
      const requests = placement.groups[g]?.requests as Float64Array;
      let largest = 0;
      for (let k = 0; k < R; k++)
        if ((bin.capacity[k] as number) > 0) largest = Math.max(largest, (requests[k] as number) / (bin.capacity[k] as number));
      return largest;
    };
    groups.sort((a, c) => share(c) - share(a) || a - c);
    const free = bin.nodes.map(() => Float64Array.from(bin.free));
    const pods = bin.nodes.map(() => bin.freePods);
    const holds = bin.nodes.map(() => new Set<number>());
    let opened = 0;
    for (const g of groups) {
      const group = placement.groups[g] as PlacementModel['groups'][number];
      const requests = group.requests;
      const fits = (n: number) =>
        (pods[n] as number) > 0 &&
        !(group.selfAntiAffine && holds[n]?.has(g)) &&
        requests.every((need, k) => need <= ((free[n] as Float64Array)[k] as number) + 1e-9);
      // Best fit among the nodes taken so far (least left of every resource, squared), else the next node.
      let i = -1;
      let tightest = Infinity;
      for (let n = 0; n < opened; n++) {
        if (!fits(n)) continue;
        const left = leftAfter(free[n] as Float64Array, requests, bin.capacity);
        if (left < tightest) [i, tightest] = [n, left];
      }
      if (i < 0) for (let n = opened; n < free.length && i < 0; n++) if (fits(n)) [i, opened] = [n, n + 1];
      const pod = group.pods[next[g] as number] as PodInfo;
      next[g] = (next[g] as number) + 1;
      // No room by first fit: the pod gets no target, and the planner places it.
      if (i < 0) continue;
      const room = free[i] as Float64Array;
      for (let k = 0; k < R; k++) room[k] = (room[k] as number) - (requests[k] as number);
      pods[i] = (pods[i] as number) - 1;
      holds[i]?.add(g);
      targets.set(pod, (placement.nodes[bin.nodes[i] as number] as PlacementModel['nodes'][number]).name);
    }
  });
  return targets;
}

/** What a node would have left of each resource with the pod on it, as shares of its capacity, squared and summed. */
function leftAfter(free: Float64Array, requests: Float64Array, capacity: Float64Array): number {
  let left = 0;
  for (let k = 0; k < free.length; k++) {
    if ((capacity[k] as number) <= 0) continue;
    const share = ((free[k] as number) - (requests[k] as number)) / (capacity[k] as number);
    left += share * share;
  }
  return left;
}
