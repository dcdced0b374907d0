// The API semantics over the store: create/get/list/update/patch/delete of every resource type,
// subresources (status, binding), CRDs and their custom resources, admission the kube code relies
// on (namespace must exist, pod priority from its PriorityClass), Status errors as upstream words
// them. Used by the HTTP handler and directly by tests (seeding thousands of objects fast).
import { randomBytes, randomUUID } from 'node:crypto';
import { apiVersionOf, builtinResources, resourceKey, type KubeObject, type ObjectMeta, type ResourceType } from './resources';
import { pruneObject, validateObject, type JsonSchema } from './schema';
import { jsonPatch, mergePatch, strategicMerge } from './patch';
import { selectorMatcher } from './selectors';
import { Store, objectKey, type Collection, type Entry } from './store';
import { errors, qualified, StatusError } from './status';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  fieldManager?: string;
  /** a test's own write: the whole object as given (status too), no update validation */
  direct?: boolean;
}

export interface WriteResult {
  readonly obj: KubeObject;
  readonly json: string;
  /** `Warning` headers (unknown fields under fieldValidation=Warn) */
  readonly warnings: string[];
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ListResult {
  readonly entries: readonly Entry[];
  /** the list's metadata: resourceVersion, continue, remainingItemCount */
  readonly metadata: Record<string, unknown>;
}

export interface BindingRequest {
  metadata?: ObjectMeta;
  target?: { kind?: string; name?: string; apiVersion?: string };
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** DELETE answers with the object for these (ReturnDeletedObject upstream), else with a Status */
const RETURNS_DELETED_OBJECT = new Set(['/pods', '/services']);
const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

function now(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, 'Z');
}

function get(obj: unknown, ...keys: string[]): unknown {
  let v = obj;
  for (const k of keys) v = isMap(v) ? v[k] : undefined;
  return v;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function withoutKeys(obj: KubeObject, keys: readonly string[]): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k)) rest[k] = v;
  return JSON.stringify(rest);
}

export class Registry {
  readonly store: Store;
  /** `group/version/plural` → type */
  private readonly types = new Map<string, ResourceType>();
  /** `apiVersion/kind` → type */
  private readonly kinds = new Map<string, ResourceType>();
  /** hooks the server's fault injection and counters attach to */
  onWrite: (verb: string, resource: string, obj: KubeObject) => void = () => undefined;
  onBound: (namespace: string, pod: string) => void = () => undefined;

  constructor(historyLimit: number) {
    this.store = new Store(historyLimit);
    for (const t of builtinResources()) this.register(t);
    const namespaces = this.typeOf('v1', 'Namespace');
    for (const name of DEFAULT_NAMESPACES) this.create(namespaces, undefined, { metadata: { name } });
  }

  private register(t: ResourceType): void {
    this.types.set(`${t.group}/${t.version}/${t.plural}`, t);
    this.kinds.set(`${apiVersionOf(t)}/${t.kind}`, t);
  }

  private unregister(group: string, plural: string): void {
    for (const [k, t] of this.types) {
      if (t.group === group && t.plural === plural) {
        this.types.delete(k);
        this.kinds.delete(`${apiVersionOf(t)}/${t.kind}`);
      }
    }
  }

  /** Every served type, in registration order. */
  allTypes(): ResourceType[] {
    return [...this.types.values()];
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.get(`${group}/${version}/${plural}`);
  }

  typeOf(apiVersion: string, kind: string): ResourceType {
    const t = this.kinds.get(`${apiVersion}/${kind}`);
    if (!t) throw errors.notFound({ group: '', plural: 'resources' }, `${apiVersion}/${kind}`);
    return t;
  }

  private collection(t: ResourceType): Collection {
    return this.store.collection(resourceKey(t));
  }

  private requireNamespace(t: ResourceType, namespace: string | undefined): void {
    if (!t.namespaced || namespace === undefined) return;
    const nsType = this.typeOf('v1', 'Namespace');
    if (!this.collection(nsType).items.has(objectKey(undefined, namespace))) throw errors.notFound(nsType, namespace);
  }

  entry(t: ResourceType, namespace: string | undefined, name: string): Entry {
    const e = this.collection(t).items.get(objectKey(t.namespaced ? namespace : undefined, name));
    if (!e) throw errors.notFound(t, name);
    return e;
  }

  get(t: ResourceType, namespace: string | undefined, name: string): KubeObject {
    return this.entry(t, namespace, name).obj;
  }

  /** Objects of a type (optionally one namespace), in key order; for tests. */
  objects(t: ResourceType, namespace?: string): KubeObject[] {
    const c = this.collection(t);
    const out: KubeObject[] = [];
    for (const key of c.sortedKeys()) {
      const e = c.items.get(key) as Entry;
      if (namespace === undefined || e.obj.metadata?.namespace === namespace) out.push(e.obj);
    }
    return out;
  }

  list(t: ResourceType, namespace: string | undefined, query: URLSearchParams): ListResult {
    const c = this.collection(t);
    const match = selectorMatcher(query, t);
    const limit = Number(query.get('limit') ?? 0);
    let rv = this.store.currentRV;
    let start = '';
    const token = query.get('continue');
    if (token) {
      const decoded = decodeContinue(token);
      this.checkContinue(decoded.rv);
      rv = decoded.rv;
      start = decoded.start;
    }
    const keys = c.sortedKeys();
    let i = start ? lowerBound(keys, start) : 0;
    const prefix = t.namespaced && namespace !== undefined ? `${namespace}/` : '';
    if (prefix && !start) i = lowerBound(keys, prefix);
    const items: Entry[] = [];
    let next: string | undefined;
    for (; i < keys.length; i++) {
      const key = keys[i] as string;
      if (prefix && !key.startsWith(prefix)) break;
      const e = c.items.get(key) as Entry;
      if (e.createdRV > rv || !match(e.obj)) continue;
      if (limit > 0 && items.length === limit) {
        next = key;
        break;
      }
      items.push(e);
    }
    const meta: Record<string, unknown> = { resourceVersion: String(rv) };
    if (next !== undefined) {
      meta.continue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: next })).toString('base64');
      if (!query.get('labelSelector') && !query.get('fieldSelector')) {
        let remaining = 0;
        for (let j = i; j < keys.length && (!prefix || (keys[j] as string).startsWith(prefix)); j++) remaining++;
        meta.remainingItemCount = remaining;
      }
    }
    return { entries: items, metadata: meta };
  }

  /** The list as JSON text, built from the stored objects' JSON. */
  listJson(t: ResourceType, list: ListResult): string {
    const head = `{"kind":${JSON.stringify(`${t.kind}List`)},"apiVersion":${JSON.stringify(apiVersionOf(t))},"metadata":${JSON.stringify(list.metadata)},"items":[`;
    return `${head}${list.entries.map((e) => e.json).join(',')}]}`;
  }

  private checkContinue(rv: number): void {
    try {
      this.store.checkNotCompacted(rv);
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      throw errors.gone(
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
  }

  create(t: ResourceType, namespace: string | undefined, body: KubeObject, opts: WriteOptions = {}): WriteResult {
    if (!isMap(body)) throw errors.badRequest('Object in version "v1" cannot be handled: expected an object');
    const obj = structuredClone(body);
    const meta: ObjectMeta = { ...(obj.metadata ?? {}) };
    if (t.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && namespace !== undefined && meta.namespace !== namespace) {
        throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      namespace ??= meta.namespace || 'default';
      meta.namespace = namespace;
    } else delete meta.namespace;
    if (!meta.name) {
      if (!meta.generateName) {
        throw errors.invalid(t.kind, t.group, '', [
          { field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' },
        ]);
      }
      const c = this.collection(t);
      do {
        meta.name = meta.generateName + [...randomBytes(5)].map((b) => GENERATE_ALPHABET[b % GENERATE_ALPHABET.length]).join('');
      } while (c.items.has(objectKey(namespace, meta.name)));
    }
    const name = meta.name;
    this.requireNamespace(t, namespace);
    if (this.collection(t).items.has(objectKey(t.namespaced ? namespace : undefined, name))) throw errors.alreadyExists(t, name);
    meta.uid = randomUUID();
    meta.creationTimestamp = now();
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    // generation is tracked for pods and for the kinds of named groups (workloads, PDBs, CRDs, custom resources)
    if ((t.statusSubresource && (t.group !== '' || t.kind === 'Pod')) || t.schema) meta.generation = 1;
    obj.apiVersion = apiVersionOf(t);
    obj.kind = t.kind;
    obj.metadata = meta;
    if (opts.fieldManager) meta.managedFields = [managedEntry(opts.fieldManager, 'Update', obj)];
    const warnings = this.admit(t, obj, undefined, opts);
    if (opts.dryRun) return { obj, json: JSON.stringify(obj), warnings };
    const entry = this.store.write(this.collection(t), 'ADDED', obj);
    this.afterWrite(t, entry.obj);
    this.onWrite('create', qualified(t), entry.obj);
    return { obj: entry.obj, json: entry.json, warnings };
  }

  /** Defaults, validation and pruning shared by create and update. */
  private admit(t: ResourceType, obj: KubeObject, old: KubeObject | undefined, opts: WriteOptions): string[] {
    const warnings: string[] = [];
    if (t.schema) {
      const unknown = pruneObject(obj, t.schema);
      if (unknown.length > 0 && opts.fieldValidation === 'Strict') {
        const list = unknown.map((f) => `unknown field "${f}"`).join(', ');
        throw errors.badRequest(`${t.kind} in version "${t.version}" cannot be handled as a ${t.kind}: strict decoding error: ${list}`);
      }
      if (opts.fieldValidation !== 'Ignore') for (const f of unknown) warnings.push(`unknown field "${f}"`);
      const violations = validateObject(obj, t.schema);
      if (violations.length > 0) throw errors.invalid(t.kind, t.group, obj.metadata?.name ?? '', violations);
    }
    if (t.group === '' && t.kind === 'Pod') {
      if (old && !opts.direct) checkPodUpdate(obj, old);
      else this.defaultPod(obj);
    }
    if (t.group === '' && t.kind === 'Namespace' && !old) defaultNamespace(obj);
    if (t.group === 'apiextensions.k8s.io') this.admitCrd(obj, old);
    return warnings;
  }

  private defaultPod(pod: KubeObject): void {
    const spec = (isMap(pod.spec) ? pod.spec : (pod.spec = {})) as Record<string, unknown>;
    spec.schedulerName ??= 'default-scheduler';
    spec.restartPolicy ??= 'Always';
    spec.dnsPolicy ??= 'ClusterFirst';
    spec.terminationGracePeriodSeconds ??= 30;
    const pcType = this.typeOf('scheduling.k8s.io/v1', 'PriorityClass');
    const className = spec.priorityClassName;
    if (typeof className === 'string' && className !== '') {
      const pc = this.collection(pcType).items.get(objectKey(undefined, className));
      if (!pc)
        throw errors.forbidden(
          { group: '', plural: 'pods' },
          pod.metadata?.name ?? '',
          `no PriorityClass with name ${className} was found`,
        );
      spec.priority = pc.obj.value;
      if (pc.obj.preemptionPolicy) spec.preemptionPolicy = pc.obj.preemptionPolicy;
    } else {
      const global = [...this.collection(pcType).items.values()].find((e) => e.obj.globalDefault === true);
      spec.priority ??= global ? global.obj.value : 0;
      if (global) spec.priorityClassName = global.obj.metadata?.name;
    }
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
    const status = (isMap(pod.status) ? pod.status : (pod.status = {})) as Record<string, unknown>;
    status.phase ??= 'Pending';
  }

  update(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    body: KubeObject,
    opts: WriteOptions = {},
    subresource?: 'status',
  ): WriteResult {
    if (!isMap(body)) throw errors.badRequest('Object cannot be handled: expected an object');
    const bodyName = body.metadata?.name;
    if (bodyName !== undefined && bodyName !== name) {
      throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    const current = this.entry(t, namespace, name);
    const wanted = body.metadata?.resourceVersion;
    if (wanted !== undefined && wanted !== '' && wanted !== String(current.rv)) throw errors.staleUpdate(t, name);
    const old = current.obj;
    let obj: KubeObject = structuredClone(body);
    if (subresource === 'status') obj = { ...structuredClone(old), status: obj.status };
    else if (t.statusSubresource && !opts.direct) {
      if (old.status !== undefined) obj.status = structuredClone(old.status);
      else delete obj.status;
    }
    const meta: ObjectMeta = { ...(obj.metadata ?? {}) };
    const oldMeta = old.metadata ?? {};
    meta.name = name;
    if (t.namespaced) meta.namespace = oldMeta.namespace;
    meta.uid = oldMeta.uid;
    meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    delete meta.resourceVersion;
    if (oldMeta.generation !== undefined) {
      const ignored = t.statusSubresource ? ['metadata', 'status'] : ['metadata'];
      meta.generation = withoutKeys(obj, ignored) === withoutKeys(old, ignored) ? oldMeta.generation : oldMeta.generation + 1;
    }
    if (opts.fieldManager && subresource === undefined)
      meta.managedFields = mergeManaged(oldMeta.managedFields, managedEntry(opts.fieldManager, 'Update', obj));
    else if (oldMeta.managedFields && meta.managedFields === undefined) meta.managedFields = oldMeta.managedFields;
    obj.apiVersion = apiVersionOf(t);
    obj.kind = t.kind;
    obj.metadata = meta;
    const warnings = this.admit(t, obj, old, opts);
    if (opts.dryRun) return { obj, json: JSON.stringify(obj), warnings };
    if (meta.deletionTimestamp && (meta.finalizers ?? []).length === 0) {
      const gone = this.store.remove(this.collection(t), t.namespaced ? namespace : undefined, name) as Entry;
      this.afterDelete(t, gone.obj);
      this.onWrite('delete', qualified(t), gone.obj);
      return { obj: gone.obj, json: gone.json, warnings };
    }
    const entry = this.store.write(this.collection(t), 'MODIFIED', obj);
    this.afterWrite(t, entry.obj);
    this.onWrite('update', subresource ? `${qualified(t)}/${subresource}` : qualified(t), entry.obj);
    return { obj: entry.obj, json: entry.json, warnings };
  }

  patch(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    type: PatchType,
    patch: unknown,
    opts: WriteOptions = {},
    subresource?: 'status',
  ): WriteResult {
    if (type === 'strategic' && !t.strategicMerge) {
      throw errors.unsupportedMediaType(['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    }
    const exists = this.collection(t).items.get(objectKey(t.namespaced ? namespace : undefined, name));
    if (type === 'apply') {
      if (!opts.fieldManager) throw errors.badRequest('PATCH /apply: fieldManager is required for apply requests');
      if (!isMap(patch)) throw errors.badRequest('error decoding YAML: expected an object');
      if (!exists) {
        if (subresource) throw errors.notFound(t, name);
        const managedFields = [managedEntry(opts.fieldManager, 'Apply', patch as KubeObject)];
        const body = { ...patch, metadata: { ...(patch.metadata as ObjectMeta), name, managedFields } } as KubeObject;
        return this.create(t, namespace, body, { ...opts, fieldManager: undefined });
      }
    }
    if (!exists) throw errors.notFound(t, name);
    const current = exists.obj;
    let next: unknown;
    switch (type) {
      case 'json':
        next = jsonPatch(current, patch);
        break;
      case 'merge':
        next = mergePatch(current, patch);
        break;
      case 'strategic':
        next = strategicMerge(current, patch);
        break;
      case 'apply': {
        const applied = structuredClone(patch) as KubeObject;
        delete applied.metadata?.resourceVersion;
        next = t.strategicMerge ? strategicMerge(current, applied) : mergePatch(current, applied);
        break;
      }
    }
    if (!isMap(next)) throw errors.badRequest('the patch did not produce an object');
    const nextObj = next as KubeObject;
    const patchedRV = nextObj.metadata?.resourceVersion;
    // A patch only preconditions on a resourceVersion it sets itself.
    const patchMeta = isMap(patch) && isMap(patch.metadata) ? patch.metadata : undefined;
    const preconditioned = type === 'json' ? patchedRV !== current.metadata?.resourceVersion : patchMeta?.resourceVersion !== undefined;
    if (!preconditioned) nextObj.metadata = { ...nextObj.metadata, resourceVersion: String(exists.rv) };
    if (type === 'apply' && opts.fieldManager) {
      const applied = managedEntry(opts.fieldManager, 'Apply', patch as KubeObject);
      nextObj.metadata = { ...nextObj.metadata, managedFields: mergeManaged(current.metadata?.managedFields, applied) };
      return this.update(t, namespace, name, nextObj, { ...opts, fieldManager: undefined }, subresource);
    }
    return this.update(t, namespace, name, nextObj, opts, subresource);
  }

  delete(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    options: Record<string, unknown> = {},
    opts: WriteOptions = {},
  ): { json: string; obj: KubeObject } {
    const current = this.entry(t, namespace, name);
    const pre = isMap(options.preconditions) ? options.preconditions : {};
    const meta = current.obj.metadata ?? {};
    if (typeof pre.resourceVersion === 'string' && pre.resourceVersion !== meta.resourceVersion) {
      throw errors.conflict(
        t,
        name,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion}). The object might have been modified`,
      );
    }
    if (typeof pre.uid === 'string' && pre.uid !== meta.uid) {
      throw errors.conflict(
        t,
        name,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid}). The object might have been deleted and then recreated`,
      );
    }
    if (opts.dryRun) return this.deleteAnswer(t, current.obj);
    if ((meta.finalizers ?? []).length > 0) {
      if (meta.deletionTimestamp) return this.deleteAnswer(t, current.obj);
      const marked = structuredClone(current.obj);
      (marked.metadata as ObjectMeta).deletionTimestamp = now();
      const entry = this.store.write(this.collection(t), 'MODIFIED', marked);
      this.onWrite('delete', qualified(t), entry.obj);
      return { json: entry.json, obj: entry.obj };
    }
    if (t.group === '' && t.kind === 'Namespace') this.deleteNamespaceContents(name);
    const gone = this.store.remove(this.collection(t), t.namespaced ? namespace : undefined, name) as Entry;
    this.afterDelete(t, gone.obj);
    this.onWrite('delete', qualified(t), gone.obj);
    return this.deleteAnswer(t, gone.obj);
  }

  /** The autoscaling/v1 Scale of a workload (its `scale` subresource). */
  scale(t: ResourceType, namespace: string | undefined, name: string): KubeObject {
    const obj = this.get(t, namespace, name);
    const meta = obj.metadata ?? {};
    const spec = (obj.spec ?? {}) as { replicas?: number; selector?: { matchLabels?: Record<string, string> } };
    const selector = Object.entries(spec.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: meta.name,
        namespace: meta.namespace,
        uid: meta.uid,
        resourceVersion: meta.resourceVersion,
        creationTimestamp: meta.creationTimestamp,
      },
      spec: { replicas: spec.replicas ?? 1 },
      status: { replicas: (get(obj, 'status', 'replicas') as number | undefined) ?? 0, selector },
    };
  }

  /** Writes a Scale back: spec.replicas of the workload (resourceVersion in the Scale is a precondition). */
  updateScale(t: ResourceType, namespace: string | undefined, name: string, scale: KubeObject, opts: WriteOptions = {}): KubeObject {
    const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw errors.invalid('Scale', 'autoscaling', name, [
        {
          field: 'spec.replicas',
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`,
        },
      ]);
    }
    const current = structuredClone(this.get(t, namespace, name));
    current.spec = { ...(current.spec as object), replicas };
    const wanted = scale.metadata?.resourceVersion;
    if (wanted) current.metadata = { ...current.metadata, resourceVersion: wanted };
    this.update(t, namespace, name, current, opts);
    return this.scale(t, namespace, name);
  }

  /** DELETE on a collection: every object the selectors match; answers the list of them. */
  deleteCollection(t: ResourceType, namespace: string | undefined, query: URLSearchParams, opts: WriteOptions = {}): string {
    const match = selectorMatcher(query, t);
    const doomed = this.objects(t, t.namespaced ? namespace : undefined).filter(match);
    const items = doomed.map((o) => this.delete(t, o.metadata?.namespace, o.metadata?.name ?? '', {}, opts).obj);
    return JSON.stringify({
      kind: `${t.kind}List`,
      apiVersion: apiVersionOf(t),
      metadata: { resourceVersion: String(this.store.currentRV) },
      items,
    });
  }

  private deleteAnswer(t: ResourceType, obj: KubeObject): { json: string; obj: KubeObject } {
    if (RETURNS_DELETED_OBJECT.has(resourceKey(t)) || t.schema) return { json: JSON.stringify(obj), obj };
    const details: Record<string, unknown> = { name: obj.metadata?.name };
    if (t.group) details.group = t.group;
    details.kind = t.plural;
    details.uid = obj.metadata?.uid;
    const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
    return { json: JSON.stringify(status), obj };
  }

  private deleteNamespaceContents(namespace: string): void {
    const seen = new Set<string>();
    for (const t of this.types.values()) {
      if (!t.namespaced || seen.has(resourceKey(t))) continue;
      seen.add(resourceKey(t));
      const c = this.collection(t);
      for (const key of [...c.sortedKeys()]) {
        if (key.startsWith(`${namespace}/`)) this.store.remove(c, namespace, key.slice(namespace.length + 1));
      }
    }
  }

  /** pods/{name}/binding (and namespaces/{ns}/bindings): sets spec.nodeName once. */
  bind(namespace: string, podName: string, binding: BindingRequest, opts: WriteOptions = {}): void {
    const bindingRef = { group: '', plural: 'pods/binding' };
    const bodyName = binding.metadata?.name;
    if (bodyName !== undefined && bodyName !== podName) throw errors.badRequest('name in URL does not match name in Binding object');
    const target = binding.target;
    if (!target?.name) {
      throw errors.invalid('Binding', '', podName, [{ field: 'target.name', reason: 'FieldValueRequired', message: 'Required value' }]);
    }
    if (target.kind !== undefined && target.kind !== '' && target.kind !== 'Node') {
      throw errors.invalid('Binding', '', podName, [
        {
          field: 'target.kind',
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${target.kind}": supported values: "Node", ""`,
        },
      ]);
    }
    const podType = this.typeOf('v1', 'Pod');
    const current = this.entry(podType, namespace, podName).obj;
    const spec = (current.spec ?? {}) as Record<string, unknown>;
    if (current.metadata?.deletionTimestamp)
      throw errors.conflict(bindingRef, podName, `pod ${podName} is being deleted, cannot be assigned to a host`);
    if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
      throw errors.conflict(bindingRef, podName, `pod ${podName} is already assigned to node "${spec.nodeName}"`);
    }
    if (opts.dryRun) return;
    const pod = structuredClone(current);
    (pod.spec as Record<string, unknown>).nodeName = target.name;
    const annotations = binding.metadata?.annotations;
    if (annotations) (pod.metadata as ObjectMeta).annotations = { ...pod.metadata?.annotations, ...annotations };
    const status = (isMap(pod.status) ? pod.status : (pod.status = {})) as Record<string, unknown>;
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []) as Record<string, unknown>[];
    const scheduled = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now() };
    const at = conditions.findIndex((c) => c.type === 'PodScheduled');
    if (at >= 0) conditions[at] = scheduled;
    else conditions.push(scheduled);
    status.conditions = conditions;
    const entry = this.store.write(this.collection(podType), 'MODIFIED', pod);
    this.onWrite('create', 'pods/binding', entry.obj);
    this.onBound(namespace, podName);
  }

  // ---- CustomResourceDefinitions -------------------------------------------------------------

  private admitCrd(crd: KubeObject, old: KubeObject | undefined): void {
    const spec = (crd.spec ?? {}) as CrdSpec;
    const name = crd.metadata?.name ?? '';
    const plural = spec.names?.plural ?? '';
    const causes: { field: string; reason: string; message: string }[] = [];
    if (name !== `${plural}.${spec.group ?? ''}`) {
      causes.push({
        field: 'metadata.name',
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${name}": must be spec.names.plural+"."+spec.group`,
      });
    }
    if (!spec.names?.kind) causes.push({ field: 'spec.names.kind', reason: 'FieldValueRequired', message: 'Required value' });
    if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster') {
      causes.push({
        field: 'spec.scope',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${spec.scope ?? ''}": supported values: "Cluster", "Namespaced"`,
      });
    }
    const versions = spec.versions ?? [];
    if (versions.filter((v) => v.storage).length !== 1) {
      causes.push({
        field: 'spec.versions',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(versions.map((v) => v.name))}: must have exactly one version marked as storage version`,
      });
    }
    if (causes.length > 0) throw errors.invalid('CustomResourceDefinition', 'apiextensions.k8s.io', name, causes);
    if (old) return;
    const names = {
      ...spec.names,
      singular: spec.names?.singular ?? spec.names?.kind?.toLowerCase(),
      listKind: spec.names?.listKind ?? `${spec.names?.kind}List`,
    };
    crd.status = {
      conditions: [
        { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: now() },
        {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
          lastTransitionTime: now(),
        },
      ],
      acceptedNames: names,
      storedVersions: versions.filter((v) => v.storage).map((v) => v.name),
    };
  }

  private afterWrite(t: ResourceType, obj: KubeObject): void {
    if (resourceKey(t) !== CRD_KEY) return;
    const spec = (obj.spec ?? {}) as CrdSpec;
    const names = spec.names ?? {};
    this.unregister(spec.group ?? '', names.plural ?? '');
    for (const v of spec.versions ?? []) {
      if (!v.served) continue;
      this.register({
        group: spec.group ?? '',
        version: v.name,
        kind: names.kind ?? '',
        plural: names.plural ?? '',
        singular: names.singular ?? (names.kind ?? '').toLowerCase(),
        namespaced: spec.scope === 'Namespaced',
        shortNames: names.shortNames ?? [],
        categories: names.categories ?? [],
        statusSubresource: v.subresources?.status !== undefined,
        scaleSubresource: false,
        fields: {},
        strategicMerge: false,
        schema: v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      });
    }
  }

  private afterDelete(t: ResourceType, obj: KubeObject): void {
    if (resourceKey(t) !== CRD_KEY) return;
    const spec = (obj.spec ?? {}) as CrdSpec;
    const c = this.store.collection(resourceKey({ group: spec.group ?? '', plural: spec.names?.plural ?? '' }));
    for (const key of [...c.sortedKeys()]) {
      const e = c.items.get(key) as Entry;
      this.store.remove(c, e.obj.metadata?.namespace, e.obj.metadata?.name ?? '');
    }
    this.unregister(spec.group ?? '', spec.names?.plural ?? '');
  }
}

interface CrdSpec {
  group?: string;
  scope?: string;
  names?: { kind?: string; plural?: string; singular?: string; shortNames?: string[]; categories?: string[]; listKind?: string };
  versions?: {
    name: string;
    served?: boolean;
    storage?: boolean;
    schema?: { openAPIV3Schema?: JsonSchema };
    subresources?: { status?: unknown };
  }[];
}

const POD_UPDATE_FORBIDDEN =
  'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

const POD_DEFAULTED = [
  'schedulerName',
  'restartPolicy',
  'dnsPolicy',
  'terminationGracePeriodSeconds',
  'priority',
  'priorityClassName',
  'preemptionPolicy',
];

/** JSON with object keys sorted, to compare values whatever order their keys came in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (!isMap(value)) return JSON.stringify(value) ?? 'null';
  return `{${Object.keys(value)
    .sort()
    .filter((k) => value[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
    .join(',')}}`;
}

/** A pod's spec is immutable but for images, activeDeadlineSeconds, added tolerations and removed scheduling gates. */
function checkPodUpdate(pod: KubeObject, old: KubeObject): void {
  const mutable = (spec: unknown): string => {
    const s = { ...(isMap(spec) ? spec : {}) };
    for (const key of ['containers', 'initContainers'] as const) {
      if (Array.isArray(s[key])) s[key] = (s[key] as Record<string, unknown>[]).map(({ image: _image, ...rest }) => rest);
    }
    delete s.activeDeadlineSeconds;
    delete s.tolerations;
    delete s.schedulingGates;
    return canonicalJson(s);
  };
  const oldSpec = (old.spec ?? {}) as Record<string, unknown>;
  const newSpec = (isMap(pod.spec) ? pod.spec : (pod.spec = {})) as Record<string, unknown>;
  // fields the server defaulted on create are defaulted again when an update leaves them out
  for (const key of POD_DEFAULTED) if (newSpec[key] === undefined && oldSpec[key] !== undefined) newSpec[key] = oldSpec[key];
  const oldTolerations = JSON.stringify(oldSpec.tolerations ?? []);
  const keptTolerations = JSON.stringify(
    ((newSpec.tolerations ?? []) as unknown[]).slice(0, ((oldSpec.tolerations ?? []) as unknown[]).length),
  );
  const gates = (s: Record<string, unknown>): string[] => ((s.schedulingGates ?? []) as { name: string }[]).map((g) => g.name);
  const gatesAdded = gates(newSpec).some((g) => !gates(oldSpec).includes(g));
  if (mutable(newSpec) !== mutable(oldSpec) || keptTolerations !== oldTolerations) {
    throw errors.invalid('Pod', '', pod.metadata?.name ?? '', [
      { field: 'spec', reason: 'FieldValueForbidden', message: POD_UPDATE_FORBIDDEN },
    ]);
  }
  if (gatesAdded) {
    throw errors.invalid('Pod', '', pod.metadata?.name ?? '', [
      {
        field: 'spec.schedulingGates',
        reason: 'FieldValueForbidden',
        message: 'Forbidden: only deletion is allowed, but found new scheduling gate',
      },
    ]);
  }
}

/** What the API server adds to a new namespace: its name label, the `kubernetes` finalizer, phase Active. */
function defaultNamespace(ns: KubeObject): void {
  const meta = ns.metadata as ObjectMeta;
  meta.labels = { ...meta.labels, 'kubernetes.io/metadata.name': meta.name ?? '' };
  ns.spec = { finalizers: ['kubernetes'], ...(isMap(ns.spec) ? ns.spec : {}) };
  ns.status = { phase: 'Active' };
}

function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { rv?: unknown; start?: unknown };
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string') return { rv: parsed.rv, start: parsed.start };
  } catch {
    // falls through to the API server's answer for a malformed token
  }
  throw errors.badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
}

/** The fields an object sets, in the managedFields `FieldsV1` notation (lists as a whole). */
function fieldSet(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isMap(value)) return out;
  for (const [k, v] of Object.entries(value)) out[`f:${k}`] = isMap(v) ? fieldSet(v) : {};
  return out;
}

function managedEntry(manager: string, operation: 'Apply' | 'Update', obj: KubeObject): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind' || k === 'status') continue;
    if (k === 'metadata' && isMap(v)) {
      const m: Record<string, unknown> = {};
      for (const mk of ['labels', 'annotations']) if (isMap(v[mk])) m[`f:${mk}`] = fieldSet(v[mk]);
      if (Object.keys(m).length > 0) fields['f:metadata'] = m;
    } else fields[`f:${k}`] = isMap(v) ? fieldSet(v) : {};
  }
  return { manager, operation, apiVersion: obj.apiVersion, time: now(), fieldsType: 'FieldsV1', fieldsV1: fields };
}

function mergeManaged(old: unknown[] | undefined, entry: Record<string, unknown>): unknown[] {
  const rest = (old ?? []).filter((m) => !(isMap(m) && m.manager === entry.manager && m.operation === entry.operation));
  return [...rest, entry];
}
