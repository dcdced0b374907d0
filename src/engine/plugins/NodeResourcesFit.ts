// NodeResourcesFit: PreFilter reads the pod's effective requests once; Filter rejects a node without
// room for them ("Insufficient cpu", "Too many pods", ...), unresolvable when the request exceeds the
// node's whole allocatable; PreScore/Score rate the node with the profile's strategy (LeastAllocated,
// MostAllocated or RequestedToCapacityRatio) over weighted resources, using the non-zero requests for
// cpu and memory and integer arithmetic, as upstream.
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  qualifiedNameError,
  type ArgsError,
  type FieldPath,
} from '../api/field';
import { CPU, EPHEMERAL_STORAGE, MEMORY, nodeAllocatable, podResources } from '../api/resources';
import type { DeviceClass } from '../api/dra';
import type { Node, Pod } from '../api/types';
import { CycleState as FreshCycleState } from '../framework/cycle-state';
import { ActionType, clusterEvent, type ClusterEventWithHint, type EnqueueExtensions, type QueueingHint } from '../framework/events';
import { NodeInfo as EmptyNodeInfo, podInfo } from '../framework/node-info';
import { type Result } from '../api/result';
import type { CycleState } from '../framework/cycle-state';
import {
  MAX_NODE_SCORE,
  type FilterPlugin,
  type FrameworkHandle,
  type PreFilterPlugin,
  type PreFilterResult,
  type PreScorePlugin,
  type ScorePlugin,
} from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { Code, SUCCESS, type Status } from '../framework/status';
import { ArgsReader, factoryOf } from './args';
import { CycleValue } from './cycle-value';
import { extendedResourceClasses, isDraExtendedResourceName } from './dynamicresources/extended';
import { Names } from './names';
import {
  amountOf,
  isExtendedResourceName,
  isScalarResourceName,
  Kind,
  mulDiv,
  readResourceSpecs,
  ResourceAllocation,
  type ResourceSpec,
} from './resource-allocation';

export const NAME = Names.NodeResourcesFit;

export const REASON_TOO_MANY_PODS = 'Too many pods';
export const REASON_INSUFFICIENT_CPU = 'Insufficient cpu';
export const REASON_INSUFFICIENT_MEMORY = 'Insufficient memory';
export const REASON_INSUFFICIENT_EPHEMERAL_STORAGE = 'Insufficient ephemeral-storage';

/** The reason for any other resource ("Insufficient example.com/gpu"). */
export const insufficientReason = (resource: string): string => `Insufficient ${resource}`;

export type ScoringStrategyType = 'LeastAllocated' | 'MostAllocated' | 'RequestedToCapacityRatio';
export const SCORING_STRATEGY_TYPES: readonly ScoringStrategyType[] = ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'];

/** A point of RequestedToCapacityRatio's function: utilization 0..100 → score 0..10. */
export interface UtilizationShapePoint {
  readonly utilization: number;
  readonly score: number;
}

export interface NodeResourcesFitArgs {
  /** Extended resources the filter does not check. */
  readonly ignoredResources: readonly string[];
  /** Extended resource groups (the part before "/") the filter does not check. */
  readonly ignoredResourceGroups: readonly string[];
  readonly scoringStrategy: {
    readonly type: ScoringStrategyType;
    readonly resources: readonly ResourceSpec[];
    readonly requestedToCapacityRatio?: { readonly shape: readonly UtilizationShapePoint[] };
  };
}

/** Upstream's custom score scale for shape points (MaxCustomPriorityScore). */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const MAX_UTILIZATION = 100;

/** One resource the pod asks for, as Filter checks it. */
interface Request {
  readonly kind: Kind;
  readonly name: string;
  readonly quantity: number;
  readonly reason: string;
  /** An extended resource a DeviceClass serves (DRAExtendedResource): DynamicResources checks it where the node does not offer it. */
  readonly dra?: true;
}

/**
 * A list of reasons and its two statuses, extended one reason at a time: the nodes of a cycle that fail
 * the same way share one frozen Status rather than allocating one each (and so do their diagnoses).
 */
class Rejection {
  private readonly extended: Array<Rejection | undefined> = [];
  private readonly statuses: Array<Status | undefined> = [];

  constructor(private readonly reasons: readonly string[]) {}

  /** This rejection with one more reason; `slot` identifies the reason among the pod's. */
  with(slot: number, reason: string): Rejection {
    return (this.extended[slot] ??= new Rejection(Object.freeze([...this.reasons, reason])));
  }

  status(unresolvable: boolean): Status {
    const i = unresolvable ? 1 : 0;
    return (this.statuses[i] ??= Object.freeze({
      code: unresolvable ? Code.UnschedulableAndUnresolvable : Code.Unschedulable,
      reasons: this.reasons,
    }));
  }
}

/** The pod's non-zero requests (ignored extended resources left out), in upstream's order. */
interface PreFilterState {
  readonly requests: readonly Request[];
  readonly rejections: Rejection;
  /** The requests as a filterKey: Filter reads nothing else of the pod. */
  readonly key: string;
}

type Scorer = (requested: readonly number[], allocatable: readonly number[]) => number;

export class NodeResourcesFit implements PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin, EnqueueExtensions {
  readonly name = NAME;
  private readonly allocation: ResourceAllocation;
  private readonly scorer: Scorer;
  private readonly ignored: ReadonlySet<string>;
  private readonly ignoredGroups: ReadonlySet<string>;
  private readonly preFilterState = new CycleValue<PreFilterState>(`PreFilter${NAME}`);
  private readonly preScoreState = new CycleValue<readonly number[]>(`PreScore${NAME}`);

  constructor(
    readonly args: NodeResourcesFitArgs,
    private readonly handle?: FrameworkHandle,
  ) {
    const { type, resources, requestedToCapacityRatio } = args.scoringStrategy;
    this.allocation = new ResourceAllocation(resources, false);
    this.scorer =
      type === 'LeastAllocated'
        ? weightedScorer(resources, leastRequestedScore)
        : type === 'MostAllocated'
          ? weightedScorer(resources, mostRequestedScore)
          : requestedToCapacityRatioScorer(resources, requestedToCapacityRatio?.shape ?? []);
    this.ignored = new Set(args.ignoredResources);
    this.ignoredGroups = new Set(args.ignoredResourceGroups);
  }

  /**
   * upstream EventsToRegister with 1.37's default features: a bound pod deleted; a node added or its
   * allocatable changed; a DeviceClass added or changed (DRAExtendedResource); a bound pod's requests
   * scaled down, or the pod's own (InPlacePodVerticalScaling).
   */
  eventsToRegister(): readonly ClusterEventWithHint[] {
    return [
      { event: clusterEvent('AssignedPod', ActionType.Delete), hint: isSchedulableAfterAssignedPodDelete },
      {
        event: clusterEvent('Node', ActionType.Add | ActionType.UpdateNodeAllocatable),
        hint: (pod, o, n) => this.isSchedulableAfterNodeChange(pod, o, n),
      },
      { event: clusterEvent('resource.k8s.io/DeviceClass', ActionType.Add | ActionType.Update), hint: isSchedulableAfterDeviceClassEvent },
      { event: clusterEvent('AssignedPod', ActionType.UpdatePodScaleDown), hint: isSchedulableAfterAssignedPodScaleDown },
      { event: clusterEvent('TargetPod', ActionType.UpdatePodScaleDown), hint: () => 'Queue' },
    ];
  }

  /**
   * upstream isSchedulableAfterNodeChange: the pod fits the node when empty (isFit) and, for an
   * update, a resource it asks for (or the pod count) grew.
   */
  isSchedulableAfterNodeChange(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
    const [original, modified] = [oldObj as Node | undefined, newObj as Node];
    const info = podInfo(pod);
    if (!info.ok) return 'Queue';
    if (this.filter(new FreshCycleState(), info.value, new EmptyNodeInfo(modified)).code !== Code.Success) return 'QueueSkip';
    if (!original) return 'Queue';
    const [before, after] = [nodeAllocatable(original), nodeAllocatable(modified)];
    if (!before.ok || !after.ok) return 'Queue';
    if (after.value.allowedPodNumber > before.value.allowedPodNumber) return 'Queue';
    for (const r of this.podRequests(info.value).requests) {
      if (amountOf(after.value, r.kind, r.name) > amountOf(before.value, r.kind, r.name)) return 'Queue';
      // upstream shouldDelegateResourceToDRA: a request the node does not offer, served by DRA.
      if (r.dra && amountOf(after.value, r.kind, r.name) === 0) return 'Queue';
    }
    return 'QueueSkip';
  }

  preFilter(state: CycleState, pod: PodInfo): { status: Status; result?: PreFilterResult } {
    this.preFilterState.write(state, this.podRequests(pod));
    return { status: SUCCESS };
  }

  filter(state: CycleState, pod: PodInfo, node: NodeInfo): Status {
    const { requests, rejections } = this.preFilterState.read(state) ?? this.podRequests(pod);
    const allocatable = node.allocatable;
    let rejection = node.pods.length + 1 > allocatable.allowedPodNumber ? rejections.with(0, REASON_TOO_MANY_PODS) : undefined;
    let unresolvable = false;
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i] as Request;
      const alloc = amountOf(allocatable, r.kind, r.name);
      // upstream shouldDelegateResourceToDRA: not offered by the node (no device plugin), served by DRA.
      if (r.dra && alloc === 0) continue;
      if (r.quantity > alloc - amountOf(node.requested, r.kind, r.name)) {
        rejection = (rejection ?? rejections).with(i + 1, r.reason);
        // No preemption can make room for a request larger than the whole node.
        if (r.quantity > alloc) unresolvable = true;
      }
    }
    return rejection ? rejection.status(unresolvable) : SUCCESS;
  }

  filterKey(state: CycleState, pod: PodInfo): string {
    return (this.preFilterState.read(state) ?? this.podRequests(pod)).key;
  }

  preScore(state: CycleState, pod: PodInfo): Status {
    this.preScoreState.write(state, this.allocation.podRequests(pod));
    return SUCCESS;
  }

  score(state: CycleState, pod: PodInfo, node: NodeInfo): number {
    this.allocation.fill(node, this.preScoreState.read(state) ?? this.allocation.podRequests(pod));
    return this.scorer(this.allocation.requested, this.allocation.allocatable);
  }

  scoreKey(state: CycleState, pod: PodInfo): string {
    return (this.preScoreState.read(state) ?? this.allocation.podRequests(pod)).join();
  }

  private podRequests(pod: PodInfo): PreFilterState {
    const r = pod.requests;
    const requests: Request[] = [];
    if (r.milliCPU > 0) requests.push({ kind: Kind.Cpu, name: CPU, quantity: r.milliCPU, reason: REASON_INSUFFICIENT_CPU });
    if (r.memory > 0) requests.push({ kind: Kind.Memory, name: MEMORY, quantity: r.memory, reason: REASON_INSUFFICIENT_MEMORY });
    if (r.ephemeralStorage > 0) {
      requests.push({
        kind: Kind.EphemeralStorage,
        name: EPHEMERAL_STORAGE,
        quantity: r.ephemeralStorage,
        reason: REASON_INSUFFICIENT_EPHEMERAL_STORAGE,
      });
    }
    const classes = r.scalar.size > 0 ? extendedResourceClasses(this.handle?.objects?.().deviceClasses) : undefined;
    for (const [name, quantity] of r.scalar) {
      if (quantity > 0 && isScalarResourceName(name) && !this.isIgnored(name)) {
        const dra = classes !== undefined && isDraExtendedResourceName(name) && classes.has(name);
        requests.push({ kind: Kind.Scalar, name, quantity, reason: insufficientReason(name), ...(dra ? { dra } : {}) });
      }
    }
    return { requests, rejections: new Rejection([]), key: requests.map((q) => `${q.name}=${q.quantity}${q.dra ? '(dra)' : ''}`).join() };
  }

  private isIgnored(name: string): boolean {
    if (!isExtendedResourceName(name)) return false;
    return this.ignored.has(name) || this.ignoredGroups.has(name.split('/')[0] ?? '');
  }
}

/** upstream isSchedulableAfterAssignedPodDelete: a bound (or nominated) pod's deletion may free room. */
export function isSchedulableAfterAssignedPodDelete(_pod: Pod, oldObj: unknown): QueueingHint {
  const deleted = oldObj as Pod;
  return !deleted.spec.nodeName && !deleted.status?.nominatedNodeName ? 'QueueSkip' : 'Queue';
}

/** upstream isSchedulableAfterAssignedPodScaleDown (haveEnoughRelevantResourcesDecreased): a bound pod asks for less of a resource the pod asks for. */
export function isSchedulableAfterAssignedPodScaleDown(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [original, modified] = [oldObj as Pod, newObj as Pod];
  if (!modified.spec.nodeName) return 'QueueSkip';
  const [wanted, before, after] = [podResources(pod), podResources(original), podResources(modified)];
  if (!wanted.ok || !before.ok || !after.ok) return 'Queue';
  const w = wanted.value.requests;
  const [b, a] = [before.value.requests, after.value.requests];
  if (w.milliCPU > 0 && b.milliCPU > a.milliCPU) return 'Queue';
  if (w.memory > 0 && b.memory > a.memory) return 'Queue';
  if (w.ephemeralStorage > 0 && b.ephemeralStorage > a.ephemeralStorage) return 'Queue';
  for (const [name, amount] of w.scalar)
    if (amount > 0 && isScalarResourceName(name) && (b.scalar.get(name) ?? 0) > (a.scalar.get(name) ?? 0)) return 'Queue';
  return 'QueueSkip';
}

/**
 * upstream isSchedulableAfterDeviceClassEvent: a class now serves an extended resource the pod asks
 * for (its extendedResourceName changed, or, for a new class, its implicit
 * deviceclass.resource.kubernetes.io/<class> name).
 */
export function isSchedulableAfterDeviceClassEvent(pod: Pod, oldObj: unknown, newObj: unknown): QueueingHint {
  const [original, modified] = [oldObj as DeviceClass | undefined, newObj as DeviceClass];
  const requests = podResources(pod);
  const asks = (name: string) => requests.ok && requests.value.requests.scalar.has(name);
  if (original) {
    if ((original.spec.extendedResourceName ?? '') === (modified.spec.extendedResourceName ?? '')) return 'QueueSkip';
  } else if (asks(`deviceclass.resource.kubernetes.io/${modified.metadata.name}`)) return 'Queue';
  const served = modified.spec.extendedResourceName;
  return served !== undefined && asks(served) ? 'Queue' : 'QueueSkip';
}

/** LeastAllocated: the share left free, 0..100; 0 when the request exceeds capacity. */
export function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return mulDiv(capacity - requested, MAX_NODE_SCORE, capacity);
}

/** MostAllocated: the share in use, 0..100 (requests above capacity count as full). */
export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0) return 0;
  return mulDiv(Math.min(requested, capacity), MAX_NODE_SCORE, capacity);
}

/**
 * The weighted mean of per-resource scores over the resources the node offers: truncated for
 * LeastAllocated and MostAllocated; for RequestedToCapacityRatio resources scoring 0 are left out and
 * the mean is rounded.
 */
function weightedScorer(
  resources: readonly ResourceSpec[],
  resourceScore: (requested: number, capacity: number) => number,
  ratio = false,
): Scorer {
  const weights = resources.map((r) => r.weight);
  return (requested, allocatable) => {
    let nodeScore = 0;
    let weightSum = 0;
    for (let i = 0; i < weights.length; i++) {
      const alloc = allocatable[i] ?? 0;
      if (alloc === 0) continue;
      const weight = weights[i] ?? 0;
      const score = resourceScore(requested[i] ?? 0, alloc);
      if (ratio && score <= 0) continue;
      nodeScore += score * weight;
      weightSum += weight;
    }
    if (weightSum === 0) return 0;
    return ratio ? Math.round(nodeScore / weightSum) : Math.trunc(nodeScore / weightSum);
  };
}

/**
 * The piecewise-linear function through the shape points: the first point's score below it, the last
 * point's above it, integer interpolation (truncating toward zero, as Go) between.
 */
export function brokenLinearFunction(shape: readonly UtilizationShapePoint[]): (utilization: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      const point = shape[i];
      if (!point || p > point.utilization) continue;
      const prev = shape[i - 1];
      if (!prev) return point.score;
      return prev.score + Math.trunc(((point.score - prev.score) * (p - prev.utilization)) / (point.utilization - prev.utilization));
    }
    return shape[shape.length - 1]?.score ?? 0;
  };
}

/** RequestedToCapacityRatio: each resource's utilization (0..100) through the shape, scores scaled from 0..10 to 0..100. */
function requestedToCapacityRatioScorer(resources: readonly ResourceSpec[], shape: readonly UtilizationShapePoint[]): Scorer {
  const scale = MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE;
  const raw = brokenLinearFunction(shape.map((p) => ({ utilization: p.utilization, score: p.score * scale })));
  const resourceScore = (requested: number, capacity: number) =>
    capacity === 0 || requested > capacity ? raw(MAX_UTILIZATION) : raw(mulDiv(requested, MAX_UTILIZATION, capacity));
  return weightedScorer(resources, resourceScore, true);
}

const DEFAULT_STRATEGY: ScoringStrategyType = 'LeastAllocated';

/** Reads, defaults and validates the args, as upstream's v1 defaulting and ValidateNodeResourcesFitArgs. */
export function parseArgs(args: unknown): Result<NodeResourcesFitArgs, ArgsError> {
  const reader = new ArgsReader(NAME);
  const root = reader.object(args, [], ['ignoredResources', 'ignoredResourceGroups', 'scoringStrategy']);
  const ignoredResources = reader.strings(root?.['ignoredResources'], ['ignoredResources']);
  ignoredResources.forEach((name, i) => {
    const problem = qualifiedNameError(name);
    if (problem) reader.errors.push(fieldInvalid(['ignoredResources', i], name, problem));
  });
  const ignoredResourceGroups = reader.strings(root?.['ignoredResourceGroups'], ['ignoredResourceGroups']);
  ignoredResourceGroups.forEach((group, i) => {
    const path = ['ignoredResourceGroups', i];
    if (group.includes('/')) reader.errors.push(fieldInvalid(path, group, "resource group name can't contain '/'"));
    const problem = qualifiedNameError(group);
    if (problem) reader.errors.push(fieldInvalid(path, group, problem));
  });

  const strategyPath = ['scoringStrategy'];
  const strategy = reader.object(root?.['scoringStrategy'], strategyPath, ['type', 'resources', 'requestedToCapacityRatio']);
  const type = strategy ? (reader.string(strategy['type'], [...strategyPath, 'type']) ?? '') : DEFAULT_STRATEGY;
  if (!SCORING_STRATEGY_TYPES.includes(type as ScoringStrategyType)) {
    reader.errors.push(fieldNotSupported([...strategyPath, 'type'], type, SCORING_STRATEGY_TYPES));
  }
  const resources = readResourceSpecs(reader, strategy?.['resources'], [...strategyPath, 'resources']);
  resources.forEach((r, i) => {
    if (r.weight <= 0 || r.weight > 100) {
      reader.errors.push(
        fieldInvalid([...strategyPath, 'resources', i, 'weight'], r.weight, `resource weight of ${r.name} not in valid range (0, 100]`),
      );
    }
  });
  const ratioPath = [...strategyPath, 'requestedToCapacityRatio'];
  const ratio = reader.object(strategy?.['requestedToCapacityRatio'], ratioPath, ['shape']);
  let shape: UtilizationShapePoint[] | undefined;
  if (type === 'RequestedToCapacityRatio') {
    if (!ratio) reader.errors.push(fieldRequired(ratioPath, 'must be specified when type is RequestedToCapacityRatio'));
    else shape = readShape(reader, ratio['shape'], [...ratioPath, 'shape']);
  } else if (ratio) {
    reader.errors.push(fieldForbidden(ratioPath, 'must be nil when type is not RequestedToCapacityRatio'));
  }
  return reader.result<NodeResourcesFitArgs>({
    ignoredResources,
    ignoredResourceGroups,
    scoringStrategy: { type: type as ScoringStrategyType, resources, ...(shape ? { requestedToCapacityRatio: { shape } } : {}) },
  });
}

function readShape(reader: ArgsReader, value: unknown, path: FieldPath): UtilizationShapePoint[] {
  const shape = (reader.list(value, path) ?? []).map((entry, i) => {
    const at = [...path, i];
    const point = reader.object(entry, at, ['utilization', 'score']);
    return {
      utilization: reader.int(point?.['utilization'], [...at, 'utilization']) ?? 0,
      score: reader.int(point?.['score'], [...at, 'score']) ?? 0,
    };
  });
  if (shape.length === 0) {
    reader.errors.push(fieldRequired(path, 'at least one point must be specified'));
    return shape;
  }
  for (let i = 1; i < shape.length; i++) {
    const prev = shape[i - 1];
    const point = shape[i];
    if (prev && point && prev.utilization >= point.utilization) {
      reader.errors.push(fieldInvalid([...path, i, 'utilization'], point.utilization, 'values must be sorted in increasing order'));
      break;
    }
  }
  shape.forEach((point, i) => {
    if (point.utilization < 0 || point.utilization > MAX_UTILIZATION) {
      reader.errors.push(fieldInvalid([...path, i, 'utilization'], point.utilization, `not in valid range [0, ${MAX_UTILIZATION}]`));
    }
    if (point.score < 0 || point.score > MAX_CUSTOM_PRIORITY_SCORE) {
      reader.errors.push(fieldInvalid([...path, i, 'score'], point.score, `not in valid range [0, ${MAX_CUSTOM_PRIORITY_SCORE}]`));
    }
  });
  return shape;
}

export const factory = factoryOf(parseArgs, (args, handle) => new NodeResourcesFit(args, handle));
