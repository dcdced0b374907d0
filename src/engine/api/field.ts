// Field errors worded as Kubernetes words them (k8s.io/apimachinery/pkg/util/validation/field), so a
// bad profile or selector reads like the message kube-scheduler would print for the same mistake.

/** Strings quoted, numbers and lists as written. */
function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

export const fieldInvalid = (path: string, value: unknown, detail: string): string => `${path}: Invalid value: ${show(value)}: ${detail}`;

export const fieldNotSupported = (path: string, value: unknown, supported: readonly string[]): string =>
  `${path}: Unsupported value: ${show(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`;

export const fieldRequired = (path: string, detail: string): string => `${path}: Required value: ${detail}`;

export const fieldForbidden = (path: string, detail: string): string => `${path}: Forbidden: ${detail}`;

export const fieldDuplicate = (path: string, value: unknown): string => `${path}: Duplicate value: ${show(value)}`;

/** Several errors as one message, as upstream's aggregate: the error itself, or `[a, b]`. */
export function aggregate(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] ?? '') : `[${errors.join(', ')}]`;
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
