// Upstream's default profile as of 1.37 (kube-scheduler config v1, getDefaultPlugins with the
// feature gates on by default; the oracle's `-profile` prints the lists upstream builds) as plain data: the plugins of each extension point in upstream's
// order, with the score weights. docs/fidelity.md lists the upstream defaults not run yet. Each
// plugin's default args are its factory's (e.g. NodeResourcesFit: LeastAllocated over cpu and
// memory, weight 1 each).
import { DEFAULT_SCHEDULER_NAME, type PluginRef, type Profile } from '../framework/profile';
import type { Stage } from '../framework/status';
import { Names } from './names';

/** A plugin of upstream's default MultiPoint list, with the stages it takes part in. */
interface DefaultPlugin {
  readonly name: string;
  readonly stages: readonly Stage[];
  readonly weight?: number;
}

const ALL_CYCLE: readonly Stage[] = ['PreFilter', 'Filter', 'PreScore', 'Score'];

/** Upstream's MultiPoint order; each stage lists its plugins in this order. */
export const DEFAULT_MULTI_POINT: readonly DefaultPlugin[] = [
  // PreEnqueue: the queue holds gated pods; the plugin says why (no cycle stage of its own).
  { name: Names.SchedulingGates, stages: [] },
  { name: Names.PrioritySort, stages: ['Sort'] },
  { name: Names.NodeName, stages: ['Filter'] },
  { name: Names.NodeUnschedulable, stages: ['Filter'] },
  { name: Names.TaintToleration, stages: ['Filter', 'PreScore', 'Score'], weight: 3 },
  { name: Names.NodeAffinity, stages: ALL_CYCLE, weight: 2 },
  { name: Names.NodePorts, stages: ['PreFilter', 'Filter'] },
  { name: Names.NodeResourcesFit, stages: ALL_CYCLE, weight: 1 },
  { name: Names.VolumeRestrictions, stages: ['PreFilter', 'Filter'] },
  { name: Names.NodeVolumeLimits, stages: ['PreFilter', 'Filter'] },
  // Scores since StorageCapacityScoring went beta (on by default in 1.37); weight 1 by defaulting.
  { name: Names.VolumeBinding, stages: ['PreFilter', 'Filter', 'PreScore', 'Score'], weight: 1 },
  { name: Names.VolumeZone, stages: ['PreFilter', 'Filter'] },
  { name: Names.PodTopologySpread, stages: ALL_CYCLE, weight: 2 },
  { name: Names.InterPodAffinity, stages: ALL_CYCLE, weight: 2 },
  // Inserted before DefaultPreemption when DynamicResourceAllocation is on (GA, on by default);
  // weighted 2 since its scoring (1.35).
  { name: Names.DynamicResources, stages: ['PreFilter', 'Filter', 'PostFilter', 'Score'], weight: 2 },
  { name: Names.DefaultPreemption, stages: ['PostFilter'] },
  { name: Names.NodeResourcesBalancedAllocation, stages: ['PreScore', 'Score'], weight: 1 },
  { name: Names.ImageLocality, stages: ['Score'], weight: 1 },
  { name: Names.DefaultBinder, stages: ['Bind'] },
  // GA and always on in 1.37; applyFeatureGates appends it after the defaults.
  { name: Names.NodeDeclaredFeatures, stages: ['PreFilter', 'Filter'] },
];

function pluginsAt(stage: Stage): readonly PluginRef[] {
  return DEFAULT_MULTI_POINT.filter((p) => p.stages.includes(stage)).map((p) =>
    stage === 'Score' ? { name: p.name, weight: p.weight ?? 1 } : { name: p.name },
  );
}

/** The default plugins per extension point (the framework's Stage names), score weights included. */
export const DEFAULT_PLUGINS: Readonly<Partial<Record<Stage, readonly PluginRef[]>>> = Object.fromEntries(
  (['Sort', 'PreFilter', 'Filter', 'PostFilter', 'PreScore', 'Score', 'Bind'] as const).map((stage) => [stage, pluginsAt(stage)]),
);

/** Upstream's default profile: the list above as multiPoint, as kube-scheduler v1 writes it. */
export const DEFAULT_PROFILE: Profile = {
  schedulerName: DEFAULT_SCHEDULER_NAME,
  plugins: { multiPoint: { enabled: DEFAULT_MULTI_POINT.map((p) => (p.weight ? { name: p.name, weight: p.weight } : { name: p.name })) } },
};
