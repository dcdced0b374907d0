// The search space the optimizing planners share: the pods of the set, where each one is on the
// what-if copy, and the per-node sums their heuristics read. Every move goes through `place` and
// `remove` so the copy (which the filter plugins see) and the sums never disagree.
import { CPU, MEMORY, type Resource } from '../../api/resources';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { Feasibility, WhatIf } from './what-if';
import { nodeCost, type Objective, type PlanRequest } from '../planner';

export const UNPLACED = -1;

/** A filter run costs about this many node looks in `choose`. */
const FILTER_WORK = 10;

/** The resources the heuristics weigh: cpu, memory and every extended resource the set asks for. */
function resourceNames(pods: readonly PodInfo[]): string[] {
  const names = new Set<string>([CPU, MEMORY]);
  for (const p of pods) for (const [name, value] of p.requests.scalar) if (value > 0) names.add(name);
  return [...names];
}

export class Search {
  readonly whatIf: WhatIf;
  readonly feasibility: Feasibility;
  readonly objective: Objective;
  /** Per pod: the node index it is on, or UNPLACED. */
  readonly at: Int32Array;
  /** Per node: the pods of the set on it. */
  readonly setPodsOn: number[][];
  /** Resource names, then per pod and per node a row of R amounts. */
  readonly resources: readonly string[];
  readonly request: Float64Array;
  readonly capacity: Float64Array;
  readonly used: Float64Array;
  readonly priority: Int32Array;
  /** What the set's pods not on a node ask for, summed per resource. */
  readonly demand: Float64Array;
  /** Per node: its cost (the cost objective). */
  readonly cost: Float64Array;
  /** Per pod: the node index the current plan gives it (the moves objective), or UNPLACED. */
  readonly previous: Int32Array;
  private readonly totalCapacity: Float64Array;
  /** Nodes looked at by `choose` so far; with the filter runs, the effort budgets count. */
  scanned = 0;

  constructor(
    readonly pods: readonly PodInfo[],
    base: PlanRequest,
  ) {
    this.whatIf = new WhatIf(base.snapshot);
    this.feasibility = new Feasibility(base.framework, this.whatIf, base.eligible);
    this.objective = base.objective;
    const R = (this.resources = resourceNames(pods)).length;
    const nodes = this.whatIf.nodes;
    this.at = new Int32Array(pods.length).fill(UNPLACED);
    this.setPodsOn = nodes.map(() => []);
    this.request = new Float64Array(pods.length * R);
    this.capacity = new Float64Array(nodes.length * R);
    this.used = new Float64Array(nodes.length * R);
    this.priority = new Int32Array(pods.map((p) => p.pod.spec.priority ?? 0));
    this.demand = new Float64Array(R);
    const row = (target: Float64Array, i: number, r: Resource) => this.resources.forEach((name, k) => (target[i * R + k] = r.get(name)));
    pods.forEach((p, i) => {
      row(this.request, i, p.requests);
      for (let k = 0; k < R; k++) this.demand[k] = (this.demand[k] as number) + (this.request[i * R + k] as number);
    });
    this.cost = Float64Array.from(nodes, (n) => nodeCost(n.node));
    this.previous = Int32Array.from(pods, (p) => {
      const name = base.previous?.get(p.key);
      return name === undefined ? UNPLACED : (this.whatIf.indexOf(name) ?? UNPLACED);
    });
    this.totalCapacity = new Float64Array(R);
    nodes.forEach((n, i) => {
      row(this.capacity, i, n.allocatable);
      row(this.used, i, n.requested);
      for (let k = 0; k < R; k++) this.totalCapacity[k] = (this.totalCapacity[k] as number) + (this.capacity[i * R + k] as number);
    });
  }

  get nodeCount(): number {
    return this.whatIf.nodes.length;
  }

  node(i: number): NodeInfo {
    return this.whatIf.nodes[i] as NodeInfo;
  }

  place(pod: number, node: number): void {
    this.whatIf.assume(this.pods[pod] as PodInfo, node);
    this.at[pod] = node;
    this.setPodsOn[node]?.push(pod);
    this.account(pod, node, 1);
  }

  remove(pod: number): void {
    const node = this.at[pod] as number;
    this.whatIf.forget(this.pods[pod] as PodInfo, node);
    this.at[pod] = UNPLACED;
    const list = this.setPodsOn[node] as number[];
    list.splice(list.indexOf(pod), 1);
    this.account(pod, node, -1);
  }

  private account(pod: number, node: number, sign: 1 | -1): void {
    const R = this.resources.length;
    for (let k = 0; k < R; k++) {
      const amount = sign * (this.request[pod * R + k] as number);
      this.used[node * R + k] = (this.used[node * R + k] as number) + amount;
      this.demand[k] = (this.demand[k] as number) - amount;
    }
  }

  /** A node with pods on it (the set's or others'): using it does not take one more node. */
  isOpen(node: number): boolean {
    return this.node(node).pods.length > 0;
  }

  /** The pod's size: its dominant share, the largest of its requests as a share of the cluster's capacity. */
  size(pod: number): number {
    const R = this.resources.length;
    let size = 0;
    for (let k = 0; k < R; k++) {
      const capacity = this.totalCapacity[k] as number;
      if (capacity > 0) size = Math.max(size, (this.request[pod * R + k] as number) / capacity);
    }
    return size;
  }

  /**
   * Pack: the share of each resource the node would have left with the pod on it, squared and
   * summed (lower is a tighter fit); squares prefer leaving little of every resource over leaving
   * none of one and much of another.
   */
  slackAfter(pod: number, node: number): number {
    const R = this.resources.length;
    let slack = 0;
    for (let k = 0; k < R; k++) {
      const capacity = this.capacity[node * R + k] as number;
      if (capacity <= 0) continue;
      const left = (capacity - (this.used[node * R + k] as number) - (this.request[pod * R + k] as number)) / capacity;
      slack += left * left;
    }
    return slack;
  }

  /**
   * Pack, opening an empty node: how much of what is left to place the node can hold (higher
   * first), then how much of it would stay unused (lower first): big nodes while much is left,
   * the smallest that holds the rest at the end.
   */
  openingRank(node: number): number {
    const R = this.resources.length;
    let covered = 0;
    let waste = 0;
    for (let k = 0; k < R; k++) {
      const free = (this.capacity[node * R + k] as number) - (this.used[node * R + k] as number);
      const demand = this.demand[k] as number;
      if (demand > 0) covered += Math.min(free, demand) / demand;
      const capacity = this.capacity[node * R + k] as number;
      if (capacity > 0) waste += Math.max(0, free - demand) / capacity;
    }
    // Coverage decides; waste (under R) breaks its ties.
    return -covered * (R + 1) + waste;
  }

  /** The busiest resource's share on the node (cpu or memory), with pod `pod` added when given. */
  peak(node: number, pod = -1): number {
    const R = this.resources.length;
    let peak = 0;
    for (let k = 0; k < 2; k++) {
      const capacity = this.capacity[node * R + k] as number;
      if (capacity <= 0) continue;
      const extra = pod >= 0 ? (this.request[pod * R + k] as number) : 0;
      peak = Math.max(peak, ((this.used[node * R + k] as number) + extra) / capacity);
    }
    return peak;
  }

  /**
   * The best node the pod fits now by the objective, or UNPLACED. Pack: the tightest open node,
   * else the best node to open; cost: the same, the cheapest node to open first; balance: the node
   * whose busiest resource stays lowest; spread: the node with fewest of the set's pods; moves: the
   * node the current plan gives the pod, else as pack. `allowed` further limits the nodes (moves
   * that must not open a node).
   */
  choose(pod: number, allowed?: (node: number) => boolean): number {
    const info = this.pods[pod] as PodInfo;
    const prepared = this.feasibility.prepare(info);
    if (prepared.stopped) return UNPLACED;
    const open: number[] = [];
    const empty: number[] = [];
    this.scanned += this.nodeCount;
    const anyNode = this.objective === 'balance' || this.objective === 'spread';
    for (let n = 0; n < this.nodeCount; n++) {
      if (!prepared.allowed[n] || !this.feasibility.hasRoom(info, n) || (allowed && !allowed(n))) continue;
      (anyNode || this.isOpen(n) ? open : empty).push(n);
    }
    const kept = this.previous[pod] as number;
    if (
      this.objective === 'moves' &&
      kept !== UNPLACED &&
      (open.includes(kept) || empty.includes(kept)) &&
      this.feasibility.fits(info, kept)
    )
      return kept;
    const rank =
      this.objective === 'balance'
        ? (n: number) => this.peak(n, pod)
        : this.objective === 'spread'
          ? (n: number) => (this.setPodsOn[n] as number[]).length + this.peak(n, pod) / 2
          : (n: number) => this.slackAfter(pod, n);
    const found = this.firstFitting(pod, open, rank);
    if (found !== UNPLACED || empty.length === 0) return found;
    const opening =
      this.objective === 'cost' ? (n: number) => (this.cost[n] as number) * 1e6 + this.openingRank(n) : (n: number) => this.openingRank(n);
    return this.firstFitting(pod, empty, opening);
  }

  /** The candidate with the lowest rank that passes the filters: the best one tried first, the rest in order only if it fails. */
  private firstFitting(pod: number, candidates: readonly number[], rank: (node: number) => number): number {
    if (candidates.length === 0) return UNPLACED;
    const info = this.pods[pod] as PodInfo;
    const ranks = Float64Array.from(candidates, rank);
    let best = 0;
    for (let i = 1; i < ranks.length; i++) if ((ranks[i] as number) < (ranks[best] as number)) best = i;
    if (this.feasibility.fits(info, candidates[best] as number)) return candidates[best] as number;
    const order = candidates.map((_, i) => i).sort((a, b) => (ranks[a] as number) - (ranks[b] as number) || a - b);
    for (const i of order) if (i !== best && this.feasibility.fits(info, candidates[i] as number)) return candidates[i] as number;
    return UNPLACED;
  }

  /**
   * Whether the pods could all go to `allowed` nodes by their requests alone (first fit, in the
   * order given): when not, no filter run can place them all, so a move can be given up early.
   * Always true when the profile does not filter on requests.
   */
  couldHold(pods: readonly number[], allowed: (node: number) => boolean): boolean {
    if (!this.feasibility.checksRoom) return true;
    const R = this.resources.length;
    const taken = new Map<number, { pods: number; amounts: Float64Array }>();
    for (const pod of pods) {
      let found = UNPLACED;
      for (let n = 0; n < this.nodeCount && found === UNPLACED; n++) {
        if (!allowed(n)) continue;
        const extra = taken.get(n);
        const info = this.node(n);
        if (info.pods.length + (extra?.pods ?? 0) + 1 > info.allocatable.allowedPodNumber) continue;
        let fits = true;
        for (let k = 0; k < R && fits; k++) {
          const need = this.request[pod * R + k] as number;
          fits = need === 0 || (this.used[n * R + k] as number) + (extra?.amounts[k] ?? 0) + need <= (this.capacity[n * R + k] as number);
        }
        if (fits) found = n;
      }
      if (found === UNPLACED) return false;
      let extra = taken.get(found);
      if (!extra) taken.set(found, (extra = { pods: 0, amounts: new Float64Array(R) }));
      extra.pods++;
      for (let k = 0; k < R; k++) extra.amounts[k] = (extra.amounts[k] as number) + (this.request[pod * R + k] as number);
    }
    return true;
  }

  /** Effort so far, in node looks: a filter run counts as FILTER_WORK of them, a PreFilter run as one per node. */
  get work(): number {
    return this.scanned + FILTER_WORK * this.feasibility.filterCalls + this.nodeCount * this.feasibility.preFilterCalls;
  }

  /** Nodes holding pods of the set. */
  nodesUsed(): number {
    let used = 0;
    for (const pods of this.setPodsOn) if (pods.length > 0) used++;
    return used;
  }

  /** Nodes holding pods of the set and no other pod: the nodes the set takes into use. */
  opened(): number {
    let opened = 0;
    this.setPodsOn.forEach((pods, n) => {
      if (pods.length > 0 && pods.length === this.node(n).pods.length) opened++;
    });
    return opened;
  }
}
