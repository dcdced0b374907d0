// Field errors as data (type, path, value), worded as Kubernetes words them
// (k8s.io/apimachinery/pkg/util/validation/field), so a bad profile or selector reads like the
// message kube-scheduler would print for the same mistake, and a caller can point at the field.

/** Where in a configuration a value is: `['scoringStrategy', 'resources', 0, 'weight']`. */
export type FieldPath = readonly (string | number)[];

/** What is wrong with a field, as upstream's field.ErrorType says it, and strict decoding's unknown field. */
export type FieldErrorType = 'invalid' | 'not-supported' | 'required' | 'forbidden' | 'duplicate' | 'unknown-field';

/** One field's problem as data: the text is made from it (fieldErrorText), never parsed back. */
export interface FieldError {
  readonly type: FieldErrorType;
  readonly path: FieldPath;
  /** The value written (invalid, not-supported, duplicate). */
  readonly value?: unknown;
  readonly detail?: string;
  /** The values that are (not-supported). */
  readonly supported?: readonly string[];
}

export const fieldInvalid = (path: FieldPath, value: unknown, detail: string): FieldError => ({ type: 'invalid', path, value, detail });

export const fieldNotSupported = (path: FieldPath, value: unknown, supported: readonly string[]): FieldError => ({
  type: 'not-supported',
  path,
  value,
  supported,
});

export const fieldRequired = (path: FieldPath, detail: string): FieldError => ({ type: 'required', path, detail });

export const fieldForbidden = (path: FieldPath, detail: string): FieldError => ({ type: 'forbidden', path, detail });

export const fieldDuplicate = (path: FieldPath, value: unknown): FieldError => ({ type: 'duplicate', path, value });

/** A field the object does not have (strict decoding). */
export const fieldUnknown = (path: FieldPath): FieldError => ({ type: 'unknown-field', path });

/** `scoringStrategy.resources[0].weight`, as upstream's field.Path prints it. */
export function fieldPathText(path: FieldPath): string {
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${part}` : part), '');
}

/** Strings quoted, numbers and lists as written. */
function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** The error worded as Kubernetes words it; the root of a plugin's args is `args`. */
export function fieldErrorText(e: FieldError): string {
  const at = fieldPathText(e.path) || 'args';
  switch (e.type) {
    case 'invalid':
      return `${at}: Invalid value: ${show(e.value)}: ${e.detail ?? ''}`;
    case 'not-supported':
      return `${at}: Unsupported value: ${show(e.value)}: supported values: ${(e.supported ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'required':
      return `${at}: Required value: ${e.detail ?? ''}`;
    case 'forbidden':
      return `${at}: Forbidden: ${e.detail ?? ''}`;
    case 'duplicate':
      return `${at}: Duplicate value: ${show(e.value)}`;
    case 'unknown-field':
      return `unknown field "${at}"`;
  }
}

/** Several errors as one message, as upstream's aggregate: the error itself, or `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
}

/** A plugin's args refused: the plugin and each field's problem. */
export interface ArgsError {
  readonly plugin: string;
  readonly errors: readonly FieldError[];
}

/** `NodeResourcesFit: scoringStrategy.type: Unsupported value: …` (several as upstream's aggregate). */
export function argsErrorText(e: ArgsError): string {
  return `${e.plugin}: ${aggregate(e.errors.map(fieldErrorText))}`;
}

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);
const DNS1123_LABEL_ONLY = new RegExp(`^${DNS1123_LABEL}$`);
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why `name` is not a qualified name (`[prefix/]name`: label keys, resource names), or undefined when it is. */
export function qualifiedNameError(name: string): string | undefined {
  const parts = name.split('/');
  let local = name;
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    local = parts[1] ?? '';
    if (prefix.length === 0) return 'prefix part must be non-empty';
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return 'prefix part must be a lowercase RFC 1123 subdomain';
  } else if (parts.length > 2) {
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'";
  }
  if (local.length === 0) return 'name part must be non-empty';
  if (local.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME_PART.test(local)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Why `name` is not a DNS-1123 subdomain (the names of most objects), or undefined when it is. */
export function subdomainError(name: string): string | undefined {
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')";
  }
  return undefined;
}

/** Why `name` is not a DNS-1123 label (namespaces), or undefined when it is. */
export function dnsLabelError(name: string): string | undefined {
  if (name.length > 63) return 'must be no more than 63 characters';
  if (!DNS1123_LABEL_ONLY.test(name)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name')";
  }
  return undefined;
}

/** Why `value` is not a valid label value, or undefined when it is. */
export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!LABEL_VALUE.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}
