// YAML manifests ⇄ typed objects with source ranges (docs/architecture.md, Layers). Callers read files and
// pass their text; nothing here does I/O.
export {
  ADMISSION_VERDICTS,
  errorMessage,
  formatError,
  placeOf,
  type ManifestError,
  type RelatedPlace,
  type ManifestErrorCode,
  type Severity,
} from './errors';
export { concatPath, joinPath, splitPath, SourceMap, type PathSegment, type Position, type SourceRange } from './source-map';
export { WORKLOAD_API_VERSIONS, workloadPods, type PodTemplate, type Workload, type WorkloadKind } from './workloads';
export { DAEMON_POD_TOLERATIONS, daemonSetPods, runsDaemonPod, type NodeEligibility } from './daemonset';
export {
  DEPENDENCY_KINDS,
  TRIGGER_STATES,
  type DecisionEntry,
  type DependencyKind,
  type DependencyRef,
  type PlanEntry,
  type ScheduleTriggerManifest,
  type SchedulePlanManifest,
  type SchedulePlanStatus,
  type TriggerState,
  type UnplacedEntry,
} from './planner';
export {
  DEFAULT_SCHEDULER_NAME,
  engineProfile,
  palletOnlyAt,
  CONFIG_EXTENSION_POINTS,
  SCHEDULER_CONFIG_API_VERSION,
  type ConfigExtensionPoint,
  type PluginConfigManifest,
  type PluginRef,
  type PluginSet,
  type PluginsManifest,
  type ProfileManifest,
  type SchedulerProfileManifest,
} from './profile';
export { fnv32a, safeEncodeString, schedulePlanName } from '../engine/planner/podset/name';
export { readPodStatus } from './kube';
export { planFromManifest, schedulePlanManifest, writeSchedulePlan, type WritablePlan, type WritePlanOptions } from './schedule-plan';
export {
  combine,
  fieldRange,
  readFile,
  readObject,
  readSnapshot,
  unreadablePods,
  unreadableRefusal,
  type CombineOptions,
  type FileModel,
  type Located,
  type ManifestDocument,
  type ObjectLists,
  type OtherManifest,
  type PlanScope,
  type UnreadableManifest,
  type UnreadablePod,
  type WorkspaceModel,
} from './workspace';
