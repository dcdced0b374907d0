// The in-tree registry: every plugin Podplan implements, by its upstream name.
import { err, ok, type Result } from '../api/result';
import type { PluginFactory } from '../framework/interfaces';
import { Registry } from '../framework/registry';
import * as DefaultBinder from './DefaultBinder';
import * as DefaultPreemption from './DefaultPreemption';
import * as DynamicResources from './DynamicResources';
import * as ImageLocality from './ImageLocality';
import * as InterPodAffinity from './interpodaffinity/plugin';
import * as NodeAffinity from './NodeAffinity';
import * as NodeDeclaredFeatures from './NodeDeclaredFeatures';
import * as NodeName from './NodeName';
import * as NodePorts from './NodePorts';
import * as NodeResourcesBalancedAllocation from './NodeResourcesBalancedAllocation';
import * as NodeResourcesFit from './NodeResourcesFit';
import * as NodeUnschedulable from './NodeUnschedulable';
import * as PodTopologySpread from './podtopologyspread/plugin';
import * as PrioritySort from './PrioritySort';
import * as SchedulingGates from './SchedulingGates';
import * as TaintToleration from './TaintToleration';
import * as NodeVolumeLimits from './NodeVolumeLimits';
import * as VolumeBinding from './VolumeBinding';
import * as VolumeRestrictions from './VolumeRestrictions';
import * as VolumeZone from './VolumeZone';

export interface PluginModule {
  readonly NAME: string;
  readonly factory: PluginFactory;
}

export const IN_TREE_PLUGINS: readonly PluginModule[] = [
  SchedulingGates,
  PrioritySort,
  NodeUnschedulable,
  NodeName,
  TaintToleration,
  NodeAffinity,
  NodePorts,
  NodeResourcesFit,
  VolumeRestrictions,
  NodeVolumeLimits,
  VolumeBinding,
  VolumeZone,
  PodTopologySpread,
  InterPodAffinity,
  DynamicResources,
  NodeDeclaredFeatures,
  DefaultPreemption,
  NodeResourcesBalancedAllocation,
  ImageLocality,
  DefaultBinder,
];

/** A registry of the in-tree plugins plus `extra` ones (a planner's own); a duplicate name is an error. */
export function inTreeRegistry(extra: readonly PluginModule[] = []): Result<Registry> {
  const registry = new Registry();
  for (const plugin of [...IN_TREE_PLUGINS, ...extra]) {
    const added = registry.register(plugin.NAME, plugin.factory);
    if (!added.ok) return err(added.error);
  }
  return ok(registry);
}
