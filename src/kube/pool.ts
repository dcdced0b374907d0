// A warm pool in a cluster, as engine/claims's PoolTarget: the pool's pods are the pods labelled
// `planner.ciena.io/pool: <pool>`, their phase is the annotation `planner.ciena.io/phase` (Idle,
// Starting, Running, Stopping). A claim moves a pod Idle → Starting with an update (PUT) of the
// object as listed, resourceVersion included, so the API server applies it only if nobody wrote the
// pod since: 409 (or 404, the pod is gone) is a conflict the scheduler retries with another pod,
// anything else fails the request. The claim writes who claimed it and the phase asked for.
import { err, ok, type Result } from '../engine/api/result';
import type { PoolPhase, PoolPod, PoolTarget, SwapRequest, SwapResult } from '../engine/claims/types';

export const POOL_LABEL = 'planner.ciena.io/pool';
export const PHASE_ANNOTATION = 'planner.ciena.io/phase';
/** The phase the claimer wants the pod to reach (Running unless it said otherwise). */
export const TARGET_PHASE_ANNOTATION = 'planner.ciena.io/target-phase';
/** The claim request that got the pod. */
export const CLAIMED_BY_ANNOTATION = 'planner.ciena.io/claimed-by';

const PHASES: readonly PoolPhase[] = ['Idle', 'Starting', 'Running', 'Stopping'];

/** A pod as the API server returns it (plain JSON), with the fields a claim reads and writes. */
export interface PoolPodObject {
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    /** A string in JSON, a Date from client-node's typed clients. */
    readonly creationTimestamp?: string | Date;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly spec: { readonly containers: ReadonlyArray<{ readonly name: string; readonly image?: string }> };
  readonly [field: string]: unknown;
}

export type PodUpdateAnswer =
  | { readonly kind: 'updated'; readonly pod: PoolPodObject }
  | { readonly kind: 'status'; readonly code: number; readonly message: string }
  | { readonly kind: 'unreachable'; readonly message: string };

export interface KubePoolTargetOptions {
  readonly pool: string;
  /** The pool's pods (labelled with its name) as listed now: an informer's cache or a list call. */
  readonly list: () => Promise<Result<readonly PoolPodObject[]>>;
  /** PUT of the whole pod; the API server refuses it (409) unless metadata.resourceVersion is current. Never rejects. */
  readonly update: (pod: PoolPodObject) => Promise<PodUpdateAnswer>;
}

export class KubePoolTarget implements PoolTarget {
  /** The objects last listed, by uid: a swap writes the version it was handed. */
  private readonly listed = new Map<string, PoolPodObject>();

  constructor(private readonly options: KubePoolTargetOptions) {}

  async listIdle(): Promise<Result<readonly PoolPod[]>> {
    const listed = await this.options.list();
    if (!listed.ok) return err(listed.error);
    const idle: PoolPod[] = [];
    for (const object of listed.value) {
      if (object.metadata.labels?.[POOL_LABEL] !== this.options.pool || object.metadata.annotations?.[PHASE_ANNOTATION] !== 'Idle')
        continue;
      const pod = poolPod(object);
      if (!pod) continue;
      this.listed.set(pod.uid, object);
      idle.push(pod);
    }
    // Oldest first: a pod idle the longest is handed out first.
    return ok(idle.sort((a, b) => (a.idleSince ?? 0) - (b.idleSince ?? 0)));
  }

  async swap(request: SwapRequest): Promise<SwapResult> {
    const { pod } = request;
    const object = this.listed.get(pod.uid);
    if (!object || object.metadata.resourceVersion !== pod.resourceVersion) {
      return { kind: 'conflict', message: `pod ${pod.name} is no longer at resourceVersion ${pod.resourceVersion} in the listing` };
    }
    const phase = object.metadata.annotations?.[PHASE_ANNOTATION];
    if (phase !== 'Idle')
      return {
        kind: 'unexpectedPhase',
        phase: toPhase(phase) ?? 'Running',
        message: `pod ${pod.name} is ${phase ?? 'without a phase'}, not Idle`,
      };
    const answer = await this.options.update(claimed(object, request));
    switch (answer.kind) {
      case 'updated': {
        this.listed.delete(pod.uid);
        const swapped = poolPod(answer.pod);
        return swapped
          ? { kind: 'swapped', pod: { ...swapped, targetPhase: request.targetPhase } }
          : { kind: 'error', message: `pod ${pod.name} came back without a uid or resourceVersion` };
      }
      case 'status':
        if (answer.code === 409 || answer.code === 404) return { kind: 'conflict', message: `pod ${pod.name}: ${answer.message}` };
        return { kind: 'error', message: `claiming pod ${pod.name} failed: ${answer.code} ${answer.message}` };
      case 'unreachable':
        return { kind: 'error', message: `claiming pod ${pod.name} failed: ${answer.message}` };
    }
  }
}

/** The pod moved to Starting for the request, at the resourceVersion it was listed with. */
function claimed(object: PoolPodObject, request: SwapRequest): PoolPodObject {
  const images = request.images;
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...object.metadata.labels, ...request.labels },
      annotations: {
        ...object.metadata.annotations,
        ...request.annotations,
        [PHASE_ANNOTATION]: 'Starting',
        [TARGET_PHASE_ANNOTATION]: request.targetPhase,
        [CLAIMED_BY_ANNOTATION]: request.requestId,
      },
    },
    spec: { ...object.spec, containers: object.spec.containers.map((c, i) => (images[i] !== undefined ? { ...c, image: images[i] } : c)) },
  };
}

/** The pool's view of a pod; undefined for one without a uid or resourceVersion (never written by an API server). */
export function poolPod(object: PoolPodObject): PoolPod | undefined {
  const { uid, resourceVersion, name, labels = {}, annotations = {}, creationTimestamp } = object.metadata;
  if (!uid || !resourceVersion) return undefined;
  const phase = toPhase(annotations[PHASE_ANNOTATION]) ?? 'Idle';
  const target = toPhase(annotations[TARGET_PHASE_ANNOTATION]);
  const since = creationTimestamp ? new Date(creationTimestamp).getTime() : NaN;
  return {
    uid,
    name,
    resourceVersion,
    phase,
    ...(phase === 'Idle' && Number.isFinite(since) ? { idleSince: since } : {}),
    ...(target ? { targetPhase: target } : {}),
    images: object.spec.containers.flatMap((c) => (c.image ? [c.image] : [])),
    labels,
    annotations,
  };
}

function toPhase(value: string | undefined): PoolPhase | undefined {
  return PHASES.find((p) => p === value);
}
