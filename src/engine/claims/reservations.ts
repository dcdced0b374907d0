// Pods handed to a compare-and-swap are reserved, so a listing that lags behind the swap cannot put
// them back in the ready queue. A reservation holds while the swap is in flight and for a TTL after
// it settles (the time a phase change needs to reach a watch-fed listing). It blocks only the
// resourceVersion it was taken at: a pod listed Idle at a newer version was recycled (or touched by
// someone else) and is idle for real; the compare-and-swap still guards that case.
import { type Clock, type Timer } from '../api/clock';
import { type PoolPod } from './types';

interface Reservation {
  readonly resourceVersion: string;
  readonly expiresAt: number;
  readonly inFlight: boolean;
}

export class Reservations {
  // Insertion order is expiry order: every entry is (re)inserted with now + ttl.
  private readonly byUid = new Map<string, Reservation>();
  private timer: Timer | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {
    if (!(ttlMs > 0)) throw new Error(`reservation TTL must be positive (got ${ttlMs})`);
  }

  get size(): number {
    return this.byUid.size;
  }

  /** The pod goes to a swap: reserved until the swap settles. */
  hold(pod: PoolPod): void {
    this.put(pod.uid, pod.resourceVersion, true);
  }

  /** The swap settled: keep the reservation for the TTL from now, or release it. */
  settle(uid: string, keep: boolean): void {
    const held = this.byUid.get(uid);
    if (!held) return;
    if (keep) this.put(uid, held.resourceVersion, false);
    else this.byUid.delete(uid);
  }

  /** Whether a listing that shows `pod` Idle must be ignored. */
  blocks(pod: PoolPod): boolean {
    const held = this.byUid.get(pod.uid);
    if (!held) return false;
    if (held.inFlight) return true;
    return held.expiresAt > this.clock.now() && held.resourceVersion === pod.resourceVersion;
  }

  dispose(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.byUid.clear();
  }

  private put(uid: string, resourceVersion: string, inFlight: boolean): void {
    this.byUid.delete(uid);
    this.byUid.set(uid, { resourceVersion, expiresAt: this.clock.now() + this.ttlMs, inFlight });
    this.arm();
  }

  private arm(): void {
    if (this.timer) return;
    const head = this.byUid.values().next();
    if (head.done) return;
    this.timer = this.clock.setTimer(head.value.expiresAt - this.clock.now(), () => {
      this.timer = undefined;
      this.sweep();
      this.arm();
    });
  }

  private sweep(): void {
    const now = this.clock.now();
    for (;;) {
      const head = this.byUid.entries().next();
      if (head.done || head.value[1].expiresAt > now) return;
      const [uid, held] = head.value;
      this.byUid.delete(uid);
      // A swap still in flight keeps its pod: the TTL starts again (and again) until it settles.
      if (held.inFlight) this.byUid.set(uid, { ...held, expiresAt: now + this.ttlMs });
    }
  }
}
