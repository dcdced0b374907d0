// Every upstream plugin name of 1.37 (pkg/scheduler/framework/plugins/names), in one place, so
// profiles, registries and messages never spell one differently. Podplan runs every default plugin;
// the ones off by default (GangScheduling) are named here so a profile that mentions them can be told
// Podplan does not run them.

export const Names = {
  PrioritySort: 'PrioritySort',
  DefaultBinder: 'DefaultBinder',
  DefaultPreemption: 'DefaultPreemption',
  DynamicResources: 'DynamicResources',
  GangScheduling: 'GangScheduling',
  ImageLocality: 'ImageLocality',
  InterPodAffinity: 'InterPodAffinity',
  NodeAffinity: 'NodeAffinity',
  NodeDeclaredFeatures: 'NodeDeclaredFeatures',
  NodeName: 'NodeName',
  NodePorts: 'NodePorts',
  NodeResourcesBalancedAllocation: 'NodeResourcesBalancedAllocation',
  NodeResourcesFit: 'NodeResourcesFit',
  NodeUnschedulable: 'NodeUnschedulable',
  NodeVolumeLimits: 'NodeVolumeLimits',
  PodTopologySpread: 'PodTopologySpread',
  SchedulingGates: 'SchedulingGates',
  TaintToleration: 'TaintToleration',
  VolumeBinding: 'VolumeBinding',
  VolumeRestrictions: 'VolumeRestrictions',
  VolumeZone: 'VolumeZone',
} as const;

export type PluginName = (typeof Names)[keyof typeof Names];

export const ALL_PLUGIN_NAMES: readonly PluginName[] = Object.values(Names);
