// Exponential back-off for the poll timer: min, 2·min, 4·min … capped at max; reset by any wake.

export class Backoff {
  private current: number;

  constructor(
    readonly minMs: number,
    readonly maxMs: number,
  ) {
    if (!(minMs > 0 && maxMs >= minMs)) throw new Error(`back-off needs 0 < min <= max (got ${minMs}, ${maxMs})`);
    this.current = minMs;
  }

  /** The delay to wait now; the following one doubles. */
  next(): number {
    const delay = this.current;
    this.current = Math.min(this.current * 2, this.maxMs);
    return delay;
  }

  reset(): void {
    this.current = this.minMs;
  }
}
