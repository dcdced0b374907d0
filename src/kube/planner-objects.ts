// ScheduleTriggers and SchedulePlans in the cluster, through client-node's CustomObjectsApi:
// get/list/create/update with optimistic concurrency (an update carries the resourceVersion it
// read; a stale one is a 'conflict' value, never an exception), status writes through the status
// subresource, and merge patches (a custom resource answers a strategic-merge patch with 415).
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { err, ok, type Result } from '../engine/api/result';
import { apiErrorKind, type ApiError } from './http';
import type { KubeContext } from './kubeconfig';
import type { ApiObject } from './objects';
import { PLANNER_GROUP, SCHEDULE_PLAN, SCHEDULE_TRIGGER, type ResourceType } from './resources';

export type PlannerKind = 'ScheduleTrigger' | 'SchedulePlan';

const RESOURCE: Readonly<Record<PlannerKind, ResourceType>> = { ScheduleTrigger: SCHEDULE_TRIGGER, SchedulePlan: SCHEDULE_PLAN };
const VERSION = SCHEDULE_PLAN.apiVersion.split('/')[1] as string;

export class PlannerObjects {
  private readonly api: CustomObjectsApi;

  constructor(private readonly context: KubeContext) {
    this.api = context.config.makeApiClient(CustomObjectsApi);
  }

  get(kind: PlannerKind, namespace: string, name: string): Promise<Result<ApiObject, ApiError>> {
    return this.call(() => this.api.getNamespacedCustomObject({ group: PLANNER_GROUP, version: VERSION, namespace, plural: RESOURCE[kind].plural, name }));
  }

  /** The objects of a namespace (all namespaces when left out); none when the CRD is not installed. */
  async list(kind: PlannerKind, namespace?: string, labelSelector?: string): Promise<Result<ApiObject[], ApiError>> {
    const plural = RESOURCE[kind].plural;
    const listed = await this.call<{ items?: ApiObject[] }>(() =>
      namespace === undefined
        ? this.api.listClusterCustomObject({ group: PLANNER_GROUP, version: VERSION, plural, ...(labelSelector ? { labelSelector } : {}) })
        : this.api.listNamespacedCustomObject({ group: PLANNER_GROUP, version: VERSION, namespace, plural, ...(labelSelector ? { labelSelector } : {}) }),
    );
    if (!listed.ok) return listed.error.kind === 'not-found' ? ok([]) : listed;
    return ok((listed.value.items ?? []).map((i) => ({ ...i, apiVersion: SCHEDULE_PLAN.apiVersion, kind })));
  }

  create(object: ApiObject): Promise<Result<ApiObject, ApiError>> {
    const { kind, namespace } = this.target(object);
    return this.call(() => this.api.createNamespacedCustomObject({ group: PLANNER_GROUP, version: VERSION, namespace, plural: RESOURCE[kind].plural, body: object }));
  }

  /** Replaces the object; its metadata.resourceVersion must be the one read, else 'conflict'. */
  update(object: ApiObject): Promise<Result<ApiObject, ApiError>> {
    const { kind, namespace, name } = this.target(object);
    if (!object.metadata.resourceVersion) return Promise.resolve(err(missingVersion(name)));
    return this.call(() => this.api.replaceNamespacedCustomObject({ group: PLANNER_GROUP, version: VERSION, namespace, plural: RESOURCE[kind].plural, name, body: object }));
  }

  /** Replaces the object's status (status subresource), with the same precondition as `update`. */
  updateStatus(object: ApiObject): Promise<Result<ApiObject, ApiError>> {
    const { kind, namespace, name } = this.target(object);
    if (!object.metadata.resourceVersion) return Promise.resolve(err(missingVersion(name)));
    return this.call(() => this.api.replaceNamespacedCustomObjectStatus({ group: PLANNER_GROUP, version: VERSION, namespace, plural: RESOURCE[kind].plural, name, body: object }));
  }

  /**
   * A JSON merge patch (RFC 7386). Put `metadata.resourceVersion` in the patch to make it
   * conditional: the server then answers 409 when the object moved on.
   */
  patch(kind: PlannerKind, namespace: string, name: string, patch: Record<string, unknown>, subresource?: 'status'): Promise<Result<ApiObject, ApiError>> {
    const params = { group: PLANNER_GROUP, version: VERSION, namespace, plural: RESOURCE[kind].plural, name, body: patch };
    const options = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    return this.call(() => (subresource === 'status' ? this.api.patchNamespacedCustomObjectStatus(params, options) : this.api.patchNamespacedCustomObject(params, options)));
  }

  private target(object: ApiObject): { kind: PlannerKind; namespace: string; name: string } {
    const kind = object.kind as PlannerKind;
    if (!(kind in RESOURCE)) throw new Error(`PlannerObjects handles ScheduleTrigger and SchedulePlan, not ${object.kind}`);
    return { kind, namespace: object.metadata.namespace ?? this.context.namespace, name: object.metadata.name };
  }

  private async call<T = ApiObject>(request: () => Promise<unknown>): Promise<Result<T, ApiError>> {
    try {
      return ok((await request()) as T);
    } catch (error) {
      return err(toApiError(error, this.context));
    }
  }
}

function missingVersion(name: string): ApiError {
  return { kind: 'invalid', status: 0, message: `${name}: an update needs the metadata.resourceVersion it read (optimistic concurrency)` };
}

/** A client-node failure as an ApiError value, its text redacted. */
export function toApiError(error: unknown, context: KubeContext): ApiError {
  if (error instanceof ApiException) {
    const status = error.code as number;
    let body: unknown = error.body;
    if (typeof body === 'string') {
      try {
        body = JSON.parse(body);
      } catch {
        // a non-JSON body: its text is the message
      }
    }
    const statusObject = (typeof body === 'object' && body !== null ? body : {}) as { message?: unknown; reason?: unknown };
    const message = typeof statusObject.message === 'string' ? statusObject.message : typeof body === 'string' ? body : `HTTP ${status}`;
    return { kind: apiErrorKind(status), status, message: context.redactor.redact(message), ...(typeof statusObject.reason === 'string' ? { reason: statusObject.reason } : {}) };
  }
  return { kind: 'network', status: 0, message: `${context.server}: ${context.redactor.describe(error)}` };
}
