// Pods handed to a compare-and-swap are reserved, so a listing that lags behind the swap cannot put
// them back in the ready queue. A reservation holds while the swap is in flight and for a TTL after
// it settles (the time a phase change needs to reach a watch-fed listing). It blocks only the
// resourceVersion it was taken at: a pod listed Idle at a newer version was recycled (or touched by
// someone else) and is idle for real; the compare-and-swap still guards that case.
import { type Clock, type Timer } from '../api/clock';
import { Fifo, type FifoNode } from './fifo';
import { type PoolPod } from './types';

interface Reservation {
  readonly uid: string;
  readonly resourceVersion: string;
  readonly expiresAt: number;
  readonly inFlight: boolean;
}

export class Reservations {
  // Every entry is (re)queued with now + ttl, so queue order is expiry order.
  private readonly byExpiry = new Fifo<Reservation>();
  private readonly byUid = new Map<string, FifoNode<Reservation>>();
  private timer: Timer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    if (!(ttlMs > 0)) throw new Error(`reservation TTL must be positive (got ${ttlMs})`);
  }

  get size(): number {
    return this.byExpiry.size;
  }

  /** The pod goes to a swap: reserved until the swap settles. */
  hold(pod: PoolPod): void {
    this.put(pod.uid, pod.resourceVersion, true);
    this.arm();
  }

  /** The swap settled: keep the reservation for the TTL from now, or release it. */
  settle(uid: string, keep: boolean): void {
    const held = this.byUid.get(uid);
    if (!held) return;
    if (keep) this.put(uid, held.value.resourceVersion, false);
    else this.drop(held);
    this.arm();
  }

  /** Whether a listing that shows `pod` Idle must be ignored. */
  blocks(pod: PoolPod): boolean {
    const held = this.byUid.get(pod.uid)?.value;
    if (!held) return false;
    if (held.inFlight) return true;
    return held.expiresAt > this.clock.now() && held.resourceVersion === pod.resourceVersion;
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = undefined;
    for (let head = this.byExpiry.shift(); head; head = this.byExpiry.shift()) this.byUid.delete(head.uid);
  }

  private put(uid: string, resourceVersion: string, inFlight: boolean): void {
    const held = this.byUid.get(uid);
    if (held) this.drop(held);
    this.byUid.set(uid, this.byExpiry.push({ uid, resourceVersion, expiresAt: this.clock.now() + this.ttlMs, inFlight }));
  }

  private drop(node: FifoNode<Reservation>): void {
    this.byExpiry.remove(node);
    this.byUid.delete(node.value.uid);
  }

  private arm(): void {
    const head = this.byExpiry.first();
    if (this.timer || !head) return;
    this.timer = this.clock.setTimer(head.expiresAt - this.clock.now(), () => {
      this.timer = undefined;
      this.sweep();
      this.arm();
    });
  }

  private sweep(): void {
    const now = this.clock.now();
    for (let head = this.byExpiry.first(); head && head.expiresAt <= now; head = this.byExpiry.first()) {
      this.byExpiry.shift();
      this.byUid.delete(head.uid);
      // A swap still in flight keeps its pod: the TTL starts again (and again) until it settles.
      if (head.inFlight) this.put(head.uid, head.resourceVersion, true);
    }
  }
}
