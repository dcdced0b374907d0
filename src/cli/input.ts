// Reading the command line's inputs: YAML paths into the workspace model, a profile file into the
// engine's Profile. Problems come back as located lines (`file:line:col: error code: message`).
import type { Profile, ProfileError } from '../engine/framework/profile';
import {
  combine,
  engineProfile,
  fieldRange,
  formatError,
  joinPath,
  readFile,
  unreadablePods,
  unreadableRefusal,
  type FileModel,
  type Located,
  type ManifestErrorCode,
  type PlanScope,
  type ProfileManifest,
  type WorkspaceModel,
} from '../manifests';
import { optionHelp } from './help';
import type { CliIO } from './io';
import { errorMessage } from '../engine/api/errors';

export interface Input<T> {
  readonly value?: T;
  /** Located errors: the command stops with exit 2 when there are any. */
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
  /**
   * The located errors of pods that do not read: printed as errors, they stop a command only when
   * they refuse what it plans (manifests unreadablePods, the rule the editor applies too; `refuses`).
   */
  readonly held?: readonly string[];
}

/** --strict, as the commands that read manifests take it. */
export const STRICT_OPTION = { strict: { type: 'boolean' } } as const;

/** The help of --strict, its text at `column` like the command's other options. */
export function strictHelp(column: number): string {
  return optionHelp('--strict', ['unknown kinds and unknown fields are errors (exit 2), not warnings'], column);
}

export const STRICT_HELP = strictHelp(20);

/** What --strict turns from warnings into errors (kubectl's --validate=strict). */
const STRICT_CODES: ReadonlySet<ManifestErrorCode> = new Set(['unknown-field', 'unknown-kind']);

export interface ReadOptions {
  readonly strict?: boolean | undefined;
}

/** The path that names standard input, and the name its problems are reported under. */
export const STDIN = '-';
export const STDIN_NAME = '<stdin>';

/** Files at least this large get a progress line on stderr while they are read. */
const LARGE_FILE_BYTES = 8 * 1024 * 1024;

/** On a terminal, the progress of a large file's parse is redrawn at most this often. */
const PROGRESS_EVERY_MS = 200;

/**
 * Reads every manifest file the paths name into one workspace model: the one function through which
 * commands read their inputs. Large files get a progress line on stderr before and after, and on a
 * terminal the share parsed so far, redrawn in place while the parse goes on.
 */
export async function readWorkspace(paths: readonly string[], io: CliIO, options: ReadOptions = {}): Promise<Input<WorkspaceModel>> {
  const errors: string[] = [];
  const warnings: string[] = [];
  const files: FileModel[] = [];
  for (const target of paths) {
    if (target === STDIN) {
      if (!io.readStdin) {
        errors.push('-: standard input cannot be read here');
        continue;
      }
      try {
        files.push(readFile({ name: STDIN_NAME, text: await io.readStdin() }));
      } catch (error) {
        errors.push(`${STDIN_NAME}: ${errorMessage(error)}`);
      }
      continue;
    }
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
        const large = size >= LARGE_FILE_BYTES;
        const reading = `reading ${name} (${megabytes(size)} MB)…`;
        if (large) io.stderr(io.interactive ? reading : `${reading}\n`);
        const text = await io.readFile(name);
        let shown = started;
        const onProgress =
          large && io.interactive
            ? (offset: number) => {
                const now = io.clock.now();
                if (now - shown < PROGRESS_EVERY_MS) return;
                shown = now;
                io.stderr(`\r${reading} ${Math.floor((100 * offset) / Math.max(1, text.length))}%`);
              }
            : undefined;
        const model = readFile({ name, text }, undefined, onProgress);
        if (large && io.interactive) io.stderr(`\r${reading} done\n`);
        if (large)
          io.stderr(
            `read ${name}: ${model.documents.length} documents, ${model.nodes.length} nodes, ${model.pods.length} pods in ${((io.clock.now() - started) / 1000).toFixed(1)} s\n`,
          );
        files.push(model);
      } catch (error) {
        errors.push(`${name}: ${errorMessage(error)}`);
      }
    }
  }
  const model = combine(files);
  return { value: model, ...modelProblems(model, options, errors, warnings) };
}

/** A model's problems as lines: errors, warnings, and the errors of pods that do not read, held for the plan's scope to judge. */
export function modelProblems(
  model: WorkspaceModel,
  options: ReadOptions = {},
  errors: string[] = [],
  warnings: string[] = [],
): { errors: string[]; warnings: string[]; held: string[] } {
  const held = new Set(unreadablePods(model, 'every-pod').flatMap((u) => u.errors));
  const heldLines: string[] = [];
  for (const found of model.errors) {
    const e = options.strict && STRICT_CODES.has(found.code) ? { ...found, severity: 'error' as const } : found;
    (held.has(found) ? heldLines : e.severity === 'error' ? errors : warnings).push(formatError(e));
  }
  return { errors, warnings, held: heldLines };
}

/** The line that refuses a plan of `scope` because pods of it do not read; undefined when none does. */
export function refuses(model: WorkspaceModel, scope: PlanScope): string | undefined {
  const refusal = unreadableRefusal(unreadablePods(model, scope));
  return refusal === undefined ? undefined : `error: ${refusal}`;
}

/**
 * The kinds the files held that nothing here schedules or reads (Services, ConfigMaps, CRD workloads
 * such as Argo Rollouts), counted, as one line for stderr; undefined when there are none.
 */
export function unscheduledKinds(model: WorkspaceModel): string | undefined {
  const counts = new Map<string, number>();
  // A kind no API group has (kind: Nodee) has its own warning already.
  const unknown = new Set(model.errors.filter((e) => e.code === 'unknown-kind').map((e) => `${e.range.file}\0${e.range.start.offset}`));
  for (const { value, file, source, base } of model.others) {
    const kind = source.range(base ? `${base}.kind` : 'kind');
    if (kind && unknown.has(`${file}\0${kind.start.offset}`)) continue;
    const key = `${value.kind}${value.apiVersion !== undefined ? ` (${value.apiVersion})` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  if (counts.size === 0) return undefined;
  const kinds = [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
  return `note: read but not scheduled: ${kinds} (pods are made only for Pods, Deployments, ReplicaSets, StatefulSets, Jobs, DaemonSets and ReplicationControllers)`;
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
    const why =
      point === 'preBind'
        ? 'the preBind list is not read by Podplan (PreBind runs for the Reserve plugins that have it: DynamicResources)'
        : `the ${point} extension point is not run by Podplan`;
    return `${file}:${range.start.line}:${range.start.column}: warning: ${why}; its plugins are ignored`;
  });
  for (const p of palletOnly) {
    const range = fieldRange(located, `${base}.plugins.${p.point}.enabled[${p.index}].name`);
    warnings.push(
      `${file}:${range.start.line}:${range.start.column}: warning: ${p.name} at ${p.point} is Pallet's own (its score for the planned node); Podplan's keeps the pod to its planned node at PreFilter: ignored`,
    );
  }
  const position = (path: readonly (string | number)[]) => {
    const range = fieldRange(
      located,
      path.reduce<string>((at, key) => joinPath(at, key), base),
    );
    return `${file}:${range.start.line}:${range.start.column}`;
  };
  const locate = (e: ProfileError) => `${position(e.path)}: error ${e.code}: ${e.message}`;
  return { value: { profile, locate, position, schedulerNames: located.value.profiles.map((p) => p.schedulerName) }, warnings };
}
