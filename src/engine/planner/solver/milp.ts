// A pod set's plan as a mixed-integer linear program. Pods of one shape (one template) are
// interchangeable, so the model counts them: x[g][b] is how many pods of group g go to bin b, where
// a bin is one node or, in the aggregated model used for bounds, every empty node of one class
// (same capacity, labels but the hostname, taints), y[b] how many of the bin's nodes the set uses.
//
// Which groups may go to which nodes is the engine's verdict: its PreFilter and Filter plugins run
// for each group on each node of the cluster as it is. What more pods of the set change is modelled:
// resources (per resource and pod count, each node's free amounts), hostname anti-affinity of a
// template's replicas (one per node), zone-style topology spread (DoNotSchedule: the domains'
// counts never more than maxSkew apart), and a gang's minimum (all or at least that many). The
// model is exact for those; anything else the plugins check is checked on the solution, when it is
// carried out pod by pod in queue order (replay.ts): the engine has the last word.
//
// Objective, lexicographically by weights: the most pods placed (priority levels first), then per
// objective the fewest nodes taken into use (pack), the lowest busiest-node share (balance), the
// fewest of the set's pods on its most crowded node (spread), the least summed node cost (cost),
// the most pods kept where the current plan put them (moves).
import { selectorMatches } from '../../api/labels';
import { CPU, MEMORY, PODS } from '../../api/resources';
import type { LabelSelector, Node, TopologySpreadConstraint } from '../../api/types';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { isSuccess } from '../../framework/status';
import { deviceCounts } from '../../plugins/dynamicresources/counts';
import { Names } from '../../plugins/names';
import { nodeCost, queueOrder, type PlannerResult, type PlanRequest } from '../planner';
import { MilpBuilder, type MilpModel } from './solver';
import { Feasibility, podShape, WhatIf } from '../search/what-if';

const HOSTNAME = 'kubernetes.io/hostname';
/** Memory (bytes) enters the model in MiB, so coefficients stay near cpu's millicores. */
const MEMORY_UNIT = 1024 * 1024;

export interface PlacementModelOptions {
  /**
   * Merge empty nodes that are alike into one bin: a much smaller model whose optimum is a lower
   * bound of the true one (a bin's capacity is pooled), for bounds, never for plans.
   */
  readonly aggregate?: boolean;
  /**
   * plan: the planner's objective (the default); every-pod: every pod placed opening the fewest nodes;
   * fewest-nodes: every pod placed on the fewest nodes (the bound on nodes of plans placing all);
   * most-pods: the most pods placed, nothing else.
   */
  readonly goal?: 'plan' | 'every-pod' | 'fewest-nodes' | 'most-pods';
}

/** Pods of one shape, in queue order, and what the model knows of them. */
export interface Group {
  readonly pods: PodInfo[];
  readonly requests: Float64Array;
  readonly level: number;
  /** Required anti-affinity on the hostname matching its own pods: one per node. */
  readonly selfAntiAffine: boolean;
}

export interface Bin {
  /** Node indices (one unless aggregated). */
  readonly nodes: readonly number[];
  readonly free: Float64Array;
  /** Per resource: one node's allocatable. */
  readonly capacity: Float64Array;
  readonly freePods: number;
  /** The node held pods before the plan: using it takes no node into use. */
  readonly occupied: boolean;
}

export interface PlacementModel {
  readonly model: MilpModel;
  readonly groups: readonly Group[];
  readonly bins: readonly Bin[];
  readonly nodes: readonly NodeInfo[];
  /** x columns: group, bin, column. */
  readonly assignments: ReadonlyArray<{ readonly group: number; readonly bin: number; readonly column: number }>;
  /** y column per bin. */
  readonly usage: readonly number[];
  /** What placing one pod of a group is worth in the objective (per priority level, by group). */
  readonly placementWeight: readonly number[];
  /** The per-node cost in the objective of a bin's y: opened nodes 1, plus `usedWeight` for every node used. */
  readonly usedWeight: number;
}

/** A request's pods in groups of one shape, its nodes in bins, and the engine's verdict per group and bin. */
export interface PlacementClasses {
  readonly groups: readonly Group[];
  readonly bins: readonly Bin[];
  readonly nodes: readonly NodeInfo[];
  /** The resources the set asks for; groups' requests and bins' amounts in this order (memory in MiB). */
  readonly resources: readonly string[];
  /** Per group and bin: the filters let the group's pods go there (spread and the set's own pod affinity aside, which more pods change). */
  readonly allowed: ReadonlyArray<ReadonlyArray<boolean>>;
  /** The priority levels, highest first: a group's `level` indexes them. */
  readonly levels: readonly number[];
  /** Every pod, in queue order. */
  readonly pods: readonly PodInfo[];
  /**
   * DRA claims several pods of one group share (node-local devices): the group goes to one node,
   * where the claim's devices (`demand`, resources' order) are taken once.
   */
  readonly shared: ReadonlyArray<{ readonly group: number; readonly demand: Float64Array }>;
}

/**
 * The request's pods grouped by shape and its nodes into bins (one per node, or with `aggregate`
 * alike empty nodes pooled), with the engine's verdict per group and bin: PreFilter once per group,
 * Filter once per group on the bin's first node (the others are alike by construction).
 */
export function placementClasses(request: PlanRequest, aggregate: boolean): PlacementClasses {
  const whatIf = new WhatIf(request.snapshot);
  const feasibility = new Feasibility(request.framework, whatIf, request.eligible);
  const nodes = whatIf.nodes;
  const pods = queueOrder(request.framework, request.pods);
  const base = resourceNames(pods);
  // Devices the set's own claims ask for count as resources too (dynamicresources/counts.ts: conditions every allocation meets).
  const devices = deviceCounts(
    pods.map((p) => p.pod),
    request.snapshot.objects?.()?.deviceClasses ? (request.snapshot.objects?.() ?? {}) : (request.framework.handle.objects?.() ?? {}),
  );
  const resources = devices ? [...base, ...devices.names] : base;
  const B = base.length;
  const amount = (name: string, value: number) => (name === MEMORY ? value / MEMORY_UNIT : value);
  const withDevices = (amounts: Float64Array, more: Float64Array | undefined): Float64Array => {
    if (!devices) return amounts;
    const out = new Float64Array(resources.length);
    out.set(amounts);
    if (more) out.set(more, B);
    return out;
  };

  const levels = [...new Set(pods.map((p) => p.pod.spec.priority ?? 0))].sort((a, b) => b - a);
  const groupOf = new Map<string, Group>();
  for (const pod of pods) {
    // A pod with its own node restriction is a group of its own.
    const key = request.eligible?.has(pod.key) ? `pod:${pod.key}` : podShape(pod);
    let group = groupOf.get(key);
    if (!group) {
      const requests = withDevices(
        Float64Array.from(base, (name) => amount(name, pod.requests.get(name))),
        devices?.demand(pod.pod),
      );
      group = { pods: [], requests, level: levels.indexOf(pod.pod.spec.priority ?? 0), selfAntiAffine: avoidsItsOwnShape(pod) };
      groupOf.set(key, group);
    }
    group.pods.push(pod);
  }
  const groups = [...groupOf.values()];

  const bins: Bin[] = [];
  const classes = new Map<string, number>();
  nodes.forEach((node, n) => {
    const occupied = node.pods.length > 0;
    const supply = devices?.supply(node.node);
    // Nodes alike but for their devices are not alike.
    const key = aggregate && !occupied ? `${nodeClass(node.node)}${supply ? JSON.stringify([...supply.free]) : ''}` : `node:${n}`;
    const existing = classes.get(key);
    if (existing !== undefined) {
      (bins[existing]?.nodes as number[]).push(n);
      return;
    }
    const free = withDevices(
      Float64Array.from(base, (name) => amount(name, Math.max(0, node.allocatable.get(name) - node.requested.get(name)))),
      supply?.free,
    );
    const capacity = withDevices(
      Float64Array.from(base, (name) => amount(name, node.allocatable.get(name))),
      supply?.total,
    );
    classes.set(key, bins.length);
    bins.push({ nodes: [n], free, capacity, freePods: Math.max(0, node.allocatable.allowedPodNumber - node.pods.length), occupied });
  });

  const allowed = groups.map((group) => {
    const pod = group.pods[0] as PodInfo;
    const prepared = feasibility.prepare(pod);
    return bins.map((bin) => {
      const n = bin.nodes[0] as number;
      if (prepared.stopped || !prepared.allowed[n]) return false;
      const status = request.framework.filterNode(prepared.state, pod, nodes[n] as NodeInfo);
      if (isSuccess(status)) return true;
      // Spread is modelled; required pod affinity may be met by the set's own pods.
      return status.plugin === Names.PodTopologySpread || (status.plugin === Names.InterPodAffinity && hasRequiredAffinity(pod));
    });
  });
  // A shared claim whose pods are all of one group (else it is left to the replay through Filter).
  const shared = (devices?.shared ?? []).flatMap(({ pods: sharing, demand }) => {
    const g = groups.findIndex((group) => group.pods.some((p) => p.pod === sharing[0]));
    const members = new Set(groups[g]?.pods.map((p) => p.pod));
    return g >= 0 && sharing.every((p) => members.has(p)) ? [{ group: g, demand: withDevices(new Float64Array(B), demand) }] : [];
  });
  return { groups, bins, nodes, resources, allowed, levels, pods, shared };
}

/** The model of a request's placement. */
export function placementModel(
  request: PlanRequest,
  options: PlacementModelOptions = {},
  classes = placementClasses(request, options.aggregate ?? false),
): PlacementModel {
  const { groups, bins, nodes, resources, allowed, levels, pods, shared } = classes;
  const R = resources.length;

  const N = nodes.length;
  const P = pods.length;
  const usedWeight = 1 / (N + 1);
  const objective = request.objective;
  const binCost = (bin: Bin) =>
    objective === 'cost' ? nodeCost((nodes[bin.nodes[0] as number] as NodeInfo).node) : (bin.occupied ? 0 : 1) + usedWeight;
  // What a pod of the set crowding a node (spread) or kept where it was (moves) weighs: more than every node's cost together.
  const perPod = N + 2;
  // The most the objective's other terms can add up to (node costs, peak, crowding, pods kept).
  const secondary =
    bins.reduce((sum, bin) => sum + binCost(bin) * bin.nodes.length, 0) +
    1 +
    (objective === 'spread' || objective === 'moves' ? perPod * P : 0);
  // One more pod at a level outweighs all of that, and every pod of the levels below.
  const placementWeight = levels.map((_, l) => (secondary + 1) * (P + 1) ** (levels.length - 1 - l));
  const goal = options.goal ?? 'plan';
  const builder = new MilpBuilder();
  // Whole costs where placement is fixed: the solver proves integral objectives far sooner.
  const usageCost = (bin: Bin) =>
    goal === 'fewest-nodes' ? 1 : goal === 'most-pods' ? 0 : goal === 'every-pod' ? (bin.occupied ? 0 : 1) : binCost(bin);
  const usage = bins.map((bin) => builder.column(usageCost(bin), 0, bin.nodes.length, true));
  const assignments: Array<{ group: number; bin: number; column: number }> = [];
  const perNodeMost = (group: Group, bin: Bin): number => {
    let most = Math.min(group.pods.length, bin.freePods);
    if (group.selfAntiAffine) most = Math.min(most, 1);
    for (let k = 0; k < R; k++) {
      const need = group.requests[k] as number;
      if (need > 0) most = Math.min(most, Math.floor((bin.free[k] as number) / need + 1e-9));
    }
    return most;
  };
  const byBin: Array<Array<{ group: number; column: number }>> = bins.map(() => []);
  const byGroup: Array<Array<{ bin: number; column: number }>> = groups.map(() => []);
  groups.forEach((group, g) => {
    const weight =
      goal === 'fewest-nodes' || goal === 'every-pod' ? 0 : goal === 'most-pods' ? -1 : -(placementWeight[group.level] as number);
    bins.forEach((bin, b) => {
      if (!allowed[g]?.[b]) return;
      const most = perNodeMost(group, bin);
      if (most <= 0) return;
      const column = builder.column(weight, 0, Math.min(group.pods.length, most * bin.nodes.length), true);
      assignments.push({ group: g, bin: b, column });
      byBin[b]?.push({ group: g, column });
      byGroup[g]?.push({ bin: b, column });
      // x <= most * y: the pods go only to nodes in use (and a node holds at most `most`).
      builder.row(
        [
          [column, 1],
          [usage[b] as number, -most],
        ],
        -Infinity,
        0,
      );
    });
    const row = (byGroup[g] ?? []).map(({ column }) => [column, 1] as const);
    builder.row(row, goal === 'fewest-nodes' || goal === 'every-pod' ? group.pods.length : 0, group.pods.length);
  });
  // A shared claim: its group on one node (u per bin, at most one), the claim's devices taken there once.
  const claimsByBin: Array<Array<{ column: number; demand: Float64Array }>> = bins.map(() => []);
  for (const { group: g, demand } of shared) {
    const on = (byGroup[g] ?? []).map(({ bin, column }) => {
      const u = builder.column(0, 0, 1, true);
      builder.row(
        [
          [column, 1],
          [u, -perNodeMost(groups[g] as Group, bins[bin] as Bin)],
        ],
        -Infinity,
        0,
      );
      claimsByBin[bin]?.push({ column: u, demand });
      return [u, 1] as const;
    });
    if (on.length > 0) builder.row(on, -Infinity, 1);
  }
  bins.forEach((bin, b) => {
    const here = byBin[b] ?? [];
    if (here.length === 0) return;
    const claims = claimsByBin[b] ?? [];
    for (let k = 0; k < R; k++) {
      const entries = here.map(({ group, column }) => [column, (groups[group] as Group).requests[k] as number] as const);
      const once = claims
        .filter(({ demand }) => (demand[k] as number) > 0)
        .map(({ column, demand }) => [column, demand[k] as number] as const);
      builder.row([...entries, ...once, [usage[b] as number, -(bin.free[k] as number)]], -Infinity, 0);
    }
    builder.row([...here.map(({ column }) => [column, 1] as const), [usage[b] as number, -bin.freePods]], -Infinity, 0);
  });
  spreadRows(builder, groups, bins, nodes, byGroup, allowed, options.aggregate ?? false);
  if (request.gang !== undefined && (goal === 'plan' || goal === 'most-pods')) gangRows(builder, request.gang, assignments, P);
  if (goal === 'plan' || goal === 'every-pod') {
    if (objective === 'balance') balanceRows(builder, resources, groups, bins, byBin, usage);
    if (objective === 'spread') spreadOutRows(builder, bins, byBin, perPod);
    if (objective === 'moves' && request.previous) keptRows(builder, request.previous, groups, bins, nodes, byGroup, perPod);
  }
  return { model: builder.build('minimize'), groups, bins, nodes, assignments, usage, placementWeight, usedWeight };
}

/** The resources the set asks for (cpu and memory always). */
function resourceNames(pods: readonly PodInfo[]): string[] {
  const names = new Set<string>([CPU, MEMORY]);
  for (const p of pods) for (const name of p.requests.names()) if (name !== PODS) names.add(name);
  return [...names];
}

/**
 * Topology spread (DoNotSchedule) per distinct constraint: the pods it counts (the set's groups
 * its selector matches, in its namespace, and the pods on the nodes already) per domain, never more
 * than maxSkew above the least counted domain (or the skew already there, if larger). While the
 * counts keep to that, every pod placed kept to it at its turn too (counts only grow).
 */
function spreadRows(
  builder: MilpBuilder,
  groups: readonly Group[],
  bins: readonly Bin[],
  nodes: readonly NodeInfo[],
  byGroup: ReadonlyArray<ReadonlyArray<{ bin: number; column: number }>>,
  allowed: ReadonlyArray<ReadonlyArray<boolean>>,
  aggregated: boolean,
): void {
  const seen = new Set<string>();
  groups.forEach((group, g) => {
    const pod = (group.pods[0] as PodInfo).pod;
    const namespace = pod.metadata.namespace;
    for (const constraint of pod.spec.topologySpreadConstraints ?? []) {
      // Pooled nodes differ in their hostname only: spread over hostnames is not counted per node there (the bound stays a bound).
      if (constraint.whenUnsatisfiable !== 'DoNotSchedule' || (aggregated && constraint.topologyKey === HOSTNAME)) continue;
      const key = JSON.stringify([namespace, constraint.topologyKey, constraint.maxSkew, constraint.labelSelector]);
      if (seen.has(key)) continue;
      seen.add(key);
      const counted = (labels: Node['metadata']['labels'], ns: string | undefined) =>
        ns === namespace && selectorMatches(constraint.labelSelector as LabelSelector, labels);
      // Domains: the key's values on nodes the constrained group may use at all.
      const domains = new Map<string, { existing: number; entries: Array<readonly [number, number]> }>();
      bins.forEach((bin, b) => {
        if (!allowed[g]?.[b]) return;
        for (const n of bin.nodes) {
          const value = (nodes[n] as NodeInfo).node.metadata.labels?.[constraint.topologyKey];
          if (value !== undefined && !domains.has(value)) domains.set(value, { existing: 0, entries: [] });
        }
      });
      if (domains.size < 2) continue;
      nodes.forEach((node) => {
        const domain = domains.get(node.node.metadata.labels?.[constraint.topologyKey] ?? '');
        if (domain) domain.existing += node.pods.filter((p) => counted(p.pod.metadata.labels, p.pod.metadata.namespace)).length;
      });
      const members = groups.map((other) =>
        counted((other.pods[0] as PodInfo).pod.metadata.labels, (other.pods[0] as PodInfo).pod.metadata.namespace),
      );
      groups.forEach((_, other) => {
        if (!members[other]) return;
        for (const { bin, column } of byGroup[other] ?? []) {
          const value = spreadDomain(bins[bin] as Bin, nodes, constraint);
          if (value !== undefined) domains.get(value)?.entries.push([column, 1]);
        }
      });
      const existing = [...domains.values()].map((d) => d.existing);
      const skew = Math.max(constraint.maxSkew, Math.max(...existing) - Math.min(...existing));
      const least = builder.column(0, 0, Infinity, false);
      for (const domain of domains.values()) {
        // least <= count(domain) and count(domain) - least <= skew
        builder.row([...domain.entries, [least, -1]], -domain.existing, Infinity);
        builder.row([...domain.entries, [least, -1]], -Infinity, skew - domain.existing);
      }
    }
  });
}

/** The spread domain of a bin's nodes (alike in their labels when aggregated). */
function spreadDomain(bin: Bin, nodes: readonly NodeInfo[], constraint: TopologySpreadConstraint): string | undefined {
  return (nodes[bin.nodes[0] as number] as NodeInfo).node.metadata.labels?.[constraint.topologyKey];
}

/** A gang: at least `minimum` pods placed, or none (a binary switch). */
function gangRows(builder: MilpBuilder, minimum: number, assignments: ReadonlyArray<{ column: number }>, total: number): void {
  const runs = builder.column(0, 0, 1, true);
  const all = assignments.map(({ column }) => [column, 1] as const);
  builder.row([...all, [runs, -minimum]], 0, Infinity);
  builder.row([...all, [runs, -total]], -Infinity, 0);
}

/**
 * Balance: the busiest share of cpu or memory over the nodes the set uses, `peak`, is minimized
 * below placement: peak >= (requested + set's) / allocatable on every bin, for cpu and memory.
 */
function balanceRows(
  builder: MilpBuilder,
  resources: readonly string[],
  groups: readonly Group[],
  bins: readonly Bin[],
  byBin: ReadonlyArray<ReadonlyArray<{ group: number; column: number }>>,
  usage: readonly number[],
): void {
  // Peak is at most 1: the weights of placement (at least N + 2) outweigh it; node use counts below it.
  for (const y of usage) builder.setCost(y, 1e-3 / (usage.length + 1));
  const peak = builder.column(1, 0, 1, false);
  bins.forEach((bin, b) => {
    const here = byBin[b] ?? [];
    if (here.length === 0 || bin.nodes.length !== 1) return;
    for (const name of [CPU, MEMORY]) {
      const k = resources.indexOf(name);
      const capacity = bin.capacity[k] as number;
      if (capacity <= 0) continue;
      // On a node the set uses (y = 1): (its pods' requests + the set's) / allocatable <= peak.
      const set = here.map(({ group, column }) => [column, (groups[group] as Group).requests[k] as number] as const);
      builder.row([...set, [usage[b] as number, capacity - (bin.free[k] as number)], [peak, -capacity]], -Infinity, 0);
    }
  });
}

/** Spread: the most pods of the set on one node, `crowd`, weighs `perPod` a pod: crowd >= the set's pods on every node. */
function spreadOutRows(
  builder: MilpBuilder,
  bins: readonly Bin[],
  byBin: ReadonlyArray<ReadonlyArray<{ column: number }>>,
  perPod: number,
): void {
  const crowd = builder.column(perPod, 0, Infinity, false);
  bins.forEach((bin, b) => {
    const here = byBin[b] ?? [];
    // A pooled bin's pods spread over its nodes in use at the best.
    if (here.length > 0 && bin.nodes.length === 1)
      builder.row([...here.map(({ column }) => [column, 1] as const), [crowd, -1]], -Infinity, 0);
  });
}

/**
 * Moves: each pod kept on the node the current plan gives it earns `perPod`: kept[g][n] is at most
 * x[g][n] and at most the group's pods planned there.
 */
function keptRows(
  builder: MilpBuilder,
  previous: ReadonlyMap<string, string>,
  groups: readonly Group[],
  bins: readonly Bin[],
  nodes: readonly NodeInfo[],
  byGroup: ReadonlyArray<ReadonlyArray<{ bin: number; column: number }>>,
  perPod: number,
): void {
  groups.forEach((group, g) => {
    const planned = new Map<string, number>();
    for (const pod of group.pods) {
      const node = previous.get(pod.key);
      if (node !== undefined) planned.set(node, (planned.get(node) ?? 0) + 1);
    }
    for (const { bin, column } of byGroup[g] ?? []) {
      const nodesOfBin = (bins[bin] as Bin).nodes;
      const count = nodesOfBin.length === 1 ? (planned.get((nodes[nodesOfBin[0] as number] as NodeInfo).name) ?? 0) : 0;
      if (count === 0) continue;
      const kept = builder.column(-perPod, 0, count, false);
      builder.row(
        [
          [kept, 1],
          [column, -1],
        ],
        -Infinity,
        0,
      );
    }
  });
}

function hasRequiredAffinity(pod: PodInfo): boolean {
  return (pod.pod.spec.affinity?.podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).length > 0;
}

/** Required anti-affinity on the hostname whose selector matches the pod itself (its own template's replicas). */
export function avoidsItsOwnShape(p: PodInfo): boolean {
  const namespace = p.pod.metadata.namespace;
  return (p.pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).some(
    (term) =>
      term.topologyKey === HOSTNAME &&
      !term.namespaceSelector &&
      (!term.namespaces?.length || (namespace !== undefined && term.namespaces.includes(namespace))) &&
      selectorMatches(term.labelSelector, p.pod.metadata.labels),
  );
}

/** Nodes that are interchangeable while empty: the same capacity, labels (but the hostname), taints and schedulability. */
export function nodeClass(node: Node): string {
  const { [HOSTNAME]: _, ...labels } = node.metadata.labels ?? {};
  const sorted = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([node.status?.allocatable ?? node.status?.capacity, sorted, node.spec?.taints, node.spec?.unschedulable]);
}

/** A heuristic's plan as a start for the model: its counts per group and bin, and the nodes it uses of each bin. */
export function startOf(placement: PlacementModel, result: PlannerResult): Float64Array | undefined {
  const values = new Float64Array(placement.model.cost.length);
  const groupOfPod = new Map<PodInfo, number>();
  placement.groups.forEach((group, g) => group.pods.forEach((pod) => groupOfPod.set(pod, g)));
  const binOf = new Map<string, number>();
  placement.bins.forEach((bin, b) => bin.nodes.forEach((n) => binOf.set((placement.nodes[n] as NodeInfo).name, b)));
  const column = new Map(placement.assignments.map((a) => [`${a.group}/${a.bin}`, a.column]));
  const used = new Set<string>();
  for (const { pod, node } of result.placed) {
    const g = groupOfPod.get(pod);
    const b = binOf.get(node);
    const c = column.get(`${g}/${b}`);
    // A placement the model does not allow (a verdict the engine changed with more pods): no start.
    if (g === undefined || b === undefined || c === undefined) return undefined;
    values[c] = (values[c] as number) + 1;
    if (!used.has(node)) {
      used.add(node);
      const y = placement.usage[b] as number;
      values[y] = (values[y] as number) + 1;
    }
  }
  return values;
}

/**
 * Each pod's node by a solution of the (unaggregated) model: pods the current plan put on a node the
 * solution gives their group keep it; the others take the group's nodes round-robin, so spread
 * counts grow evenly in queue order.
 */
export function targetsOf(placement: PlacementModel, values: Float64Array, previous?: ReadonlyMap<string, string>): Map<PodInfo, string> {
  const targets = new Map<PodInfo, string>();
  const perGroup = placement.groups.map(() => [] as Array<{ node: string; count: number }>);
  for (const { group, bin, column } of placement.assignments) {
    const count = Math.round(values[column] as number);
    const nodes = (placement.bins[bin] as Bin).nodes;
    if (count > 0 && nodes.length === 1) perGroup[group]?.push({ node: (placement.nodes[nodes[0] as number] as NodeInfo).name, count });
  }
  placement.groups.forEach((group, g) => {
    const slots = perGroup[g] ?? [];
    const waiting: PodInfo[] = [];
    for (const pod of group.pods) {
      const slot = slots.find((s) => s.count > 0 && s.node === previous?.get(pod.key));
      if (!slot) waiting.push(pod);
      else {
        targets.set(pod, slot.node);
        slot.count--;
      }
    }
    let i = 0;
    while (i < waiting.length && slots.some((s) => s.count > 0)) {
      for (const slot of slots) {
        if (slot.count === 0 || i >= waiting.length) continue;
        targets.set(waiting[i++] as PodInfo, slot.node);
        slot.count--;
      }
    }
  });
  return targets;
}
