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

/**
 * `cluster` as a plan of pods in `namespace` leaves it: each assignment's pod that the cluster has
 * and no node holds yet put on its node, all but the pod named `without` (the one being judged).
 * How `podplan explain` rebuilds a plan's cluster from its placements, for a plan made now and for
 * one the history kept with the cluster it was made on (as the editor's explain of a stored plan).
 */
export function planClusterOf(
  cluster: ClusterSnapshot,
  namespace: string,
  assignments: ReadonlyArray<{ readonly pod: string; readonly node: string }>,
  without?: string,
): Result<PlanCluster> {
  const base = Snapshot.fromCluster(cluster);
  if (!base.ok) return base;
  const planned = PlanCluster.on(base.value);
  const pods = new Map(cluster.pods.filter((p) => (p.metadata.namespace ?? 'default') === namespace).map((p) => [p.metadata.name, p]));
  for (const a of assignments) {
    const pod = pods.get(a.pod);
    if (a.pod === without || !pod || pod.spec.nodeName) continue;
    const info = podInfo(pod);
    if (info.ok) planned.place(a.node, info.value);
  }
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
