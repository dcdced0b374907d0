// A scheduler profile file: KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) read into
// a plain typed object mirroring its fields. Plugin names and args are kept as written: which
// plugins exist and what their args mean is the framework's to check.
import {
  DEFAULT_SCHEDULER_NAME,
  type ExtensionPoint as EngineExtensionPoint,
  type PluginRef,
  type PluginSet,
  type Plugins,
  type Profile,
} from '../engine/framework/profile';
import { anyValue, arrayOf, integer, object, recordOf, string, type Decoder } from './decode';

export { DEFAULT_SCHEDULER_NAME, type PluginRef, type PluginSet };
export const SCHEDULER_CONFIG_API_VERSION = 'kubescheduler.config.k8s.io/v1';

/** Extension points of `profiles[].plugins`, as in KubeSchedulerConfiguration v1. */
export const CONFIG_EXTENSION_POINTS = [
  'preEnqueue',
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
  'multiPoint',
] as const;
/** A point of `profiles[].plugins` in the configuration file (the engine runs some of them: engine/framework/profile.ts). */
export type ConfigExtensionPoint = (typeof CONFIG_EXTENSION_POINTS)[number];

export type PluginsManifest = { readonly [P in ConfigExtensionPoint]?: PluginSet };

export interface PluginConfigManifest {
  readonly name: string;
  /** The plugin's args as written (`apiVersion`/`kind` included when given). */
  readonly args?: Readonly<Record<string, unknown>>;
}

export interface SchedulerProfileManifest {
  /** default-scheduler when left out. */
  readonly schedulerName: string;
  readonly percentageOfNodesToScore?: number;
  readonly plugins?: PluginsManifest;
  readonly pluginConfig?: readonly PluginConfigManifest[];
}

/** KubeSchedulerConfiguration v1, the fields scheduling reads (leader election, client settings and extenders are not). */
export interface ProfileManifest {
  readonly apiVersion: string;
  readonly parallelism?: number;
  readonly percentageOfNodesToScore?: number;
  readonly podInitialBackoffSeconds?: number;
  readonly podMaxBackoffSeconds?: number;
  readonly profiles: readonly SchedulerProfileManifest[];
}

const pluginRef = object<PluginRef>({ name: string, weight: integer(0) }, ['name']);

const pluginSet = object<PluginSet>({ enabled: arrayOf(pluginRef), disabled: arrayOf(pluginRef) });

const plugins = object<PluginsManifest>(
  Object.fromEntries(CONFIG_EXTENSION_POINTS.map((p) => [p, pluginSet])) as { [P in ConfigExtensionPoint]: Decoder<PluginSet> },
);

const pluginConfig = object<PluginConfigManifest>({ name: string, args: recordOf(anyValue) }, ['name']);

const percentage = integer(0, 100);

const profileShape = object<Omit<SchedulerProfileManifest, 'schedulerName'> & { schedulerName?: string }>({
  schedulerName: string,
  percentageOfNodesToScore: percentage,
  plugins,
  pluginConfig: arrayOf(pluginConfig),
});

const schedulerProfile: Decoder<SchedulerProfileManifest> = (v, path, ctx) => {
  const p = profileShape(v, path, ctx);
  return p && { ...p, schedulerName: p.schedulerName ?? DEFAULT_SCHEDULER_NAME };
};

const configShape = object<Omit<ProfileManifest, 'profiles'> & { profiles?: SchedulerProfileManifest[] }>({
  apiVersion: string,
  parallelism: integer(1),
  percentageOfNodesToScore: percentage,
  podInitialBackoffSeconds: integer(1),
  podMaxBackoffSeconds: integer(1),
  profiles: arrayOf(schedulerProfile),
});

/** A configuration without profiles runs the default one, as kube-scheduler does. */
export const profileManifest: Decoder<ProfileManifest> = (v, path, ctx) => {
  const c = configShape(v, path, ctx);
  if (!c) return undefined;
  const profiles = c.profiles?.length ? c.profiles : [{ schedulerName: DEFAULT_SCHEDULER_NAME }];
  return { ...c, apiVersion: c.apiVersion ?? SCHEDULER_CONFIG_API_VERSION, profiles };
};

/**
 * Pallet's PodSetPlanner also scores (its planned node highest); Podplan's restricts the pod to its
 * planned node at PreFilter, so the score is not needed: enabled there, it is left out with a warning.
 */
const PALLET_ONLY_POINTS: Readonly<Record<string, readonly string[]>> = { PodSetPlanner: ['preScore', 'score'] };

/** Whether `plugin` enabled at `point` is Pallet's own use of it, left out by Podplan (see PALLET_ONLY_POINTS). */
export function palletOnlyAt(plugin: string, point: string): boolean {
  return PALLET_ONLY_POINTS[plugin]?.includes(point) ?? false;
}

/** Extension points kube-scheduler has and the engine does not configure (its PreBind runs for the Reserve plugins that have it). */
const POINTS_NOT_RUN: readonly ConfigExtensionPoint[] = ['preEnqueue', 'preBind', 'postBind'];

/**
 * The engine's Profile for profile `index` of a configuration (the configuration's
 * percentageOfNodesToScore applies where the profile sets none), and the extension points it
 * configures that the engine does not run, so a caller can warn about them. Field paths of the
 * engine's profile errors are those of `profiles[index]`.
 */
export function engineProfile(
  config: ProfileManifest,
  index = 0,
): {
  profile: Profile;
  pointsNotRun: ConfigExtensionPoint[];
  palletOnly: Array<{ point: ConfigExtensionPoint; index: number; name: string }>;
} {
  const manifest = config.profiles[index] ?? { schedulerName: DEFAULT_SCHEDULER_NAME };
  const plugins: Partial<Record<EngineExtensionPoint | 'multiPoint', PluginSet>> = {};
  const pointsNotRun: ConfigExtensionPoint[] = [];
  const palletOnly: Array<{ point: ConfigExtensionPoint; index: number; name: string }> = [];
  for (const [point, set] of Object.entries(manifest.plugins ?? {}) as Array<[ConfigExtensionPoint, PluginSet]>) {
    if (POINTS_NOT_RUN.includes(point)) {
      pointsNotRun.push(point);
      continue;
    }
    const enabled = set.enabled?.filter((p, i) => !(palletOnlyAt(p.name, point) && palletOnly.push({ point, index: i, name: p.name })));
    plugins[point as EngineExtensionPoint | 'multiPoint'] = enabled ? { ...set, enabled } : set;
  }
  const percentage = manifest.percentageOfNodesToScore ?? config.percentageOfNodesToScore;
  const profile: Profile = {
    schedulerName: manifest.schedulerName,
    plugins: plugins as Plugins,
    ...(manifest.pluginConfig ? { pluginConfig: manifest.pluginConfig } : {}),
    ...(percentage !== undefined ? { percentageOfNodesToScore: percentage } : {}),
  };
  return { profile, pointsNotRun, palletOnly };
}
