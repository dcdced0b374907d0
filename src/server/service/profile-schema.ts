// The fields of a KubeSchedulerConfiguration and of the in-tree plugins' args, in the schema form
// completion and hover read. Checking is the framework's (validateProfile, the plugin factories);
// this only says what can be written and what it means.
import { CONFIG_EXTENSION_POINTS, SCHEDULER_CONFIG_API_VERSION } from '../../manifests';
import type { JsonSchema } from './schema';

const resourceSpecs: JsonSchema = {
  type: 'array',
  description: 'Resources to weigh, each with a weight (default cpu and memory, weight 1 each).',
  items: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'A resource name: cpu, memory, or an extended resource.' },
      weight: { type: 'integer', description: 'Its weight, 1..100.' },
    },
  },
};

/** Args of the in-tree plugins that take any, by plugin name. */
export const PLUGIN_ARGS: Readonly<Record<string, JsonSchema>> = {
  NodeResourcesFit: {
    type: 'object',
    properties: {
      ignoredResources: { type: 'array', items: { type: 'string' }, description: 'Extended resources the filter does not check.' },
      ignoredResourceGroups: {
        type: 'array',
        items: { type: 'string' },
        description: 'Groups of extended resources (the part before "/") the filter does not check.',
      },
      scoringStrategy: {
        type: 'object',
        description: 'How a node with room is scored.',
        properties: {
          type: {
            type: 'string',
            enum: ['LeastAllocated', 'MostAllocated', 'RequestedToCapacityRatio'],
            description: 'LeastAllocated spreads pods over nodes; MostAllocated packs them; RequestedToCapacityRatio follows the shape.',
          },
          resources: resourceSpecs,
          requestedToCapacityRatio: {
            type: 'object',
            properties: {
              shape: {
                type: 'array',
                description: 'Points (utilization 0..100 → score 0..10) of the scoring function.',
                items: { type: 'object', properties: { utilization: { type: 'integer' }, score: { type: 'integer' } } },
              },
            },
          },
        },
      },
    },
  },
  NodeResourcesBalancedAllocation: { type: 'object', properties: { resources: resourceSpecs } },
  NodeAffinity: {
    type: 'object',
    properties: {
      addedAffinity: {
        type: 'object',
        description: 'Node affinity added to every pod of this profile.',
        properties: {
          requiredDuringSchedulingIgnoredDuringExecution: { type: 'object', properties: { nodeSelectorTerms: { type: 'array' } } },
          preferredDuringSchedulingIgnoredDuringExecution: { type: 'array' },
        },
      },
    },
  },
  InterPodAffinity: {
    type: 'object',
    properties: {
      hardPodAffinityWeight: {
        type: 'integer',
        description: 'Score weight of existing pods’ required affinity to the incoming pod (0..100, default 1).',
      },
      ignorePreferredTermsOfExistingPods: { type: 'boolean', description: 'Score with the incoming pod’s preferred terms only.' },
    },
  },
  DynamicResources: {
    type: 'object',
    properties: {
      bindingTimeout: {
        type: 'string',
        description:
          'How long PreBind waits for the binding conditions of a pod’s devices, and how long after its allocation a claim’s binding may take (a duration such as "30s", at least 1s; default 10m).',
      },
      filterTimeout: {
        type: 'string',
        description:
          'Upstream’s limit on device allocation per node (a duration, zero or positive; default 10s); checked, not applied: Podplan’s allocator is never cut off.',
      },
    },
  },
  PodTopologySpread: {
    type: 'object',
    properties: {
      defaultConstraints: { type: 'array', description: 'Constraints for pods that give none.' },
      defaultingType: {
        type: 'string',
        enum: ['System', 'List'],
        description: 'System: upstream’s built-in defaults; List: defaultConstraints.',
      },
    },
  },
};

const pluginRef: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'An in-tree plugin by its upstream name ("*" in disabled: every default plugin of this point).' },
    weight: { type: 'integer', description: 'Score weight, 1..100 (score and multiPoint only).' },
  },
};

const pluginSet: JsonSchema = {
  type: 'object',
  properties: {
    enabled: {
      type: 'array',
      items: pluginRef,
      description: 'Plugins added to the defaults of this point (a default listed again takes the new weight).',
    },
    disabled: { type: 'array', items: pluginRef, description: 'Default plugins removed from this point; "*" removes them all.' },
  },
};

export const PROFILE_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'kube-scheduler configuration: the scheduler profiles previews and checks run.',
  properties: {
    apiVersion: { type: 'string', enum: [SCHEDULER_CONFIG_API_VERSION] },
    kind: { type: 'string', enum: ['KubeSchedulerConfiguration'] },
    parallelism: { type: 'integer', description: 'Scheduling parallelism (not used by previews).' },
    percentageOfNodesToScore: {
      type: 'integer',
      description: 'Share of nodes to find feasible before scoring, for every profile that sets none (0: adaptive).',
    },
    podInitialBackoffSeconds: { type: 'integer' },
    podMaxBackoffSeconds: { type: 'integer' },
    profiles: {
      type: 'array',
      description: 'One profile per scheduler name; pods choose one with spec.schedulerName.',
      items: {
        type: 'object',
        properties: {
          schedulerName: {
            type: 'string',
            description: 'Pods with this spec.schedulerName are scheduled with this profile (default-scheduler when left out).',
          },
          percentageOfNodesToScore: { type: 'integer', description: 'Share of nodes to find feasible before scoring (0: adaptive).' },
          plugins: {
            type: 'object',
            description: 'Plugins per extension point, on top of upstream’s defaults.',
            properties: Object.fromEntries(CONFIG_EXTENSION_POINTS.map((p) => [p, pluginSet])),
          },
          pluginConfig: {
            type: 'array',
            description: 'Args of plugins, by plugin name.',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string', description: 'The plugin the args are for.' },
                args: { type: 'object', description: 'The plugin’s args.' },
              },
            },
          },
        },
      },
    },
  },
};
