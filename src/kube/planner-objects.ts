// ScheduleTriggers and SchedulePlans in the cluster, through the same KubeHttp as bindings and
// watches (so stopping `podplan run` aborts a hung plan write too): get/list/create/update with
// optimistic concurrency (an update carries the resourceVersion it read; a stale one is a
// 'conflict' value, never an exception), status writes through the status subresource, and merge
// patches (a custom resource answers a strategic-merge patch with 415).
import { err, ok, type Result } from '../engine/api/result';
import type { ApiError, KubeHttp, RequestOptions } from './http';
import type { ApiObject } from './objects';
import { SCHEDULE_PLAN, SCHEDULE_TRIGGER, type ResourceType } from './resources';

export type PlannerKind = 'ScheduleTrigger' | 'SchedulePlan';

const RESOURCE: Readonly<Record<PlannerKind, ResourceType>> = { ScheduleTrigger: SCHEDULE_TRIGGER, SchedulePlan: SCHEDULE_PLAN };
const GROUP_VERSION_PATH = `/apis/${SCHEDULE_PLAN.apiVersion}`;
const MERGE_PATCH = 'application/merge-patch+json';

export class PlannerObjects {
  constructor(private readonly http: KubeHttp) {}

  get(kind: PlannerKind, namespace: string, name: string): Promise<Result<ApiObject, ApiError>> {
    return this.http.request<ApiObject>(objectPath(kind, namespace, name));
  }

  /** The objects of a namespace (all namespaces when left out); none when the CRD is not installed. */
  async list(kind: PlannerKind, namespace?: string, labelSelector?: string): Promise<Result<ApiObject[], ApiError>> {
    const listed = await this.http.request<{ items?: ApiObject[] }>(
      collectionPath(kind, namespace),
      labelSelector ? { query: { labelSelector } } : {},
    );
    if (!listed.ok) return listed.error.kind === 'not-found' ? ok([]) : listed;
    return ok((listed.value.items ?? []).map((i) => ({ ...i, apiVersion: SCHEDULE_PLAN.apiVersion, kind })));
  }

  create(object: ApiObject): Promise<Result<ApiObject, ApiError>> {
    const { kind, namespace } = this.target(object);
    return this.http.request<ApiObject>(collectionPath(kind, namespace), { method: 'POST', body: object });
  }

  /** Replaces the object; its metadata.resourceVersion must be the one read, else 'conflict'. */
  update(object: ApiObject): Promise<Result<ApiObject, ApiError>> {
    return this.replace(object, '');
  }

  /** Replaces the object's status (status subresource), with the same precondition as `update`. */
  updateStatus(object: ApiObject): Promise<Result<ApiObject, ApiError>> {
    return this.replace(object, '/status');
  }

  /**
   * A JSON merge patch (RFC 7386). Put `metadata.resourceVersion` in the patch to make it
   * conditional: the server then answers 409 when the object moved on.
   */
  patch(
    kind: PlannerKind,
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
    subresource?: 'status',
  ): Promise<Result<ApiObject, ApiError>> {
    const options: RequestOptions = { method: 'PATCH', body: patch, contentType: MERGE_PATCH };
    return this.http.request<ApiObject>(objectPath(kind, namespace, name) + (subresource === 'status' ? '/status' : ''), options);
  }

  private replace(object: ApiObject, subresource: '' | '/status'): Promise<Result<ApiObject, ApiError>> {
    const { kind, namespace, name } = this.target(object);
    if (!object.metadata.resourceVersion) return Promise.resolve(err(missingVersion(name)));
    return this.http.request<ApiObject>(objectPath(kind, namespace, name) + subresource, { method: 'PUT', body: object });
  }

  private target(object: ApiObject): { kind: PlannerKind; namespace: string; name: string } {
    const kind = object.kind as PlannerKind;
    if (!(kind in RESOURCE)) throw new Error(`PlannerObjects handles ScheduleTrigger and SchedulePlan, not ${object.kind}`);
    return { kind, namespace: object.metadata.namespace ?? this.http.context.namespace, name: object.metadata.name };
  }
}

function collectionPath(kind: PlannerKind, namespace: string | undefined): string {
  return `${GROUP_VERSION_PATH}${namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`}/${RESOURCE[kind].plural}`;
}

function objectPath(kind: PlannerKind, namespace: string, name: string): string {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

function missingVersion(name: string): ApiError {
  return { kind: 'invalid', status: 0, message: `${name}: an update needs the metadata.resourceVersion it read (optimistic concurrency)` };
}
