// Preemption in plans, when the profile lets plans preempt (PodSetPlanner args allowPreemption). The
// planners themselves never evict (their cycles only report where preemption would make room); this
// runs after them, on the cluster as the plan leaves it: each pod the planner could not place, in
// queue order, gets a cycle that may preempt as DefaultPreemption does, and when it nominates a node
// the victims are evicted from the copy and the pod is placed there if a cycle then puts it there.
// Only pods already running can be victims: a plan does not evict its own placements.
import type { NodeInfoLister, PodInfo } from '../../framework/node-info';
import { PREEMPTION_MODE } from '../../framework/preemption/record';
import type { PlanVictim } from '../plan';
import { planningState, queueOrder, type Placement, type PlannerResult, type PlanRequest, type Unplaced } from '../planner';
import { WhatIf } from './what-if';

export function preemptForUnplaced(
  request: Pick<PlanRequest, 'framework' | 'eligible'> & { readonly snapshot: NodeInfoLister },
  result: PlannerResult,
): { result: PlannerResult; victims: readonly PlanVictim[] } {
  if (result.unplaced.length === 0) return { result, victims: [] };
  const { framework, eligible } = request;
  const whatIf = new WhatIf(request.snapshot);
  for (const p of result.placed) whatIf.assume(p.pod, whatIf.indexOf(p.node) as number);
  const planned = new Set(result.placed.map((p) => p.pod.id));
  const placed: Placement[] = [...result.placed];
  const unplaced: Unplaced[] = [];
  const victims: PlanVictim[] = [];
  const byKey = new Map(result.unplaced.map((u) => [u.pod.key, u]));
  for (const pod of queueOrder(
    framework,
    result.unplaced.map((u) => u.pod),
  )) {
    const left = byKey.get(pod.key) as Unplaced;
    const cycle = (): ReturnType<typeof framework.scheduleOne> => {
      const state = planningState(pod, eligible);
      state.write(PREEMPTION_MODE, 'evict');
      return framework.scheduleOne(state, pod, whatIf.snapshot);
    };
    const first = cycle();
    if (first.ok) {
      // An earlier eviction made room.
      whatIf.assume(pod, whatIf.indexOf(first.suggestedHost) as number);
      placed.push({ pod, node: first.suggestedHost, diagnosis: first.diagnosis });
      continue;
    }
    // Left out after all: the reason is this cycle's, which may preempt (upstream's full message).
    const stays: Unplaced = { pod, diagnosis: first.diagnosis, message: first.diagnosis.message ?? left.message };
    const node = first.nominatedNode;
    const chosen = first.victims ?? [];
    if (node === undefined || chosen.length === 0 || chosen.some((v) => planned.has(v.id))) {
      unplaced.push(stays);
      continue;
    }
    const index = whatIf.indexOf(node) as number;
    for (const v of chosen) whatIf.forget(v, index);
    const retried = cycle();
    if (retried.ok && retried.suggestedHost === node) {
      whatIf.assume(pod, index);
      placed.push({
        pod,
        node,
        diagnosis: { ...retried.diagnosis, ...(first.diagnosis.preemption ? { preemption: first.diagnosis.preemption } : {}) },
      });
      for (const v of chosen) victims.push({ pod: v.key, node, by: pod.pod.metadata.name });
    } else {
      for (const v of chosen) whatIf.assume(v, index);
      unplaced.push(stays);
    }
  }
  if (victims.length === 0) return { result: { ...result, placed, unplaced }, victims };
  // A solver's bound counts placements without evictions: it says nothing of a plan that evicts.
  const { bound: _bound, ...rest } = result;
  return { result: { ...rest, placed, unplaced }, victims };
}

/** The victims of the pods still placed (a gang left out drops its evictions too). */
export function victimsOfPlaced(victims: readonly PlanVictim[], placed: readonly { readonly pod: PodInfo }[]): PlanVictim[] {
  const names = new Set(placed.map((p) => p.pod.pod.metadata.name));
  return victims.filter((v) => names.has(v.by));
}
