import assert from 'node:assert/strict';
import type { PluginFactory } from '../../../src/engine/framework/interfaces';
import type { Stage } from '../../../src/engine/framework/status';
import { DEFAULT_PLUGINS } from '../../../src/engine/plugins/defaults';
import * as DefaultPreemption from '../../../src/engine/plugins/DefaultPreemption';
import * as DynamicResources from '../../../src/engine/plugins/DynamicResources';
import * as ImageLocality from '../../../src/engine/plugins/ImageLocality';
import * as NodeVolumeLimits from '../../../src/engine/plugins/NodeVolumeLimits';
import * as VolumeBinding from '../../../src/engine/plugins/VolumeBinding';
import * as VolumeRestrictions from '../../../src/engine/plugins/VolumeRestrictions';
import * as VolumeZone from '../../../src/engine/plugins/VolumeZone';
import { ALL_PLUGIN_NAMES } from '../../../src/engine/plugins/names';
import * as NodeAffinity from '../../../src/engine/plugins/NodeAffinity';
import * as NodeName from '../../../src/engine/plugins/NodeName';
import * as NodePorts from '../../../src/engine/plugins/NodePorts';
import * as NodeResourcesBalancedAllocation from '../../../src/engine/plugins/NodeResourcesBalancedAllocation';
import * as NodeResourcesFit from '../../../src/engine/plugins/NodeResourcesFit';
import * as NodeUnschedulable from '../../../src/engine/plugins/NodeUnschedulable';
import * as PrioritySort from '../../../src/engine/plugins/PrioritySort';
import * as TaintToleration from '../../../src/engine/plugins/TaintToleration';
import { build } from './harness';

/** The method a plugin implements for each stage the default profile lists. */
const METHOD: Partial<Record<Stage, string>> = {
  Sort: 'less',
  PreFilter: 'preFilter',
  Filter: 'filter',
  PostFilter: 'postFilter',
  PreScore: 'preScore',
  Score: 'score',
};

const modules: ReadonlyArray<{ NAME: string; factory: PluginFactory }> = [
  PrioritySort,
  NodeName,
  NodeUnschedulable,
  TaintToleration,
  NodeAffinity,
  NodePorts,
  NodeResourcesFit,
  NodeResourcesBalancedAllocation,
  ImageLocality,
  DynamicResources,
  DefaultPreemption,
  VolumeRestrictions,
  NodeVolumeLimits,
  VolumeBinding,
  VolumeZone,
];

describe('engine/plugins/defaults', () => {
  it("score weights are upstream's", () => {
    assert.deepEqual(
      DEFAULT_PLUGINS.Score?.map((p) => [p.name, p.weight]),
      [
        ['TaintToleration', 3],
        ['NodeAffinity', 2],
        ['NodeResourcesFit', 1],
        ['VolumeBinding', 1],
        ['PodTopologySpread', 2],
        ['InterPodAffinity', 2],
        ['DynamicResources', 2],
        ['NodeResourcesBalancedAllocation', 1],
        ['ImageLocality', 1],
      ],
    );
  });

  it('every plugin named is an upstream plugin', () => {
    for (const refs of Object.values(DEFAULT_PLUGINS))
      for (const { name } of refs) assert.ok(ALL_PLUGIN_NAMES.includes(name as never), name);
  });

  describe('each plugin is listed at exactly the stages it implements, and builds from default args', () => {
    for (const mod of modules) {
      it(mod.NAME, () => {
        const plugin = build(mod.factory) as unknown as Record<string, unknown>;
        assert.equal(plugin['name'], mod.NAME);
        for (const [stage, method] of Object.entries(METHOD)) {
          const listed = DEFAULT_PLUGINS[stage as Stage]?.some((p) => p.name === mod.NAME) ?? false;
          assert.equal(typeof plugin[method] === 'function', listed, `${mod.NAME} at ${stage}`);
        }
      });
    }
  });
});
