// Status objects shaped as kube-apiserver sends them (k8s.io/apimachinery/pkg/api/errors).
// `qualifiedResource` is the plural plus `.group` for named groups: `pods`, `deployments.apps`.

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: { reason?: string; message: string; field?: string }[];
  retryAfterSeconds?: number;
}

export interface KubeStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success' | 'Failure';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** An error answer: the HTTP code is the Status code. */
export class StatusError extends Error {
  constructor(readonly status: KubeStatus) {
    super(status.message);
  }
}

function failure(code: number, reason: string, message: string, details?: StatusDetails): StatusError {
  const status: KubeStatus = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details) status.details = details;
  return new StatusError(status);
}

export interface ResourceRef {
  /** API group, '' for core */
  readonly group: string;
  readonly plural: string;
}

export function qualified(ref: ResourceRef): string {
  return ref.group ? `${ref.plural}.${ref.group}` : ref.plural;
}

function details(ref: ResourceRef, name: string, extra?: Partial<StatusDetails>): StatusDetails {
  const d: StatusDetails = { name };
  if (ref.group) d.group = ref.group;
  d.kind = ref.plural;
  return { ...d, ...extra };
}

export function success(code = 200, extra?: Partial<KubeStatus>): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code, ...extra };
}

export const errors = {
  notFound: (ref: ResourceRef, name: string) => failure(404, 'NotFound', `${qualified(ref)} "${name}" not found`, details(ref, name)),
  alreadyExists: (ref: ResourceRef, name: string) =>
    failure(409, 'AlreadyExists', `${qualified(ref)} "${name}" already exists`, details(ref, name)),
  conflict: (ref: ResourceRef, name: string, why: string) =>
    failure(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(ref)} "${name}": ${why}`, details(ref, name)),
  staleUpdate: (ref: ResourceRef, name: string) =>
    errors.conflict(ref, name, 'the object has been modified; please apply your changes to the latest version and try again'),
  invalid: (kind: string, group: string, name: string, causes: { field: string; reason: string; message: string }[]) => {
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    const list = causes.map((c) => `${c.field}: ${c.message}`);
    const text = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
    return failure(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${text}`, {
      name,
      ...(group ? { group } : {}),
      kind,
      causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
    });
  },
  badRequest: (message: string) => failure(400, 'BadRequest', message),
  unprocessable: (message: string) => failure(422, 'UnprocessableEntity', message),
  forbidden: (ref: ResourceRef, name: string, why: string) =>
    failure(403, 'Forbidden', `${qualified(ref)} "${name}" is forbidden: ${why}`, details(ref, name)),
  methodNotAllowed: () => failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'),
  unsupportedMediaType: (accepted: readonly string[]) =>
    failure(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    ),
  gone: (message: string) => failure(410, 'Expired', message),
  internal: (message: string) => failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  unauthorized: () => failure(401, 'Unauthorized', 'Unauthorized'),
  pathNotFound: () => failure(404, 'NotFound', 'the server could not find the requested resource', {}),
};
