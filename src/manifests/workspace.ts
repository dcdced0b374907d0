// The workspace model: every file read on its own (`readFile`), then combined (`combine`), so an
// editor re-reads only the file that changed. Combining concatenates, expands DaemonSets over all
// nodes and drops duplicates; it does not re-parse anything.
import {
  DEFAULT_NAMESPACE,
  podKey,
  type ClusterSnapshot,
  type CSIDriver,
  type CSINode,
  type CSIStorageCapacity,
  type Namespace,
  type Node,
  type PersistentVolume,
  type PersistentVolumeClaim,
  type Pod,
  type PodDisruptionBudget,
  type PriorityClass,
  type StorageClass,
} from '../engine/api/types';
import {
  DRA_API_VERSION,
  type DeviceClass,
  type DeviceTaintRule,
  type ResourceClaim,
  type ResourceClaimTemplate,
  type ResourceSlice,
} from '../engine/api/dra';
import { resolvePriorities } from '../engine/api/priority';
import { deviceClass, deviceTaintRule, resourceClaim, resourceClaimTemplate, resourceSlice } from './dra';
import { PLANNER_API_VERSION, POD_SET_LABEL } from '../engine/planner/plan';
import {
  admitClaimQuotas,
  admitClaims,
  admitDeviceClaimQuotas,
  admitQuotas,
  admitTemplateClaims,
  deviceClassNames,
  QuotaUse,
  quotaEntriesNotApplied,
  applyLimitRanges,
  limitRange,
  resourceQuota,
  type LimitRange,
  type ResourceQuota,
} from './admission';
import { checkFields, checkKind, checkNames } from './known-fields';
import { daemonSetPods, runsDaemonPod, type NodeEligibility } from './daemonset';
import { DecodeContext, field, isPlainObject, type Decoder, type Issue } from './decode';
import type { ManifestError } from './errors';
import {
  csiDriver,
  csiNode,
  csiStorageCapacity,
  namespace as namespaceDecoder,
  node as nodeDecoder,
  persistentVolume,
  persistentVolumeClaim,
  pod as podDecoder,
  podDisruptionBudget,
  priorityClass,
  storageClass,
} from './kube';
import { parseChunk, parseChunks, splitDocuments, type ParsedDocument } from './parse';
import { scheduleTrigger, schedulePlan, type ScheduleTriggerManifest, type SchedulePlanManifest } from './planner';
import { profileManifest, SCHEDULER_CONFIG_API_VERSION, type ProfileManifest } from './profile';
import { concatPath, DocumentSyntax, joinPath, lineCounterOf, SourceMap, type SourceRange } from './source-map';
import {
  missingReplicas,
  statefulSetClaims,
  StatefulSetCreation,
  WORKLOAD_API_VERSIONS,
  workloadDecoder,
  workloadPods,
  type Workload,
  type WorkloadKind,
} from './workloads';

/** An object with where it came from. */
export interface Located<T> {
  readonly value: T;
  readonly file: string;
  /** Its document's position in the file. */
  readonly document: number;
  /**
   * Where the object sits in its document: '' for a top-level object, `items[2]` inside a List,
   * `spec.template` for a pod made from a workload's template.
   */
  readonly base: string;
  readonly source: SourceMap;
  /** A pod made up from a workload's template (a replica with no pod in the files), not one that exists. */
  readonly generated?: true;
}

/** Where `path` (relative to the object, e.g. `spec.containers[0].resources`) is, or its nearest written ancestor. */
export function fieldRange(l: Located<unknown>, path = ''): SourceRange {
  return l.source.locate(concatPath(l.base, path));
}

/** An object of a kind Podplan does not read: ignored but counted. */
export interface OtherManifest {
  readonly apiVersion?: string;
  readonly kind: string;
  readonly name?: string;
  readonly namespace?: string;
}

export interface ObjectLists {
  readonly nodes: readonly Located<Node>[];
  /** Pods written as such and pods made from workload templates. */
  readonly pods: readonly Located<Pod>[];
  readonly workloads: readonly Located<Workload>[];
  readonly namespaces: readonly Located<Namespace>[];
  readonly persistentVolumeClaims: readonly Located<PersistentVolumeClaim>[];
  readonly persistentVolumes: readonly Located<PersistentVolume>[];
  readonly storageClasses: readonly Located<StorageClass>[];
  readonly csiNodes: readonly Located<CSINode>[];
  readonly csiDrivers: readonly Located<CSIDriver>[];
  readonly csiStorageCapacities: readonly Located<CSIStorageCapacity>[];
  readonly priorityClasses: readonly Located<PriorityClass>[];
  readonly podDisruptionBudgets: readonly Located<PodDisruptionBudget>[];
  /** Applied to the pods no API server has admitted yet (admission.ts). */
  readonly limitRanges: readonly Located<LimitRange>[];
  readonly resourceQuotas: readonly Located<ResourceQuota>[];
  readonly resourceClaims: readonly Located<ResourceClaim>[];
  readonly resourceClaimTemplates: readonly Located<ResourceClaimTemplate>[];
  readonly deviceClasses: readonly Located<DeviceClass>[];
  readonly resourceSlices: readonly Located<ResourceSlice>[];
  readonly deviceTaintRules: readonly Located<DeviceTaintRule>[];
  readonly triggers: readonly Located<ScheduleTriggerManifest>[];
  readonly plans: readonly Located<SchedulePlanManifest>[];
  readonly profiles: readonly Located<ProfileManifest>[];
  readonly others: readonly Located<OtherManifest>[];
  /** Pods, workloads that make pods, and Nodes left out because they do not read (their errors say why): see unreadablePods. */
  readonly unreadablePods: readonly Located<UnreadableManifest>[];
  readonly errors: readonly ManifestError[];
}

/** One document of a file, with where its fields are. */
export interface ManifestDocument {
  readonly file: string;
  /** 0-based position among the file's documents. */
  readonly index: number;
  readonly source: SourceMap;
  /** The plain value (mappings as objects); undefined when the document has syntax errors, null when empty. */
  readonly value: unknown;
}

/** One file read on its own. Its pods do not include DaemonSet pods: those need every node (see `combine`). */
export interface FileModel extends ObjectLists {
  readonly file: string;
  readonly documents: readonly ManifestDocument[];
}

export interface WorkspaceModel extends ObjectLists {
  readonly files: readonly FileModel[];
  /** The engine's input: the nodes and pods. */
  readonly cluster: ClusterSnapshot;
  /** The pods (namespace/name) made up from workload templates: replicas with no pod in the files. */
  readonly generated: ReadonlySet<string>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends ReadonlyArray<infer U> ? U[] : T[K] };

function emptyLists(): Mutable<ObjectLists> {
  return {
    nodes: [],
    pods: [],
    workloads: [],
    namespaces: [],
    persistentVolumeClaims: [],
    persistentVolumes: [],
    storageClasses: [],
    csiNodes: [],
    csiDrivers: [],
    csiStorageCapacities: [],
    priorityClasses: [],
    podDisruptionBudgets: [],
    limitRanges: [],
    resourceQuotas: [],
    resourceClaims: [],
    resourceClaimTemplates: [],
    deviceClasses: [],
    resourceSlices: [],
    deviceTaintRules: [],
    triggers: [],
    plans: [],
    profiles: [],
    others: [],
    unreadablePods: [],
    errors: [],
  };
}

function toError(source: SourceMap, issue: Issue): ManifestError {
  // A missing field is shown on its mapping's line, an unknown one at its key (as kubectl names the field).
  const range =
    issue.code === 'unknown-field' || issue.atKey
      ? (source.keyRange(issue.path) ?? source.locate(issue.path))
      : issue.code === 'missing-field'
        ? source.locateLine(issue.path)
        : source.locate(issue.path);
  return { code: issue.code, severity: issue.severity, message: issue.message, range, ...(issue.path ? { path: issue.path } : {}) };
}

const WORKLOAD_KINDS = Object.keys(WORKLOAD_API_VERSIONS) as WorkloadKind[];

type Bucket = Exclude<keyof ObjectLists, 'errors'>;
type Item<K extends Bucket> = ObjectLists[K][number]['value'];
/** An object read from a document, before it is placed in its file. */
type Decoded = { [K in Bucket]: { readonly bucket: K; readonly value: Item<K>; readonly base: string; readonly generated?: true } }[Bucket];

/** What one document yields: it depends on the document's text only, so it is reused while that text is unchanged. */
interface DocumentRead {
  readonly parsed: ParsedDocument;
  readonly objects: readonly Decoded[];
  readonly issues: readonly Issue[];
}

function readValue(value: unknown, base: string, objects: Decoded[], ctx: DecodeContext): void {
  if (!isPlainObject(value)) {
    ctx.report(base, 'wrong-type', 'a manifest is a mapping with apiVersion, kind and metadata');
    return;
  }
  const kind = field(value, 'kind');
  if (typeof kind !== 'string') {
    if (kind === undefined || kind === null) ctx.report(base, 'missing-field', 'missing required field "kind"');
    else ctx.report(joinPath(base, 'kind'), 'wrong-type', 'kind is a string such as Pod or Deployment');
    return;
  }
  const items = field(value, 'items');
  if (kind.endsWith('List') && Array.isArray(items)) {
    // kubectl's List (`kubectl get nodes -o yaml`): each item is read where it stands.
    for (const [i, item] of items.entries()) readValue(item, joinPath(joinPath(base, 'items'), i), objects, ctx);
    return;
  }
  const decode = <T>(decoder: Decoder<T>, apiVersion: string): T | undefined => {
    const before = ctx.errors;
    checkNames(value, base, ctx);
    checkFields(kind, value, base, ctx);
    ctx.admitted = typeof fieldOf(fieldOf(value, 'metadata'), 'uid') === 'string';
    let decoded: T | undefined;
    try {
      decoded = decoder(value, base, ctx);
    } finally {
      ctx.admitted = false;
    }
    const written = field(value, 'apiVersion');
    if (written !== apiVersion) {
      const got = typeof written === 'string' ? `"${written}"` : 'none';
      ctx.report(
        written === undefined ? base : joinPath(base, 'apiVersion'),
        'bad-api-version',
        `${kind} is ${apiVersion}, got ${got}; read as ${apiVersion}`,
        'warning',
      );
    }
    return ctx.errors > before ? undefined : decoded;
  };
  if (kind === 'Node') {
    const n = decode(nodeDecoder, 'v1');
    if (!n) {
      // Its room is not known: it refuses every plan, as a bound pod that does not read does.
      objects.push({ bucket: 'unreadablePods', value: { ...described(kind, value), bound: true }, base });
      return;
    }
    if (!n.status?.allocatable && !n.status?.capacity) {
      ctx.report(base, 'missing-field', 'the node has neither status.allocatable nor status.capacity: no pod fits on it', 'warning');
    }
    objects.push({ bucket: 'nodes', value: n, base });
  } else if (kind === 'Pod') {
    const p = decode(podDecoder, 'v1');
    objects.push(p ? { bucket: 'pods', value: p, base } : { bucket: 'unreadablePods', value: unreadable(kind, value, value), base });
  } else if ((WORKLOAD_KINDS as string[]).includes(kind)) {
    const workloadKind = kind as WorkloadKind;
    const w = decode(workloadDecoder(workloadKind), WORKLOAD_API_VERSIONS[workloadKind]);
    if (!w) {
      objects.push({ bucket: 'unreadablePods', value: unreadable(kind, value, fieldOf(fieldOf(value, 'spec'), 'template')), base });
      return;
    }
    objects.push({ bucket: 'workloads', value: w, base });
    const template = concatPath(base, 'spec.template');
    if (w.kind !== 'DaemonSet')
      for (const p of workloadPods(w)) objects.push({ bucket: 'pods', value: p, base: template, generated: true });
    for (const { claim, template } of statefulSetClaims(w))
      objects.push({
        bucket: 'persistentVolumeClaims',
        value: claim,
        base: concatPath(base, `spec.volumeClaimTemplates[${template}]`),
        generated: true,
      });
  } else if (kind === 'Namespace') {
    const n = decode(namespaceDecoder, 'v1');
    if (n) objects.push({ bucket: 'namespaces', value: n, base });
  } else if (kind === 'PersistentVolumeClaim') {
    const c = decode(persistentVolumeClaim, 'v1');
    if (c) objects.push({ bucket: 'persistentVolumeClaims', value: c, base });
  } else if (kind === 'PersistentVolume') {
    const v = decode(persistentVolume, 'v1');
    if (v) objects.push({ bucket: 'persistentVolumes', value: v, base });
  } else if (kind === 'StorageClass') {
    const c = decode(storageClass, 'storage.k8s.io/v1');
    if (c) objects.push({ bucket: 'storageClasses', value: c, base });
  } else if (kind === 'CSINode') {
    const c = decode(csiNode, 'storage.k8s.io/v1');
    if (c) objects.push({ bucket: 'csiNodes', value: c, base });
  } else if (kind === 'CSIDriver') {
    const d = decode(csiDriver, 'storage.k8s.io/v1');
    if (d) objects.push({ bucket: 'csiDrivers', value: d, base });
  } else if (kind === 'CSIStorageCapacity') {
    const c = decode(csiStorageCapacity, 'storage.k8s.io/v1');
    if (c) objects.push({ bucket: 'csiStorageCapacities', value: c, base });
  } else if (kind === 'PriorityClass') {
    const c = decode(priorityClass, 'scheduling.k8s.io/v1');
    if (c) objects.push({ bucket: 'priorityClasses', value: c, base });
  } else if (kind === 'PodDisruptionBudget') {
    const b = decode(podDisruptionBudget, 'policy/v1');
    if (b) objects.push({ bucket: 'podDisruptionBudgets', value: b, base });
  } else if (kind === 'LimitRange') {
    const r = decode(limitRange, 'v1');
    if (r) objects.push({ bucket: 'limitRanges', value: r, base });
  } else if (kind === 'ResourceQuota') {
    const q = decode(resourceQuota, 'v1');
    if (q) objects.push({ bucket: 'resourceQuotas', value: q, base });
  } else if (kind === 'ResourceClaim') {
    const c = decode(resourceClaim, DRA_API_VERSION);
    if (c) objects.push({ bucket: 'resourceClaims', value: c, base });
  } else if (kind === 'ResourceClaimTemplate') {
    const t = decode(resourceClaimTemplate, DRA_API_VERSION);
    if (t) objects.push({ bucket: 'resourceClaimTemplates', value: t, base });
  } else if (kind === 'DeviceClass') {
    const c = decode(deviceClass, DRA_API_VERSION);
    if (c) objects.push({ bucket: 'deviceClasses', value: c, base });
  } else if (kind === 'ResourceSlice') {
    const sl = decode(resourceSlice, DRA_API_VERSION);
    if (sl) objects.push({ bucket: 'resourceSlices', value: sl, base });
  } else if (kind === 'DeviceTaintRule') {
    const r = decode(deviceTaintRule, DRA_API_VERSION);
    if (r) objects.push({ bucket: 'deviceTaintRules', value: r, base });
  } else if (kind === 'ScheduleTrigger') {
    const t = decode(scheduleTrigger, PLANNER_API_VERSION);
    if (t) objects.push({ bucket: 'triggers', value: t, base });
  } else if (kind === 'SchedulePlan') {
    const p = decode(schedulePlan, PLANNER_API_VERSION);
    if (p) objects.push({ bucket: 'plans', value: p, base });
  } else if (kind === 'KubeSchedulerConfiguration') {
    const p = decode(profileManifest, SCHEDULER_CONFIG_API_VERSION);
    if (p) objects.push({ bucket: 'profiles', value: p, base });
  } else {
    checkKind(kind, field(value, 'apiVersion'), base, ctx);
    objects.push({ bucket: 'others', value: described(kind, value), base });
  }
}

/** An object by its kind, apiVersion, name and namespace, as far as they are written as strings. */
function described(kind: string, value: Readonly<Record<string, unknown>>): OtherManifest {
  const meta = field(value, 'metadata');
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const apiVersion = str(field(value, 'apiVersion'));
  const name = isPlainObject(meta) ? str(field(meta, 'name')) : undefined;
  const namespace = isPlainObject(meta) ? str(field(meta, 'namespace')) : undefined;
  return { kind, ...(apiVersion ? { apiVersion } : {}), ...(name ? { name } : {}), ...(namespace ? { namespace } : {}) };
}

/** `value[key]` when `value` is a mapping. */
const fieldOf = (value: unknown, key: string): unknown => (isPlainObject(value) ? field(value, key) : undefined);

/** A Pod or workload that does not read, with what its text says of its pods: their pod set, whether the pod is bound. */
export interface UnreadableManifest extends OtherManifest {
  /** The pod's (or the template's) planner.ciena.io/pod-set label, as written. */
  readonly podSet?: string;
  /** A pod whose spec.nodeName is written (its node's use is not known without it), or a Node (its room is not): every plan is refused. */
  readonly bound?: true;
}

/** `value` described, with what `pod` (the pod, or the workload's template) writes of its pod set and node. */
function unreadable(kind: string, value: Readonly<Record<string, unknown>>, pod: unknown): UnreadableManifest {
  const podSet = fieldOf(fieldOf(fieldOf(pod, 'metadata'), 'labels'), POD_SET_LABEL);
  const nodeName = kind === 'Pod' ? fieldOf(fieldOf(pod, 'spec'), 'nodeName') : undefined;
  return {
    ...described(kind, value),
    ...(typeof podSet === 'string' ? { podSet } : {}),
    ...(typeof nodeName === 'string' && nodeName !== '' ? { bound: true as const } : {}),
  };
}

/** A pod (or a workload's pods) of the files left out because it does not read, with the errors that say why. */
export interface UnreadablePod {
  readonly object: Located<UnreadableManifest>;
  /** Its error-severity problems, at their file, line and column. */
  readonly errors: readonly ManifestError[];
}

/** What a plan covers: every pending pod (podplan schedule, explain), or the pods of these pod sets. */
export type PlanScope = 'every-pod' | readonly { readonly namespace: string; readonly name: string }[];

/**
 * The one rule for pods the files hold that do not read (a quantity that does not parse, a field of
 * the wrong type, …; the reader leaves them out): those that refuse a plan of `scope`, because a
 * plan made without them would look complete. A bound one refuses every plan (its node would look
 * emptier than it is); another refuses the plans that would place it: every plan of every pending
 * pod, and its pod set's. The others do not stop a plan; their errors are reported all the same.
 * `podplan` and the editor both ask it, each with the scope of what it plans, and refuse with
 * `unreadableRefusal`'s words beside the pods' own located errors (every unreadable pod, 'every-pod').
 */
export function unreadablePods(model: Pick<ObjectLists, 'unreadablePods' | 'errors'>, scope: PlanScope): UnreadablePod[] {
  const inScope = ({ value }: Located<UnreadableManifest>): boolean =>
    scope === 'every-pod' ||
    value.bound === true ||
    scope.some((set) => set.name === value.podSet && set.namespace === (value.namespace ?? DEFAULT_NAMESPACE));
  return model.unreadablePods.filter(inScope).map((object) => {
    const at = fieldRange(object);
    const errors = model.errors.filter(
      (e) =>
        e.severity === 'error' &&
        e.range.file === at.file &&
        e.range.start.offset >= at.start.offset &&
        e.range.end.offset <= at.end.offset,
    );
    return { object, errors };
  });
}

/**
 * Why nothing is planned while pods do not read, naming each where it is written (its file as
 * `fileName` shows it: the editor names files by URI); undefined when every pod reads.
 */
export function unreadableRefusal(unreadable: readonly UnreadablePod[], fileName: (file: string) => string = (f) => f): string | undefined {
  if (unreadable.length === 0) return undefined;
  const names = unreadable.map(({ object }) => {
    const { kind, name, namespace } = object.value;
    const at = fieldRange(object, 'metadata.name');
    const key = name === undefined ? '(no name)' : namespaced(namespace, name);
    const what = kind === 'Pod' ? `pod ${key}` : kind === 'Node' ? `node ${name ?? '(no name)'}` : `the pods of ${kind} ${key}`;
    return `${what} at ${fileName(at.file)}:${at.start.line}:${at.start.column}`;
  });
  // "pods" while every one is a pod or a workload's pods; a Node among them makes them "objects".
  const node = unreadable.some(({ object }) => object.value.kind === 'Node');
  const which =
    unreadable.length === 1
      ? `${node ? 'an object' : 'a pod'} of the files does`
      : `${unreadable.length} ${node ? 'objects' : 'pods'} of the files do`;
  return `nothing is planned while ${which} not read (${names.join('; ')}): fix ${unreadable.length === 1 ? 'its errors' : 'their errors'} first`;
}

function readDocument(parsed: ParsedDocument): DocumentRead {
  const objects: Decoded[] = [];
  const ctx = new DecodeContext();
  // Documents with syntax errors have no value; empty documents (only comments) are skipped.
  if (parsed.value !== undefined && parsed.value !== null) readValue(parsed.value, '', objects, ctx);
  return { parsed, objects, issues: ctx.issues };
}

/** The documents of each file's chunks, by chunk text, for the next read of the same file. */
const chunkReads = new WeakMap<FileModel, Map<string, readonly DocumentRead[]>>();

/**
 * Reads one file's text; never throws, whatever the text. Pass the model of the previous read of the
 * same file and only the documents whose text changed are parsed again. `onProgress` is told how far
 * the parse of a large text got (an offset into it), about every megabyte.
 */
export function readFile(
  input: { readonly name: string; readonly text: string },
  previous?: FileModel,
  onProgress?: (offset: number) => void,
): FileModel {
  const file = input.name;
  const reuse = previous?.file === file ? chunkReads.get(previous) : undefined;
  const reads = new Map<string, readonly DocumentRead[]>();
  const lines = lineCounterOf(input.text);
  const out = emptyLists();
  const documents: ManifestDocument[] = [];
  const chunks = splitDocuments(input.text);
  // Without a previous read every chunk is new: parse the text in one go.
  const fresh = reuse ? undefined : parseChunks(input.text, chunks, onProgress);
  for (const [i, chunk] of chunks.entries()) {
    const chunkRead = reuse?.get(chunk.text) ?? reads.get(chunk.text) ?? (fresh?.[i] ?? parseChunk(chunk.text)).map(readDocument);
    reads.set(chunk.text, chunkRead);
    for (const read of chunkRead) {
      const index = documents.length;
      const source = new SourceMap(file, lines, read.parsed.syntax, chunk.offset);
      documents.push({ file, index, source, value: read.parsed.value });
      for (const p of read.parsed.problems) {
        out.errors.push({
          code: 'yaml-syntax',
          severity: p.severity,
          message: p.message,
          range: source.rangeOf(chunk.offset + p.start, chunk.offset + p.end),
        });
      }
      for (const issue of read.issues) out.errors.push(toError(source, issue));
      for (const o of read.objects)
        (out[o.bucket] as Array<Located<unknown>>).push({
          value: o.value,
          file,
          document: index,
          base: o.base,
          source,
          ...(o.generated ? { generated: true as const } : {}),
        });
    }
  }
  out.errors.sort((a, b) => a.range.start.offset - b.range.start.offset);
  const model: FileModel = { file, documents, ...out };
  chunkReads.set(model, reads);
  return model;
}

/**
 * Reads one object that is already parsed (an API server's JSON) as a one-document file named
 * `name` (a synthetic source such as `context/prod/Pod/web/api-0`), through the same decoding as
 * YAML text: a cluster's objects and a snapshot's files make the same model. Its problems are
 * reported at line 1 of that name.
 */
export function readObject(input: { readonly name: string; readonly value: unknown }): FileModel {
  const file = input.name;
  const source = new SourceMap(file, lineCounterOf(''), new DocumentSyntax(null, [0, 0]), 0);
  const out = emptyLists();
  const objects: Decoded[] = [];
  const ctx = new DecodeContext();
  readValue(input.value, '', objects, ctx);
  for (const issue of ctx.issues) out.errors.push(toError(source, issue));
  for (const o of objects) (out[o.bucket] as Array<Located<unknown>>).push({ value: o.value, file, document: 0, base: o.base, source });
  return { file, documents: [{ file, index: 0, source, value: input.value }], ...out };
}

export interface CombineOptions {
  /** Which nodes a DaemonSet runs on; `runsDaemonPod` (our matcher) when left out. */
  readonly daemonSetEligible?: NodeEligibility;
}

const namespaced = (namespace: string | undefined, name: string): string => `${namespace ?? DEFAULT_NAMESPACE}/${name}`;

/** Keeps the first object of each key; a later one gets a duplicate-name error at its name. */
function unique<T>(items: readonly Located<T>[], what: string, key: (v: T) => string, errors: ManifestError[]): Located<T>[] {
  const seen = new Map<string, Located<T>>();
  const kept: Located<T>[] = [];
  for (const item of items) {
    const k = key(item.value);
    const first = seen.get(k);
    if (!first) {
      seen.set(k, item);
      kept.push(item);
      continue;
    }
    errors.push({
      code: 'duplicate-name',
      severity: 'error',
      message: `${what} "${k}" is already defined`,
      range: fieldRange(item, 'metadata.name'),
      path: concatPath(item.base, 'metadata.name'),
      related: { range: fieldRange(first, 'metadata.name'), note: `the first ${what} "${k}"`, rest: '; this one is left out' },
    });
  }
  return kept;
}

/**
 * metadata.uid is unique in a cluster (the API server assigns it), and the scheduler keys pods by
 * it: a pod whose uid an earlier pod has is an error at its uid, and left out, never merged with the
 * other one silently.
 */
function uniqueUids(pods: readonly Located<Pod>[], errors: ManifestError[]): Located<Pod>[] {
  const seen = new Map<string, Located<Pod>>();
  return pods.filter((p) => {
    const uid = p.value.metadata.uid;
    if (uid === undefined) return true;
    const first = seen.get(uid);
    if (!first) {
      seen.set(uid, p);
      return true;
    }
    errors.push({
      code: 'duplicate-uid',
      severity: 'error',
      message: `pod ${podKey(p.value)} has uid "${uid}", which pod ${podKey(first.value)} already has`,
      range: fieldRange(p, 'metadata.uid'),
      path: concatPath(p.base, 'metadata.uid'),
      related: {
        range: fieldRange(first, 'metadata.uid'),
        note: `pod ${podKey(first.value)} has uid "${uid}"`,
        rest: ' (a uid is unique in a cluster); this one is left out',
      },
    });
    return false;
  });
}

/**
 * The Priority admission plugin on the pods (engine/api/priority.ts, the one place it is decided):
 * spec.priority from the named PriorityClass or the globalDefault one, so every reader of the
 * workspace (schedule, plan, explain, the language server, cluster snapshots) sees the same
 * priorities. A pod naming a class that does not exist is left as written, with a warning: the API
 * server would refuse it (podplan schedule reports it as refused).
 */
function admitPriorities(
  pods: readonly Located<Pod>[],
  classes: readonly Located<PriorityClass>[],
  errors: ManifestError[],
): Located<Pod>[] {
  const admitted = resolvePriorities(
    pods.map((p) => p.value),
    classes.map((c) => c.value),
  );
  const refused = new Map(admitted.refused.map((r) => [r.pod, r.error]));
  // A workload's replicas share one template: one warning at it.
  const warned = new Set<string>();
  let next = 0;
  return pods.map((p) => {
    const error = refused.get(podKey(p.value));
    if (error !== undefined) {
      const path = concatPath(p.base, 'spec.priorityClassName');
      if (warned.has(`${p.file}\u0000${p.document}\u0000${path}`)) return p;
      warned.add(`${p.file}\u0000${p.document}\u0000${path}`);
      errors.push({ code: 'refused', severity: 'warning', message: error, range: fieldRange(p, 'spec.priorityClassName'), path });
      return p;
    }
    const value = admitted.pods[next++] as Pod;
    return value === p.value ? p : { ...p, value };
  });
}

/**
 * Whether the StatefulSet controller creates this made-up replica's pod; when it does not (a claim
 * of the replica refused, or a replica past the one it stopped at), a warning at the set's
 * volumeClaimTemplates says why, in the FailedCreate event's words.
 */
function createdReplica(p: Located<Pod>, creation: StatefulSetCreation, errors: ManifestError[]): boolean {
  const owner = p.value.metadata.ownerReferences?.[0];
  const ordinal = Number(p.value.metadata.labels?.['apps.kubernetes.io/pod-index']);
  if (owner?.kind !== 'StatefulSet' || !Number.isInteger(ordinal)) return true;
  const namespace = p.value.metadata.namespace ?? DEFAULT_NAMESPACE;
  const why = creation.podNotCreated(namespace, owner.name, ordinal);
  if (why === undefined) return true;
  // The pod's base is the set's spec.template: its claims' templates are next to it.
  const at = p.base.replace(/spec\.template$/, 'spec.volumeClaimTemplates');
  errors.push({
    code: 'not-created',
    severity: 'warning',
    message: `${why}: pod ${namespace}/${p.value.metadata.name} left out`,
    range: p.source.locate(at),
    path: at,
  });
  return false;
}

/** The workspace from files read by `readFile`: cheap enough to redo after every edit. */
export function combine(files: readonly FileModel[], options: CombineOptions = {}): WorkspaceModel {
  const all = emptyLists();
  for (const f of files) {
    // A loop, not push(...list): spreading a very long list overflows the argument limit.
    for (const key of Object.keys(all) as Array<keyof ObjectLists>) for (const item of f[key]) (all[key] as unknown[]).push(item);
  }
  const errors = all.errors;
  const nodes = unique(all.nodes, 'node', (n) => n.metadata.name, errors);
  const workloads = unique(all.workloads, 'workload', (w) => `${w.kind} ${namespaced(w.metadata.namespace, w.metadata.name)}`, errors);
  const nodeObjects = nodes.map((n) => n.value);
  const eligible = options.daemonSetEligible ?? runsDaemonPod;
  for (const ds of workloads) {
    if (ds.value.kind !== 'DaemonSet') continue;
    for (const p of daemonSetPods(ds.value, nodeObjects, eligible))
      all.pods.push({ ...ds, value: p, base: concatPath(ds.base, 'spec.template'), generated: true });
  }
  const real = all.pods.filter((p) => !p.generated);
  const missing = missingReplicas(
    workloads.map((w) => w.value),
    real.map((p) => p.value),
  );
  const priorityClasses = unique(all.priorityClasses, 'PriorityClass', (c) => c.metadata.name, errors);
  const limitRanges = unique(all.limitRanges, 'LimitRange', (r) => namespaced(r.metadata.namespace, r.metadata.name), errors);
  const resourceQuotas = unique(all.resourceQuotas, 'ResourceQuota', (q) => namespaced(q.metadata.namespace, q.metadata.name), errors);
  quotaEntriesNotApplied(resourceQuotas, errors);
  // What each quota admitted so far, whatever the kind: claims, ResourceClaims, pods, then the claims made from templates for the pods.
  const quotaUse = new QuotaUse();
  // A claim a StatefulSet's controller would create counts only where the files have no claim of that name.
  // Claims are admitted before pods: the controller creates a replica's claims before its pod, and
  // makes no pod for a replica whose claim admission refuses (nor for those it stops before).
  const claimKey = (c: PersistentVolumeClaim) => namespaced(c.metadata.namespace, c.metadata.name);
  const realClaims = new Set(all.persistentVolumeClaims.filter((c) => !c.generated).map((c) => claimKey(c.value)));
  const creation = new StatefulSetCreation(
    workloads.map((w) => w.value),
    (key) => !realClaims.has(key),
  );
  const claims = admitClaims(
    unique(
      all.persistentVolumeClaims.filter((c) => !c.generated || !realClaims.has(claimKey(c.value))),
      'PersistentVolumeClaim',
      claimKey,
      errors,
    ),
    limitRanges,
    errors,
    creation,
  );
  const persistentVolumes = unique(all.persistentVolumes, 'PersistentVolume', (v) => v.metadata.name, errors);
  const storageClasses = unique(all.storageClasses, 'StorageClass', (c) => c.metadata.name, errors);
  // ResourceQuota after the DefaultStorageClass admission plugin has given a claim its class.
  const persistentVolumeClaims = admitClaimQuotas(
    withDefaultClass(
      claims,
      storageClasses.map((c) => c.value),
    ),
    resourceQuotas,
    errors,
    creation,
    quotaUse,
  );
  const deviceClasses = unique(all.deviceClasses, 'DeviceClass', (c) => c.metadata.name, errors);
  const classNames = deviceClassNames(deviceClasses.map((c) => c.value));
  const resourceClaims = admitDeviceClaimQuotas(
    unique(all.resourceClaims, 'ResourceClaim', (c) => namespaced(c.metadata.namespace, c.metadata.name), errors),
    resourceQuotas,
    classNames,
    errors,
    quotaUse,
  );
  const resourceClaimTemplates = unique(
    all.resourceClaimTemplates,
    'ResourceClaimTemplate',
    (t) => namespaced(t.metadata.namespace, t.metadata.name),
    errors,
  );
  // In file order, the made-up pods among the real ones; with their priorities, default resources and
  // quota checks as admission gives them (LimitRanger before ResourceQuota, as the API server runs them).
  const prioritized = admitPriorities(
    uniqueUids(
      unique(
        all.pods.filter((p) => !p.generated || (missing.has(p.value) && createdReplica(p, creation, errors))),
        'pod',
        podKey,
        errors,
      ),
      errors,
    ),
    priorityClasses,
    errors,
  );
  const pods = admitQuotas(applyLimitRanges(prioritized, limitRanges, errors), resourceQuotas, errors, quotaUse);
  const claimsNotCreated = admitTemplateClaims(pods, resourceClaimTemplates, resourceQuotas, classNames, errors, quotaUse);
  const namespaces = unique(all.namespaces, 'Namespace', (n) => n.metadata.name, errors);
  const csiNodes = unique(all.csiNodes, 'CSINode', (c) => c.metadata.name, errors);
  const csiDrivers = unique(all.csiDrivers, 'CSIDriver', (d) => d.metadata.name, errors);
  const csiStorageCapacities = unique(
    all.csiStorageCapacities,
    'CSIStorageCapacity',
    (c) => namespaced(c.metadata.namespace, c.metadata.name),
    errors,
  );
  const podDisruptionBudgets = unique(
    all.podDisruptionBudgets,
    'PodDisruptionBudget',
    (b) => namespaced(b.metadata.namespace, b.metadata.name),
    errors,
  );
  const resourceSlices = unique(all.resourceSlices, 'ResourceSlice', (sl) => sl.metadata.name, errors);
  const deviceTaintRules = unique(all.deviceTaintRules, 'DeviceTaintRule', (r) => r.metadata.name, errors);
  return {
    files,
    nodes,
    pods,
    workloads,
    namespaces,
    persistentVolumeClaims,
    persistentVolumes,
    storageClasses,
    csiNodes,
    csiDrivers,
    csiStorageCapacities,
    priorityClasses,
    podDisruptionBudgets,
    limitRanges,
    resourceQuotas,
    resourceClaims,
    resourceClaimTemplates,
    deviceClasses,
    resourceSlices,
    deviceTaintRules,
    triggers: unique(all.triggers, 'ScheduleTrigger', (t) => namespaced(t.namespace, t.name), errors),
    plans: unique(all.plans, 'SchedulePlan', (p) => namespaced(p.namespace, p.name), errors),
    profiles: all.profiles,
    others: all.others,
    unreadablePods: all.unreadablePods,
    errors,
    cluster: {
      nodes: nodeObjects,
      pods: pods.map((p) => p.value),
      ...(namespaces.length > 0 ? { namespaces: namespaces.map((n) => n.value) } : {}),
      ...(persistentVolumeClaims.length > 0 ? { persistentVolumeClaims: persistentVolumeClaims.map((c) => c.value) } : {}),
      ...(persistentVolumes.length > 0 ? { persistentVolumes: persistentVolumes.map((v) => v.value) } : {}),
      ...(storageClasses.length > 0 ? { storageClasses: storageClasses.map((c) => c.value) } : {}),
      ...(csiNodes.length > 0 ? { csiNodes: csiNodes.map((c) => c.value) } : {}),
      ...(csiDrivers.length > 0 ? { csiDrivers: csiDrivers.map((d) => d.value) } : {}),
      ...(csiStorageCapacities.length > 0 ? { csiStorageCapacities: csiStorageCapacities.map((c) => c.value) } : {}),
      ...(priorityClasses.length > 0 ? { priorityClasses: priorityClasses.map((c) => c.value) } : {}),
      ...(podDisruptionBudgets.length > 0 ? { podDisruptionBudgets: podDisruptionBudgets.map((b) => b.value) } : {}),
      ...(resourceClaims.length > 0 ? { resourceClaims: resourceClaims.map((c) => c.value) } : {}),
      ...(resourceClaimTemplates.length > 0 ? { resourceClaimTemplates: resourceClaimTemplates.map((t) => t.value) } : {}),
      ...(deviceClasses.length > 0 ? { deviceClasses: deviceClasses.map((c) => c.value) } : {}),
      ...(resourceSlices.length > 0 ? { resourceSlices: resourceSlices.map((sl) => sl.value) } : {}),
      ...(deviceTaintRules.length > 0 ? { deviceTaintRules: deviceTaintRules.map((r) => r.value) } : {}),
      ...(claimsNotCreated.length > 0 ? { claimsNotCreated } : {}),
    },
    generated: new Set(pods.filter((p) => p.generated).map((p) => podKey(p.value))),
  };
}

/**
 * The DefaultStorageClass admission plugin: a claim that names no StorageClass (the field left out,
 * not "") gets the default one, the class annotated storageclass.kubernetes.io/is-default-class
 * "true" (the newest of several, then by name, as upstream's GetDefaultClass picks it).
 */
function withDefaultClass(
  claims: readonly Located<PersistentVolumeClaim>[],
  classes: readonly StorageClass[],
): Located<PersistentVolumeClaim>[] {
  const isDefault = (c: StorageClass) =>
    c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true' ||
    c.metadata.annotations?.['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
  const created = (c: StorageClass) => Date.parse(c.metadata.creationTimestamp ?? '') || 0;
  const chosen = classes.filter(isDefault).sort((a, b) => created(b) - created(a) || a.metadata.name.localeCompare(b.metadata.name))[0];
  if (!chosen) return [...claims];
  return claims.map((c) =>
    c.value.spec?.storageClassName !== undefined
      ? c
      : { ...c, value: { ...c.value, spec: { ...c.value.spec, storageClassName: chosen.metadata.name } } },
  );
}

/** Reads and combines files in one go (the CLI's path; an editor keeps the FileModels and calls `combine`). */
export function readSnapshot(
  files: ReadonlyArray<{ readonly name: string; readonly text: string }>,
  options: CombineOptions = {},
): WorkspaceModel {
  return combine(
    files.map((f) => readFile(f)),
    options,
  );
}
