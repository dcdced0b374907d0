// NodeResourcesBalancedAllocation (Score): favours nodes whose balance the pod improves. Since 1.36
// (kubernetes PR #135573) the score compares the node's balance with and without the pod:
// 50 + (50 + with − without) / 2, each balance (1 - std) × 100 with std the standard deviation of
// the requested/allocatable fractions (for two resources |f1 - f2| / 2). It reads plain requests,
// and skips pods that request nothing (upstream's fix for best-effort pods piling onto one node).
import { fieldDuplicate, fieldInvalid } from '../api/field';
import type { CycleState } from '../framework/cycle-state';
import { MAX_NODE_SCORE, type PreScorePlugin, type ScorePlugin } from '../framework/interfaces';
import type { NodeInfo, PodInfo } from '../framework/node-info';
import { SKIP, SUCCESS, type Status } from '../framework/status';
import { ArgsReader, factoryOf } from './args';
import { CycleValue } from './cycle-value';
import { Names } from './names';
import { readResourceSpecs, ResourceAllocation, type ResourceSpec } from './resource-allocation';

export const NAME = Names.NodeResourcesBalancedAllocation;

export interface NodeResourcesBalancedAllocationArgs {
  readonly resources: readonly ResourceSpec[];
}

export class NodeResourcesBalancedAllocation implements PreScorePlugin, ScorePlugin {
  readonly name = NAME;
  private readonly allocation: ResourceAllocation;
  private readonly preScoreState = new CycleValue<readonly number[]>(`PreScore${NAME}`);

  constructor(readonly args: NodeResourcesBalancedAllocationArgs) {
    this.allocation = new ResourceAllocation(args.resources, true);
  }

  preScore(state: CycleState, pod: PodInfo): Status {
    const requests = this.allocation.podRequests(pod);
    if (requests.every((r) => r === 0)) return SKIP;
    this.preScoreState.write(state, requests);
    return SUCCESS;
  }

  score(state: CycleState, pod: PodInfo, node: NodeInfo): number {
    const requests = this.preScoreState.read(state) ?? this.allocation.podRequests(pod);
    if (requests.every((r) => r === 0)) return 0;
    this.allocation.fill(node, requests);
    const { requested, allocated, allocatable } = this.allocation;
    return balanceImprovementScore(balancedResourceScore(requested, allocatable), balancedResourceScore(allocated, allocatable));
  }

  scoreKey(state: CycleState, pod: PodInfo): string {
    return (this.preScoreState.read(state) ?? this.allocation.podRequests(pod)).join();
  }
}

/**
 * Upstream's balancedResourceScorer (1.36+): the balance with the pod against the balance without
 * it, both in [50, 100], brought back to [50, 100] around 75 (integer division, as Go's).
 */
export function balanceImprovementScore(withPod: number, withoutPod: number): number {
  const half = MAX_NODE_SCORE / 2;
  return half + Math.trunc((half + withPod - withoutPod) / 2);
}

/** (1 - std of the fractions) × 100, truncated; resources the node does not offer are left out. */
export function balancedResourceScore(requested: readonly number[], allocatable: readonly number[]): number {
  let count = 0;
  let total = 0;
  let first = 0;
  let second = 0;
  for (let i = 0; i < requested.length; i++) {
    const alloc = allocatable[i] ?? 0;
    if (alloc === 0) continue;
    const fraction = Math.min((requested[i] ?? 0) / alloc, 1);
    if (count === 0) first = fraction;
    else if (count === 1) second = fraction;
    total += fraction;
    count++;
  }
  let std = 0;
  if (count === 2) {
    std = Math.abs((first - second) / 2);
  } else if (count > 2) {
    const mean = total / count;
    let sum = 0;
    for (let i = 0; i < requested.length; i++) {
      const alloc = allocatable[i] ?? 0;
      if (alloc === 0) continue;
      const fraction = Math.min((requested[i] ?? 0) / alloc, 1);
      sum += (fraction - mean) * (fraction - mean);
    }
    std = Math.sqrt(sum / count);
  }
  return Math.trunc((1 - std) * MAX_NODE_SCORE);
}

/** Reads and validates the args as upstream: resources default to cpu and memory, each weight must be 1. */
export function parseArgs(args: unknown) {
  const reader = new ArgsReader(NAME);
  const root = reader.object(args, [], ['resources']);
  const resources = readResourceSpecs(reader, root?.['resources'], ['resources']);
  const seen = new Set<string>();
  resources.forEach((r, i) => {
    if (seen.has(r.name)) reader.errors.push(fieldDuplicate(['resources', i, 'name'], r.name));
    seen.add(r.name);
    if (r.weight !== 1) reader.errors.push(fieldInvalid(['resources', i, 'weight'], r.weight, 'must be 1'));
  });
  return reader.result<NodeResourcesBalancedAllocationArgs>({ resources });
}

export const factory = factoryOf(parseArgs, (args) => new NodeResourcesBalancedAllocation(args));
