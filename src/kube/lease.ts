// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: a
// candidate takes the Lease when it is free or its holder has not renewed it for a whole lease
// duration (measured on this process's clock from when it last saw the record change, so clocks
// need not agree); the leader renews every retry period and gives up leadership when it could not
// renew for the renew deadline, which is shorter than the lease duration, so it has stopped before
// anyone else may take over: at that deadline on its clock, even while a renewal is still waiting
// for its answer (each round's requests are aborted at the renew deadline). Every write carries the
// resourceVersion read, so two candidates never both win one round. A leader that lost the Lease
// stays a candidate: it takes the Lease back as soon as it can (unlike kube-scheduler, which exits
// and is restarted). Stopping releases the Lease (holder cleared) so a successor need not wait.
import type { Clock, Timer } from '../engine/api/clock';

/** The Lease fields election reads and writes (spec of coordination.k8s.io/v1 Lease). */
export interface LeaseRecord {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  /** RFC 3339 with microseconds, as the API server keeps MicroTime. */
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

export interface StoredLease {
  readonly record: LeaseRecord;
  readonly resourceVersion: string;
}

export type LeaseWrite =
  | { readonly kind: 'written'; readonly lease: StoredLease }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'error'; readonly message: string };

/** One Lease object of the API server. Never rejects; `signal` aborts a request (an error answer). */
export interface LeaseClient {
  /** The Lease, undefined when it does not exist, or an error message. */
  get(
    signal?: AbortSignal,
  ): Promise<
    | { readonly kind: 'found'; readonly lease: StoredLease }
    | { readonly kind: 'absent' }
    | { readonly kind: 'error'; readonly message: string }
  >;
  create(record: LeaseRecord, signal?: AbortSignal): Promise<LeaseWrite>;
  /** Replaces the Lease only if it is still at `resourceVersion` (else conflict). */
  update(record: LeaseRecord, resourceVersion: string, signal?: AbortSignal): Promise<LeaseWrite>;
}

export interface LeaderElectorOptions {
  readonly client: LeaseClient;
  /** Unique per process: host name and pid, say. */
  readonly identity: string;
  readonly clock: Clock;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly onStartedLeading?: () => void;
  readonly onStoppedLeading?: () => void;
  /** Errors talking to the API server, for a log line; election keeps trying. */
  readonly onError?: (message: string) => void;
}

/** client-go's defaults for kube-scheduler. */
export const LEASE_DEFAULTS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private leading = false;
  private stopped = false;
  private timer: Timer | undefined;
  /** While leading: fires at the renew deadline unless a renewal came first. */
  private deadline: Timer | undefined;
  /** The record last seen, its version, and when (our clock) it was seen to change. */
  private observed: { lease: StoredLease; at: number } | undefined;
  private lastRenewal = 0;
  private round: Promise<void> = Promise.resolve();

  constructor(private readonly options: LeaderElectorOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? LEASE_DEFAULTS.leaseDurationMs;
    this.renewDeadlineMs = options.renewDeadlineMs ?? LEASE_DEFAULTS.renewDeadlineMs;
    this.retryPeriodMs = options.retryPeriodMs ?? LEASE_DEFAULTS.retryPeriodMs;
    if (!(this.renewDeadlineMs < this.leaseDurationMs && this.retryPeriodMs < this.renewDeadlineMs)) {
      throw new RangeError(
        `lease timings must satisfy retry period < renew deadline < lease duration (got ${this.retryPeriodMs}, ${this.renewDeadlineMs}, ${this.leaseDurationMs} ms)`,
      );
    }
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Tries at once, then every retry period, until stopped. */
  start(): void {
    this.schedule(0);
  }

  /** Stops trying; a leader stops leading and releases the Lease. */
  async stop(): Promise<void> {
    if (this.stopped) return this.round;
    this.stopped = true;
    this.timer?.cancel();
    this.deadline?.cancel();
    await this.round;
    if (!this.leading) return;
    this.setLeading(false);
    const seen = this.observed?.lease;
    if (seen && seen.record.holderIdentity === this.options.identity) {
      const released = await this.options.client.update(
        { ...seen.record, holderIdentity: '', leaseDurationSeconds: 1 },
        seen.resourceVersion,
      );
      if (released.kind === 'error') this.options.onError?.(`releasing the lease: ${released.message}`);
    }
  }

  /** One round of acquire-or-renew; exposed so tests can step it. */
  tryAcquireOrRenew(): Promise<boolean> {
    const round = this.round.then(() => this.acquireOrRenew());
    this.round = round.then(
      () => undefined,
      () => undefined,
    );
    return round;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimer(delayMs, () => {
      void this.tryAcquireOrRenew().then(() => this.schedule(this.retryPeriodMs));
    });
  }

  private async acquireOrRenew(): Promise<boolean> {
    if (this.stopped) return false;
    const now = this.options.clock.now();
    const record: LeaseRecord = {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      renewTime: microTime(now),
    };
    // A round is bounded: its requests are aborted at the renew deadline, so a hung renewal neither
    // keeps a leader leading (the deadline timer stops it) nor keeps a candidate from trying again.
    const abort = new AbortController();
    const bound = this.options.clock.setTimer(this.renewDeadlineMs, () => abort.abort());
    try {
      return await this.attempt(now, record, abort.signal);
    } finally {
      bound.cancel();
    }
  }

  private async attempt(now: number, record: LeaseRecord, signal: AbortSignal): Promise<boolean> {
    const current = await this.options.client.get(signal);
    let write: LeaseWrite;
    if (current.kind === 'error') {
      return this.failed(now, `reading the lease: ${current.message}`);
    } else if (current.kind === 'absent') {
      write = await this.options.client.create({ ...record, acquireTime: microTime(now), leaseTransitions: 0 }, signal);
    } else {
      const { lease } = current;
      if (!this.observed || this.observed.lease.resourceVersion !== lease.resourceVersion) this.observed = { lease, at: now };
      const holder = lease.record.holderIdentity ?? '';
      const mine = holder === this.options.identity;
      if (holder !== '' && !mine && this.observed.at + (lease.record.leaseDurationSeconds ?? 0) * 1000 > now) return this.failed(now);
      const taking = !mine;
      write = await this.options.client.update(
        {
          ...record,
          acquireTime: taking ? microTime(now) : (lease.record.acquireTime ?? microTime(now)),
          leaseTransitions: (lease.record.leaseTransitions ?? 0) + (taking ? 1 : 0),
        },
        lease.resourceVersion,
        signal,
      );
    }
    if (write.kind !== 'written') return this.failed(now, write.kind === 'error' ? `writing the lease: ${write.message}` : undefined);
    this.observed = { lease: write.lease, at: now };
    this.lastRenewal = now;
    if (this.stopped) return false;
    this.setLeading(true);
    this.armDeadline();
    return true;
  }

  /** A leader not renewed by the renew deadline (from its last renewal) stops leading then, whatever its round is waiting for. */
  private armDeadline(): void {
    this.deadline?.cancel();
    const due = this.lastRenewal + this.renewDeadlineMs - this.options.clock.now();
    this.deadline = this.options.clock.setTimer(Math.max(0, due), () => {
      this.deadline = undefined;
      if (this.leading && this.options.clock.now() - this.lastRenewal >= this.renewDeadlineMs) this.setLeading(false);
    });
  }

  /** A round that did not renew: a leader past its renew deadline stops leading. */
  private failed(now: number, error?: string): false {
    if (error) this.options.onError?.(error);
    if (this.leading && now - this.lastRenewal >= this.renewDeadlineMs) this.setLeading(false);
    return false;
  }

  private setLeading(leading: boolean): void {
    if (this.leading === leading) return;
    this.leading = leading;
    if (!leading) {
      this.deadline?.cancel();
      this.deadline = undefined;
    }
    if (leading) this.options.onStartedLeading?.();
    else this.options.onStoppedLeading?.();
  }
}

/** RFC 3339 with microseconds (metav1.MicroTime). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
