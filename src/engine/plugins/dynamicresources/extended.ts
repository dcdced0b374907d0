// Extended resources backed by DRA (DRAExtendedResource, GA in 1.37), as upstream's
// extendeddynamicresources.go and the extended resource cache
// (k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache): a DeviceClass serves the
// extended resource its spec.extendedResourceName names (the newest class, then the first by name,
// when several name it) and `deviceclass.resource.kubernetes.io/<class>`. On a node whose
// allocatable does not offer the resource (no device plugin), the pod's requests for it become the
// requests of one claim made for the pod, allocated with its other claims.
import type { DeviceClass, DeviceRequest } from '../../api/dra';
import { parseQuantity } from '../../api/quantity';
import type { Container, Pod } from '../../api/types';
import { isExtendedResourceName } from '../resource-allocation';

export const DEVICE_CLASS_PREFIX = 'deviceclass.resource.kubernetes.io/';
/** The annotation of the claim made for a pod's extended resources. */
export const EXTENDED_RESOURCE_CLAIM_ANNOTATION = 'resource.kubernetes.io/extended-resource-claim';

/** Upstream IsDRAExtendedResourceName. */
export function isDraExtendedResourceName(name: string): boolean {
  return isExtendedResourceName(name) || name.startsWith(DEVICE_CLASS_PREFIX);
}

const mappings = new WeakMap<readonly DeviceClass[], ReadonlyMap<string, DeviceClass>>();
const NONE: ReadonlyMap<string, DeviceClass> = new Map();

/** Extended resource name → the DeviceClass serving it. */
export function extendedResourceClasses(classes: readonly DeviceClass[] | undefined): ReadonlyMap<string, DeviceClass> {
  if (!classes || classes.length === 0) return NONE;
  let map = mappings.get(classes);
  if (map) return map;
  const out = new Map<string, DeviceClass>();
  const created = (c: DeviceClass) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
  for (const c of classes) {
    out.set(`${DEVICE_CLASS_PREFIX}${c.metadata.name}`, c);
    const name = c.spec.extendedResourceName;
    if (!name) continue;
    const other = out.get(name);
    if (
      other &&
      other.spec.extendedResourceName === name &&
      (created(c) < created(other) || (created(c) === created(other) && c.metadata.name >= other.metadata.name))
    )
      continue;
    out.set(name, c);
  }
  mappings.set(classes, (map = out));
  return map;
}

/** A container's request for the resource (its limit when it has no request, as defaulting does), whole units. */
function containerRequest(c: Container, name: string): number {
  const text = c.resources?.requests?.[name] ?? c.resources?.limits?.[name];
  if (text === undefined) return 0;
  const q = parseQuantity(text);
  if (!q.ok || q.value.numerator % q.value.denominator !== 0n) return 0;
  return Number(q.value.numerator / q.value.denominator);
}

interface Made {
  readonly name: string;
  readonly count: number;
}

/** One container's use of one extended resource: which request of the claim serves it (v1.ContainerExtendedResourceRequest). */
export interface ContainerExtendedResourceRequest {
  readonly containerName: string;
  readonly resourceName: string;
  readonly requestName: string;
}

/** upstream createResourceRequestAndMappings: the request (undefined when the container needs none of its own) and its mappings. */
function containerDeviceRequest(
  index: number,
  c: Container,
  name: string,
  reusable: ReadonlyArray<Made | undefined>,
): { readonly request: Made | undefined; readonly mappings: ContainerExtendedResourceRequest[] } {
  const mappings: ContainerExtendedResourceRequest[] = [];
  const wanted = containerRequest(c, name);
  if (wanted === 0) return { request: undefined, mappings };
  const mapTo = (requestName: string) => mappings.push({ containerName: c.name, resourceName: name, requestName });
  let sum = 0;
  for (const r of reusable) {
    if (!r) continue;
    sum += r.count;
    mapTo(r.name);
    if (sum >= wanted) return { request: undefined, mappings };
  }
  const keys = Object.keys({ ...(c.resources?.limits ?? {}), ...(c.resources?.requests ?? {}) }).sort();
  const request = { name: `container-${index}-request-${Math.max(0, keys.indexOf(name))}`, count: wanted - sum };
  mapTo(request.name);
  return { request, mappings };
}

/** The special claim's device requests on a node and which container each serves (upstream createRequestsAndMappings). */
export interface ExtendedRequestsAndMappings {
  readonly requests: DeviceRequest[];
  readonly mappings: ContainerExtendedResourceRequest[];
}

/** upstream createRequestsAndMappings: the device requests for the resources served by DRA on a node, and the containers' mappings to them. */
export function extendedResourceRequestsAndMappings(
  pod: Pod,
  resources: readonly string[],
  classes: ReadonlyMap<string, DeviceClass>,
): ExtendedRequestsAndMappings {
  const inits = pod.spec.initContainers ?? [];
  const containers = [...inits, ...pod.spec.containers];
  const long: number[] = [];
  const short: number[] = [];
  containers.forEach((c, i) => (i < inits.length && c.restartPolicy !== 'Always' ? short : long).push(i));
  const requests: Array<Made & { readonly cls: string }> = [];
  const mappings: ContainerExtendedResourceRequest[] = [];
  for (const resource of [...resources].sort()) {
    const cls = classes.get(resource);
    if (!cls) continue;
    const longLived: Array<Made | undefined> = containers.map(() => undefined);
    const longMappings: ContainerExtendedResourceRequest[] = [];
    for (const i of long) {
      const made = containerDeviceRequest(i, containers[i]!, resource, []);
      longLived[i] = made.request;
      longMappings.push(...made.mappings);
    }
    let maxShort: Made | undefined;
    const shortNames = new Set<string>();
    let shortMappings: ContainerExtendedResourceRequest[] = [];
    for (const i of short) {
      const made = containerDeviceRequest(i, containers[i]!, resource, longLived.slice(i));
      const r = made.request;
      if (r) {
        shortNames.add(r.name);
        if (!maxShort || maxShort.count < r.count) maxShort = r;
      }
      shortMappings.push(...made.mappings);
    }
    // The short-lived containers' requests are one: the largest, which every one of them maps to.
    if (maxShort && shortNames.size > 1) {
      const max = maxShort.name;
      shortMappings = shortMappings.map((m) => (shortNames.has(m.requestName) ? { ...m, requestName: max } : m));
    }
    if (maxShort) requests.push({ ...maxShort, cls: cls.metadata.name });
    for (const r of longLived) if (r) requests.push({ ...r, cls: cls.metadata.name });
    mappings.push(...longMappings, ...shortMappings);
  }
  return {
    requests: requests
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((r) => ({ name: r.name, exactly: { deviceClassName: r.cls, allocationMode: 'ExactCount', count: r.count } })),
    mappings,
  };
}

/** upstream createRequestsAndMappings' requests: the device requests for the resources served by DRA on a node. */
export function extendedResourceDeviceRequests(
  pod: Pod,
  resources: readonly string[],
  classes: ReadonlyMap<string, DeviceClass>,
): DeviceRequest[] {
  return extendedResourceRequestsAndMappings(pod, resources, classes).requests;
}
