// Scheduler profiles as the engine runs them: each KubeSchedulerConfiguration profile of the
// workspace turned into an engine Profile, merged onto upstream's default one, validated and built
// with the framework, and every problem mapped back to the manifest path it came from.
import type { Random } from '../../engine/api/random';
import { seededRandom } from '../../engine/api/random';
import {
  mergeProfile,
  validateProfile,
  EXTENSION_POINTS as ENGINE_POINTS,
  type FieldPath,
  type PluginSet,
  type Plugins,
  type Profile,
  type ProfileError,
} from '../../engine/framework/profile';
import type { Registry } from '../../engine/framework/registry';
import { Framework } from '../../engine/framework/runtime';
import { DEFAULT_PROFILE } from '../../engine/plugins/defaults';
import { ALL_PLUGIN_NAMES } from '../../engine/plugins/names';
import { inTreeRegistry } from '../../engine/plugins/registry';
import { podSetPlannerModule } from '../../engine/planner/scheduler/plugin';
import { joinPath, palletOnlyAt, type Located, type ProfileManifest, type SchedulerProfileManifest } from '../../manifests';
import type { Code } from './codes';
import { closest } from './words';

// PodSetPlanner too: the planner's profile configures it (its planner and objective).
const built = inTreeRegistry([podSetPlannerModule()]);
if (!built.ok) throw new Error(`the in-tree plugin registry is inconsistent: ${built.error}`);
/** Every plugin Podplan runs. */
export const REGISTRY: Registry = built.value;

/** A problem in a profile, at a path relative to its configuration document's object. */
export interface ProfileIssue {
  readonly code: Code;
  readonly severity: 'error' | 'warning';
  readonly path: string;
  readonly message: string;
}

export interface ResolvedProfile {
  readonly schedulerName: string;
  /** The merged profile the engine runs (upstream's defaults under the user's changes). */
  readonly profile: Profile;
  /** Where it is written, when it is; absent for a profile made from the defaults alone. */
  readonly source?: { readonly config: Located<ProfileManifest>; readonly index: number };
  readonly issues: readonly ProfileIssue[];
  /** Built when the profile has no errors; for analysis it scores every node (see analysisFramework). */
  readonly valid: boolean;
}

/** An upstream plugin Podplan does not run (volume, DRA, preemption): left out with a warning. */
const isUnimplemented = (name: string): boolean => (ALL_PLUGIN_NAMES as readonly string[]).includes(name) && !REGISTRY.has(name);

/** Upstream's defaults with the plugins Podplan does not run left out. */
const DEFAULTS: Profile = {
  ...DEFAULT_PROFILE,
  plugins: stripPlugins(DEFAULT_PROFILE.plugins, (name) => !REGISTRY.has(name)).plugins ?? {},
};

/** Plugin sets without the names `drop` selects, and for each point the original index of each kept entry. */
function stripPlugins(
  plugins: Plugins | undefined,
  drop: (name: string, point: string) => boolean,
): { plugins?: Plugins; indices: Map<string, number[]> } {
  const indices = new Map<string, number[]>();
  if (!plugins) return { indices };
  const out: Record<string, PluginSet> = {};
  for (const [point, set] of Object.entries(plugins) as Array<[string, PluginSet | undefined]>) {
    if (!set) continue;
    const kept: number[] = [];
    const enabled = (set.enabled ?? []).filter((p, i) => !drop(p.name, point) && kept.push(i) > 0);
    indices.set(point, kept);
    out[point] = { ...set, ...(set.enabled ? { enabled } : {}) };
  }
  return { plugins: out, indices };
}

/** Extension points of KubeSchedulerConfiguration the engine has no stage for. */
const ENGINE_POINT_NAMES: readonly string[] = [...ENGINE_POINTS, 'multiPoint'];

/** An engine profile error at its manifest path, with the code the engine gave it. */
function profileIssue(path: string, e: ProfileError): ProfileIssue {
  return { code: e.code, severity: 'error', path, message: e.message };
}

/** Something written that Podplan leaves out (an upstream plugin it does not run, a point it has no stage for). */
function unsupported(path: string, message: string): ProfileIssue {
  return { code: 'profile/unsupported', severity: 'warning', path, message };
}

/** Every plugin name a profile may write: upstream's (run or not) and ours. */
const KNOWN_PLUGIN_NAMES: readonly string[] = [...new Set([...ALL_PLUGIN_NAMES, ...REGISTRY.names()])];

/**
 * Disabled names no plugin has, at any extension point. Upstream ignores them (disabling nothing),
 * so a misspelt name silently leaves the plugin it meant running: a warning, with the near miss.
 */
function unknownDisabled(manifest: SchedulerProfileManifest, base: string): ProfileIssue[] {
  const out: ProfileIssue[] = [];
  for (const [point, set] of Object.entries(manifest.plugins ?? {}) as Array<[string, PluginSet | undefined]>) {
    (set?.disabled ?? []).forEach(({ name }, i) => {
      if (name === '*' || KNOWN_PLUGIN_NAMES.includes(name)) return;
      const near = closest(name, KNOWN_PLUGIN_NAMES);
      out.push({
        code: 'profile/unknown-plugin',
        severity: 'warning',
        path: pathOf(base, ['plugins', point, 'disabled', i, 'name']),
        message: `no plugin is named ${name}, so disabling it changes nothing${near ? `: did you mean ${near}?` : ''}`,
      });
    });
  }
  return out;
}

/** `['plugins', 'score', 'enabled', 2, 'weight']` as a manifest path under `base`. */
function pathOf(base: string, path: FieldPath): string {
  return path.reduce<string>((p, segment) => joinPath(p, segment), base);
}

/**
 * Where a plugin's args error is written: its field (the engine gives it as a path under the
 * entry's args) when it is written, else the nearest written field above it, down to the args.
 */
function argsPath(path: FieldPath, at: (path: FieldPath) => string, exists: (path: string) => boolean): string {
  for (let end = path.length; end > 3; end--) {
    const written = at(path.slice(0, end));
    if (exists(written)) return written;
  }
  return at(path.slice(0, 3));
}

/**
 * One profile of a configuration as the engine runs it, with its problems at manifest paths
 * (`profiles[1].plugins.score.enabled[0].weight`, relative to the configuration object).
 */
export function resolveProfile(config: Located<ProfileManifest>, index: number, exists: (path: string) => boolean): ResolvedProfile {
  const manifest = config.value.profiles[index] as SchedulerProfileManifest;
  const base = joinPath('profiles', index);
  const issues: ProfileIssue[] = [];
  const plugins: Record<string, PluginSet> = {};
  for (const [point, set] of Object.entries(manifest.plugins ?? {}) as Array<[string, PluginSet | undefined]>) {
    if (!set) continue;
    if (!ENGINE_POINT_NAMES.includes(point)) {
      if (set.enabled?.length)
        issues.push(
          unsupported(
            pathOf(base, ['plugins', point]),
            point === 'preBind'
              ? 'Podplan does not read the preBind list (PreBind runs for the Reserve plugins that have it: DynamicResources): these are left out of previews and checks'
              : `Podplan runs no plugins at ${point}: these are left out of previews and checks`,
          ),
        );
      continue;
    }
    plugins[point] = set;
  }
  issues.push(...unknownDisabled(manifest, base));
  const stripped = stripPlugins(plugins, (name, point) => isUnimplemented(name) || palletOnlyAt(name, point));
  for (const [point, set] of Object.entries(plugins)) {
    (set.enabled ?? []).forEach((p, i) => {
      if (palletOnlyAt(p.name, point)) {
        issues.push(
          unsupported(
            pathOf(base, ['plugins', point, 'enabled', i, 'name']),
            `${p.name} at ${point} is Pallet's own (its score for the planned node); Podplan's keeps the pod to its planned node at PreFilter: ignored`,
          ),
        );
      } else if (isUnimplemented(p.name)) {
        issues.push(
          unsupported(
            pathOf(base, ['plugins', point, 'enabled', i, 'name']),
            `${p.name} is an upstream plugin Podplan does not run: it is left out of previews and checks`,
          ),
        );
      }
    });
  }
  const configIndex: number[] = [];
  const pluginConfig = (manifest.pluginConfig ?? []).filter((c, i) => {
    if (!isUnimplemented(c.name)) return configIndex.push(i) > 0;
    issues.push(
      unsupported(pathOf(base, ['pluginConfig', i, 'name']), `${c.name} is an upstream plugin Podplan does not run: its args are not read`),
    );
    return false;
  });
  const percentage = manifest.percentageOfNodesToScore ?? config.value.percentageOfNodesToScore;
  const user: Profile = {
    schedulerName: manifest.schedulerName,
    ...(stripped.plugins ? { plugins: stripped.plugins } : {}),
    pluginConfig,
    ...(percentage !== undefined ? { percentageOfNodesToScore: percentage } : {}),
  };
  // Paths of the user's (stripped) profile back to what is written.
  const userPath = (path: FieldPath): string => {
    const [head, a, b, c, ...rest] = path;
    if (head === 'plugins' && b === 'enabled' && typeof c === 'number') {
      const original = stripped.indices.get(String(a))?.[c] ?? c;
      return pathOf(base, ['plugins', a as string, 'enabled', original, ...rest]);
    }
    if (head === 'pluginConfig' && typeof a === 'number') return pathOf(base, ['pluginConfig', configIndex[a] ?? a, ...path.slice(2)]);
    return pathOf(base, path);
  };
  for (const e of validateProfile(user, REGISTRY)) issues.push(profileIssue(userPath(e.path), e));
  const merged = mergeProfile(DEFAULTS, user);
  if (!issues.some((i) => i.severity === 'error')) {
    const framework = Framework.build(REGISTRY, merged, { random: seededRandom(1) });
    if (!framework.ok) {
      for (const e of framework.error) {
        const [head, a] = e.path;
        let path: string;
        if (head === 'pluginConfig' && typeof a === 'number' && a < pluginConfig.length) {
          path = argsPath(e.path, userPath, exists);
        } else if (head === 'plugins' && e.path.length >= 4) {
          // An index into the merged list: find the user's entry of that plugin, if the user wrote it.
          const point = String(a);
          const name = merged.plugins?.[point as keyof Plugins]?.enabled?.[Number(e.path[3])]?.name;
          const at = (plugins[point]?.enabled ?? []).findIndex((p) => p.name === name);
          path = at >= 0 ? pathOf(base, ['plugins', point, 'enabled', at, 'name']) : pathOf(base, ['plugins']);
        } else {
          path = exists(pathOf(base, ['plugins'])) ? pathOf(base, ['plugins']) : base;
        }
        issues.push(profileIssue(path, e));
      }
    }
  }
  return {
    schedulerName: manifest.schedulerName,
    profile: merged,
    source: { config, index },
    issues,
    valid: !issues.some((i) => i.severity === 'error'),
  };
}

/** The default plugins under a scheduler name no configuration of the workspace defines. */
export function defaultProfile(schedulerName: string): ResolvedProfile {
  return { schedulerName, profile: { ...DEFAULTS, schedulerName }, issues: [], valid: true };
}

/**
 * A framework that judges every node (no sampling), for checks, ranking and explanations; previews
 * use the profile as written. Undefined only if the profile cannot be built, which `valid` rules out.
 */
export function buildFramework(profile: Profile, random: Random, everyNode: boolean): Framework | undefined {
  const built = Framework.build(
    REGISTRY,
    everyNode ? { ...profile, percentageOfNodesToScore: 100, sampling: { strategy: 'adaptive' } } : profile,
    { random },
  );
  return built.ok ? built.value : undefined;
}
