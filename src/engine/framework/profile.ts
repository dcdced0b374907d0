// A scheduling profile in the shape of a KubeSchedulerConfiguration profile (schedulerName, plugins
// per extension point with enabled/disabled lists, multiPoint, pluginConfig,
// percentageOfNodesToScore), so a user's existing config reads naturally, plus Podplan's own
// settings (sampling, commit candidates, bind retries, how many scores to record).
//
// A user profile is merged onto a default profile with upstream's rules (mergePluginSet), and the
// plugins of each extension point are resolved with upstream's multiPoint expansion. The default
// plugin list is supplied by the caller (the plugins module): nothing here names a plugin.
import type { FieldPath } from '../api/field';
import type { Registry } from './registry';

/** Extension points a profile configures, in the order a cycle reaches them. */
export const EXTENSION_POINTS = [
  'queueSort',
  'sampleNodes',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'checkConflicts',
  'bind',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
/** In a disabled list, disables every default plugin of that extension point. */
export const ALL_PLUGINS = '*';
export const MIN_WEIGHT = 1;
export const MAX_WEIGHT = 100;
/** Basis points: 10000 = every node. */
export const MAX_BASIS_POINTS = 10000;

export interface PluginRef {
  readonly name: string;
  /** Score weight (score and multiPoint only); 1 when not given. */
  readonly weight?: number;
}

export interface PluginSet {
  readonly enabled?: readonly PluginRef[];
  readonly disabled?: readonly { readonly name: string }[];
}

export type Plugins = { readonly [P in ExtensionPoint | 'multiPoint']?: PluginSet };

export interface PluginConfig {
  readonly name: string;
  readonly args?: unknown;
}

export type SamplingStrategy = 'adaptive' | 'fixed';
export type SamplingOrder = 'random' | 'roundRobin';

export interface Sampling {
  /** adaptive: upstream's percentage of nodes to score; fixed: `basisPoints` of the nodes. */
  readonly strategy?: SamplingStrategy;
  readonly basisPoints?: number;
  /** Where a cycle starts in the node list: after where the last one stopped, or anywhere. */
  readonly order?: SamplingOrder;
}

export interface Profile {
  readonly schedulerName: string;
  readonly plugins?: Plugins;
  readonly pluginConfig?: readonly PluginConfig[];
  /** 0 or unset: adaptive (50% less 1% per 125 nodes, at least 5%); otherwise this percentage. */
  readonly percentageOfNodesToScore?: number;
  readonly sampling?: Sampling;
  /** K: how many of the best nodes the binding pipeline may try, best first. */
  readonly commitCandidates?: number;
  /** How many more candidates to try after the first fails to bind. */
  readonly bindRetries?: number;
  /** How many of the best scored nodes the Diagnosis keeps score records for; unset: all. */
  readonly recordScores?: number;
}

/** The settings of a profile with every default applied. */
export interface FrameworkSettings {
  readonly percentageOfNodesToScore: number;
  readonly strategy: SamplingStrategy;
  readonly basisPoints: number;
  readonly order: SamplingOrder;
  readonly commitCandidates: number;
  readonly bindRetries: number;
  readonly recordScores: number;
}

export const FRAMEWORK_DEFAULTS: FrameworkSettings = Object.freeze({
  percentageOfNodesToScore: 0,
  strategy: 'adaptive',
  basisPoints: MAX_BASIS_POINTS,
  order: 'roundRobin',
  commitCandidates: 3,
  bindRetries: 2,
  recordScores: Infinity,
});

export function frameworkSettings(profile: Profile): FrameworkSettings {
  const d = FRAMEWORK_DEFAULTS;
  return {
    percentageOfNodesToScore: profile.percentageOfNodesToScore ?? d.percentageOfNodesToScore,
    strategy: profile.sampling?.strategy ?? d.strategy,
    basisPoints: profile.sampling?.basisPoints ?? d.basisPoints,
    order: profile.sampling?.order ?? d.order,
    commitCandidates: profile.commitCandidates ?? d.commitCandidates,
    bindRetries: profile.bindRetries ?? d.bindRetries,
    recordScores: profile.recordScores ?? d.recordScores,
  };
}

/** Where in the profile a problem is: `['plugins', 'score', 'enabled', 2, 'weight']`. */
export type { FieldPath } from '../api/field';

/** The stable code of a profile error: what kind of mistake it is, decided where it is found. */
export type ProfileErrorCode =
  'profile/unknown-plugin' | 'profile/duplicate-plugin' | 'profile/bad-weight' | 'profile/bad-args' | 'profile/invalid';

export interface ProfileError {
  readonly code: ProfileErrorCode;
  /** Relative to the profile that was checked, so a caller can map it to a YAML location. */
  readonly path: FieldPath;
  readonly message: string;
}

// ---------------------------------------------------------------------------------------------
// Merging

/**
 * The user profile on top of the default one, as upstream's SetDefaults: per extension point
 * (multiPoint included) the defaults stay in order unless disabled (`*` disables all), a default the
 * user enables again is replaced in place (new weight), other user plugins are appended; pluginConfig
 * of the user replaces the default entry of the same plugin; the other settings are the user's when set.
 */
export function mergeProfile(defaults: Profile, user: Profile): Profile {
  const plugins: { [P in ExtensionPoint | 'multiPoint']?: PluginSet } = {};
  for (const point of [...EXTENSION_POINTS, 'multiPoint'] as const) {
    const d = defaults.plugins?.[point];
    const u = user.plugins?.[point];
    if (d || u) plugins[point] = mergePluginSet(d ?? {}, u ?? {});
  }
  const userConfig = user.pluginConfig ?? [];
  const configured = new Set(userConfig.map((c) => c.name));
  const sampling = defaults.sampling || user.sampling ? { ...defaults.sampling, ...user.sampling } : undefined;
  return {
    ...defaults,
    ...user,
    plugins,
    pluginConfig: [...userConfig, ...(defaults.pluginConfig ?? []).filter((c) => !configured.has(c.name))],
    ...(sampling ? { sampling } : {}),
  };
}

function mergePluginSet(defaults: PluginSet, user: PluginSet): PluginSet {
  const disabled = [...(user.disabled ?? []), ...(defaults.disabled ?? [])];
  const disabledNames = new Set(disabled.map((p) => p.name));
  const userEnabled = user.enabled ?? [];
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabledNames.has(ALL_PLUGINS)) {
    for (const plugin of defaults.enabled ?? []) {
      if (disabledNames.has(plugin.name)) continue;
      const index = userEnabled.findIndex((p) => p.name === plugin.name);
      if (index >= 0) replaced.add(index);
      enabled.push(index >= 0 ? (userEnabled[index] as PluginRef) : plugin);
    }
  }
  userEnabled.forEach((plugin, index) => {
    if (!replaced.has(index)) enabled.push(plugin);
  });
  return { enabled, disabled };
}

// ---------------------------------------------------------------------------------------------
// Validation

/**
 * Every problem in the profile, each with its path and a message naming the profile
 * ("profile default-scheduler: score weight for NodeAffinity must be between 1 and 100"). With a
 * registry, plugin names are checked too.
 */
export function validateProfile(profile: Profile, registry?: Registry): ProfileError[] {
  const errors: ProfileError[] = [];
  const prefix = profile.schedulerName ? `profile ${profile.schedulerName}: ` : 'profile: ';
  const report = (path: FieldPath, message: string, code: ProfileErrorCode = 'profile/invalid') =>
    errors.push({ code, path, message: prefix + message });
  const integer = (path: FieldPath, value: number | undefined, min: number, max: number) => {
    if (value === undefined) return;
    if (!Number.isInteger(value) || value < min || value > max) {
      report(
        path,
        max === Infinity
          ? `${path.join('.')} must be an integer of at least ${min}`
          : `${path.join('.')} must be between ${min} and ${max}`,
      );
    }
  };

  if (!profile.schedulerName) report(['schedulerName'], 'schedulerName is required');
  for (const [point, set] of Object.entries(profile.plugins ?? {}) as Array<[string, PluginSet | undefined]>) {
    if (point !== 'multiPoint' && !(EXTENSION_POINTS as readonly string[]).includes(point)) {
      report(['plugins', point], `unknown extension point ${point}`);
      continue;
    }
    const seen = new Set<string>();
    (set?.enabled ?? []).forEach((plugin, i) => {
      const path = ['plugins', point, 'enabled', i];
      if (!plugin.name) {
        report([...path, 'name'], `a plugin enabled at ${point} has no name`);
        return;
      }
      if (seen.has(plugin.name)) report(path, `plugin ${plugin.name} is enabled twice at ${point}`, 'profile/duplicate-plugin');
      seen.add(plugin.name);
      if (registry && !registry.has(plugin.name))
        report([...path, 'name'], `unknown plugin ${plugin.name} enabled at ${point}`, 'profile/unknown-plugin');
      if (plugin.weight === undefined) return;
      if (point !== 'score' && point !== 'multiPoint')
        report([...path, 'weight'], `weight for ${plugin.name} applies only at score or multiPoint, not ${point}`, 'profile/bad-weight');
      else if (!Number.isInteger(plugin.weight) || plugin.weight < MIN_WEIGHT || plugin.weight > MAX_WEIGHT) {
        report(
          [...path, 'weight'],
          `score weight for ${plugin.name} must be between ${MIN_WEIGHT} and ${MAX_WEIGHT}`,
          'profile/bad-weight',
        );
      }
    });
    (set?.disabled ?? []).forEach((plugin, i) => {
      if (!plugin.name) report(['plugins', point, 'disabled', i, 'name'], `a plugin disabled at ${point} has no name`);
    });
  }

  const configured = new Set<string>();
  (profile.pluginConfig ?? []).forEach((config, i) => {
    const path = ['pluginConfig', i, 'name'];
    if (!config.name) {
      report(path, 'a pluginConfig entry has no name');
      return;
    }
    if (configured.has(config.name)) report(path, `pluginConfig for ${config.name} is given twice`, 'profile/duplicate-plugin');
    configured.add(config.name);
    if (registry && !registry.has(config.name)) report(path, `pluginConfig for unknown plugin ${config.name}`, 'profile/unknown-plugin');
  });

  integer(['percentageOfNodesToScore'], profile.percentageOfNodesToScore, 0, 100);
  const sampling = profile.sampling;
  if (sampling?.strategy !== undefined && sampling.strategy !== 'adaptive' && sampling.strategy !== 'fixed') {
    report(['sampling', 'strategy'], `sampling.strategy must be adaptive or fixed, not ${String(sampling.strategy)}`);
  }
  if (sampling?.order !== undefined && sampling.order !== 'random' && sampling.order !== 'roundRobin') {
    report(['sampling', 'order'], `sampling.order must be random or roundRobin, not ${String(sampling.order)}`);
  }
  if (sampling?.strategy === 'fixed' && sampling.basisPoints === undefined) {
    report(['sampling', 'basisPoints'], 'sampling.basisPoints is required with strategy fixed');
  }
  integer(['sampling', 'basisPoints'], sampling?.basisPoints, 1, MAX_BASIS_POINTS);
  integer(['commitCandidates'], profile.commitCandidates, 1, Infinity);
  integer(['bindRetries'], profile.bindRetries, 0, Infinity);
  integer(['recordScores'], profile.recordScores, 0, Infinity);
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Resolution

/** Every plugin the profile enables anywhere: the ones to instantiate (upstream pluginsNeeded). */
export function pluginsNeeded(profile: Profile): string[] {
  const names = new Set<string>();
  for (const point of ['multiPoint', ...EXTENSION_POINTS] as const) {
    for (const plugin of profile.plugins?.[point]?.enabled ?? []) names.add(plugin.name);
  }
  return [...names];
}

export interface ResolvedPlugins {
  /** Plugin names per extension point, in the order they run. */
  readonly points: { readonly [P in ExtensionPoint]: readonly string[] };
  /** Score weight per score plugin. */
  readonly weights: ReadonlyMap<string, number>;
}

/**
 * The plugins of each extension point, with upstream's multiPoint expansion: a multiPoint plugin
 * joins every point it implements unless disabled there (or `*` is); a plugin also enabled
 * explicitly at a point keeps that entry and moves first; then come the multiPoint plugins, then the
 * remaining explicit ones. A plugin enabled explicitly at a point it does not implement is an error.
 * Weights come from the score entry first, then multiPoint, else 1.
 */
export function resolvePlugins(
  profile: Profile,
  implementsPoint: (plugin: string, point: ExtensionPoint) => boolean,
): { resolved: ResolvedPlugins; errors: ProfileError[] } {
  const errors: ProfileError[] = [];
  const multiPoint = profile.plugins?.multiPoint?.enabled ?? [];
  const points = {} as { [P in ExtensionPoint]: string[] };
  for (const point of EXTENSION_POINTS) {
    const set = profile.plugins?.[point] ?? {};
    const explicit = (set.enabled ?? []).map((p) => p.name);
    explicit.forEach((name, i) => {
      if (!implementsPoint(name, point)) {
        errors.push({
          code: 'profile/unknown-plugin',
          path: ['plugins', point, 'enabled', i, 'name'],
          message: `profile ${profile.schedulerName}: plugin ${name} enabled at ${point} does not implement it`,
        });
      }
    });
    const disabled = new Set((set.disabled ?? []).map((p) => p.name));
    if (disabled.has(ALL_PLUGINS)) {
      points[point] = explicit;
      continue;
    }
    const overrides = new Set<string>();
    const fromMultiPoint: string[] = [];
    for (const { name } of multiPoint) {
      if (!implementsPoint(name, point) || disabled.has(name)) continue;
      if (explicit.includes(name)) overrides.add(name);
      else if (!fromMultiPoint.includes(name)) fromMultiPoint.push(name);
    }
    points[point] = [...explicit.filter((n) => overrides.has(n)), ...fromMultiPoint, ...explicit.filter((n) => !overrides.has(n))];
  }
  const declared = new Map<string, number>();
  for (const plugin of [...(profile.plugins?.score?.enabled ?? []), ...multiPoint]) {
    if (plugin.weight !== undefined && !declared.has(plugin.name)) declared.set(plugin.name, plugin.weight);
  }
  const weights = new Map(points.score.map((name) => [name, declared.get(name) ?? MIN_WEIGHT]));
  return { resolved: { points, weights }, errors };
}
