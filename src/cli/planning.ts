// What `podplan plan` and `podplan serve-planner` share: the workspace read from the paths given,
// and the planning framework of the pod-set profile (--profile, else the workspace's profile for the
// pod-set scheduler, else the default one), every problem as a located line.
import { seededRandom } from '../engine/api/random';
import { mergeProfile, type Profile } from '../engine/framework/profile';
import { podSetFramework, type PodSetFramework } from '../engine/planner/scheduler/plugin';
import { POD_SET_SCHEDULER_NAME } from '../engine/planner/podset/podset';
import type { TriggerSpec } from '../engine/planner/podset/trigger';
import { DEFAULT_PROFILE } from '../engine/plugins/defaults';
import { highsSolver } from '../platform/highs';
import {
  fieldRange,
  joinPath,
  unreadablePods,
  unreadableRefusal,
  type Located,
  type ScheduleTriggerManifest,
  type WorkspaceModel,
} from '../manifests';
import { profileInput, readProfile, unscheduledKinds, type ProfileInput } from './input';
import type { CliIO } from './io';
import type { SourceRef } from '../store/types';
import { readSource, type SourceArgs } from './source';
import { readTrigger } from '../engine/planner/podset/trigger';
import type { PlanSettings } from '../engine/planner/build';
import type { Plan } from '../engine/planner/plan';
import { planOnePodSet, podSetsPlannedFor } from '../engine/planner/plan-all';
import type { PodSetRef } from '../engine/planner/podset/podset';
import { planFromManifest } from '../manifests';
import { triggerSpec } from '../manifests/planner';

export interface Planning {
  readonly workspace: WorkspaceModel;
  /** What the workspace was read from, for the plan history. */
  readonly source: SourceRef;
  readonly planning: PodSetFramework;
  /** The merged profile the planning framework runs. */
  readonly profile: Profile;
  /** The workspace's triggers as the engine reads them, each checked. */
  readonly triggers: readonly TriggerSpec[];
}

export interface PlanningInput {
  readonly value?: Planning;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /** The located errors of pods that do not read (Input.held): each plan judges them (planSet). */
  readonly held?: readonly string[];
}

export { triggerSpec } from '../manifests/planner';

/** A trigger the engine cannot use (a quiet time that does not parse, a bad planner label), at its field. */
function triggerError(located: Located<ScheduleTriggerManifest>): string | undefined {
  const read = readTrigger(triggerSpec(located.value));
  if (read.ok) return undefined;
  const range = fieldRange(
    located,
    read.error.field.reduce<string>((at, key) => joinPath(at, key), ''),
  );
  return `${range.file}:${range.start.line}:${range.start.column}: error ${read.error.code}: ${read.error.message}`;
}

/** How long one solve may take in the CLI's plans. */
const SOLVER_TIME_LIMIT_MS = 10_000;

/**
 * The planning input of a command's source (its parsed arguments: paths or --context), `--profile`
 * and `--seed`, warnings and errors printed to stderr; undefined when there were errors (the command exits 2).
 */
export async function loadPlanning(
  command: string,
  source: SourceArgs,
  values: { readonly profile?: string | undefined; readonly seed?: string | undefined; readonly strict?: boolean | undefined },
  io: CliIO,
): Promise<Planning | undefined> {
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isInteger(seed)) {
    io.stderr(`podplan ${command}: --seed must be a whole number, not "${values.seed}"\n`);
    return undefined;
  }
  const input = await readPlanning(
    source,
    { ...(values.profile !== undefined ? { profile: values.profile } : {}), seed, strict: values.strict },
    io,
  );
  for (const w of input.warnings) io.stderr(`${w}\n`);
  for (const e of [...(input.held ?? []), ...input.errors]) io.stderr(`${e}\n`);
  return input.value;
}

async function readPlanning(
  source: SourceArgs,
  options: { readonly profile?: string; readonly seed: number; readonly strict?: boolean | undefined },
  io: CliIO,
): Promise<PlanningInput> {
  const workspace = await readSource(source, io, options);
  const fromFile = options.profile !== undefined ? await readProfile(options.profile, io, POD_SET_SCHEDULER_NAME) : undefined;
  const errors = [...workspace.errors, ...(fromFile?.errors ?? [])];
  const warnings = [...workspace.warnings, ...(fromFile?.warnings ?? [])];
  const held = workspace.held ?? [];
  if (!workspace.value || errors.length > 0) return { errors, warnings, held };
  for (const t of workspace.value.triggers) {
    const error = triggerError(t);
    if (error) errors.push(error);
  }
  let chosen: ProfileInput | undefined = fromFile?.value;
  if (options.profile === undefined) {
    const own = workspace.value.profiles.find((p) => p.value.profiles.some((q) => q.schedulerName === POD_SET_SCHEDULER_NAME));
    if (own) {
      const input = profileInput(own, POD_SET_SCHEDULER_NAME);
      chosen = input.value;
      warnings.push(...input.warnings);
    }
  }
  const profile: Profile = chosen ? mergeProfile(DEFAULT_PROFILE, chosen.profile) : DEFAULT_PROFILE;
  // The exact planner's solver and the bound beside every plan (HiGHS, loaded from node_modules); without it, plans have no bound.
  const highs = await highsSolver();
  if (!highs.ok) warnings.push(highs.error);
  const solver = highs.ok ? { solver: { solver: highs.value, timeLimitMs: SOLVER_TIME_LIMIT_MS, seed: options.seed } } : {};
  const planning = podSetFramework(profile, { random: seededRandom(options.seed), ...solver });
  if (!planning.ok) errors.push(...planning.error.map((e) => (chosen ? chosen.locate(e) : e.message)));
  if (errors.length > 0 || !planning.ok) return { errors, warnings, held };
  for (const key of planning.value.args.ignored ?? []) {
    const at = chosen ? pluginArgsPath(chosen.profile, key) : undefined;
    warnings.push(
      `${chosen && at ? chosen.position(at) : 'profile'}: warning: PodSetPlanner arg ${key} is Pallet's own setting and means nothing to Podplan; ignored`,
    );
  }
  const unscheduled = unscheduledKinds(workspace.value);
  if (unscheduled) warnings.push(unscheduled);
  return {
    value: {
      workspace: workspace.value,
      source: workspace.source,
      planning: planning.value,
      profile,
      triggers: workspace.value.triggers.map((t) => triggerSpec(t.value)),
    },
    errors,
    warnings,
    held,
  };
}

export interface SetOutcome {
  readonly plan?: Plan;
  /** The set's trigger (namespace/name), when it has one. */
  readonly trigger?: string;
  readonly failed: boolean;
  readonly message?: string;
}

/**
 * The set planned through its trigger (and what it depends on), or directly when it has none
 * (engine/planner/plan-all planOnePodSet, as the editor's preview plans it); a string when it
 * cannot be (the cluster cannot be read, or a set without a trigger cannot be planned).
 */
export async function planSet(planning: Planning, ref: PodSetRef, override: PlanSettings, now: number): Promise<SetOutcome | string> {
  const { workspace, triggers } = planning;
  // A pod of the files that does not read refuses the plans it is part of (the rule the editor applies too).
  const refusal = unreadableRefusal(unreadablePods(workspace, podSetsPlannedFor(ref, triggers)));
  if (refusal) return refusal;
  const outcome = await planOnePodSet(
    {
      cluster: workspace.cluster,
      triggers,
      plans: workspace.plans.map((p) => planFromManifest(p.value)),
      planning: planning.planning,
      now,
      override,
    },
    ref,
  );
  if (!outcome.ok) return outcome.error;
  const { plan, trigger, failed, message } = outcome.value;
  if (!trigger) return plan ? { plan, failed: false } : (message ?? 'not planned');
  return {
    ...(plan ? { plan } : {}),
    trigger: `${trigger.namespace}/${trigger.name}`,
    failed,
    ...(message !== undefined ? { message } : {}),
  };
}

/** Where a PodSetPlanner arg is written in the profile (pluginConfig[i].args.key), if it is. */
function pluginArgsPath(profile: Profile, key: string): (string | number)[] | undefined {
  const index = profile.pluginConfig?.findIndex((c) => c.name === 'PodSetPlanner') ?? -1;
  return index >= 0 ? ['pluginConfig', index, 'args', key] : undefined;
}
