// Every upstream plugin name (pkg/scheduler/framework/plugins/names), in one place, so profiles,
// registries and messages never spell one differently. Podplan implements the scheduling plugins;
// the volume, DRA and binding plugins are named here so a profile that mentions them can be told so.

export const Names = {
  PrioritySort: 'PrioritySort',
  DefaultBinder: 'DefaultBinder',
  DefaultPreemption: 'DefaultPreemption',
  DynamicResources: 'DynamicResources',
  ImageLocality: 'ImageLocality',
  InterPodAffinity: 'InterPodAffinity',
  NodeAffinity: 'NodeAffinity',
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
