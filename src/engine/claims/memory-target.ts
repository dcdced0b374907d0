// A pool kept in memory: the target tests, the bench and the editor preview run against until the
// kube target exists. Every write moves the resourceVersion, as the API server does, so the
// compare-and-swap fails here for the same reasons it fails in a cluster.
import { type Clock } from '../api/clock';
import { ok, type Result } from '../api/result';
import { type PoolPhase, type PoolPod, type PoolTarget, type SwapRequest, type SwapResult } from './types';

export interface PoolPodInit {
  readonly name?: string;
  readonly images?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export class InMemoryPoolTarget implements PoolTarget {
  // Map order is the order pods last went Idle: a recycled pod is deleted and set again.
  private readonly byUid = new Map<string, PoolPod>();
  private version = 0;

  constructor(private readonly clock: Clock) {}

  /** Adds an Idle pod. */
  add(uid: string, init: PoolPodInit = {}): PoolPod {
    if (this.byUid.has(uid)) throw new Error(`pod ${uid} is already in the pool`);
    const pod: PoolPod = {
      uid,
      name: init.name ?? uid,
      resourceVersion: this.nextVersion(),
      phase: 'Idle',
      idleSince: this.clock.now(),
      images: init.images ?? [],
      labels: init.labels ?? {},
      annotations: init.annotations ?? {},
    };
    this.byUid.set(uid, pod);
    return pod;
  }

  get(uid: string): PoolPod | undefined {
    return this.byUid.get(uid);
  }

  listIdle(): Promise<Result<readonly PoolPod[]>> {
    return Promise.resolve(ok([...this.byUid.values()].filter((pod) => pod.phase === 'Idle')));
  }

  swap(request: SwapRequest): Promise<SwapResult> {
    return Promise.resolve(this.swapNow(request));
  }

  /** Moves a pod to `phase`; to Idle means recycled, and it queues behind the pods already idle. */
  setPhase(uid: string, phase: PoolPhase): PoolPod {
    const { idleSince: _idle, targetPhase: _target, ...pod } = this.mustGet(uid);
    const moved: PoolPod = phase === 'Idle' ? { ...pod, phase, idleSince: this.clock.now() } : { ...pod, phase };
    return this.write(moved, phase === 'Idle');
  }

  /** Another writer touched the pod (a label, a status update): only its resourceVersion moves. */
  touch(uid: string): PoolPod {
    return this.write(this.mustGet(uid), false);
  }

  remove(uid: string): void {
    this.byUid.delete(uid);
  }

  private swapNow({ pod: seen, images, labels, annotations, targetPhase }: SwapRequest): SwapResult {
    const pod = this.byUid.get(seen.uid);
    if (!pod) return { kind: 'conflict', message: `pod ${seen.name} no longer exists` };
    if (pod.phase !== 'Idle') return { kind: 'unexpectedPhase', phase: pod.phase, message: `pod ${pod.name} is ${pod.phase}, not Idle` };
    if (pod.resourceVersion !== seen.resourceVersion) {
      return { kind: 'conflict', message: `pod ${pod.name} is at resourceVersion ${pod.resourceVersion}, not ${seen.resourceVersion}` };
    }
    const { idleSince: _idle, ...rest } = pod;
    const claimed: PoolPod = {
      ...rest,
      phase: 'Starting',
      targetPhase,
      images: images.length > 0 ? images : pod.images,
      labels: { ...pod.labels, ...labels },
      annotations: { ...pod.annotations, ...annotations },
    };
    return { kind: 'swapped', pod: this.write(claimed, false) };
  }

  private mustGet(uid: string): PoolPod {
    const pod = this.byUid.get(uid);
    if (!pod) throw new Error(`pod ${uid} is not in the pool`);
    return pod;
  }

  private write(pod: PoolPod, requeue: boolean): PoolPod {
    const written = { ...pod, resourceVersion: this.nextVersion() };
    if (requeue) this.byUid.delete(pod.uid);
    this.byUid.set(pod.uid, written);
    return written;
  }

  private nextVersion(): string {
    return String(++this.version);
  }
}
