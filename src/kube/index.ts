// The cluster through @kubernetes/client-node (docs/architecture.md, Layers): kubeconfig and contexts,
// reading a cluster into the manifests model, informers, the planner's custom objects, its CRDs.
// Every message that leaves this layer is redacted (redact.ts).
export {
  applyCrdInstall,
  PLAN_STATUS_ANNOTATION,
  PLANNER_CRDS,
  planCrdInstall,
  planForCluster,
  SCHEDULE_PLAN_CRD,
  SCHEDULE_TRIGGER_CRD,
  type CrdAction,
  type CrdStep,
} from './crds';
export { apiErrorKind, KubeHttp, type ApiError, type ApiErrorKind, type RequestOptions } from './http';
export { ClusterMirror, type MirrorOptions } from './mirror';
export { Informer, type InformerEvent, type InformerEventType, type InformerOptions } from './informer';
export {
  kubeconfigFiles,
  listContexts,
  loadKubeconfig,
  openContext,
  openInClusterContext,
  selectContext,
  type ContextInfo,
  type Kubeconfig,
  type KubeconfigOptions,
  type KubeContext,
} from './kubeconfig';
export {
  cleanObject,
  decodeNode,
  decodeObject,
  decodePod,
  LAST_APPLIED_ANNOTATION,
  snapshotFile,
  sortForSnapshot,
  sourceName,
  type ApiObject,
  type TypedObject,
  WatchedPods,
} from './objects';
export { PlannerObjects, type PlannerKind } from './planner-objects';
export { clusterModel, listAll, readCluster, type ClusterRead, type ReadOptions, type Selectors } from './read';
export { REDACTED, Redactor } from './redact';
export {
  CLUSTER_RESOURCES,
  collectionPath,
  NODE,
  objectPath,
  PLANNER_GROUP,
  POD,
  SCHEDULE_PLAN,
  SCHEDULE_TRIGGER,
  type ResourceType,
} from './resources';
