// The cluster as a plan leaves it, and a pod judged there as the planners judge their own what-ifs:
// the plan's pods on their nodes (placed, not reserved), in a cycle that counts the claims of theirs
// that are not allocated as allocated on their node (PLANNED_PODS: DynamicResources), so the devices
// the plan's other pods take are taken. The one home of that judgement: the editor's check of a
// SchedulePlan's entries, its ranking of nodes for a planned pod (node completion, the quick fix that
// moves a pod, explain of a planned pod and of one a preview leaves out) and `podplan explain`'s
// verdicts for a pod of a set all ask it. Nodes are copied only when a pod is put on (or taken off)
// one (CopyOnWriteCluster), so checking a plan on thousands of nodes copies the few it uses.
import { explainedVerdicts, nodeVerdicts, type NodeVerdict } from '../explain/verdicts';
import { CopyOnWriteCluster } from '../framework/copy-on-write';
import { CycleState, PLANNED_PODS } from '../framework/cycle-state';
import { ok, type Result } from '../api/result';
import type { ClusterSnapshot } from '../api/types';
import type { Diagnosis } from '../framework/diagnosis';
import { podInfo, type PodInfo } from '../framework/node-info';
import type { Framework, ScheduleFailure, ScheduleResult } from '../framework/runtime';
import { Snapshot } from '../framework/snapshot';
import type { Status } from '../framework/status';
import type { PlacedPod } from './plan';

export class PlanCluster {
  private constructor(readonly snapshot: CopyOnWriteCluster) {}

  /**
   * `base` before any pod of the plan is put on it. `index`: each node's position in the base's
   * list, shared by every PlanCluster on one base (made when not given).
   */
  static on(base: Snapshot, index?: ReadonlyMap<string, number>): PlanCluster {
    return new PlanCluster(new CopyOnWriteCluster(base, index ?? new Map(base.list().map((n, i) => [n.name, i]))));
  }

  /** Puts a pod of the plan on its node; false when there is no such node. */
  place(node: string, pod: PodInfo): boolean {
    return this.snapshot.addPod(node, pod);
  }

  /** This cluster without one of the pods put on it: a copy, this one stays as it is. */
  without(node: string, pod: PodInfo): PlanCluster {
    const copy = this.snapshot.copy();
    copy.removePod(node, pod);
    return new PlanCluster(copy);
  }

  /** Whether `pod` can run on `node` here, judged as a cycle judges that node (the first rejection, else Success). */
  checkNode(framework: Framework, pod: PodInfo, node: string): Status {
    return framework.checkNode(planState(), pod, this.snapshot, node);
  }

  /** A scheduling cycle of `pod` here: the node it chooses, or why none fits. */
  scheduleOne(framework: Framework, pod: PodInfo): ScheduleResult | ScheduleFailure {
    return framework.scheduleOne(planState(), pod, this.snapshot);
  }

  /** Each node's complete Filter verdict for `pod` here (all nodes, or those named): engine/explain/verdicts.ts nodeVerdicts. */
  nodeVerdicts(framework: Framework, pod: PodInfo, only?: readonly string[]): NodeVerdict[] {
    return nodeVerdicts(framework, pod, this.snapshot, only, planState());
  }

  /** The verdicts an explanation of `pod` shows beside `diagnosis` (engine/explain/verdicts.ts explainedVerdicts), judged here. */
  verdicts(framework: Framework, pod: PodInfo, diagnosis: Diagnosis): NodeVerdict[] {
    return explainedVerdicts(framework, pod, this.snapshot, diagnosis, planState());
  }
}

/** What of a plan decides the cluster it leaves: its pods' nodes, and the pods placed before it was made. */
export interface PlanPlacements {
  readonly namespace: string;
  readonly assignments: ReadonlyArray<{ readonly pod: string; readonly node: string }>;
  /** Pods other sets' plans put on the cluster before this plan was made (Plan.placedBefore). */
  readonly placedBefore?: readonly PlacedPod[];
}

/**
 * `cluster` as a plan leaves it: first the pods the plans before it placed (`placedBefore`: the
 * cluster it was made on), then each assignment's pod in its namespace, each one the cluster has
 * and no node holds yet put on its node, all but the pod of the plan named `without` (the one being
 * judged). How `podplan explain` rebuilds a plan's cluster from its placements, for a plan made now
 * and for one the history kept with the cluster it was made on (as the editor's explain of a stored
 * plan and of a preview). `base`: that cluster's snapshot with nothing placed yet, when the caller
 * has one (else built from `cluster`).
 */
export function planClusterOf(cluster: ClusterSnapshot, plan: PlanPlacements, without?: string, base?: PlanCluster): Result<PlanCluster> {
  if (!base) {
    const snapshot = Snapshot.fromCluster(cluster);
    return snapshot.ok ? planClusterOf(cluster, plan, without, PlanCluster.on(snapshot.value)) : snapshot;
  }
  const planned = base;
  if ((plan.placedBefore ?? []).length === 0 && plan.assignments.length === 0) return ok(planned);
  const pods = new Map(cluster.pods.map((p) => [`${p.metadata.namespace ?? 'default'}/${p.metadata.name}`, p]));
  const put = (namespace: string, name: string, node: string) => {
    const pod = pods.get(`${namespace}/${name}`);
    if (!pod || pod.spec.nodeName) return;
    const info = podInfo(pod);
    if (info.ok) planned.place(node, info.value);
  };
  for (const p of plan.placedBefore ?? []) put(p.namespace, p.pod, p.node);
  for (const a of plan.assignments) if (a.pod !== without) put(plan.namespace, a.pod, a.node);
  return ok(planned);
}

/**
 * A cycle's state on a cluster a plan leaves. Only the planned pods' claims are the planners'
 * (planningState adds their node restriction and preemption that only reports): whether a pod may
 * preempt here is the profile's, as for any cycle the editor runs.
 */
function planState(): CycleState {
  const state = new CycleState();
  state.write(PLANNED_PODS, true);
  return state;
}
