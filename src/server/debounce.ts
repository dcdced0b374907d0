// When to validate after a change. A fixed wait makes every keystroke pay it even when validation
// is cheap; here the wait follows the cost of the last validation instead: nothing for a cheap
// workspace, about that cost for an expensive one (so a burst of keystrokes is coalesced into one
// run instead of queueing runs), never more than a cap. A client's explicit `debounceMs` replaces it.

/** Validations cheaper than this run at once: waiting would cost more than it saves. */
const IMMEDIATE_BELOW_MS = 10;
/** The longest wait, whatever the last validation cost. */
const MAX_WAIT_MS = 150;

/** The wait before the next validation, given the last one's cost (ms); `fixed` when the client set one. */
export function debounceDelay(lastCostMs: number, fixed?: number): number {
  if (fixed !== undefined) return fixed;
  if (!(lastCostMs >= IMMEDIATE_BELOW_MS)) return 0;
  return Math.min(Math.round(lastCostMs), MAX_WAIT_MS);
}

/** Runs `task` once after changes settle; each run's cost sets the next wait. */
export class Debouncer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastCostMs = 0;

  constructor(
    private readonly task: () => void,
    private readonly fixed?: number,
  ) {}

  /** The wait the next change will get. */
  get delay(): number {
    return debounceDelay(this.lastCostMs, this.fixed);
  }

  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), this.delay);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run(): void {
    this.timer = undefined;
    const start = performance.now();
    try {
      this.task();
    } finally {
      this.lastCostMs = performance.now() - start;
    }
  }
}
