// Exact search for small pod sets: depth-first branch and bound over the pods in queue order (so
// every placement it finds holds in the order the scheduler carries it out), each pod to every
// node it fits or to none. A branch is cut when even placing every remaining pod could not beat the
// best placement known, or (at an equal count) when it already needs as many nodes, or as high a
// peak, as that one. Pods of one shape next to each other take nodes in index order, and of the
// empty nodes that are alike only the first is tried: both only skip placements that are the same
// up to renaming. When the search ends within its budget, nothing better exists: the optimum (or the
// proof that no more pods can be placed) is known.
import { PODS } from '../../api/resources';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { isSuccess } from '../../framework/status';
import { Names } from '../../plugins/names';
import { avoidsItsOwnShape, nodeClass } from '../solver/milp';
import { queueOrder, type Placement, type PlannerResult, type PlanRequest } from '../planner';
import { compareQuality, quality, type Quality } from './quality';
import { Search, UNPLACED } from './search';
import { Feasibility, podShape, WhatIf } from './what-if';

export interface ExactOptions {
  /** How many filter runs the search may spend. */
  readonly budget: number;
  /** A placement to beat (a heuristic's): the search only looks for better ones. */
  readonly incumbent?: PlannerResult;
}

export interface ExactOutcome {
  /** The best placement known at the end: each placed pod's node. */
  readonly targets: ReadonlyMap<PodInfo, string>;
  readonly quality: Quality;
  /** The search found a placement better than the incumbent. */
  readonly improved: boolean;
  /** The search ended within its budget: no placement is better than `targets`. */
  readonly proven: boolean;
}

/**
 * The fewest nodes a plan placing every pod that can be placed at all must use. Each pod shape can
 * use the nodes the filters accept it on now, or reject only for its spread or pod affinity (which
 * more pods can change); shapes that share nodes form groups with disjoint nodes, and each group
 * needs, for each resource, the fewest of its nodes whose free amounts, largest first, add up to
 * what its pods ask for; and one node per pod for pods of one shape that must not share a node
 * (required anti-affinity on the hostname matching themselves). The groups' needs add up.
 */
export function nodesLowerBound(request: PlanRequest): number {
  const whatIf = new WhatIf(request.snapshot);
  const feasibility = new Feasibility(request.framework, whatIf, request.eligible);
  const nodes = whatIf.nodes;
  const group = nodes.map((_, i) => i);
  const root = (i: number): number => {
    while (group[i] !== i) i = group[i] = group[group[i] as number] as number;
    return i;
  };
  const byShape = new Map<string, PodInfo[]>();
  for (const p of request.pods) byShape.set(podShape(p), [...(byShape.get(podShape(p)) ?? []), p]);
  const usable: Array<{ pods: PodInfo[]; first: number }> = [];
  for (const pods of byShape.values()) {
    const pod = pods[0] as PodInfo;
    const prepared = feasibility.prepare(pod);
    let first = -1;
    for (let n = 0; n < nodes.length && !prepared.stopped; n++) {
      if (!prepared.allowed[n]) continue;
      const status = request.framework.filterNode(prepared.state, pod, nodes[n] as NodeInfo);
      if (!isSuccess(status) && status.plugin !== Names.PodTopologySpread && status.plugin !== Names.InterPodAffinity) continue;
      if (first < 0) first = n;
      else group[root(n)] = root(first);
    }
    if (first >= 0) usable.push({ pods, first });
  }
  const members = new Map<number, PodInfo[]>();
  for (const { pods, first } of usable) members.set(root(first), [...(members.get(root(first)) ?? []), ...pods]);
  let bound = 0;
  for (const [id, pods] of members) {
    const own = nodes.filter((_, n) => root(n) === id);
    bound += Math.max(resourceBound(pods, own), cliqueBound(pods));
  }
  return bound;
}

/** For each resource, the fewest nodes whose free amounts, largest first, hold what the pods ask for. */
function resourceBound(pods: readonly PodInfo[], nodes: readonly NodeInfo[]): number {
  const names = new Set<string>([PODS]);
  for (const p of pods) for (const name of p.requests.names()) names.add(name);
  let bound = 1;
  for (const name of names) {
    const demand = name === PODS ? pods.length : pods.reduce((sum, p) => sum + p.requests.get(name), 0);
    const free = nodes
      .map((n) => (name === PODS ? n.allocatable.allowedPodNumber - n.pods.length : n.allocatable.get(name) - n.requested.get(name)))
      .sort((a, b) => b - a);
    let covered = 0;
    let count = 0;
    while (covered < demand && count < free.length) covered += free[count++] as number;
    bound = Math.max(bound, count);
  }
  return bound;
}

/** Pods of one shape that must each have a node of their own. */
function cliqueBound(pods: readonly PodInfo[]): number {
  const shapes = new Map<string, number>();
  for (const p of pods) if (avoidsItsOwnShape(p)) shapes.set(podShape(p), (shapes.get(podShape(p)) ?? 0) + 1);
  return Math.max(0, ...shapes.values());
}

export function exactSearch(request: PlanRequest, options: ExactOptions): ExactOutcome {
  const pods = queueOrder(request.framework, request.pods);
  const search = new Search(pods, request);
  const R = search.resources.length;
  const P = pods.length;
  const objective = request.objective;
  const classes = search.whatIf.nodes.map((n) => nodeClass(n.node));
  const shapes = pods.map(podShape);
  const levels = [...new Set(pods.map((p) => p.pod.spec.priority ?? 0))].sort((a, b) => b - a);
  const level = pods.map((p) => levels.indexOf(p.pod.spec.priority ?? 0));
  // What pods k.. ask for, per resource, and how many of each priority level they hold.
  const suffix = new Float64Array((P + 1) * R);
  const suffixLevels = Array.from({ length: P + 1 }, () => levels.map(() => 0));
  for (let k = P - 1; k >= 0; k--) {
    for (let r = 0; r < R; r++) suffix[k * R + r] = (suffix[(k + 1) * R + r] as number) + (search.request[k * R + r] as number);
    suffixLevels[k] = (suffixLevels[k + 1] as number[]).map((c, l) => c + (l === level[k] ? 1 : 0));
  }

  const nothing: Quality = { placedByPriority: levels.map(() => 0), placed: 0, nodes: 0, opened: 0, peak: 0, crowd: 0, cost: 0, moved: 0 };
  let best: Quality = options.incumbent ? quality(request, options.incumbent) : nothing;
  let bestAt: Int32Array | undefined;
  // The set uses at least lowerBound nodes, of which at most `occupied` held pods before.
  const occupied = search.whatIf.nodes.filter((n) => n.pods.length > 0).length;
  const fewestOpened = Math.max(0, nodesLowerBound(request) - occupied);
  const placedByLevel = levels.map(() => 0);
  let aborted = false;

  const current = (): Quality => {
    const placed: Placement[] = [];
    search.at.forEach((n, k) => n !== UNPLACED && placed.push({ pod: pods[k] as PodInfo, node: search.node(n).name }));
    return quality(request, { placed, unplaced: [] });
  };
  const optimal = () => best.placed === P && objective === 'pack' && best.opened <= fewestOpened;

  /** Empty nodes pods k.. need at the least: what exceeds the free room of the nodes in use, over the largest free room of an empty one. */
  const moreNodesNeeded = (k: number): number => {
    let needed = 0;
    for (let r = 0; r < R; r++) {
      let room = 0;
      let largest = 0;
      for (let n = 0; n < search.nodeCount; n++) {
        const free = (search.capacity[n * R + r] as number) - (search.used[n * R + r] as number);
        if (search.isOpen(n)) room += Math.max(0, free);
        else largest = Math.max(largest, free);
      }
      const excess = (suffix[k * R + r] as number) - room;
      if (excess > 0) needed = Math.max(needed, largest > 0 ? Math.ceil(excess / largest) : Infinity);
    }
    return needed;
  };

  const hopeless = (k: number): boolean => {
    const hope = placedByLevel.map((c, l) => c + ((suffixLevels[k] as number[])[l] as number));
    for (let l = 0; l < levels.length; l++) {
      const diff = (hope[l] as number) - (best.placedByPriority[l] ?? 0);
      if (diff !== 0) return diff < 0;
    }
    // Placing every remaining pod would only tie on counts: it must open fewer nodes (or as many, and use fewer) or have a lower peak.
    if (objective === 'pack') {
      const opened = search.opened() + moreNodesNeeded(k);
      return opened > best.opened || (opened === best.opened && search.nodesUsed() >= best.nodes);
    }
    return current().peak >= best.peak;
  };

  const visit = (k: number): void => {
    if (aborted || optimal()) return;
    if (search.feasibility.filterCalls > options.budget) {
      aborted = true;
      return;
    }
    if (k === P) {
      const found = current();
      if (compareQuality(found, best, objective) < 0) {
        best = found;
        bestAt = Int32Array.from(search.at);
      }
      return;
    }
    if (hopeless(k)) return;
    const pod = pods[k] as PodInfo;
    // Next to a pod of the same shape: no node before the one it took (none at all if it took none).
    const previous = k > 0 && shapes[k - 1] === shapes[k] ? (search.at[k - 1] as number) : 0;
    if (previous !== UNPLACED) {
      const prepared = search.feasibility.prepare(pod);
      const open: number[] = [];
      const empty: number[] = [];
      const seenClasses = new Set<string>();
      for (let n = previous; n < search.nodeCount && !prepared.stopped; n++) {
        if (!prepared.allowed[n] || !search.feasibility.hasRoom(pod, n)) continue;
        if (search.isOpen(n)) open.push(n);
        else if (!seenClasses.has(classes[n] as string)) {
          seenClasses.add(classes[n] as string);
          empty.push(n);
        }
      }
      const rank = objective === 'balance' ? (n: number) => search.peak(n, k) : (n: number) => search.slackAfter(k, n);
      open.sort((a, b) => rank(a) - rank(b) || a - b);
      empty.sort((a, b) => search.openingRank(a) - search.openingRank(b) || a - b);
      for (const n of objective === 'balance' ? [...open, ...empty].sort((a, b) => rank(a) - rank(b) || a - b) : [...open, ...empty]) {
        if (!search.feasibility.fits(pod, n)) continue;
        const l = level[k] as number;
        search.place(k, n);
        placedByLevel[l] = (placedByLevel[l] as number) + 1;
        visit(k + 1);
        placedByLevel[l] = (placedByLevel[l] as number) - 1;
        search.remove(k);
        if (aborted || optimal()) return;
      }
    }
    visit(k + 1);
  };
  visit(0);

  const targets = new Map<PodInfo, string>();
  if (bestAt) bestAt.forEach((n, i) => n !== UNPLACED && targets.set(pods[i] as PodInfo, search.node(n).name));
  else for (const { pod, node } of options.incumbent?.placed ?? []) targets.set(pod, node);
  return { targets, quality: best, improved: bestAt !== undefined, proven: !aborted };
}
