// Reading a cluster once: every kind of resources.ts listed (in one namespace, or all), cleaned and
// sorted as objects.ts says. A kind whose API group is not served (no planner CRDs installed, an old
// cluster) is "none"; a kind the user may not list is a warning naming it; anything else fails the
// read. The model is made by the manifests decoder from those objects.
import { err, ok, type Result } from '../engine/api/result';
import { combine, type WorkspaceModel } from '../manifests';
import type { ApiError, KubeHttp } from './http';
import { cleanObject, decodeObject, sortForSnapshot, type TypedObject } from './objects';
import { CLUSTER_RESOURCES, collectionPath, type ResourceType } from './resources';

export interface ClusterRead {
  /** The context the objects came from. */
  readonly context: string;
  readonly objects: readonly TypedObject[];
  /** Kinds that could not be read (Forbidden), one line each. */
  readonly warnings: readonly string[];
}

export interface ReadOptions {
  /** Only this namespace's namespaced objects (cluster-scoped kinds are read whole). */
  readonly namespace?: string;
  readonly resources?: readonly ResourceType[];
}

interface ListBody {
  readonly items?: readonly unknown[];
  readonly metadata?: { readonly continue?: string; readonly resourceVersion?: string };
}

/** Large lists come in pages, as kubectl reads them. */
const PAGE_SIZE = 500;

export interface Selectors {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
}

/** Every object of one kind (all pages); `undefined` when the API group is not served. */
export async function listAll(
  http: KubeHttp,
  resource: ResourceType,
  namespace?: string,
  selectors: Selectors = {},
): Promise<Result<{ items: TypedObject[]; resourceVersion: string } | undefined, ApiError>> {
  const items: TypedObject[] = [];
  let token: string | undefined;
  let resourceVersion = '';
  do {
    const page = await http.request<ListBody>(collectionPath(resource, namespace), {
      query: { limit: String(PAGE_SIZE), continue: token, ...selectors },
    });
    if (!page.ok) return page.error.kind === 'not-found' ? ok(undefined) : page;
    for (const raw of page.value.items ?? []) {
      const object = cleanObject(resource, raw);
      if (object) items.push({ resource, object });
    }
    token = page.value.metadata?.continue || undefined;
    resourceVersion = page.value.metadata?.resourceVersion ?? resourceVersion;
  } while (token);
  return ok({ items, resourceVersion });
}

export async function readCluster(http: KubeHttp, options: ReadOptions = {}): Promise<Result<ClusterRead, string>> {
  const objects: TypedObject[] = [];
  const warnings: string[] = [];
  const lists = await Promise.all(
    (options.resources ?? CLUSTER_RESOURCES).map(async (resource) => ({
      resource,
      list: await listAll(http, resource, options.namespace),
    })),
  );
  for (const { resource, list } of lists) {
    const what = `${resource.plural}${resource.apiVersion.includes('/') ? `.${resource.apiVersion.split('/')[0]}` : ''}`;
    if (!list.ok) {
      if (list.error.kind === 'forbidden') {
        warnings.push(`cannot list ${what} in context ${http.context.context}: ${list.error.message}; read without them`);
        continue;
      }
      return err(`context ${http.context.context} (${http.context.server}): listing ${what} failed: ${list.error.message}`);
    }
    for (const o of list.value?.items ?? []) objects.push(o);
  }
  return ok({ context: http.context.context, objects: sortForSnapshot(objects), warnings });
}

/** The workspace model of what was read, decoded as YAML files are. */
export function clusterModel(read: ClusterRead): WorkspaceModel {
  return combine(read.objects.map((o) => decodeObject(read.context, o.object)));
}
