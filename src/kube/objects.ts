// API objects as Podplan keeps them: with their apiVersion and kind (list items come without),
// without what is bookkeeping or may carry credentials, in one stable order, under a synthetic
// source name. Reading a cluster and reading back its snapshot go through the same steps, so both
// give the same model.
//
// What is dropped, and why:
// - metadata.managedFields: server-side apply bookkeeping, large and never read.
// - the annotation kubectl.kubernetes.io/last-applied-configuration: a full copy of the object as
//   last applied, which can hold literal environment values (and is not read for scheduling).
// - containers' literal env values (`env[].value`, in containers, initContainers and ephemeral
//   containers): people put passwords and tokens there; the variable's name and valueFrom are kept.
// Secrets are never read at all (see resources.ts).
import type { ResourceClaim } from '../engine/api/dra';
import type { Node, Pod } from '../engine/api/types';
import { podInfo, sharePodInfo } from '../engine/framework/node-info';
import { err, ok, type Result } from '../engine/api/result';
import { formatError, readObject, readPodStatus, type FileModel } from '../manifests';
import type { ResourceType } from './resources';

/** A Kubernetes object as JSON (what the API server sends and a YAML file holds). */
export interface ApiObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly [key: string]: unknown;
  };
  readonly [key: string]: unknown;
}

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A list item or watched object as Podplan keeps it (a new object; the input is not changed). */
export function cleanObject(resource: ResourceType, raw: unknown): ApiObject | undefined {
  if (!isRecord(raw) || !isRecord(raw.metadata) || typeof raw.metadata.name !== 'string') return undefined;
  const { managedFields: _managed, ...metadata } = raw.metadata;
  if (isRecord(metadata.annotations) && LAST_APPLIED_ANNOTATION in metadata.annotations) {
    const { [LAST_APPLIED_ANNOTATION]: _applied, ...annotations } = metadata.annotations;
    metadata.annotations = annotations;
  }
  const out: Json = { ...raw, apiVersion: resource.apiVersion, kind: resource.kind, metadata };
  if (isRecord(raw.spec)) out.spec = withoutEnvValues(raw.spec);
  return out as unknown as ApiObject;
}

const CONTAINER_LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/** A pod spec (or any spec holding one under template.spec) without literal env values. */
function withoutEnvValues(spec: Json): Json {
  let out = spec;
  for (const list of CONTAINER_LISTS) {
    const containers = spec[list];
    if (!Array.isArray(containers) || !containers.some((c: unknown) => isRecord(c) && Array.isArray(c.env))) continue;
    out = {
      ...out,
      [list]: containers.map((c: unknown) =>
        isRecord(c) && Array.isArray(c.env) ? { ...c, env: c.env.map((e: unknown) => (isRecord(e) ? withoutKey(e, 'value') : e)) } : c,
      ),
    };
  }
  return out;
}

function withoutKey(o: Json, key: string): Json {
  const { [key]: _dropped, ...rest } = o;
  return rest;
}

/**
 * Where an object goes in a snapshot directory: cluster-scoped kinds in `<plural>.yaml`,
 * namespaced ones in `<namespace>/<plural>.yaml`.
 */
export function snapshotFile(resource: ResourceType, object: ApiObject): string {
  return resource.namespaced ? `${object.metadata.namespace ?? 'default'}/${resource.plural}.yaml` : `${resource.plural}.yaml`;
}

export interface TypedObject {
  readonly resource: ResourceType;
  readonly object: ApiObject;
}

/**
 * The order a snapshot's files are read back in (files by path, objects by name within a file), so
 * a model read from the cluster and one read from its snapshot list things alike.
 */
export function sortForSnapshot(objects: readonly TypedObject[]): TypedObject[] {
  const keyed = objects.map((o) => ({ o, file: snapshotFile(o.resource, o.object) }));
  keyed.sort((a, b) =>
    a.file < b.file
      ? -1
      : a.file > b.file
        ? 1
        : a.o.object.metadata.name < b.o.object.metadata.name
          ? -1
          : a.o.object.metadata.name > b.o.object.metadata.name
            ? 1
            : 0,
  );
  return keyed.map((k) => k.o);
}

/** The synthetic source name of an object read from a context: `context/<ctx>/<Kind>/<namespace>/<name>` (no namespace part for cluster-scoped kinds). */
export function sourceName(context: string, object: ApiObject): string {
  const ns = object.metadata.namespace;
  return ['context', context, object.kind, ...(ns ? [ns] : []), object.metadata.name].join('/');
}

/** An API object through the manifests decoder (the adapter to the engine's types). */
export function decodeObject(context: string, object: ApiObject): FileModel {
  return readObject({ name: sourceName(context, object), value: object });
}

/** The one object of `kind` an API object decodes to (through the manifests decoder), or its errors as located lines. */
function decodeOne<T>(context: string, object: ApiObject, kind: string, pick: (file: FileModel) => T | undefined): Result<T, string[]> {
  const file = decodeObject(context, object);
  const value = pick(file);
  return value !== undefined && !file.errors.some((e) => e.severity === 'error') ? ok(value) : err(problems(file, kind));
}

/** A watched Pod as the engine's Pod (for the live loop's cache); its errors as located lines. */
export function decodePod(context: string, object: ApiObject): Result<Pod, string[]> {
  return decodeOne(context, object, 'Pod', (file) => file.pods[0]?.value);
}

/** A watched Node as the engine's Node; its errors as located lines. */
export function decodeNode(context: string, object: ApiObject): Result<Node, string[]> {
  return decodeOne(context, object, 'Node', (file) => file.nodes[0]?.value);
}

/** A ResourceClaim (the API server's answer to a write) as the engine's; its errors as located lines. */
export function decodeResourceClaim(context: string, object: ApiObject): Result<ResourceClaim, string[]> {
  return decodeOne(context, object, 'ResourceClaim', (file) => file.resourceClaims[0]?.value);
}

function problems(file: FileModel, kind: string): string[] {
  const lines = file.errors.filter((e) => e.severity === 'error').map(formatError);
  return lines.length > 0 ? lines : [`${file.file}: not a ${kind}`];
}

/**
 * Watched pods decoded once per spec. A pod's update whose metadata and spec are those of the
 * version seen before, but for spec.nodeName and metadata.resourceVersion (its binding, as the
 * watch shows it), reuses that version's decoded pod with the new node, resourceVersion and
 * status (the status read alone); any other change goes through the manifests decoder. Every pod
 * version seen is kept until its delete, whichever scheduler it belongs to.
 */
export class WatchedPods {
  private readonly seen = new Map<string, { readonly object: ApiObject; readonly pod: Pod }>();

  constructor(private readonly context: string) {}

  /** The engine's Pod of a watched version, or its errors as located lines (the pod is then forgotten). */
  decode(object: ApiObject): Result<Pod, string[]> {
    const key = `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
    const before = this.seen.get(key);
    const pod = (before && rebound(before.object, before.pod, object)) ?? decodePod(this.context, object);
    if (pod.ok) this.seen.set(key, { object, pod: pod.value });
    else this.seen.delete(key);
    return pod;
  }

  forget(object: ApiObject): void {
    this.seen.delete(`${object.metadata.namespace ?? ''}/${object.metadata.name}`);
  }
}

/** `pod` (decoded from `before`) as of `after`, when they differ only in binding, resourceVersion and status. */
function rebound(before: ApiObject, pod: Pod, after: ApiObject): Result<Pod, string[]> | undefined {
  const spec = after['spec'] as Json | undefined;
  const beforeSpec = before['spec'] as Json | undefined;
  if (!isRecord(spec) || !isRecord(beforeSpec)) return undefined;
  const nodeName = spec['nodeName'];
  if (nodeName !== undefined && typeof nodeName !== 'string') return undefined;
  if (Object.keys(after).length !== Object.keys(before).length || after.apiVersion !== before.apiVersion || after.kind !== before.kind)
    return undefined;
  if (!sameJson(spec, beforeSpec, 'nodeName') || !sameJson(after.metadata, before.metadata, 'resourceVersion')) return undefined;
  const read = readPodStatus(after['status']);
  if (!read) return undefined;
  const { resourceVersion } = after.metadata;
  const { resourceVersion: _old, ...metadata } = pod.metadata;
  const { nodeName: _node, ...podSpec } = pod.spec;
  const { status: _status, ...rest } = pod;
  const next: Pod = {
    ...rest,
    metadata: typeof resourceVersion === 'string' ? { ...metadata, resourceVersion } : metadata,
    spec: nodeName !== undefined ? { ...podSpec, nodeName } : podSpec,
    ...(read.status !== undefined ? { status: read.status } : {}),
  };
  const info = podInfo(pod);
  if (info.ok) sharePodInfo(info.value, next);
  return ok(next);
}

/** Whether two JSON values are equal (objects key by key, in any order), `ignored` left out at the top level. */
function sameJson(a: unknown, b: unknown, ignored?: string): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Json;
  const y = b as Json;
  let keys = 0;
  for (const key in x) {
    if (key === ignored) continue;
    if (x[key] === undefined) continue;
    keys++;
    if (!sameJson(x[key], y[key])) return false;
  }
  for (const key in y) if (key !== ignored && y[key] !== undefined) keys--;
  return keys === 0;
}
