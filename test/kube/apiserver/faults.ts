// Fault injection and counters of the test API server, settable while it runs.
import { seededRandom } from '../../../src/engine/api/random';

export interface Faults {
  /** share (0..1) of binding requests answered 409 Conflict without binding */
  bindingConflictShare: number;
  /** share of binding requests answered 500 without binding */
  bindingErrorShare: number;
  /** share of binding requests that bind and then answer 500 (the answer was lost) */
  bindingLostResponseShare: number;
  /** seed of the random draws above */
  seed: number;
  /** milliseconds added before every request is answered */
  latencyMs: number;
  /** milliseconds a binding request waits (counted, not yet applied) before it is carried out and answered */
  bindingLatencyMs: number;
  /** drop each watch stream after this many events (0: never) */
  dropWatchEvery: number;
  /** how a watch is dropped: `reset` destroys the connection, `close` ends the response cleanly */
  dropWatchMode: 'reset' | 'close';
  /** the next this-many watch requests answer with a 410 Gone ERROR event */
  goneOnNextWatches: number;
  /** resources (plural, `.group` for named groups: `poddisruptionbudgets.policy`) every request for is 403 Forbidden, as RBAC denies */
  forbiddenResources: readonly string[];
}

export const NO_FAULTS: Faults = {
  bindingConflictShare: 0,
  bindingErrorShare: 0,
  bindingLostResponseShare: 0,
  seed: 1,
  latencyMs: 0,
  bindingLatencyMs: 0,
  dropWatchEvery: 0,
  dropWatchMode: 'close',
  goneOnNextWatches: 0,
  forbiddenResources: [],
};

export type BindingFault = 'conflict' | 'error' | 'lost-response' | undefined;

export class FaultState {
  private current: Faults = { ...NO_FAULTS };
  private random = seededRandom(NO_FAULTS.seed);

  get faults(): Readonly<Faults> {
    return this.current;
  }

  set(changes: Partial<Faults>): void {
    this.current = { ...this.current, ...changes };
    if (changes.seed !== undefined) this.random = seededRandom(changes.seed);
  }

  reset(): void {
    this.set({ ...NO_FAULTS });
  }

  /** Draws the fate of one binding request. */
  bindingFault(): BindingFault {
    const f = this.current;
    if (f.bindingConflictShare + f.bindingErrorShare + f.bindingLostResponseShare === 0) return undefined;
    const r = this.random.next();
    if (r < f.bindingConflictShare) return 'conflict';
    if (r < f.bindingConflictShare + f.bindingErrorShare) return 'error';
    if (r < f.bindingConflictShare + f.bindingErrorShare + f.bindingLostResponseShare) return 'lost-response';
    return undefined;
  }

  /** True (once) when this watch request should answer 410 Gone. */
  takeGone(): boolean {
    if (this.current.goneOnNextWatches <= 0) return false;
    this.current = { ...this.current, goneOnNextWatches: this.current.goneOnNextWatches - 1 };
    return true;
  }
}

export interface WriteRecord {
  readonly verb: string;
  /** `pods`, `deployments.apps`, `pods/binding` … */
  readonly resource: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly resourceVersion: string;
}

export class Counters {
  /** `verb resource` (`list pods`, `create pods/binding`, `watch nodes`) → requests */
  readonly requests = new Map<string, number>();
  /** `namespace/name` → successful bindings of that pod */
  readonly bindings = new Map<string, number>();
  readonly writes: WriteRecord[] = [];
  /** watch streams dropped by fault injection */
  droppedWatches = 0;

  countRequest(verb: string, resource: string): void {
    const key = `${verb} ${resource}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
  }

  request(verb: string, resource: string): number {
    return this.requests.get(`${verb} ${resource}`) ?? 0;
  }

  reset(): void {
    this.requests.clear();
    this.bindings.clear();
    this.writes.length = 0;
    this.droppedWatches = 0;
  }
}
