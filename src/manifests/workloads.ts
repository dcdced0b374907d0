// Workloads whose pod template becomes pods, as their controllers would create them, so a snapshot
// of workload manifests schedules like the cluster would.
//
// Pods that exist are taken as they are: a workload becomes pods only for the replicas that have no
// pod in the files (`missingReplicas`), matched by ownerReferences, so a `kubectl get
// deploy,rs,pods -o yaml` dump reads as the cluster is. A ReplicaSet's pods count for its owner
// Deployment too (found by the ReplicaSet's ownerReferences, or by the pod-template-hash naming when
// the ReplicaSet is not in the files).
//
// Names are deterministic `<name>-<index>` for every controller. That is upstream's rule for
// StatefulSet ordinals; for a Deployment (upstream `<name>-<template hash>-<random>`), a ReplicaSet
// and a Job (`<name>-<random>`) it is a simplification, so names in plans stay stable across reads.
// Made-up pods are owned by their workload directly: a Deployment's intermediate ReplicaSet is not modelled.
// A StatefulSet's volumeClaimTemplates are what its controller makes of them: replica i's volume
// named after a template refers to the claim `<template>-<set>-<i>`, which the controller creates
// when it does not exist (statefulSetClaims; the workspace keeps a claim of the files over it),
// before the replica's pod: a replica whose claim admission refuses gets no pod, and the controller
// tries no replica past it (OrderedReady) or past its slow-start batch (Parallel): StatefulSetCreation.
import { selectorMatches } from '../engine/api/labels';
import {
  DEFAULT_NAMESPACE,
  type LabelSelector,
  type Labels,
  type ObjectMeta,
  type OwnerReference,
  type PersistentVolumeClaim,
  type Pod,
  type PodSpec,
  type Volume,
} from '../engine/api/types';
import { arrayOf, integer, isPlainObject, object, oneOf, string, type DecodeContext, type Decoder } from './decode';
import { labelSelector, objectMeta, persistentVolumeClaim, podSpec, templateMeta } from './kube';
import { joinPath } from './source-map';

export type WorkloadKind = 'Deployment' | 'ReplicaSet' | 'StatefulSet' | 'Job' | 'DaemonSet' | 'ReplicationController';

export const WORKLOAD_API_VERSIONS: Readonly<Record<WorkloadKind, string>> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
  ReplicationController: 'v1',
};

export interface PodTemplate {
  readonly metadata?: Partial<ObjectMeta>;
  readonly spec: PodSpec;
}

export interface Workload {
  readonly apiVersion?: string;
  readonly kind: WorkloadKind;
  readonly metadata: ObjectMeta;
  /**
   * How many pods it runs at once: spec.replicas (default 1); for a Job spec.parallelism (default 1)
   * capped by spec.completions. A DaemonSet runs one per eligible node instead.
   */
  readonly replicas: number;
  readonly selector?: LabelSelector;
  readonly template: PodTemplate;
  /** A StatefulSet's spec.volumeClaimTemplates. */
  readonly claimTemplates?: readonly PersistentVolumeClaim[];
  /** A StatefulSet's spec.podManagementPolicy Parallel (else OrderedReady). */
  readonly parallel?: true;
}

interface WorkloadSpec {
  readonly replicas?: number;
  readonly parallelism?: number;
  readonly completions?: number;
  readonly selector?: LabelSelector;
  readonly template: PodTemplate;
  readonly volumeClaimTemplates?: PersistentVolumeClaim[];
  readonly podManagementPolicy?: 'OrderedReady' | 'Parallel';
}

const count = integer(0, 1_000_000);

const workloadSpec = object<WorkloadSpec>(
  {
    replicas: count,
    parallelism: count,
    completions: count,
    selector: labelSelector,
    template: object<PodTemplate>({ metadata: templateMeta, spec: podSpec }, ['spec']),
    volumeClaimTemplates: arrayOf(persistentVolumeClaim),
    podManagementPolicy: oneOf(['OrderedReady', 'Parallel'] as const),
  },
  ['template'],
);

const workloadShape = object<{ apiVersion?: string; metadata: ObjectMeta; spec: WorkloadSpec }>(
  { apiVersion: string, metadata: objectMeta, spec: workloadSpec },
  ['metadata', 'spec'],
);

/** Decodes a workload of `kind` and checks its selector against its template, as the API server does. */
export function workloadDecoder(kind: WorkloadKind): Decoder<Workload> {
  return (v, path, ctx) => {
    const w = workloadShape(kind === 'ReplicationController' ? replicationControllerSelector(v) : v, path, ctx);
    if (!w?.metadata || !w.spec?.template?.spec) return undefined;
    const spec = w.spec;
    checkSelector(kind, spec, joinPath(path, 'spec'), ctx);
    const replicas = kind === 'Job' ? Math.min(spec.parallelism ?? 1, spec.completions ?? Infinity) : (spec.replicas ?? 1);
    return {
      ...(w.apiVersion !== undefined ? { apiVersion: w.apiVersion } : {}),
      kind,
      metadata: w.metadata,
      replicas,
      ...(spec.selector ? { selector: spec.selector } : {}),
      template: spec.template,
      ...(kind === 'StatefulSet' && spec.volumeClaimTemplates?.length ? { claimTemplates: spec.volumeClaimTemplates } : {}),
      ...(kind === 'StatefulSet' && spec.podManagementPolicy === 'Parallel' ? { parallel: true as const } : {}),
    };
  };
}

/**
 * A ReplicationController's spec.selector is a plain label map (equality only), defaulted to the
 * template's labels when absent: read as the matchLabels of a label selector.
 */
function replicationControllerSelector(v: unknown): unknown {
  if (!isPlainObject(v)) return v;
  const spec = v['spec'];
  if (!isPlainObject(spec)) return v;
  const template = spec['template'];
  const templateLabels = isPlainObject(template) && isPlainObject(template['metadata']) ? template['metadata']['labels'] : undefined;
  const selector = spec['selector'] ?? templateLabels;
  return selector === undefined ? v : { ...v, spec: { ...spec, selector: { matchLabels: selector } } };
}

function checkSelector(kind: WorkloadKind, spec: WorkloadSpec, path: string, ctx: DecodeContext): void {
  const at = joinPath(path, 'selector');
  if (!spec.selector) {
    // Required for apps/v1 but irrelevant to placement: say so without dropping the workload.
    if (kind !== 'Job')
      ctx.report(path, 'missing-field', `missing field "selector" (apps/v1 ${kind} requires one matching the template labels)`, 'warning');
    return;
  }
  if (!selectorMatches(spec.selector, spec.template.metadata?.labels)) {
    ctx.report(at, 'selector-mismatch', `the selector does not match the pod template's labels (spec.template.metadata.labels)`);
  }
}

/** A pod as the workload's controller creates it: template labels and spec, owner, namespace. */
export function podFromTemplate(w: Workload, name: string, extraLabels: Labels = {}, spec: PodSpec = w.template.spec): Pod {
  const meta = w.template.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: w.metadata.namespace ?? DEFAULT_NAMESPACE,
      labels: { ...meta?.labels, ...extraLabels },
      ...(meta?.annotations ? { annotations: meta.annotations } : {}),
      ownerReferences: [
        {
          apiVersion: w.apiVersion ?? WORKLOAD_API_VERSIONS[w.kind],
          kind: w.kind,
          name: w.metadata.name,
          ...(w.metadata.uid !== undefined ? { uid: w.metadata.uid } : {}),
          controller: true,
        },
      ],
    },
    spec,
  };
}

/** Labels upstream controllers add to the pods they create. */
function controllerLabels(w: Workload, index: number): Labels {
  const name = w.metadata.name;
  switch (w.kind) {
    case 'StatefulSet':
      return { 'statefulset.kubernetes.io/pod-name': `${name}-${index}`, 'apps.kubernetes.io/pod-index': String(index) };
    case 'Job':
      return { 'batch.kubernetes.io/job-name': name, 'job-name': name };
    default:
      return {};
  }
}

/** The pods of a Deployment, ReplicaSet, StatefulSet or Job (DaemonSets need the nodes: see daemonset.ts). */
export function workloadPods(w: Workload): Pod[] {
  const pods: Pod[] = [];
  for (let i = 0; i < w.replicas; i++) pods.push(podFromTemplate(w, `${w.metadata.name}-${i}`, controllerLabels(w, i), claimVolumes(w, i)));
  return pods;
}

/** Upstream's getPersistentVolumeClaimName: the claim of a StatefulSet's template for one ordinal. */
export function claimName(template: PersistentVolumeClaim, set: string, ordinal: number): string {
  return `${template.metadata.name}-${set}-${ordinal}`;
}

/**
 * Replica `ordinal`'s pod spec as the StatefulSet controller's updateStorage makes it: each claim
 * template's volume (the template's volume of that name, else a new one) refers to its claim.
 */
function claimVolumes(w: Workload, ordinal: number): PodSpec {
  const templates = w.claimTemplates ?? [];
  if (templates.length === 0) return w.template.spec;
  const claimed = new Map<string, Volume>(
    templates.map((t) => [
      t.metadata.name,
      { name: t.metadata.name, persistentVolumeClaim: { claimName: claimName(t, w.metadata.name, ordinal) } },
    ]),
  );
  const volumes = (w.template.spec.volumes ?? []).filter((v) => !claimed.has(v.name));
  return { ...w.template.spec, volumes: [...volumes, ...claimed.values()] };
}

/**
 * The claims a StatefulSet's controller creates for its replicas (upstream newPersistentVolumeClaim
 * for each template and ordinal below spec.replicas): the template's spec, its labels with the
 * set's selector labels, in the set's namespace, pending until bound; each with its replica's
 * ordinal and the index of its template (where admission's warnings about it point).
 */
export function statefulSetClaims(
  w: Workload,
): Array<{ readonly claim: PersistentVolumeClaim; readonly ordinal: number; readonly template: number }> {
  const claims: Array<{ claim: PersistentVolumeClaim; ordinal: number; template: number }> = [];
  for (let i = 0; i < w.replicas; i++) {
    for (const [template, t] of (w.claimTemplates ?? []).entries()) {
      const labels = { ...t.metadata.labels, ...w.selector?.matchLabels };
      const claim: PersistentVolumeClaim = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: claimName(t, w.metadata.name, i),
          namespace: w.metadata.namespace ?? DEFAULT_NAMESPACE,
          ...(Object.keys(labels).length > 0 ? { labels } : {}),
        },
        ...(t.spec ? { spec: t.spec } : {}),
        status: { phase: 'Pending' },
      };
      claims.push({ claim, ordinal: i, template });
    }
  }
  return claims;
}

/** The controller reference of an object (the one marked controller, else the first). */
function controllerOf(meta: ObjectMeta): OwnerReference | undefined {
  const refs = meta.ownerReferences ?? [];
  return refs.find((r) => r.controller) ?? refs[0];
}

const workloadKey = (kind: string, namespace: string | undefined, name: string) => `${kind}/${namespace ?? DEFAULT_NAMESPACE}/${name}`;

function isActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed';
}

/**
 * Which of the pods made up from workload templates to keep beside the pods that exist: for each
 * workload, only as many as it has replicas without a pod, never one whose name a real pod has, and
 * for a DaemonSet none on a node that already runs its pod. Returns a filter for the made-up pods.
 */
export function missingReplicas(workloads: readonly Workload[], pods: readonly Pod[]): { has(generated: Pod): boolean } {
  const byUid = new Map<string, Workload>();
  const byKey = new Map<string, Workload>();
  for (const w of workloads) {
    if (w.metadata.uid) byUid.set(w.metadata.uid, w);
    byKey.set(workloadKey(w.kind, w.metadata.namespace, w.metadata.name), w);
  }
  const ownerWorkload = (namespace: string | undefined, ref: OwnerReference | undefined): Workload | undefined =>
    ref && ((ref.uid !== undefined ? byUid.get(ref.uid) : undefined) ?? byKey.get(workloadKey(ref.kind, namespace, ref.name)));
  const deploymentOf = (rs: Workload): Workload | undefined => {
    const ref = controllerOf(rs.metadata);
    return ref?.kind === 'Deployment' ? ownerWorkload(rs.metadata.namespace, ref) : undefined;
  };
  const existing = new Map<Workload, number>();
  const daemonNodes = new Map<Workload, Set<string>>();
  const names = new Set<string>();
  const count = (w: Workload) => existing.set(w, (existing.get(w) ?? 0) + 1);
  for (const pod of pods) {
    names.add(`${pod.metadata.namespace ?? DEFAULT_NAMESPACE}/${pod.metadata.name}`);
    if (!isActive(pod)) continue;
    const ref = controllerOf(pod.metadata);
    const owner = ownerWorkload(pod.metadata.namespace, ref);
    if (owner) {
      count(owner);
      if (owner.kind === 'DaemonSet' && pod.spec.nodeName)
        (daemonNodes.get(owner) ?? daemonNodes.set(owner, new Set()).get(owner)!).add(pod.spec.nodeName);
      continue;
    }
    // A pod of a ReplicaSet the files leave out: its Deployment is the ReplicaSet's name less the pod-template-hash.
    const hash = pod.metadata.labels?.['pod-template-hash'];
    if (ref?.kind === 'ReplicaSet' && hash && ref.name.endsWith(`-${hash}`)) {
      const deployment = byKey.get(workloadKey('Deployment', pod.metadata.namespace, ref.name.slice(0, -hash.length - 1)));
      if (deployment) count(deployment);
    }
  }
  const remaining = new Map<Workload, number>();
  for (const w of workloads) {
    if (w.kind === 'DaemonSet' || w.kind === 'Deployment') continue;
    remaining.set(w, Math.max(0, w.replicas - (existing.get(w) ?? 0)));
  }
  for (const w of workloads) {
    if (w.kind !== 'Deployment') continue;
    let covered = existing.get(w) ?? 0;
    for (const rs of workloads)
      if (rs.kind === 'ReplicaSet' && deploymentOf(rs) === w) covered += Math.max(rs.replicas, existing.get(rs) ?? 0);
    remaining.set(w, Math.max(0, w.replicas - covered));
  }
  return {
    has(generated) {
      const namespace = generated.metadata.namespace ?? DEFAULT_NAMESPACE;
      if (names.has(`${namespace}/${generated.metadata.name}`)) return false;
      const w = ownerWorkload(generated.metadata.namespace, controllerOf(generated.metadata));
      if (!w) return true;
      if (w.kind === 'DaemonSet') {
        const node =
          generated.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]
            ?.values?.[0] ?? generated.spec.nodeName;
        return !(node !== undefined && daemonNodes.get(w)?.has(node));
      }
      const left = remaining.get(w) ?? 0;
      if (left <= 0) return false;
      remaining.set(w, left - 1);
      return true;
    },
  };
}

/**
 * The last ordinal the StatefulSet controller tries to create once replica `failed` cannot be
 * created (upstream updateStatefulSet): OrderedReady stops at it (processReplica returns on the
 * error); Parallel runs its replicas in slow-start batches of 1, 2, 4, … (runForAll's
 * slowStartBatch) and stops after the batch it is in.
 */
export function lastAttemptedOrdinal(failed: number, parallel: boolean): number {
  if (!parallel) return failed;
  let start = 0;
  let size = 1;
  while (start + size <= failed) {
    start += size;
    size *= 2;
  }
  return start + size - 1;
}

interface ClaimOwner {
  readonly set: string;
  readonly ordinal: number;
}

/**
 * The StatefulSet controller creating its missing replicas in ordinal order, each one's claims
 * before its pod (upstream CreateStatefulPod): a replica one of whose claims admission refuses gets
 * no pod, and no replica past `lastAttemptedOrdinal` is tried (neither its claims nor its pod).
 * Admission asks it which claims are tried (`attempted`) and tells it which are refused.
 */
export class StatefulSetCreation {
  /** Claim (namespace/name) → the replica it is made for. */
  private readonly owners = new Map<string, ClaimOwner>();
  /** Set (namespace/name) → whether its podManagementPolicy is Parallel. */
  private readonly parallel = new Map<string, boolean>();
  /** Set → per refused ordinal, the refusals of its claims in the API server's words. */
  private readonly refusals = new Map<string, Map<number, string[]>>();
  /** Set → its lowest refused ordinal. */
  private readonly first = new Map<string, number>();

  /** `made(key)`: whether the claim of that key is the one the controller makes (no claim of the files has its name). */
  constructor(workloads: readonly Workload[], made: (claimKey: string) => boolean) {
    for (const w of workloads) {
      if (w.kind !== 'StatefulSet' || !w.claimTemplates?.length) continue;
      const namespace = w.metadata.namespace ?? DEFAULT_NAMESPACE;
      const set = `${namespace}/${w.metadata.name}`;
      this.parallel.set(set, w.parallel === true);
      for (const { claim, ordinal } of statefulSetClaims(w)) {
        const key = `${namespace}/${claim.metadata.name}`;
        if (made(key)) this.owners.set(key, { set, ordinal });
      }
    }
  }

  private tried(set: string, ordinal: number): boolean {
    const first = this.first.get(set);
    return first === undefined || ordinal <= lastAttemptedOrdinal(first, this.parallel.get(set) === true);
  }

  /** Whether the controller tries to create this claim; a claim of no StatefulSet always is. */
  attempted(claim: PersistentVolumeClaim): boolean {
    const owner = this.owners.get(`${claim.metadata.namespace ?? DEFAULT_NAMESPACE}/${claim.metadata.name}`);
    return owner === undefined || this.tried(owner.set, owner.ordinal);
  }

  /** Admission refused the claim with `message` (the API server's words). */
  refused(claim: PersistentVolumeClaim, message: string): void {
    const owner = this.owners.get(`${claim.metadata.namespace ?? DEFAULT_NAMESPACE}/${claim.metadata.name}`);
    if (!owner) return;
    const bySet = this.refusals.get(owner.set) ?? new Map<number, string[]>();
    this.refusals.set(owner.set, bySet);
    bySet.set(owner.ordinal, [...(bySet.get(owner.ordinal) ?? []), `failed to create PVC ${claim.metadata.name}: ${message}`]);
    this.first.set(owner.set, Math.min(owner.ordinal, this.first.get(owner.set) ?? owner.ordinal));
  }

  /**
   * Why the controller creates no pod for replica `ordinal` of the StatefulSet `name` in
   * `namespace`: the FailedCreate event's words when one of its claims was refused, or the replica it
   * stopped at; undefined when the pod is created.
   */
  podNotCreated(namespace: string, name: string, ordinal: number): string | undefined {
    const set = `${namespace}/${name}`;
    const refused = this.refusals.get(set)?.get(ordinal);
    if (refused) {
      const error = refused.length === 1 ? refused[0] : `[${refused.join(', ')}]`;
      return `Create Pod ${name}-${ordinal} in StatefulSet ${name} failed error: ${error}`;
    }
    const first = this.first.get(set);
    if (first === undefined || this.tried(set, ordinal)) return undefined;
    return this.parallel.get(set) === true
      ? `StatefulSet ${name} creates its replicas in batches of 1, 2, 4, … (podManagementPolicy Parallel) and stops after the one in which ${name}-${first} could not be created`
      : `StatefulSet ${name} creates its replicas in order (podManagementPolicy OrderedReady) and stops at ${name}-${first}, which could not be created`;
  }
}
