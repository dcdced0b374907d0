// The live scheduler's and the claimer's side of the cluster, on src/kube's pieces: informers feed
// a LiveScheduler with objects decoded by the manifests decoder, and the writes they make
// (bindings, Leases, SchedulePlans, trigger states, pool pods) become the small interfaces their
// logic is written against, over KubeHttp (plain JSON, errors as redacted values) and PlannerObjects.
import type { Clock } from '../../engine/api/clock';
import type { ClusterObjects } from '../../engine/api/types';
import { ActionType, clusterEvent, type EventResource } from '../../engine/framework/events';
import type { DeliveredEvent } from '../../engine/scheduler/scheduler';
import type { FileModel } from '../../manifests/workspace';
import { err, ok, type Result } from '../../engine/api/result';
import type { Plan } from '../../engine/planner/plan';
import { planFromManifest, schedulePlanObject } from '../../manifests/schedule-plan';
import { triggerSpec } from '../../manifests/planner';
import type { BindingAnswer, PostBinding, ReadBoundNode } from '../binder';
import { planForCluster } from '../crds';
import type { ApiError, KubeHttp } from '../http';
import { Informer, type InformerEvent } from '../informer';
import type { LeaseClient, LeaseRecord, LeaseWrite, StoredLease } from '../lease';
import { decodeObject, WatchedPods, type ApiObject } from '../objects';
import type { PlannerObjects } from '../planner-objects';
import type { PodUpdateAnswer, PoolPodObject } from '../pool';
import { ClusterMirror } from '../mirror';
import { CLUSTER_RESOURCES, collectionPath, NODE, objectPath, POD, SCHEDULE_PLAN, SCHEDULE_TRIGGER, type ResourceType } from '../resources';
import type { LiveScheduler, PlanWriter, WriteOutcome } from './scheduler';

const LEASE: ResourceType = { kind: 'Lease', apiVersion: 'coordination.k8s.io/v1', plural: 'leases', namespaced: true };

const describe = (e: ApiError): string => (e.status ? `${e.status} ${e.message}` : e.message);

export function bindingPoster(http: KubeHttp): PostBinding {
  return async ({ namespace, name, uid }, node, signal?): Promise<BindingAnswer> => {
    const body = {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, namespace, ...(uid ? { uid } : {}) },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    };
    const answer = await http.request(`${objectPath(POD, name, namespace)}/binding`, {
      method: 'POST',
      body,
      ...(signal ? { signal } : {}),
    });
    if (answer.ok) return { kind: 'created' };
    if (answer.error.kind === 'aborted') return { kind: 'aborted', message: answer.error.message };
    return answer.error.status === 0
      ? { kind: 'unreachable', message: answer.error.message }
      : {
          kind: 'status',
          code: answer.error.status,
          message: answer.error.message,
          ...(answer.error.reason ? { reason: answer.error.reason } : {}),
          ...(answer.error.details ? { details: answer.error.details } : {}),
        };
  };
}

/** The node a pod is bound to now ('' when none), read with a GET; undefined when it cannot be read. */
export function boundNodeReader(http: KubeHttp): ReadBoundNode {
  return async ({ namespace, name }, signal?) => {
    const answer = await http.request<{ spec?: { nodeName?: string } }>(objectPath(POD, name, namespace), signal ? { signal } : {});
    return answer.ok ? (answer.value.spec?.nodeName ?? '') : undefined;
  };
}

interface LeaseObject {
  readonly metadata?: { readonly resourceVersion?: string };
  readonly spec?: LeaseRecord;
}

export function leaseClient(http: KubeHttp, namespace: string, name: string): LeaseClient {
  const stored = (lease: LeaseObject): StoredLease => ({
    record: lease.spec ?? {},
    resourceVersion: lease.metadata?.resourceVersion ?? '',
  });
  const object = (record: LeaseRecord, resourceVersion?: string) => ({
    apiVersion: LEASE.apiVersion,
    kind: LEASE.kind,
    metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: record,
  });
  const written = (answer: Result<LeaseObject, ApiError>): LeaseWrite => {
    if (answer.ok) return { kind: 'written', lease: stored(answer.value) };
    return answer.error.kind === 'conflict' ? { kind: 'conflict' } : { kind: 'error', message: describe(answer.error) };
  };
  return {
    async get(signal) {
      const answer = await http.request<LeaseObject>(objectPath(LEASE, name, namespace), signal ? { signal } : {});
      if (answer.ok) return { kind: 'found', lease: stored(answer.value) };
      return answer.error.kind === 'not-found' ? { kind: 'absent' } : { kind: 'error', message: describe(answer.error) };
    },
    create: async (record, signal) =>
      written(
        await http.request<LeaseObject>(collectionPath(LEASE, namespace), {
          method: 'POST',
          body: object(record),
          ...(signal ? { signal } : {}),
        }),
      ),
    update: async (record, resourceVersion, signal) =>
      written(
        await http.request<LeaseObject>(objectPath(LEASE, name, namespace), {
          method: 'PUT',
          body: object(record, resourceVersion),
          ...(signal ? { signal } : {}),
        }),
      ),
  };
}

/** SchedulePlans created or replaced under Pallet's name; trigger states set with a merge patch. */
export function planWriter(objects: PlannerObjects): PlanWriter {
  const outcome = (answer: Result<unknown, ApiError>): WriteOutcome =>
    answer.ok ? { ok: true } : { ok: false, message: describe(answer.error) };
  return {
    async writePlan(plan: Plan) {
      // Our status rides in an annotation: Pallet's CRD prunes whatever is under `status`.
      const object = planForCluster(schedulePlanObject(plan) as unknown as ApiObject);
      const { namespace, name } = object.metadata;
      const current = await objects.get('SchedulePlan', namespace ?? plan.namespace, name);
      if (!current.ok && current.error.kind !== 'not-found') return outcome(current);
      const saved = current.ok
        ? await objects.update({ ...object, metadata: { ...object.metadata, resourceVersion: current.value.metadata.resourceVersion } })
        : await objects.create(object);
      return outcome(saved);
    },
    async setTriggerState(namespace, name, state) {
      return outcome(await objects.patch('ScheduleTrigger', namespace, name, { spec: { state } }));
    },
  };
}

/** A pool's pods listed by label, and updated (PUT) with their resourceVersion as the precondition. */
export function poolClient(http: KubeHttp, namespace: string, labelSelector: string) {
  return {
    async list(): Promise<Result<readonly PoolPodObject[]>> {
      const listed = await http.request<{ items?: PoolPodObject[] }>(collectionPath(POD, namespace), { query: { labelSelector } });
      return listed.ok ? ok(listed.value.items ?? []) : err(`listing the pool's pods: ${describe(listed.error)}`);
    },
    async update(pod: PoolPodObject): Promise<PodUpdateAnswer> {
      const answer = await http.request<PoolPodObject>(objectPath(POD, pod.metadata.name, pod.metadata.namespace ?? namespace), {
        method: 'PUT',
        body: pod,
      });
      if (answer.ok) return { kind: 'updated', pod: answer.value };
      return answer.error.status === 0
        ? { kind: 'unreachable', message: answer.error.message }
        : { kind: 'status', code: answer.error.status, message: answer.error.message };
    },
  };
}

export interface InformerSet {
  /** Resolves once every informer has listed. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

/** The kinds besides Nodes, Pods and the planner's own that plugins read (ClusterObjects). */
const OBJECT_RESOURCES = CLUSTER_RESOURCES.filter((r) => ![NODE, POD, SCHEDULE_TRIGGER, SCHEDULE_PLAN].includes(r));

/**
 * The kinds of the other objects whose changes are cluster events for the queues (upstream's event
 * handlers for them: Add, Update, Delete of each), with how a decoded object of the kind is found.
 */
const EVENT_KINDS: Readonly<Record<string, { readonly resource: EventResource; readonly decoded: (f: FileModel) => unknown }>> = {
  ResourceClaim: { resource: 'resource.k8s.io/ResourceClaim', decoded: (f) => f.resourceClaims[0]?.value },
  ResourceSlice: { resource: 'resource.k8s.io/ResourceSlice', decoded: (f) => f.resourceSlices[0]?.value },
  DeviceClass: { resource: 'resource.k8s.io/DeviceClass', decoded: (f) => f.deviceClasses[0]?.value },
  PersistentVolumeClaim: { resource: 'PersistentVolumeClaim', decoded: (f) => f.persistentVolumeClaims[0]?.value },
  PersistentVolume: { resource: 'PersistentVolume', decoded: (f) => f.persistentVolumes[0]?.value },
  StorageClass: { resource: 'storage.k8s.io/StorageClass', decoded: (f) => f.storageClasses[0]?.value },
  CSINode: { resource: 'storage.k8s.io/CSINode', decoded: (f) => f.csiNodes[0]?.value },
  CSIDriver: { resource: 'storage.k8s.io/CSIDriver', decoded: (f) => f.csiDrivers[0]?.value },
  CSIStorageCapacity: { resource: 'storage.k8s.io/CSIStorageCapacity', decoded: (f) => f.csiStorageCapacities[0]?.value },
};

/** The ClusterObjects part of a mirror's model: everything the engine reads but its nodes and pods (named once, in ClusterObjects). */
/**
 * The cluster event an informer's change of one object makes, from the object as last seen and as
 * it is now (undefined: not seen, or gone or left out): Add, Delete or Update by those alone, so an
 * `add` of an object seen before (a relist) is an Update, and one that no longer decodes a Delete.
 */
export function objectEvent(resource: EventResource, before: unknown, after: unknown): DeliveredEvent | undefined {
  if (before === undefined && after === undefined) return undefined;
  const action = before === undefined ? ActionType.Add : after === undefined ? ActionType.Delete : ActionType.Update;
  return { event: clusterEvent(resource, action), oldObj: before, newObj: after };
}

function clusterObjects(mirror: ClusterMirror): ClusterObjects {
  const { nodes: _nodes, pods: _pods, ...objects } = mirror.model().cluster;
  return objects;
}

/**
 * Nodes, Pods and ScheduleTriggers of every namespace into `live`, each object through the
 * manifests decoder; one that does not decode is reported and left out. The other objects plugins
 * read (PVCs, PVs, Namespaces, PDBs, ...) are kept by a ClusterMirror and handed to `live` whenever
 * they change (a kind that cannot be listed is a warning and stays empty). Nodes and those objects
 * are listed first, so the first pods find the nodes they are bound to and the claims they mount.
 */
export function startInformers(
  http: KubeHttp,
  live: LiveScheduler,
  options: {
    readonly clock: Clock;
    readonly onError: (message: string) => void;
    /** Each pod as the watch shows it, before the scheduler hears of it. */ readonly onPod?: (object: ApiObject, deleted: boolean) => void;
  },
): InformerSet {
  const context = http.context.context;
  const pods = new WatchedPods(context);
  const onEvent = (event: InformerEvent) => {
    if (event.resource === POD) options.onPod?.(event.object, event.type === 'delete');
    if (event.resource === POD && event.type !== 'delete') {
      const pod = pods.decode(event.object);
      if (!pod.ok)
        options.onError(
          `Pod ${event.object.metadata.namespace ? `${event.object.metadata.namespace}/` : ''}${event.object.metadata.name} is left out: ${pod.error[0] ?? 'not a Pod'}`,
        );
      else if (event.type === 'add') live.podAdded(pod.value);
      else live.podUpdated(pod.value);
      return;
    }
    if (event.resource === POD) pods.forget(event.object);
    const file = decodeObject(context, event.object);
    const problem = file.errors.find((e) => e.severity === 'error');
    if (problem && event.type !== 'delete') {
      options.onError(
        `${event.resource.kind} ${event.object.metadata.namespace ? `${event.object.metadata.namespace}/` : ''}${event.object.metadata.name} is left out: ${problem.message}`,
      );
      return;
    }
    const node = file.nodes[0]?.value;
    const pod = file.pods[0]?.value;
    const trigger = file.triggers[0]?.value;
    const plan = file.plans[0]?.value;
    if (node) {
      if (event.type === 'add') live.nodeAdded(node);
      else if (event.type === 'update') live.nodeUpdated(node);
      else live.nodeDeleted(node.metadata.name);
    } else if (pod) {
      if (event.type === 'add') live.podAdded(pod);
      else if (event.type === 'update') live.podUpdated(pod);
      else live.podDeleted(pod);
    } else if (trigger) {
      if (event.type === 'delete') live.triggerDeleted(trigger.namespace, trigger.name, trigger.podSet);
      else live.triggerApplied(triggerSpec(trigger));
    } else if (plan) {
      if (event.type === 'delete') live.planDeleted(plan.namespace, plan.name);
      else live.planWritten(plan.name, planFromManifest(plan));
    }
  };
  // After the first list, changes are handed over once per burst (a relist is one), before the loop's next turn.
  let objectsSynced = false;
  let handOver: Promise<void> | undefined;
  // Each object of an event kind as last decoded (the object before its next change), and the events
  // of the burst not handed over yet.
  const lastSeen = new Map<string, unknown>();
  let pending: DeliveredEvent[] = [];
  const objectsChanged = (event: InformerEvent) => {
    const file = mirror.fileOf(event);
    const problem = file?.errors.find((e) => e.severity === 'error');
    const name = `${event.object.metadata.namespace ? `${event.object.metadata.namespace}/` : ''}${event.object.metadata.name}`;
    if (problem) options.onError(`${event.resource.kind} ${name} is left out: ${problem.message}`);
    const kind = EVENT_KINDS[event.resource.kind];
    if (kind) {
      const key = `${event.resource.kind}/${name}`;
      const before = lastSeen.get(key);
      const after = event.type === 'delete' || !file ? undefined : kind.decoded(file);
      if (after === undefined) lastSeen.delete(key);
      else lastSeen.set(key, after);
      const delivered = objectEvent(kind.resource, before, after);
      if (objectsSynced && delivered) pending.push(delivered);
    }
    if (!objectsSynced || handOver) return;
    handOver = Promise.resolve().then(() => {
      handOver = undefined;
      const events = pending;
      pending = [];
      live.objectsChanged(clusterObjects(mirror), events);
    });
  };
  const mirror = new ClusterMirror(http, {
    resources: OBJECT_RESOURCES,
    clock: options.clock,
    onWarning: options.onError,
    onEvent: objectsChanged,
  });
  const informer = (resource: ResourceType) => new Informer(http, { resource, clock: options.clock, onEvent, onError: options.onError });
  const nodes = informer(NODE);
  // SchedulePlans before the triggers: a trigger found Schedule takes the plan written for its set
  // (the editor's Apply, an earlier leader), and may depend on one written for a set no trigger plans here.
  const plans = informer(SCHEDULE_PLAN);
  const rest = [informer(POD), informer(SCHEDULE_TRIGGER)];
  const all = [nodes, plans, ...rest];
  const synced = Promise.all([
    nodes.start().then(() => nodes.synced),
    mirror.start().then(() => mirror.synced),
    plans.start().then(() => plans.synced),
  ])
    .then(() => {
      objectsSynced = true;
      live.objectsChanged(clusterObjects(mirror));
    })
    .then(() => Promise.all(rest.map((i) => i.start().then(() => i.synced))))
    .then(() => undefined);
  return { synced, stop: async () => void (await Promise.all([...all.map((i) => i.stop()), mirror.stop()])) };
}
