// The workspace files seen against a live cluster: what the diagnostics and document features of the
// files read while a kube context is the source. The cluster gives what exists there (nodes, the pods
// it runs, namespaces, priority classes, disruption budgets, storage); the files give what is being
// written (triggers, plans, profiles, workloads) and the pods they add that the cluster does not have
// yet, pending, to be placed on the cluster's nodes. A trigger or plan of the cluster that no file
// writes stays visible, so a dependsOn or a plan may name it.
import { podKey } from '../engine/api/types';
import type { Located, WorkspaceModel } from '../manifests';
import { keyOf } from './service/analysis';

/** `own` and those of `theirs` whose key `own` does not have. */
function merged<T>(own: readonly Located<T>[], theirs: readonly Located<T>[], key: (value: T) => string): Located<T>[] {
  const keys = new Set(own.map((o) => key(o.value)));
  return [...own, ...theirs.filter((t) => !keys.has(key(t.value)))];
}

export function overlayCluster(files: WorkspaceModel, cluster: WorkspaceModel): WorkspaceModel {
  const running = new Set(cluster.pods.map((p) => podKey(p.value)));
  // A pod bound in the files describes another cluster than this one: only pending ones are added.
  const added = files.pods.filter((p) => !p.value.spec.nodeName && !running.has(podKey(p.value)));
  const pods = [...cluster.pods, ...added];
  return {
    ...files,
    nodes: cluster.nodes,
    pods,
    namespaces: cluster.namespaces,
    persistentVolumeClaims: cluster.persistentVolumeClaims,
    persistentVolumes: cluster.persistentVolumes,
    storageClasses: cluster.storageClasses,
    csiNodes: cluster.csiNodes,
    priorityClasses: cluster.priorityClasses,
    podDisruptionBudgets: cluster.podDisruptionBudgets,
    triggers: merged(files.triggers, cluster.triggers, (t) => keyOf(t.namespace, t.name)),
    plans: merged(files.plans, cluster.plans, (p) => keyOf(p.namespace, p.name)),
    cluster: { ...cluster.cluster, pods: pods.map((p) => p.value) },
    generated: new Set([...files.generated].filter((key) => !running.has(key))),
  };
}
