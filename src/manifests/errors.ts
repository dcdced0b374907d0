// A problem found in a manifest, at the place it came from. Codes are stable: the language server
// and the CLI report them, and code actions key on them.
import type { SourceRange } from './source-map';

export type ManifestErrorCode =
  /** The text is not valid YAML (or uses more aliases than allowed). */
  | 'yaml-syntax'
  /** A field the object needs is absent (or null). */
  | 'missing-field'
  /** A field holds the wrong kind of value (a number where a string is expected, …). */
  | 'wrong-type'
  /** A field holds a value outside what it accepts (an unknown operator, a negative count, …). */
  | 'bad-value'
  /** A resource quantity that does not parse ("2 cores", "-1Gi"). */
  | 'bad-quantity'
  /** A known kind under an unexpected apiVersion: read anyway, with a warning. */
  | 'bad-api-version'
  /** A workload whose selector does not select its own pod template. */
  | 'selector-mismatch'
  /** A second object with the same kind, namespace and name: left out. */
  | 'duplicate-name'
  /** A pod whose metadata.uid an earlier pod has (a uid is unique in a cluster): left out. */
  | 'duplicate-uid'
  /** A field the Kubernetes schema of the object does not have (a misspelling): ignored, with a warning. */
  | 'unknown-field'
  /** A kind a built-in API group does not have (`kind: Nodee`): ignored, with a warning. */
  | 'unknown-kind'
  /** A metadata.name or namespace the API server would refuse. */
  | 'invalid-name'
  /** A label key or value the API server would refuse (metadata.labels, a template's, a selector's matchLabels). */
  | 'invalid-label'
  /** A ResourceQuota entry the API server applies and Podplan does not (count/services, configmaps, …): a warning saying why. */
  | 'not-applied'
  /** An object admission refuses (LimitRanger, ResourceQuota, Priority): a warning in the API server's words. */
  | 'refused'
  /** A replica its controller does not create (a StatefulSet's claim refused: its FailedCreate event's words): left out, with a warning. */
  | 'not-created';

export type Severity = 'error' | 'warning';

/**
 * Admission's verdicts on the files' objects (manifests/admission.ts and the controllers it stops):
 * an object refused, a replica not created, a quota entry not applied. Whatever document they are
 * in, they change what is placed, so the CLI (every warning) and the editor (a diagnostic on every
 * document, not only those of pod sets) both report each at its place.
 */
export const ADMISSION_VERDICTS: ReadonlySet<ManifestErrorCode> = new Set(['refused', 'not-created', 'not-applied']);

/**
 * Another place a problem involves (a duplicate's first definition). The text naming it is made
 * where it is shown (`errorMessage`), with the file as the reader names it: the CLI by its path,
 * the editor by its name (and as related information pointing at it).
 */
export interface RelatedPlace {
  readonly range: SourceRange;
  /** What is there, for a note beside it: `the first service "default/web"`. */
  readonly note: string;
  /** The message's words after the place (`message at <place><rest>`). */
  readonly rest: string;
}

export interface ManifestError {
  readonly code: ManifestErrorCode;
  readonly severity: Severity;
  /** What is wrong, without any location (the ranges say where); with `related`, the words before its place. */
  readonly message: string;
  readonly range: SourceRange;
  /** The field it is about, from the document root, when there is one. */
  readonly path?: string;
  readonly related?: RelatedPlace;
}

/** `file:line:column` of a range, its file as `fileName` names it. */
export function placeOf(range: SourceRange, fileName: (file: string) => string = (f) => f): string {
  return `${fileName(range.file)}:${range.start.line}:${range.start.column}`;
}

/** The error's message, naming its related place (if any) by `fileName`'s name for the file. */
export function errorMessage(e: ManifestError, fileName: (file: string) => string = (f) => f): string {
  return e.related ? `${e.message} at ${placeOf(e.related.range, fileName)}${e.related.rest}` : e.message;
}

/** `file:line:column: severity code: path: message`, the form compilers print. */
export function formatError(e: ManifestError): string {
  return `${placeOf(e.range)}: ${e.severity} ${e.code}: ${e.path ? `${e.path}: ` : ''}${errorMessage(e)}`;
}
