// Idle pods ready to hand out, first seen first out. A refresh replaces the set with the listing
// but keeps the place of every pod it already had, so a pod listed again and again does not move
// back (or get queued twice).
import { type PoolPod } from './types';

export class ReadyQueue {
  // Map iteration is insertion order, and set() on a present key keeps its place.
  private readonly byUid = new Map<string, PoolPod>();

  get size(): number {
    return this.byUid.size;
  }

  /** Takes the pod that has waited longest. */
  take(): PoolPod | undefined {
    const first = this.byUid.values().next();
    if (first.done) return undefined;
    this.byUid.delete(first.value.uid);
    return first.value;
  }

  /** Makes the queue match `listing`, minus the pods `blocked` rejects; new pods queue oldest idle first. */
  refresh(listing: readonly PoolPod[], blocked: (pod: PoolPod) => boolean): void {
    const listed = new Map<string, PoolPod>();
    for (const pod of listing) if (pod.phase === 'Idle' && !blocked(pod)) listed.set(pod.uid, pod);
    for (const uid of this.byUid.keys()) if (!listed.has(uid)) this.byUid.delete(uid);
    const fresh: PoolPod[] = [];
    for (const pod of listed.values()) {
      if (this.byUid.has(pod.uid)) this.byUid.set(pod.uid, pod);
      else fresh.push(pod);
    }
    // Array.prototype.sort is stable: pods without idleSince keep the listing order.
    fresh.sort((a, b) => (a.idleSince ?? Infinity) - (b.idleSince ?? Infinity));
    for (const pod of fresh) this.byUid.set(pod.uid, pod);
  }

  clear(): void {
    this.byUid.clear();
  }
}
