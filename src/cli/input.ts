// Reading the command line's inputs: YAML paths into the workspace model, a profile file into the
// engine's Profile. Problems come back as located lines (`file:line:col: error code: message`).
import type { Profile } from '../engine/framework/profile';
import { engineProfile, fieldRange, formatError, joinPath, readFile, readSnapshot, type Located, type ProfileManifest, type WorkspaceModel } from '../manifests';
import type { CliIO } from './io';

export interface Input<T> {
  readonly value?: T;
  /** Located errors: the command stops with exit 2 when there are any. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Reads every YAML file the paths name into one workspace model. */
export async function readWorkspace(paths: readonly string[], io: CliIO): Promise<Input<WorkspaceModel>> {
  const errors: string[] = [];
  const files: Array<{ name: string; text: string }> = [];
  for (const target of paths) {
    try {
      for (const file of await io.yamlFiles(target)) files.push({ name: file, text: await io.readFile(file) });
    } catch (error) {
      errors.push(`${target}: ${describe(error)}`);
    }
  }
  const model = readSnapshot(files);
  for (const e of model.errors) (e.severity === 'error' ? errors : []).push(formatError(e));
  const warnings = model.errors.filter((e) => e.severity !== 'error').map(formatError);
  return { value: model, errors, warnings };
}

export interface ProfileInput {
  readonly profile: Profile;
  /** A located line for a profile error at `path` (a field path into the profile). */
  readonly locate: (path: readonly (string | number)[], message: string) => string;
}

/** The profile of a KubeSchedulerConfiguration file named `schedulerName` (else its first), as the engine's Profile. */
export async function readProfile(file: string, io: CliIO, schedulerName?: string): Promise<Input<ProfileInput>> {
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (error) {
    return { errors: [`${file}: ${describe(error)}`], warnings: [] };
  }
  const model = readFile({ name: file, text });
  const errors = model.errors.filter((e) => e.severity === 'error').map(formatError);
  const warnings = model.errors.filter((e) => e.severity !== 'error').map(formatError);
  const located = model.profiles[0];
  if (!located) return { errors: errors.length ? errors : [`${file}: no KubeSchedulerConfiguration in this file`], warnings };
  const chosen = profileInput(located, schedulerName);
  return { value: chosen.value, errors, warnings: [...warnings, ...chosen.warnings] };
}

/** The profile of a configuration read from a file that is named `schedulerName`, else its first. */
export function profileInput(located: Located<ProfileManifest>, schedulerName?: string): { value: ProfileInput; warnings: string[] } {
  const file = located.file;
  const named = located.value.profiles.findIndex((p) => p.schedulerName === schedulerName);
  const index = Math.max(0, named);
  const base = `profiles[${index}]`;
  const { profile, pointsNotRun } = engineProfile(located.value, index);
  const warnings = pointsNotRun.map((point) => {
    const range = fieldRange(located, `${base}.plugins.${point}`);
    return `${file}:${range.start.line}:${range.start.column}: warning: the ${point} extension point is not run by Podplan; its plugins are ignored`;
  });
  const locate = (path: readonly (string | number)[], message: string) => {
    const range = fieldRange(located, path.reduce<string>((at, key) => joinPath(at, key), base));
    return `${file}:${range.start.line}:${range.start.column}: error: ${message}`;
  };
  return { value: { profile, locate }, warnings };
}
