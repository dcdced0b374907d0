// The optimizing planner: places as many pods as it can (by priority), then uses as few nodes as
// it can (pack) or keeps the busiest node as low as it can (balance), with every filter plugin of
// the profile deciding what fits.
//
//   0. pack and cost: the classes' plan (class-plan.ts): filters once per pod group and node
//      class, a node-by-node packing in arithmetic, replayed through the filters. Large sets
//      (pods × nodes beyond SOLVER_MAX_PAIRS) take it as it is unless the solver proves more pods
//      placeable than it places; smaller ones weigh it against the search below;
//   1. construction: pods by priority, most constrained first (fewest nodes to go to), then the
//      largest first (first-fit decreasing); each to the tightest open node, or to the best node
//      to open (pack), or to the node left least loaded (balance). With a solver, also its guided
//      construction (guided.ts). When the first leaves pods out, the smallest first too, and the
//      greedy plan itself; the best start is kept;
//   2. repair (of every start, before they are compared): a pod left out takes a node after the
//      set's pods in its way move elsewhere;
//   3. improvement: empty the least used nodes into the others (pack), or move pods off the
//      busiest node (balance);
//   4. small sets: an exact branch and bound from there, which proves the optimum when it ends;
//   5. replay in queue order, the order the scheduler will carry the plan out, so every placement
//      holds for the pods placed before it; a pod whose node no longer holds at its turn is placed
//      again, and pods that fit only once later pods are placed (pod affinity) are retried;
//   6. the best of that, the classes' plan and the greedy plan: never worse than greedy (large
//      sets that take the classes' plan skip greedy, which costs more than the whole plan there);
//   7. with a solver in the request: the solver's plan from there when the engine accepts it and it
//      is better (solver/solve-milp.ts), and the proven bound beside the plan.
//
// Search effort is counted in work units (a node looked at, a filter run), never in time, so a
// plan is the same on every machine; so is the solver's (SOLVER_WORK: branch-and-bound nodes,
// simplex iterations), its time limit only a safety net.
import type { PodInfo } from '../../framework/node-info';
import { better, boundOf, proveBound, type ProvenBound } from '../solver/bound';
import { classPlan } from '../search/class-plan';
import { placementClasses } from '../solver/milp';
import { exactSearch } from '../search/branch-and-bound';
import { greedy } from './greedy';
import { guidedTargets } from '../search/guided';
import { queueOrder, type Planner, type PlannerResult, type PlanRequest, type SolverSettings } from '../planner';
import { compareQuality, quality } from '../search/quality';
import { replay } from '../search/replay';
import { Search, UNPLACED } from '../search/search';
import { solveExactly } from '../solver/solve-milp';
import type { MilpWorkLimit } from '../solver/solver';

export const OPTIMIZE = 'optimize';

/** Work allowed for repair and for improvement each, per pod and node of the request (in node looks). */
const WORK_PER_ITEM = 4000;
/** Sets up to this many pods get the exact search too. */
export const EXACT_MAX_PODS = 40;
/** How far the exact search in the planner may go (in filter runs). */
const EXACT_BUDGET = 20_000;
/**
 * The work each solve of the optimizing planner may do: what ends it, so a request and seed give the
 * same plan on a quiet machine and on a loaded one; the request's time limit stays a safety net
 * above it. Branch-and-bound nodes by the model's width: the generated sets of 20 to 60 pods (60 to
 * 210 columns) get 50 to 170 nodes and settle within 30; 100 pods on 50 nodes (600 columns) get 16,
 * which cost seconds already. The LP of 5000 pods ends within 5000 iterations. The exact planner has
 * no work limit.
 */
export const SOLVER_WORK: MilpWorkLimit = { branchNodeColumns: 10_000, simplexIterations: 200_000 };
/** Sets up to this many pods times nodes get the solver's plan too (beyond, its model takes longer to build than to plan). */
const SOLVER_MAX_PAIRS = 100_000;
/** How many nodes repair tries to clear for one pod. */
const REPAIR_TARGETS = 8;

export const optimize: Planner = {
  name: OPTIMIZE,
  plan(request) {
    const solver = request.solver && { ...request.solver, work: SOLVER_WORK };
    const pairs = request.pods.length * request.snapshot.list().length;
    const packs = request.objective === 'pack' || request.objective === 'cost';
    const large = pairs > SOLVER_MAX_PAIRS;
    // The greedy baseline first, while the framework's tie-breaking draws are where a plain greedy plan starts them.
    const baseline = large ? undefined : greedy.plan(request);
    // Packing: the classes' plan (filters once per pod group and node class); large sets that it places whole take it as it is.
    const classes = packs ? placementClasses(request, true) : undefined;
    // Large sets: the balanced fill alone (the other rarely wins there, and costs as much again), and
    // their bound (the LP relaxation's) as soon as it leaves pods out: no smaller-first packing then when no plan places more.
    let proven: ProvenBound | undefined;
    let proved = false;
    const placeable = (placed: number) => {
      proved = true;
      proven = solver && proveBound(request, solver, classes, placed);
      return proven?.placeable;
    };
    const packed = classes && (large ? classPlan(request, classes, ['balanced'], placeable) : classPlan(request, classes));
    if (!large || !packed) {
      const best = searched(request, solver, packed, baseline);
      // With a solver: its plan from there when better (sets small enough to model pod shape by node), and the proven bound.
      if (!solver) return best;
      const limited = { ...request, solver };
      return large ? withBound(limited, best, proveBound(limited, solver)) : solveExactly(limited, best);
    }
    // Large sets take the classes' plan unless the solver proves more pods placeable than it places (the
    // pod-by-pod search costs many times more there).
    if (!proved) proven = solver && proveBound(request, solver, classes, packed.placed.length);
    const short = packed.unplaced.length > 0 && proven?.placeable !== undefined && packed.placed.length < proven.placeable;
    const best = short ? searched(request, solver, packed, greedy.plan(request)) : packed;
    return solver ? withBound({ ...request, solver }, best, proven) : best;
  },
};

function withBound(
  request: PlanRequest & { solver: SolverSettings },
  result: PlannerResult,
  proven: ProvenBound | undefined,
): PlannerResult {
  return proven ? { ...result, bound: boundOf(request, result, proven, request.solver.solver.name) } : result;
}

/** The pod-by-pod search (construction, repair, improvement, exact search), never worse than greedy nor than `packed`. */
function searched(
  request: PlanRequest,
  solver: SolverSettings | undefined,
  packed: PlannerResult | undefined,
  baseline = greedy.plan(request),
): PlannerResult {
  const budget = WORK_PER_ITEM * (request.pods.length + request.snapshot.list().length);
  const search = constructed(request, baseline, solver, budget);
  improve(search, search.work + budget);
  let planned = replay(request, targetsOf(search));
  // The branch and bound prunes by nodes (pack) or peak (balance) only.
  if (request.pods.length <= EXACT_MAX_PODS && (request.objective === 'pack' || request.objective === 'balance')) {
    const exact = exactSearch(request, { budget: EXACT_BUDGET, incumbent: planned });
    if (exact.improved) planned = replay(request, exact.targets);
  }
  const candidates = [planned, baseline, ...(packed ? [packed] : [])];
  return candidates.reduce((a, b) => better(request, a, b));
}

/**
 * Where the search starts: the construction in first-fit-decreasing order; with a solver, also its
 * guided construction (guided.ts); when the first leaves pods out, also smallest first (more pods
 * fit) and the greedy plan itself (spreading can fit more still, resources left over on every
 * node); each repaired, whichever is best then.
 */
const placedBy = (s: Search): PlannerResult => ({ placed: [...targetsOf(s)].map(([pod, node]) => ({ pod, node })), unplaced: [] });

function constructed(request: PlanRequest, baseline: PlannerResult, solver: SolverSettings | undefined, budget: number): Search {
  const order = constructionOrder(request, 'largest');
  const decreasing = new Search(order, request);
  construct(decreasing);
  const starts = [decreasing];
  // The aggregated model counts nodes and their costs: it guides packing, not spreading or keeping.
  const guided =
    solver && (request.objective === 'pack' || request.objective === 'cost') && guidedTargets(request, solver, placedBy(decreasing));
  if (guided) starts.push(guidedStart(request, order, guided));
  if (decreasing.at.includes(UNPLACED)) {
    const increasing = new Search(constructionOrder(request, 'smallest'), request);
    construct(increasing);
    const fromBaseline = new Search(order, request);
    const index = new Map(order.map((pod, i) => [pod, i]));
    // Greedy's placement holds in its own order: it is taken as it is.
    for (const { pod, node } of baseline.placed) fromBaseline.place(index.get(pod) as number, fromBaseline.whatIf.indexOf(node) as number);
    starts.push(increasing, fromBaseline);
  }
  // Each start repaired (its pods left out placed where moves make room) before they are compared.
  for (const start of starts) repair(start, start.work + budget);
  if (starts.length === 1) return decreasing;
  const ranked = starts.map((s) => ({ search: s, quality: quality(request, placedBy(s)) }));
  ranked.sort((a, b) => compareQuality(a.quality, b.quality, request.objective));
  return (ranked[0] as { search: Search }).search;
}

/**
 * The solver's guided targets as a start: the pods its rounding left without a node go first, in
 * construction order (they are the hard ones: scarce GPUs, a spread at its limit), then every
 * other pod to its target when the filters take it there, else to the best node then.
 */
function guidedStart(request: PlanRequest, order: readonly PodInfo[], targets: ReadonlyMap<PodInfo, string>): Search {
  const search = new Search(order, request);
  const place = (pod: number, node: number | undefined) => {
    const target = node !== undefined && search.feasibility.fits(order[pod] as PodInfo, node) ? node : search.choose(pod);
    if (target !== UNPLACED) search.place(pod, target);
  };
  order.forEach((pod, p) => targets.has(pod) || place(p, undefined));
  order.forEach((pod, p) => {
    const target = targets.get(pod);
    if (target !== undefined) place(p, search.whatIf.indexOf(target));
  });
  return search;
}

/** Priority first; then pods with fewer nodes to go to; then by size (`first`); then queue order. */
function constructionOrder(request: PlanRequest, first: 'largest' | 'smallest'): PodInfo[] {
  const queued = queueOrder(request.framework, request.pods);
  const probe = new Search(queued, request);
  const keys = queued.map((pod, i) => {
    const prepared = probe.feasibility.prepare(pod);
    let candidates = 0;
    if (!prepared.stopped)
      for (let n = 0; n < probe.nodeCount; n++) if (prepared.allowed[n] && probe.feasibility.hasRoom(pod, n)) candidates++;
    return { i, priority: probe.priority[i] as number, candidates, size: probe.size(i) };
  });
  const bySize =
    first === 'largest'
      ? (a: { size: number }, b: { size: number }) => b.size - a.size
      : (a: { size: number }, b: { size: number }) => a.size - b.size;
  keys.sort((a, b) => b.priority - a.priority || a.candidates - b.candidates || bySize(a, b) || a.i - b.i);
  return keys.map((k) => queued[k.i] as PodInfo);
}

function construct(search: Search): void {
  for (let pod = 0; pod < search.pods.length; pod++) {
    const node = search.choose(pod);
    if (node !== UNPLACED) search.place(pod, node);
  }
}

/**
 * Each pod left out, highest priority first: placed directly if the moves since made room, else
 * on a node cleared for it: the set's pods there (of no higher priority, smallest first) are moved
 * out until it fits, then placed elsewhere. Kept when every moved pod found a place, or when the
 * ones that did not have a lower priority than the pod that took their place.
 */
function repair(search: Search, limit: number): void {
  const left = [...search.pods.keys()].filter((p) => search.at[p] === UNPLACED);
  for (const pod of left) {
    if (search.work > limit) return;
    const node = search.choose(pod);
    if (node !== UNPLACED) search.place(pod, node);
    else clearNodeFor(search, pod);
  }
}

function clearNodeFor(search: Search, pod: number): boolean {
  const info = search.pods[pod] as PodInfo;
  const prepared = search.feasibility.prepare(info);
  if (prepared.stopped) return false;
  const priority = search.priority[pod] as number;
  const movable = (node: number) => (search.setPodsOn[node] as number[]).filter((p) => (search.priority[p] as number) <= priority);
  const targets: Array<{ node: number; load: number }> = [];
  for (let n = 0; n < search.nodeCount; n++) {
    if (!prepared.allowed[n] || !roomWithout(search, pod, n, movable(n))) continue;
    const load = movable(n).reduce((sum, p) => sum + search.size(p), 0);
    if (load > 0) targets.push({ node: n, load });
  }
  targets.sort((a, b) => a.load - b.load || a.node - b.node);
  for (const { node } of targets.slice(0, REPAIR_TARGETS)) {
    const moved: number[] = [];
    for (const victim of movable(node).sort((a, b) => search.size(a) - search.size(b) || a - b)) {
      if (search.feasibility.hasRoom(info, node)) break;
      search.remove(victim);
      moved.push(victim);
    }
    if (!search.feasibility.fits(info, node)) {
      for (const victim of moved) search.place(victim, node);
      continue;
    }
    search.place(pod, node);
    const rehomed: number[] = [];
    const homeless: number[] = [];
    for (const victim of [...moved].sort((a, b) => search.size(b) - search.size(a) || a - b)) {
      const target = search.choose(victim);
      if (target === UNPLACED) homeless.push(victim);
      else {
        search.place(victim, target);
        rehomed.push(victim);
      }
    }
    if (homeless.every((v) => (search.priority[v] as number) < priority)) return true;
    for (const victim of rehomed) search.remove(victim);
    search.remove(pod);
    for (const victim of moved) search.place(victim, node);
  }
  return false;
}

/** Whether the pod's requests would fit on the node with `movable` gone (cpu, memory, pod count). */
function roomWithout(search: Search, pod: number, node: number, movable: readonly number[]): boolean {
  const info = search.node(node);
  const r = (search.pods[pod] as PodInfo).requests;
  let cpu = info.requested.milliCPU;
  let memory = info.requested.memory;
  for (const p of movable) {
    cpu -= (search.pods[p] as PodInfo).requests.milliCPU;
    memory -= (search.pods[p] as PodInfo).requests.memory;
  }
  return (
    info.pods.length - movable.length + 1 <= info.allocatable.allowedPodNumber &&
    r.milliCPU <= info.allocatable.milliCPU - cpu &&
    r.memory <= info.allocatable.memory - memory
  );
}

/**
 * Pack and cost: empty nodes into the other nodes the set uses; balance and spread: move pods off
 * the busiest node (by load, by the set's pods); moves: nothing (every move is a move).
 */
function improve(search: Search, limit: number): void {
  switch (search.objective) {
    case 'pack':
    case 'cost':
      return emptyNodes(search, limit);
    case 'balance':
      return flattenPeak(search, limit, (node, pod) => search.peak(node, pod));
    case 'spread':
      return flattenPeak(
        search,
        limit,
        (node, pod = -1) => (search.setPodsOn[node] as number[]).length + (pod >= 0 ? 1 : 0) + search.peak(node, pod) / 2,
      );
    case 'moves':
      return;
  }
}

/** The set's pods on a node, as shares of the cluster: what it takes to empty it. */
function setLoad(search: Search, node: number): number {
  return (search.setPodsOn[node] as number[]).reduce((sum, p) => sum + search.size(p), 0);
}

/**
 * Nodes holding the set's pods, least loaded first: the set's pods on each are taken off and placed
 * again, largest first, on the other nodes the set uses; kept when they all find a place (one node
 * fewer), else undone. Passes repeat while one empties a node.
 */
function emptyNodes(search: Search, limit: number): void {
  for (let progress = true; progress;) {
    progress = false;
    const used = [...search.setPodsOn.keys()].filter((n) => (search.setPodsOn[n] as number[]).length > 0);
    const load = new Map(used.map((n) => [n, setLoad(search, n)]));
    // Least cost: the dearest nodes first; else the least loaded.
    const dearer = (a: number, b: number) => (search.objective === 'cost' ? (search.cost[b] as number) - (search.cost[a] as number) : 0);
    used.sort((a, b) => dearer(a, b) || (load.get(a) as number) - (load.get(b) as number) || a - b);
    for (const node of used) {
      if (search.work > limit) return;
      if (emptyNode(search, node)) progress = true;
    }
  }
}

function emptyNode(search: Search, node: number): boolean {
  const moving = [...(search.setPodsOn[node] as number[])].sort((a, b) => search.size(b) - search.size(a) || a - b);
  const elsewhere = (n: number) => n !== node && (search.setPodsOn[n] as number[]).length > 0;
  // Most nodes cannot be emptied: their requests alone say so, before any plugin runs.
  search.scanned += moving.length * search.nodeCount;
  if (!search.couldHold(moving, elsewhere)) return false;
  for (const pod of moving) search.remove(pod);
  const moved: number[] = [];
  for (const pod of moving) {
    const target = search.choose(pod, elsewhere);
    if (target === UNPLACED) break;
    search.place(pod, target);
    moved.push(pod);
  }
  if (moved.length === moving.length) return true;
  for (const pod of moved) search.remove(pod);
  for (const pod of moving) search.place(pod, node);
  return false;
}

/** Moves a set pod off the busiest node (by `busy`, with a pod added when given) while that lowers the busiest of the two nodes. */
function flattenPeak(search: Search, limit: number, busy: (node: number, pod?: number) => number): void {
  for (let progress = true; progress;) {
    progress = false;
    if (search.work > limit) return;
    let busiest = UNPLACED;
    for (let n = 0; n < search.nodeCount; n++) {
      if ((search.setPodsOn[n] as number[]).length > 0 && (busiest === UNPLACED || busy(n) > busy(busiest))) busiest = n;
    }
    if (busiest === UNPLACED) return;
    const before = busy(busiest);
    for (const pod of [...(search.setPodsOn[busiest] as number[])]) {
      search.remove(pod);
      const target = search.choose(pod, (n) => n !== busiest);
      if (target !== UNPLACED && busy(target, pod) < before) {
        search.place(pod, target);
        progress = true;
        break;
      }
      search.place(pod, busiest);
    }
  }
}

/** Each placed pod's node name. */
function targetsOf(search: Search): Map<PodInfo, string> {
  const targets = new Map<PodInfo, string>();
  search.pods.forEach((pod, i) => {
    const node = search.at[i] as number;
    if (node !== UNPLACED) targets.set(pod, search.node(node).name);
  });
  return targets;
}
