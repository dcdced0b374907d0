// Shared pieces for the planner tests: the default profile's planning framework, pods of a pod set,
// and plan requests over builder nodes and pods.
import { seededRandom } from '../../../src/engine/api/random';
import assert from 'node:assert/strict';
import type { NodeInfoLister, PodInfo } from '../../../src/engine/framework/node-info';
import type { Profile } from '../../../src/engine/framework/profile';
import { POD_SET_LABEL } from '../../../src/engine/planner/plan';
import type { Objective, PlannerResult, PlanRequest } from '../../../src/engine/planner/planner';
import { podSetFramework, type PodSetFramework, type PodSetGate } from '../../../src/engine/planner/scheduler/plugin';
import { POD_SET_SCHEDULER_NAME } from '../../../src/engine/planner/podset/podset';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { Feasibility, WhatIf } from '../../../src/engine/planner/search/what-if';
import { makePod, type NodeBuilder, PodBuilder, snapshotOf } from '../../builders';

/** The default profile with PodSetPlanner, as plans are made (throws on a profile error: a test bug). */
export function planning(profile: Profile = DEFAULT_PROFILE, gate?: PodSetGate): PodSetFramework {
  const built = podSetFramework(profile, { random: seededRandom(1), ...(gate ? { gate } : {}) });
  if (!built.ok) throw new Error(built.error.map((e) => e.message).join('\n'));
  return built.value;
}

/** A pod of pod set `set`, scheduled by the pod-set scheduler. */
export const setPod = (name: string, set = 'web', namespace = 'default'): PodBuilder =>
  makePod(name, namespace)
    .labels({ [POD_SET_LABEL]: set })
    .scheduler(POD_SET_SCHEDULER_NAME);

const infoOf = (p: PodBuilder | PodInfo): PodInfo => (p instanceof PodBuilder ? p.info : p);

/** A plan request for these pods on these nodes (with `bound` pods already on them). */
export function request(
  nodes: NodeBuilder[],
  pods: Array<PodBuilder | PodInfo>,
  options: { objective?: Objective; bound?: PodBuilder[]; eligible?: PlanRequest['eligible'] } = {},
): PlanRequest {
  const snapshot: NodeInfoLister = snapshotOf(nodes, options.bound ?? []);
  return {
    pods: pods.map(infoOf),
    snapshot,
    framework: planning().framework,
    objective: options.objective ?? 'pack',
    ...(options.eligible ? { eligible: options.eligible } : {}),
  };
}

/** pod name → node, and the pods left out, for short assertions. */
export function outcome(result: PlannerResult): { placed: Record<string, string>; unplaced: string[] } {
  return {
    placed: Object.fromEntries(result.placed.map((p) => [p.pod.pod.metadata.name, p.node])),
    unplaced: result.unplaced.map((u) => u.pod.pod.metadata.name),
  };
}

/** Distinct nodes a result uses. */
export const nodesUsed = (result: PlannerResult): number => new Set(result.placed.map((p) => p.node)).size;

/** Every placement, in the plan's order, passes the engine's PreFilter and Filter plugins on the cluster as planned so far. */
export function assertEngineAccepts(req: PlanRequest, result: PlannerResult): void {
  const whatIf = new WhatIf(req.snapshot);
  const feasibility = new Feasibility(req.framework, whatIf, req.eligible);
  for (const { pod, node: name } of result.placed) {
    const index = whatIf.indexOf(name) as number;
    assert.ok(feasibility.fits(pod, index), `${pod.key} on ${name}`);
    whatIf.assume(pod, index);
  }
}
