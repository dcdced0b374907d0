// Packing on the classes (milp.ts placementClasses): pods of one shape are interchangeable and empty
// nodes of one class alike, so the engine's filters run once per pod group and node class, and the
// packing itself is arithmetic on resource amounts: no plugin runs while it searches. What more pods
// of the set change is kept here as in the model: resources and pod count per node, a template's
// replicas that avoid each other (one per node), zone-style topology spread (DoNotSchedule: the
// domains' counts never more than maxSkew apart). The result is targets only: the planner carries
// them out pod by pod through the filter plugins (replay.ts), which have the last word.
//
//   1. construction node by node: the most constrained, largest pod waiting opens the empty node
//      that covers most of what is left, which is then filled with the waiting pods that leave it
//      most evenly used (or tightest) until none fits;
//   2. improvement: the least filled nodes emptied into the others; then ruin and recreate: a few
//      nodes' pods taken off together and packed again (into the nodes in use first, then the best
//      empty nodes), kept when the set then uses fewer nodes, or as many with the load more
//      concentrated (fuller nodes beside emptier ones, which are then easier to empty).
// Effort is counted in work units (a node looked at), never in time, so the same request gives the
// same plan everywhere.
import type { Random } from '../../api/random';
import type { LabelSelector } from '../../api/types';
import { selectorMatches } from '../../api/labels';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import type { PlacementClasses } from '../solver/milp';
import { nodeCost, type Objective } from '../planner';

const NONE = -1;
const EPSILON = 1e-9;

/** One topology spread constraint (DoNotSchedule) as counts per domain. */
interface SpreadRule {
  /** The most the counts may differ: maxSkew, or the skew the cluster has already if larger. */
  readonly skew: number;
  /** Per node: its domain, or NONE when it has no value for the key. */
  readonly domainOf: Int32Array;
  /** Per domain: pods counted there (the cluster's and the set's placed so far). */
  readonly counts: Float64Array;
}

/**
 * How a node being filled picks its next pod: tightest, the one that leaves least of every
 * resource; balanced, the one that leaves its resources most evenly used (pairs memory-heavy pods
 * with cpu-heavy ones), then tightest.
 */
export type FillRule = 'tightest' | 'balanced';

export class Packing {
  readonly R: number;
  readonly N: number;
  readonly G: number;
  /** Per pod (groups' pods one after the other): its group. */
  readonly groupOf: Int32Array;
  /** Per pod: its node, or NONE. */
  readonly at: Int32Array;
  /** Per node: the pods of the set on it. */
  readonly podsOn: number[][];
  /** Per node and resource: what is free. */
  readonly free: Float64Array;
  readonly freePods: Float64Array;
  /** Per node: it held pods before the plan (using it takes no node into use). */
  readonly occupied: Uint8Array;
  readonly cost: Float64Array;
  /** Per pod: its dominant share of the cluster's capacity. */
  readonly size: Float64Array;
  /** Per node: its bin (node class). */
  readonly binOf: Int32Array;
  /** Per group: the spread rules its pods keep, and those its pods count in. */
  private readonly rulesOf: number[][];
  private readonly countsIn: number[][];
  private readonly rules: SpreadRule[];
  /** Per node and group: pods of an anti-affine group there (at most one). */
  private readonly held: Uint8Array;
  /** What the pods not placed ask for, per resource. */
  private readonly demand: Float64Array;
  /** Per node: the set's pods' dominant shares summed (how full the set makes it). */
  readonly load: Float64Array;
  /** Nodes looked at so far: the effort budgets count these. */
  work = 0;

  constructor(
    readonly classes: PlacementClasses,
    readonly objective: Objective,
  ) {
    const { groups, bins, nodes, resources } = classes;
    const R = (this.R = resources.length);
    const N = (this.N = nodes.length);
    const G = (this.G = groups.length);
    const P = groups.reduce((sum, g) => sum + g.pods.length, 0);
    this.groupOf = new Int32Array(P);
    let p = 0;
    groups.forEach((group, g) => group.pods.forEach(() => (this.groupOf[p++] = g)));
    this.at = new Int32Array(P).fill(NONE);
    this.podsOn = nodes.map(() => []);
    this.free = new Float64Array(N * R);
    this.freePods = new Float64Array(N);
    this.binOf = new Int32Array(N);
    this.occupied = new Uint8Array(N);
    bins.forEach((bin, b) => {
      for (const n of bin.nodes) {
        this.binOf[n] = b;
        this.free.set(bin.free, n * R);
        this.freePods[n] = bin.freePods;
        this.occupied[n] = bin.occupied ? 1 : 0;
      }
    });
    this.cost = Float64Array.from(nodes, (n) => nodeCost(n.node));
    const total = new Float64Array(R);
    for (const bin of bins) for (let k = 0; k < R; k++) total[k] = (total[k] as number) + (bin.capacity[k] as number) * bin.nodes.length;
    this.size = Float64Array.from(this.groupOf, (g) => {
      const requests = (groups[g] as (typeof groups)[number]).requests;
      let share = 0;
      for (let k = 0; k < R; k++) if ((total[k] as number) > 0) share = Math.max(share, (requests[k] as number) / (total[k] as number));
      return share;
    });
    this.demand = new Float64Array(R);
    for (const g of this.groupOf)
      for (let k = 0; k < R; k++)
        this.demand[k] = (this.demand[k] as number) + ((groups[g] as (typeof groups)[number]).requests[k] as number);
    this.held = new Uint8Array(N * G);
    this.load = new Float64Array(N);
    this.rules = [];
    this.rulesOf = groups.map(() => []);
    this.countsIn = groups.map(() => []);
    this.spreadRules();
  }

  /** The DoNotSchedule spread constraints of the groups, each once, with the cluster's counts. */
  private spreadRules(): void {
    const { groups, bins, nodes, allowed } = this.classes;
    const seen = new Map<string, number>();
    groups.forEach((group, g) => {
      const pod = (group.pods[0] as PodInfo).pod;
      const namespace = pod.metadata.namespace;
      for (const constraint of pod.spec.topologySpreadConstraints ?? []) {
        if (constraint.whenUnsatisfiable !== 'DoNotSchedule') continue;
        const key = JSON.stringify([namespace, constraint.topologyKey, constraint.maxSkew, constraint.labelSelector]);
        const known = seen.get(key);
        if (known !== undefined) {
          this.rulesOf[g]?.push(known);
          continue;
        }
        // Domains: the key's values on the nodes the group may use at all.
        const values = new Map<string, number>();
        const domainOf = new Int32Array(this.N).fill(NONE);
        bins.forEach((bin, b) => {
          if (!allowed[g]?.[b]) return;
          for (const n of bin.nodes) {
            const value = (nodes[n] as NodeInfo).node.metadata.labels?.[constraint.topologyKey];
            if (value === undefined) continue;
            if (!values.has(value)) values.set(value, values.size);
            domainOf[n] = values.get(value) as number;
          }
        });
        const counted = (labels: Record<string, string> | undefined, ns: string | undefined) =>
          ns === namespace && selectorMatches(constraint.labelSelector as LabelSelector, labels);
        const counts = new Float64Array(values.size);
        nodes.forEach((node, n) => {
          const d = domainOf[n] as number;
          if (d !== NONE)
            counts[d] = (counts[d] as number) + node.pods.filter((p) => counted(p.pod.metadata.labels, p.pod.metadata.namespace)).length;
        });
        const existing = counts.length > 0 ? Math.max(...counts) - Math.min(...counts) : 0;
        const rule = this.rules.push({ skew: Math.max(constraint.maxSkew, existing), domainOf, counts }) - 1;
        seen.set(key, rule);
        this.rulesOf[g]?.push(rule);
        groups.forEach((other, o) => {
          const first = (other.pods[0] as PodInfo).pod;
          if (counted(first.metadata.labels, first.metadata.namespace)) this.countsIn[o]?.push(rule);
        });
      }
    });
  }

  private group(pod: number): PlacementClasses['groups'][number] {
    return this.classes.groups[this.groupOf[pod] as number] as PlacementClasses['groups'][number];
  }

  /** The node may take the pod now: the engine's verdict for its class, room, one replica per node, spread. */
  fits(pod: number, node: number): boolean {
    const g = this.groupOf[pod] as number;
    if (!this.classes.allowed[g]?.[this.binOf[node] as number] || (this.freePods[node] as number) < 1) return false;
    const group = this.group(pod);
    if (group.selfAntiAffine && this.held[node * this.G + g]) return false;
    const R = this.R;
    for (let k = 0; k < R; k++) if ((group.requests[k] as number) > (this.free[node * R + k] as number) + EPSILON) return false;
    for (const r of this.rulesOf[g] ?? []) {
      const rule = this.rules[r] as SpreadRule;
      const d = rule.domainOf[node] as number;
      if (d === NONE) return false;
      let least = Infinity;
      for (const c of rule.counts) least = Math.min(least, c);
      if ((rule.counts[d] as number) + 1 - least > rule.skew) return false;
    }
    return true;
  }

  place(pod: number, node: number): void {
    this.move(pod, node, 1);
    this.at[pod] = node;
    this.podsOn[node]?.push(pod);
  }

  remove(pod: number): void {
    const node = this.at[pod] as number;
    this.move(pod, node, -1);
    this.at[pod] = NONE;
    const list = this.podsOn[node] as number[];
    list.splice(list.indexOf(pod), 1);
  }

  private move(pod: number, node: number, sign: 1 | -1): void {
    const g = this.groupOf[pod] as number;
    const group = this.group(pod);
    const R = this.R;
    for (let k = 0; k < R; k++) {
      const amount = sign * (group.requests[k] as number);
      this.free[node * R + k] = (this.free[node * R + k] as number) - amount;
      this.demand[k] = (this.demand[k] as number) - amount;
    }
    this.freePods[node] = (this.freePods[node] as number) - sign;
    this.load[node] = (this.load[node] as number) + sign * (this.size[pod] as number);
    if (group.selfAntiAffine) this.held[node * this.G + g] = sign > 0 ? 1 : 0;
    for (const r of this.countsIn[g] ?? []) {
      const rule = this.rules[r] as SpreadRule;
      const d = rule.domainOf[node] as number;
      if (d !== NONE) rule.counts[d] = (rule.counts[d] as number) + sign;
    }
  }

  /** Every spread rule within its skew (a move of several pods may pass through states that are not). */
  spreadHolds(): boolean {
    return this.rules.every((rule) => rule.counts.length === 0 || Math.max(...rule.counts) - Math.min(...rule.counts) <= rule.skew);
  }

  /** The node holds pods (the set's or others'): using it takes no node into use. */
  inUse(node: number): boolean {
    return this.occupied[node] === 1 || (this.podsOn[node] as number[]).length > 0;
  }

  /** The share of each resource the node would have left with the pod on it, squared and summed: lower is a tighter fit. */
  private slackAfter(pod: number, node: number): number {
    const R = this.R;
    const bin = this.classes.bins[this.binOf[node] as number] as PlacementClasses['bins'][number];
    const requests = this.group(pod).requests;
    let slack = 0;
    for (let k = 0; k < R; k++) {
      const capacity = bin.capacity[k] as number;
      if (capacity <= 0) continue;
      const left = ((this.free[node * R + k] as number) - (requests[k] as number)) / capacity;
      slack += left * left;
    }
    return slack;
  }

  /** How far apart the shares of its resources the node would have left with the pod on it are (the largest minus the smallest). */
  private imbalanceAfter(pod: number, node: number): number {
    const R = this.R;
    const bin = this.classes.bins[this.binOf[node] as number] as PlacementClasses['bins'][number];
    const requests = this.group(pod).requests;
    let most = -Infinity;
    let least = Infinity;
    for (let k = 0; k < R; k++) {
      const capacity = bin.capacity[k] as number;
      if (capacity <= 0) continue;
      const left = ((this.free[node * R + k] as number) - (requests[k] as number)) / capacity;
      most = Math.max(most, left);
      least = Math.min(least, left);
    }
    return most - least;
  }

  /**
   * Opening an empty node: how much of what is left to place it can hold (higher first), then how
   * much of it would stay unused (lower first): big nodes while much is left, the smallest that
   * holds the rest at the end; the cost objective takes the cheapest first.
   */
  private openingRank(node: number): number {
    const R = this.R;
    const bin = this.classes.bins[this.binOf[node] as number] as PlacementClasses['bins'][number];
    let covered = 0;
    let waste = 0;
    for (let k = 0; k < R; k++) {
      const free = this.free[node * R + k] as number;
      const demand = this.demand[k] as number;
      if (demand > 0) covered += Math.min(free, demand) / demand;
      const capacity = bin.capacity[k] as number;
      if (capacity > 0) waste += Math.max(0, free - demand) / capacity;
    }
    const rank = -covered * (R + 1) + waste;
    return this.objective === 'cost' ? (this.cost[node] as number) * 1e6 + rank : rank;
  }

  /** The best node for the pod among `candidates` in use (tightest fit), else the best empty one to open; NONE when none fits. */
  choose(pod: number, skip = NONE, open = true): number {
    let best = NONE;
    let bestRank = Infinity;
    let empty = NONE;
    let emptyRank = Infinity;
    // Empty nodes of one bin are alike: the first of each bin stands for the rest.
    const triedBins = new Set<number>();
    this.work += this.N;
    for (let n = 0; n < this.N; n++) {
      if (n === skip) continue;
      if (this.inUse(n)) {
        if (!this.fits(pod, n)) continue;
        const rank = this.slackAfter(pod, n);
        if (rank < bestRank) [best, bestRank] = [n, rank];
      } else if (open && best === NONE) {
        const bin = this.binOf[n] as number;
        if (triedBins.has(bin) || !this.fits(pod, n)) continue;
        triedBins.add(bin);
        const rank = this.openingRank(n);
        if (rank < emptyRank) [empty, emptyRank] = [n, rank];
      }
    }
    return best !== NONE ? best : empty;
  }

  /** Pods by priority, then fewer nodes to go to, then larger (or smaller) first, then queue order. */
  constructionOrder(first: 'largest' | 'smallest' = 'largest'): number[] {
    const { groups, bins, allowed } = this.classes;
    const candidates = groups.map((_, g) => bins.reduce((sum, bin, b) => sum + (allowed[g]?.[b] ? bin.nodes.length : 0), 0));
    const order = [...this.at.keys()];
    const level = (p: number) => this.group(p).level;
    order.sort(
      (a, b) =>
        level(a) - level(b) ||
        (candidates[this.groupOf[a] as number] as number) - (candidates[this.groupOf[b] as number] as number) ||
        (first === 'largest' ? (this.size[b] as number) - (this.size[a] as number) : (this.size[a] as number) - (this.size[b] as number)) ||
        a - b,
    );
    return order;
  }

  /**
   * Node by node: the first pod of `order` still waiting opens the node `choose` gives it, which is
   * then filled with the waiting pods that leave it tightest (least of every resource left) until
   * none fits; then the next. Filling one node at a time pairs pods whose requests complement each
   * other (memory-heavy with cpu-heavy), which pod-by-pod first fit does not. The pods left without
   * a node.
   */
  constructByNodes(order: readonly number[], rule: FillRule = 'tightest'): number[] {
    // Pods of a group are interchangeable: the waiting ones per group, in order.
    const waiting = this.classes.groups.map(() => [] as number[]);
    for (const pod of [...order].reverse()) waiting[this.groupOf[pod] as number]?.push(pod);
    const { allowed } = this.classes;
    const allowedIn = this.classes.bins.map((_, b) => [...waiting.keys()].filter((g) => allowed[g]?.[b]));
    const left: number[] = [];
    for (const first of order) {
      if (this.at[first] !== NONE) continue;
      const node = this.choose(first);
      const own = waiting[this.groupOf[first] as number] as number[];
      own.splice(own.lastIndexOf(first), 1);
      if (node === NONE) {
        left.push(first);
        continue;
      }
      this.place(first, node);
      for (;;) {
        let best = NONE;
        let tightest = Infinity;
        const candidates = allowedIn[this.binOf[node] as number] as number[];
        this.work += candidates.length;
        for (const g of candidates) {
          const pods = waiting[g] as number[];
          const pod = pods[pods.length - 1];
          if (pod === undefined || !this.fits(pod, node)) continue;
          const slack =
            rule === 'tightest' ? this.slackAfter(pod, node) : this.imbalanceAfter(pod, node) * 1e3 + this.slackAfter(pod, node);
          if (slack < tightest) [best, tightest] = [pod, slack];
        }
        if (best === NONE) break;
        (waiting[this.groupOf[best] as number] as number[]).pop();
        this.place(best, node);
      }
    }
    return left;
  }

  /** Nodes the set uses; of them, those it takes into use. */
  usage(): { used: number; opened: number; cost: number } {
    let used = 0;
    let opened = 0;
    let cost = 0;
    for (let n = 0; n < this.N; n++) {
      if ((this.podsOn[n] as number[]).length === 0) continue;
      used++;
      cost += this.cost[n] as number;
      if (!this.occupied[n]) opened++;
    }
    return { used, opened, cost };
  }

  placed(): number {
    let placed = 0;
    for (const n of this.at) if (n !== NONE) placed++;
    return placed;
  }

  /**
   * The least filled nodes emptied into the others, passes repeated while one empties a node:
   * each node's pods are taken off and placed again, largest first, on the other nodes in use;
   * kept when all find a place, else undone.
   */
  emptyNodes(limit: number): void {
    for (let progress = true; progress;) {
      progress = false;
      const used = [...this.podsOn.keys()].filter((n) => (this.podsOn[n] as number[]).length > 0);
      const dearer = (a: number, b: number) => (this.objective === 'cost' ? (this.cost[b] as number) - (this.cost[a] as number) : 0);
      used.sort((a, b) => dearer(a, b) || (this.load[a] as number) - (this.load[b] as number) || a - b);
      for (const node of used) {
        if (this.work > limit) return;
        if (this.emptyNode(node)) progress = true;
      }
    }
  }

  private emptyNode(node: number): boolean {
    const moving = [...(this.podsOn[node] as number[])].sort((a, b) => (this.size[b] as number) - (this.size[a] as number) || a - b);
    for (const pod of moving) this.remove(pod);
    const moved: number[] = [];
    for (const pod of moving) {
      const target = this.choose(pod, node, false);
      if (target === NONE) break;
      this.place(pod, target);
      moved.push(pod);
    }
    if (moved.length === moving.length && this.spreadHolds()) return true;
    for (const pod of moved) this.remove(pod);
    for (const pod of moving) this.place(pod, node);
    return false;
  }

  /**
   * Ruin and recreate: `count` nodes in use (the least filled, and others picked by `random`) lose
   * their pods, which are packed again largest first (into nodes in use first); kept when the set
   * then takes fewer nodes into use (or costs less), or as many with the load more concentrated
   * (`score`); else undone. Rounds go on until the work limit.
   */
  recreate(limit: number, random: Random, count = 3): void {
    while (this.work < limit) {
      const used = [...this.podsOn.keys()].filter((n) => (this.podsOn[n] as number[]).length > 0);
      if (used.length < 2) return;
      used.sort((a, b) => (this.load[a] as number) - (this.load[b] as number) || a - b);
      const picked = new Set<number>([used[0] as number]);
      // The rest near the least filled, more likely the emptier they are.
      while (picked.size < Math.min(count, used.length)) picked.add(used[Math.floor(random.next() ** 2 * used.length)] as number);
      const before = this.score();
      const moving: Array<{ pod: number; from: number }> = [];
      for (const node of picked) for (const pod of [...(this.podsOn[node] as number[])]) moving.push({ pod, from: node });
      for (const { pod } of moving) this.remove(pod);
      moving.sort((a, b) => (this.size[b.pod] as number) - (this.size[a.pod] as number) || a.pod - b.pod);
      const moved: number[] = [];
      let complete = true;
      for (const { pod } of moving) {
        const target = this.choose(pod);
        if (target === NONE) {
          complete = false;
          break;
        }
        this.place(pod, target);
        moved.push(pod);
      }
      if (complete && this.spreadHolds() && this.score() < before - 1e-12) continue;
      for (const pod of moved) this.remove(pod);
      for (const { pod, from } of moving) this.place(pod, from);
    }
  }

  /**
   * Lexicographic: nodes taken into use (or cost), then minus the squared loads of the nodes
   * summed: at as many nodes, fuller nodes beside emptier ones are better (the emptier ones are
   * closer to being emptied).
   */
  private score(): number {
    const { opened, used, cost } = this.usage();
    let concentration = 0;
    for (const load of this.load) concentration += load * load;
    const primary = this.objective === 'cost' ? cost : opened * (this.N + 1) + used;
    // Loads are shares of the cluster: their squares sum to at most 1, below one node.
    return primary - Math.min(concentration, 1) * 0.5;
  }

  /**
   * Each placed pod's node name. Pods of a group are interchangeable: in queue order each takes the
   * group's node whose spread domain has the fewest of them so far, so the counts grow evenly in
   * the order the scheduler carries the plan out.
   */
  targets(): Map<PodInfo, string> {
    const { groups, nodes } = this.classes;
    const targets = new Map<PodInfo, string>();
    const slots = groups.map(() => [] as number[]);
    this.at.forEach((n, p) => n !== NONE && slots[this.groupOf[p] as number]?.push(n));
    groups.forEach((group, g) => {
      const free = (slots[g] as number[]).sort((a, b) => a - b);
      const rule = this.rules[this.rulesOf[g]?.[0] ?? NONE];
      const counts = new Map<number, number>();
      for (const pod of group.pods) {
        if (free.length === 0) return;
        let pick = 0;
        if (rule) {
          let least = Infinity;
          free.forEach((n, i) => {
            const c = counts.get(rule.domainOf[n] as number) ?? 0;
            if (c < least) [pick, least] = [i, c];
          });
        }
        const node = free.splice(pick, 1)[0] as number;
        if (rule) counts.set(rule.domainOf[node] as number, (counts.get(rule.domainOf[node] as number) ?? 0) + 1);
        targets.set(pod, (nodes[node] as NodeInfo).name);
      }
    });
    return targets;
  }
}
