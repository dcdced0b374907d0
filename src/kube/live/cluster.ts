// The live scheduler's and the claimer's side of @kubernetes/client-node: the writes they make
// (bindings, Leases, SchedulePlans, trigger states, pool pods) as the small interfaces their logic
// is written against, and the informers that feed a LiveScheduler. API errors become values
// (status code and the Status object's message); a credential never appears in one.
import {
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  type Informer,
  type KubernetesObject,
  type V1Lease,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Clock } from '../../engine/api/clock';
import { err, ok, type Result } from '../../engine/api/result';
import { DEFAULT_NAMESPACE, type Node, type Pod } from '../../engine/api/types';
import { PLANNER_API_VERSION, POD_SET_LABEL, QUIET_TIME_LABEL, type Plan } from '../../engine/planner/plan';
import type { TriggerSpec } from '../../engine/planner/trigger';
import type { DependencyRef } from '../../engine/reconcile/triggers';
import { schedulePlanObject } from '../../manifests/schedule-plan';
import type { BindingAnswer, PostBinding } from '../binder';
import type { LeaseClient, LeaseRecord, LeaseWrite, StoredLease } from '../lease';
import type { PodUpdateAnswer, PoolPodObject } from '../pool';
import type { LiveScheduler, PlanWriter, WriteOutcome } from './scheduler';

const PLANNER_GROUP = PLANNER_API_VERSION.split('/')[0] as string;
const PLANNER_VERSION = PLANNER_API_VERSION.split('/')[1] as string;

/** The kubeconfig (`file`, else $KUBECONFIG's files, else ~/.kube/config) with `context` current. */
export function loadKubeConfig(context: string, file?: string): Result<KubeConfig> {
  const kc = new KubeConfig();
  try {
    if (file !== undefined) kc.loadFromFile(file);
    else kc.loadFromDefault();
  } catch (e) {
    return err(`cannot read the kubeconfig${file ? ` ${file}` : ''}: ${firstLine(e)}`);
  }
  if (!kc.getContextObject(context)) return err(`the kubeconfig has no context "${context}" (it has: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
  kc.setCurrentContext(context);
  return ok(kc);
}

/** The API server's address for the context, for the history (no credentials). */
export function serverOf(kc: KubeConfig): string {
  return kc.getCurrentCluster()?.server ?? '';
}

// ---- errors as values

type Answer = { readonly kind: 'status'; readonly code: number; readonly message: string } | { readonly kind: 'unreachable'; readonly message: string };

/** What a thrown client-node error says: the HTTP code and the Status object's message, or why there was no answer. */
export function answerOf(e: unknown): Answer {
  const error = e as { code?: unknown; body?: unknown; message?: unknown };
  if (typeof error.code === 'number' && error.code >= 100) return { kind: 'status', code: error.code, message: statusMessage(error.body) ?? firstLine(e) };
  return { kind: 'unreachable', message: firstLine(e) };
}

function statusMessage(body: unknown): string | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return body.trim() || undefined;
    }
  }
  const message = (parsed as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}

async function written(call: () => Promise<unknown>): Promise<WriteOutcome> {
  try {
    await call();
    return { ok: true };
  } catch (e) {
    const answer = answerOf(e);
    return { ok: false, message: answer.kind === 'status' ? `${answer.code} ${answer.message}` : answer.message };
  }
}

// ---- writes

export function bindingPoster(kc: KubeConfig): PostBinding {
  const core = kc.makeApiClient(CoreV1Api);
  return async ({ namespace, name, uid }, node): Promise<BindingAnswer> => {
    try {
      await core.createNamespacedPodBinding({
        namespace,
        name,
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace, ...(uid ? { uid } : {}) }, target: { apiVersion: 'v1', kind: 'Node', name: node } },
      });
      return { kind: 'created' };
    } catch (e) {
      return answerOf(e);
    }
  };
}

export function leaseClient(kc: KubeConfig, namespace: string, name: string): LeaseClient {
  const api = kc.makeApiClient(CoordinationV1Api);
  const stored = (lease: V1Lease): StoredLease => ({
    resourceVersion: lease.metadata?.resourceVersion ?? '',
    record: {
      ...(lease.spec?.holderIdentity !== undefined ? { holderIdentity: lease.spec.holderIdentity } : {}),
      ...(lease.spec?.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: lease.spec.leaseDurationSeconds } : {}),
      ...(lease.spec?.leaseTransitions !== undefined ? { leaseTransitions: lease.spec.leaseTransitions } : {}),
      ...(lease.spec?.acquireTime ? { acquireTime: new Date(lease.spec.acquireTime).toISOString() } : {}),
      ...(lease.spec?.renewTime ? { renewTime: new Date(lease.spec.renewTime).toISOString() } : {}),
    },
  });
  const body = (record: LeaseRecord, resourceVersion?: string): V1Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: {
      ...(record.holderIdentity !== undefined ? { holderIdentity: record.holderIdentity } : {}),
      ...(record.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: record.leaseDurationSeconds } : {}),
      ...(record.leaseTransitions !== undefined ? { leaseTransitions: record.leaseTransitions } : {}),
      ...(record.acquireTime ? { acquireTime: new Date(record.acquireTime) } : {}),
      ...(record.renewTime ? { renewTime: new Date(record.renewTime) } : {}),
    },
  });
  const write = async (call: () => Promise<V1Lease>): Promise<LeaseWrite> => {
    try {
      return { kind: 'written', lease: stored(await call()) };
    } catch (e) {
      const answer = answerOf(e);
      if (answer.kind === 'status' && answer.code === 409) return { kind: 'conflict' };
      return { kind: 'error', message: answer.kind === 'status' ? `${answer.code} ${answer.message}` : answer.message };
    }
  };
  return {
    async get() {
      try {
        return { kind: 'found', lease: stored(await api.readNamespacedLease({ name, namespace })) };
      } catch (e) {
        const answer = answerOf(e);
        if (answer.kind === 'status' && answer.code === 404) return { kind: 'absent' };
        return { kind: 'error', message: answer.kind === 'status' ? `${answer.code} ${answer.message}` : answer.message };
      }
    },
    create: (record) => write(() => api.createNamespacedLease({ namespace, body: body(record) })),
    update: (record, resourceVersion) => write(() => api.replaceNamespacedLease({ name, namespace, body: body(record, resourceVersion) })),
  };
}

/** SchedulePlans created or replaced under Pallet's name; trigger states set with a merge patch (custom resources take no strategic merge). */
export function planWriter(kc: KubeConfig): PlanWriter {
  const api = kc.makeApiClient(CustomObjectsApi);
  const where = (namespace: string, plural: string) => ({ group: PLANNER_GROUP, version: PLANNER_VERSION, namespace, plural });
  return {
    async writePlan(plan: Plan) {
      const { status, ...object } = schedulePlanObject(plan);
      const at = where(plan.namespace, 'scheduleplans');
      const name = object.metadata.name;
      let current: { metadata?: { resourceVersion?: string } } | undefined;
      try {
        current = (await api.getNamespacedCustomObject({ ...at, name })) as typeof current;
      } catch (e) {
        const answer = answerOf(e);
        if (!(answer.kind === 'status' && answer.code === 404)) return { ok: false, message: answer.kind === 'status' ? `${answer.code} ${answer.message}` : answer.message };
      }
      const resourceVersion = current?.metadata?.resourceVersion;
      const body = { ...object, metadata: { ...object.metadata, ...(resourceVersion ? { resourceVersion } : {}) } };
      const saved = await written(() => (resourceVersion ? api.replaceNamespacedCustomObject({ ...at, name, body }) : api.createNamespacedCustomObject({ ...at, body })));
      if (!saved.ok) return saved;
      // Our status rides on the status subresource; a CRD without one keeps the plan all the same.
      await written(() => api.patchNamespacedCustomObjectStatus({ ...at, name, body: { status } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
      return saved;
    },
    setTriggerState(namespace, name, state) {
      return written(() =>
        api.patchNamespacedCustomObject({ ...where(namespace, 'scheduletriggers'), name, body: { spec: { state } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)),
      );
    },
  };
}

/** A pool's pods listed by label, and updated (PUT) with their resourceVersion as the precondition. */
export function poolClient(kc: KubeConfig, namespace: string, labelSelector: string) {
  const core = kc.makeApiClient(CoreV1Api);
  return {
    async list(): Promise<Result<readonly PoolPodObject[]>> {
      try {
        const list = await core.listNamespacedPod({ namespace, labelSelector });
        return ok(list.items as unknown as PoolPodObject[]);
      } catch (e) {
        const answer = answerOf(e);
        return err(answer.kind === 'status' ? `listing the pool's pods: ${answer.code} ${answer.message}` : `listing the pool's pods: ${answer.message}`);
      }
    },
    async update(pod: PoolPodObject): Promise<PodUpdateAnswer> {
      try {
        const updated = await core.replaceNamespacedPod({ namespace: pod.metadata.namespace ?? namespace, name: pod.metadata.name, body: pod as unknown as V1Pod });
        return { kind: 'updated', pod: updated as unknown as PoolPodObject };
      } catch (e) {
        return answerOf(e);
      }
    },
  };
}

// ---- reads: informers into a LiveScheduler

/** A ScheduleTrigger object as the engine reads it; undefined without its pod-set label. */
export function triggerOf(object: KubernetesObject & { spec?: { state?: unknown; dependsOn?: unknown; requireReady?: unknown } }): TriggerSpec | undefined {
  const meta = object.metadata ?? {};
  const labels = meta.labels ?? {};
  const podSet = labels[POD_SET_LABEL];
  if (!meta.name || !podSet) return undefined;
  const quietTime = labels[QUIET_TIME_LABEL];
  const dependsOn = Array.isArray(object.spec?.dependsOn) ? (object.spec.dependsOn as DependencyRef[]) : undefined;
  return {
    name: meta.name,
    namespace: meta.namespace ?? DEFAULT_NAMESPACE,
    podSet,
    state: typeof object.spec?.state === 'string' ? object.spec.state : '',
    labels,
    ...(quietTime !== undefined ? { quietTime } : {}),
    ...(dependsOn ? { dependsOn } : {}),
    ...(object.spec?.requireReady === true ? { requireReady: true } : {}),
  };
}

export interface InformerSet {
  /** Resolves once every informer has listed. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

/**
 * Pods, Nodes and ScheduleTriggers of every namespace into `live`. An informer that stops on an
 * error (a reset connection) is started again after a back-off that doubles to 30 s; one whose
 * watch closes cleanly re-watches by itself, and a relist after 410 Gone is client-node's.
 */
export function startInformers(kc: KubeConfig, live: LiveScheduler, options: { readonly clock: Clock; readonly onError: (message: string) => void }): InformerSet {
  const core = kc.makeApiClient(CoreV1Api);
  const custom = kc.makeApiClient(CustomObjectsApi);
  const informers: Array<Informer<KubernetesObject>> = [];
  const stopped = { value: false };
  const watch = <T extends KubernetesObject>(what: string, informer: Informer<T>, handlers: { add(o: T): void; update(o: T): void; remove(o: T): void }): Promise<void> => {
    informers.push(informer as unknown as Informer<KubernetesObject>);
    informer.on('add', handlers.add);
    informer.on('update', handlers.update);
    informer.on('delete', handlers.remove);
    let delay = 500;
    informer.on('error', (e: unknown) => {
      if (stopped.value) return;
      options.onError(`the ${what} watch stopped (${firstLine(e)}); starting it again in ${delay} ms`);
      options.clock.setTimer(delay, () => {
        if (!stopped.value) informer.start().catch((error: unknown) => options.onError(`restarting the ${what} watch: ${firstLine(error)}`));
      });
      delay = Math.min(delay * 2, 30_000);
    });
    informer.on('connect', () => (delay = 500));
    return informer.start();
  };
  const nodes = makeInformer<V1Node>(kc, '/api/v1/nodes', () => core.listNode());
  const pods = makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
  const triggersPath = `/apis/${PLANNER_API_VERSION}/scheduletriggers`;
  const triggers = makeInformer<KubernetesObject>(kc, triggersPath, async () => (await custom.listClusterCustomObject({ group: PLANNER_GROUP, version: PLANNER_VERSION, plural: 'scheduletriggers' })) as never);
  const node = (o: V1Node) => o as unknown as Node;
  const pod = (o: V1Pod) => o as unknown as Pod;
  // Nodes first, so the first pods find the nodes they are bound to.
  const synced = watch('node', nodes, { add: (o) => live.nodeAdded(node(o)), update: (o) => live.nodeUpdated(node(o)), remove: (o) => live.nodeDeleted(o.metadata?.name ?? '') }).then(() =>
    Promise.all([
      watch('pod', pods, { add: (o) => live.podAdded(pod(o)), update: (o) => live.podUpdated(pod(o)), remove: (o) => live.podDeleted(pod(o)) }),
      watch('ScheduleTrigger', triggers, {
        add: (o) => applyTrigger(live, o),
        update: (o) => applyTrigger(live, o),
        remove: (o) => {
          const t = triggerOf(o);
          if (t) live.triggerDeleted(t.namespace, t.podSet);
        },
      }).catch((e: unknown) => options.onError(`ScheduleTriggers cannot be watched (${firstLine(e)}); pod sets wait for their triggers`)),
    ]).then(() => undefined),
  );
  return {
    synced,
    async stop() {
      stopped.value = true;
      await Promise.allSettled(informers.map((i) => i.stop()));
    },
  };
}

function applyTrigger(live: LiveScheduler, object: KubernetesObject): void {
  const spec = triggerOf(object);
  if (spec) live.triggerApplied(spec);
}
