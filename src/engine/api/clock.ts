// The engine never reads the clock or sets timers itself: a Clock is injected, so tests drive time
// by hand (ManualClock) and the server and CLI pass the system clock (src/platform/clock).

export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once, `delayMs` from now (a delay <= 0 means as soon as possible). */
  setTimer(delayMs: number, callback: () => void): Timer;
}

interface PendingTimer {
  readonly due: number;
  readonly order: number;
  readonly callback: () => void;
  cancelled: boolean;
}

/** A clock that moves only when told to; timers fire in due order, ties in the order they were set. */
export class ManualClock implements Clock {
  private current: number;
  private pending: PendingTimer[] = [];
  private sequence = 0;

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(delayMs: number, callback: () => void): Timer {
    const timer: PendingTimer = { due: this.current + Math.max(0, delayMs), order: this.sequence++, callback, cancelled: false };
    this.pending.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    return this.pending.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way (including ones they set). */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.pending = this.pending.filter((t) => t !== next);
      this.current = Math.max(this.current, next.due);
      next.callback();
    }
    this.current = target;
  }

  /** Fires the timers due now without moving time. */
  runDue(): void {
    this.advance(0);
  }

  private nextDue(limit: number): PendingTimer | undefined {
    let best: PendingTimer | undefined;
    for (const t of this.pending) {
      if (t.cancelled || t.due > limit) continue;
      if (!best || t.due < best.due || (t.due === best.due && t.order < best.order)) best = t;
    }
    this.pending = this.pending.filter((t) => !t.cancelled);
    return best;
  }
}
