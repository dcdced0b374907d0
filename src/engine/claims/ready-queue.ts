// Idle pods ready to hand out, first seen first out. A refresh replaces the set with the listing
// but keeps the place of every pod it already had, so a pod listed again and again does not move
// back (or get queued twice).
import { Fifo, type FifoNode } from './fifo';
import { type PoolPod } from './types';

export class ReadyQueue {
  private readonly order = new Fifo<PoolPod>();
  private readonly byUid = new Map<string, FifoNode<PoolPod>>();

  get size(): number {
    return this.order.size;
  }

  /** Takes the pod that has waited longest. */
  take(): PoolPod | undefined {
    const pod = this.order.shift();
    if (pod) this.byUid.delete(pod.uid);
    return pod;
  }

  /** Makes the queue match `listing`, minus the pods `blocked` rejects; new pods queue oldest idle first. */
  refresh(listing: readonly PoolPod[], blocked: (pod: PoolPod) => boolean): void {
    const listed = new Map<string, PoolPod>();
    for (const pod of listing) if (pod.phase === 'Idle' && !blocked(pod)) listed.set(pod.uid, pod);
    for (const [uid, node] of this.byUid) {
      if (listed.has(uid)) continue;
      this.order.remove(node);
      this.byUid.delete(uid);
    }
    const fresh: PoolPod[] = [];
    for (const pod of listed.values()) {
      const node = this.byUid.get(pod.uid);
      if (node) node.value = pod;
      else fresh.push(pod);
    }
    // Array.prototype.sort is stable: pods without idleSince keep the listing order.
    fresh.sort((a, b) => (a.idleSince ?? Infinity) - (b.idleSince ?? Infinity));
    for (const pod of fresh) this.byUid.set(pod.uid, this.order.push(pod));
  }

  clear(): void {
    while (this.take());
  }
}
