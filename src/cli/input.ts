// Reading the command line's inputs: YAML paths into the workspace model, a profile file into the
// engine's Profile. Problems come back as located lines (`file:line:col: error code: message`).
import type { Profile, ProfileError } from '../engine/framework/profile';
import { combine, engineProfile, fieldRange, formatError, joinPath, readFile, type FileModel, type Located, type ManifestErrorCode, type ProfileManifest, type WorkspaceModel } from '../manifests';
import type { CliIO } from './io';
import { errorMessage } from '../engine/api/errors';

export interface Input<T> {
  readonly value?: T;
  /** Located errors: the command stops with exit 2 when there are any. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}


/** --strict, as the commands that read manifests take it. */
export const STRICT_OPTION = { strict: { type: 'boolean' } } as const;

export const STRICT_HELP = `  --strict          unknown kinds and unknown fields are errors (exit 2), not warnings`;

/** What --strict turns from warnings into errors (kubectl's --validate=strict). */
const STRICT_CODES: ReadonlySet<ManifestErrorCode> = new Set(['unknown-field', 'unknown-kind']);

export interface ReadOptions {
  readonly strict?: boolean | undefined;
}

/** Files at least this large get a progress line on stderr while they are read. */
const LARGE_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Reads every manifest file the paths name into one workspace model: the one function through which
 * commands read their inputs. Large files get a progress line on stderr before and after.
 */
export async function readWorkspace(paths: readonly string[], io: CliIO, options: ReadOptions = {}): Promise<Input<WorkspaceModel>> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const files: FileModel[] = [];
  for (const target of paths) {
    let names: string[];
    try {
      names = await io.yamlFiles(target, (problem) => warnings.push(`warning: ${problem}`));
    } catch (error) {
      errors.push(`${target}: ${errorMessage(error)}`);
      continue;
    }
    for (const name of names) {
      try {
        const size = (await io.fileSize?.(name)) ?? 0;
        const started = io.clock.now();
        if (size >= LARGE_FILE_BYTES) io.stderr(`reading ${name} (${megabytes(size)} MB)…\n`);
        const model = readFile({ name, text: await io.readFile(name) });
        if (size >= LARGE_FILE_BYTES) io.stderr(`read ${name}: ${model.documents.length} documents, ${model.nodes.length} nodes, ${model.pods.length} pods in ${((io.clock.now() - started) / 1000).toFixed(1)} s\n`);
        files.push(model);
      } catch (error) {
        errors.push(`${name}: ${errorMessage(error)}`);
      }
    }
  }
  const model = combine(files);
  for (const found of model.errors) {
    const e = options.strict && STRICT_CODES.has(found.code) ? { ...found, severity: 'error' as const } : found;
    (e.severity === 'error' ? errors : warnings).push(formatError(e));
  }
  return { value: model, errors, warnings };
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

export interface ProfileInput {
  readonly profile: Profile;
  /** Every profile's schedulerName in the configuration it came from. */
  readonly schedulerNames: readonly string[];
  /** A located line for a profile error at `path` (a field path into the profile), with its code. */
  readonly locate: (error: ProfileError) => string;
  /** `file:line:column` of a field path into the profile. */
  readonly position: (path: readonly (string | number)[]) => string;
}

/** The profile of a KubeSchedulerConfiguration file named `schedulerName` (else its first), as the engine's Profile. */
export async function readProfile(file: string, io: CliIO, schedulerName?: string): Promise<Input<ProfileInput>> {
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (error) {
    return { errors: [`${file}: ${errorMessage(error)}`], warnings: [] };
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
  const { profile, pointsNotRun, palletOnly } = engineProfile(located.value, index);
  const warnings = pointsNotRun.map((point) => {
    const range = fieldRange(located, `${base}.plugins.${point}`);
    return `${file}:${range.start.line}:${range.start.column}: warning: the ${point} extension point is not run by Podplan; its plugins are ignored`;
  });
  for (const p of palletOnly) {
    const range = fieldRange(located, `${base}.plugins.${p.point}.enabled[${p.index}].name`);
    warnings.push(`${file}:${range.start.line}:${range.start.column}: warning: ${p.name} at ${p.point} is Pallet's own (its score for the planned node); Podplan's keeps the pod to its planned node at PreFilter: ignored`);
  }
  const position = (path: readonly (string | number)[]) => {
    const range = fieldRange(located, path.reduce<string>((at, key) => joinPath(at, key), base));
    return `${file}:${range.start.line}:${range.start.column}`;
  };
  const locate = (e: ProfileError) => `${position(e.path)}: error ${e.code}: ${e.message}`;
  return { value: { profile, locate, position, schedulerNames: located.value.profiles.map((p) => p.schedulerName) }, warnings };
}
