// What `podplan schedule` and `podplan explain` share: the workspace read from the source given (paths or a kube context) and
// the profile pods of the default scheduler run with (--profile, else a KubeSchedulerConfiguration
// among the files with a default-scheduler profile, else the default one), every problem a located
// line on stderr.
import { DEFAULT_SCHEDULER_NAME } from '../engine/framework/profile';
import type { Profile } from '../engine/framework/profile';
import type { ClusterSnapshot } from '../engine/api/types';
import { PODPLAN_SCHEDULER_NAME } from '../kube/live/compose';
import type { WorkspaceModel } from '../manifests';
import type { SourceRef } from '../store/types';
import { profileInput, readProfile, refuses, unscheduledKinds, type ProfileInput } from './input';
import type { CliIO } from './io';
import { readSource, type SourceArgs } from './source';

export interface Scheduling {
  readonly workspace: WorkspaceModel;
  /** What the workspace was read from, for the plan history. */
  readonly source: SourceRef;
  readonly profile?: ProfileInput;
  /** The scheduler names of the configuration the profile came from: pods of its other profiles are not "another scheduler's". */
  readonly configured: readonly string[];
  readonly seed: number;
}

/** Reads the inputs of a scheduling command; undefined after printing the errors (the command exits 2). */
export async function loadScheduling(
  command: string,
  source: SourceArgs,
  values: { readonly profile?: string | undefined; readonly seed?: string | undefined; readonly strict?: boolean | undefined },
  io: CliIO,
): Promise<Scheduling | undefined> {
  const seed = values.seed === undefined ? 1 : Number(values.seed);
  if (!Number.isInteger(seed)) {
    io.stderr(`podplan ${command}: --seed must be a whole number, not "${values.seed}"\n`);
    return undefined;
  }
  const workspace = await readSource(source, io, values);
  const fromFile = values.profile !== undefined ? await readProfile(values.profile, io, DEFAULT_SCHEDULER_NAME) : undefined;
  const warnings = [...workspace.warnings, ...(fromFile?.warnings ?? [])];
  // Every pending pod is scheduled (or run to explain one): a pod that does not read refuses it.
  const refusal = workspace.value ? refuses(workspace.value, 'every-pod') : undefined;
  const errors = [...(workspace.held ?? []), ...workspace.errors, ...(fromFile?.errors ?? []), ...(refusal ? [refusal] : [])];
  let profile = fromFile?.value;
  let configured: string[] = fromFile?.value ? [...fromFile.value.schedulerNames] : [];
  if (values.profile === undefined && workspace.value) {
    const own = workspace.value.profiles.find((p) =>
      p.value.profiles.some((q) => (q.schedulerName ?? DEFAULT_SCHEDULER_NAME) === DEFAULT_SCHEDULER_NAME),
    );
    if (own) {
      const input = profileInput(own, DEFAULT_SCHEDULER_NAME);
      profile = input.value;
      configured = [...input.value.schedulerNames];
      warnings.push(...input.warnings);
    }
  }
  for (const w of warnings) io.stderr(`${w}\n`);
  for (const e of errors) io.stderr(`${e}\n`);
  if (errors.length > 0 || !workspace.value) return undefined;
  const unscheduled = unscheduledKinds(workspace.value);
  if (unscheduled) io.stderr(`${unscheduled}\n`);
  return { workspace: workspace.value, source: workspace.source, ...(profile ? { profile } : {}), configured, seed };
}

/**
 * A cluster read for `podplan schedule --context`: the pending pods whose schedulerName is
 * `podplan` (what `podplan run` schedules) are scheduled by the run's profile too, so the preview
 * shows what `podplan run` will do with them; unless the configuration has a `podplan` profile of its own.
 */
export function withPodplanPods(cluster: ClusterSnapshot, profileSchedulerName: string, configured: readonly string[]): ClusterSnapshot {
  if (profileSchedulerName === PODPLAN_SCHEDULER_NAME || configured.includes(PODPLAN_SCHEDULER_NAME)) return cluster;
  if (!cluster.pods.some((p) => !p.spec.nodeName && p.spec.schedulerName === PODPLAN_SCHEDULER_NAME)) return cluster;
  return {
    ...cluster,
    pods: cluster.pods.map((p) =>
      !p.spec.nodeName && p.spec.schedulerName === PODPLAN_SCHEDULER_NAME
        ? { ...p, spec: { ...p.spec, schedulerName: profileSchedulerName } }
        : p,
    ),
  };
}

/** The profile to run, with how many scored nodes each pod's Diagnosis keeps (undefined: all). */
export function runProfile(scheduling: Scheduling, recordScores: number | undefined): Profile {
  const base = scheduling.profile?.profile ?? { schedulerName: DEFAULT_SCHEDULER_NAME };
  const kept = base.recordScores ?? recordScores;
  return { ...base, ...(kept !== undefined ? { recordScores: kept } : {}) };
}
