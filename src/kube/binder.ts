// The live scheduler's Binder: posts pods/{name}/binding and turns the API server's answer into the
// engine's Status, with upstream's policy. A 5xx or a dropped connection is retried with doubling
// back-off (the pod stays assumed meanwhile). A 409 is decided from data, never from its text: the
// API server answers Conflict on `pods/binding` when the pod's own state refuses the binding (it is
// already assigned, to any node, being deleted or gated; pkg/registry/core/pod/storage assignPod), and
// that Status names no node, so the pod is read: bound to the node we asked for, it is our own earlier
// attempt that landed (success); to another node, the pod was bound by someone else; otherwise, and
// for any other 409, it is a conflict (after a lost answer the pod is read too). Every failure is an Error status: the scheduler forgets
// the assumption and requeues the pod, and drops it once the watch shows it bound. A pod this binder
// bound is never posted again, and one pod never has two bindings in flight. `abort()` (a process
// that must exit now) ends every binding in flight at once, their requests and back-offs included:
// each is an Error status saying the pod was not bound, so its assumption is forgotten.
import { setMaxListeners } from 'node:events';
import type { Clock } from '../engine/api/clock';
import { podId, podKey, type Pod } from '../engine/api/types';
import type { Binder } from '../engine/framework/binder';
import { errorStatus, isSuccess, SUCCESS, type Status } from '../engine/framework/status';
import type { StatusDetails } from './http';

/** What the API server said to one binding request. */
export type BindingAnswer =
  | { readonly kind: 'created' }
  /** An HTTP status other than 2xx, with the Status object's message, reason and details when it had them. */
  | {
      readonly kind: 'status';
      readonly code: number;
      readonly message: string;
      readonly reason?: string;
      readonly details?: StatusDetails;
    }
  /** No answer (connection refused or reset, timeout). */
  | { readonly kind: 'unreachable'; readonly message: string }
  /** The request was aborted through the signal before an answer came. */
  | { readonly kind: 'aborted'; readonly message: string };

/** Posts one Binding of the pod (namespace, name, uid) to the node; `signal` aborts it. Never rejects. */
export type PostBinding = (
  pod: { readonly namespace: string; readonly name: string; readonly uid?: string },
  node: string,
  signal?: AbortSignal,
) => Promise<BindingAnswer>;

/** The node the pod (namespace, name) is bound to now, '' when none; undefined when it cannot be read. */
export type ReadBoundNode = (
  pod: { readonly namespace: string; readonly name: string },
  signal?: AbortSignal,
) => Promise<string | undefined>;

export interface KubeBinderOptions {
  readonly post: PostBinding;
  /**
   * Reads the pod's node after a 409 that says the pod refused the binding (which node it is bound
   * to is not in the Status), and after one that follows an attempt whose answer was lost (a 5xx or
   * no answer): that attempt may have landed, and the pod is then bound to our node.
   */
  readonly readBoundNode: ReadBoundNode;
  /** Back-off timers. */
  readonly clock: Clock;
  /** Tries per binding for retriable answers (5xx, unreachable, 429). */
  readonly attempts?: number;
  readonly initialBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

export const BINDER_DEFAULTS = { attempts: 5, initialBackoffMs: 100, maxBackoffMs: 2_000 } as const;

/** A 409 the pod's own state gave (already assigned, being deleted, gated): errors.NewConflict on pods/binding. */
const refusedByPod = (answer: BindingAnswer): boolean =>
  answer.kind === 'status' && answer.code === 409 && answer.reason === 'Conflict' && answer.details?.kind === 'pods/binding';

export interface BinderCounters {
  readonly bound: number;
  readonly retried: number;
  readonly conflicts: number;
  readonly boundElsewhere: number;
  readonly failed: number;
  /** Ended by abort() before an answer: not bound. */
  readonly aborted: number;
  readonly inFlight: number;
}

export class KubeBinder implements Binder {
  private readonly settings: { readonly attempts: number; readonly initialBackoffMs: number; readonly maxBackoffMs: number };
  /** Pods this binder bound, by id, with their node. */
  private readonly bound = new Map<string, string>();
  /** Bindings in flight, by pod id: each settles once. */
  private readonly inFlight = new Map<string, Promise<Status>>();
  private readonly counts = { bound: 0, retried: 0, conflicts: 0, boundElsewhere: 0, failed: 0, aborted: 0 };
  private readonly abortion = new AbortController();

  constructor(private readonly options: KubeBinderOptions) {
    // Every binding in flight listens on it.
    setMaxListeners(0, this.abortion.signal);
    this.settings = {
      attempts: options.attempts ?? BINDER_DEFAULTS.attempts,
      initialBackoffMs: options.initialBackoffMs ?? BINDER_DEFAULTS.initialBackoffMs,
      maxBackoffMs: options.maxBackoffMs ?? BINDER_DEFAULTS.maxBackoffMs,
    };
  }

  bind(pod: Pod, nodeName: string): Promise<Status> {
    const id = podId(pod);
    const done = this.bound.get(id);
    if (done !== undefined) {
      return Promise.resolve(
        done === nodeName ? SUCCESS : errorStatus(`pod ${podKey(pod)} was already bound to node ${done} by this scheduler`),
      );
    }
    if (this.inFlight.has(id)) return Promise.resolve(errorStatus(`pod ${podKey(pod)} already has a binding in flight`));
    if (this.abortion.signal.aborted) return Promise.resolve(this.aborted(pod, nodeName));
    const binding = this.attempt(pod, nodeName).finally(() => this.inFlight.delete(id));
    this.inFlight.set(id, binding);
    return binding;
  }

  /** Resolves when every binding in flight now has settled. */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight.values()]);
  }

  /**
   * Ends every binding in flight now (requests aborted, back-offs cut short) and refuses new ones:
   * each settles as an Error status, the pod not bound. How many were in flight.
   */
  abort(): number {
    const inFlight = this.inFlight.size;
    this.abortion.abort();
    return inFlight;
  }

  /** The node this binder bound the pod (by id) to, if it did. */
  boundTo(id: string): string | undefined {
    return this.bound.get(id);
  }

  counters(): BinderCounters {
    return { ...this.counts, inFlight: this.inFlight.size };
  }

  private async attempt(pod: Pod, nodeName: string): Promise<Status> {
    const target = {
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name,
      ...(pod.metadata.uid ? { uid: pod.metadata.uid } : {}),
    };
    const key = podKey(pod);
    let delay = this.settings.initialBackoffMs;
    let last = '';
    /** An earlier attempt got no clear answer: it may have bound the pod. */
    let ambiguous = false;
    const { signal } = this.abortion;
    for (let attempt = 1; attempt <= this.settings.attempts; attempt++) {
      const answer = await this.options.post(target, nodeName, signal);
      if (answer.kind === 'aborted' || signal.aborted) return this.aborted(pod, nodeName);
      if (answer.kind === 'created') return this.succeeded(pod, nodeName);
      if (answer.kind === 'status' && answer.code === 409) {
        if (refusedByPod(answer) || ambiguous) {
          const assigned = await this.options.readBoundNode(target, signal);
          if (signal.aborted) return this.aborted(pod, nodeName);
          if (assigned === nodeName) return this.succeeded(pod, nodeName);
          if (assigned) {
            this.counts.boundElsewhere++;
            return errorStatus(`pod ${key} is already bound to node ${assigned} by someone else`);
          }
        }
        this.counts.conflicts++;
        return errorStatus(`binding pod ${key} to node ${nodeName} conflicted: ${answer.message}`);
      }
      last = answer.kind === 'status' ? `${answer.code} ${answer.message}` : answer.message;
      if (retriable(answer)) ambiguous = true;
      if (!retriable(answer) || attempt === this.settings.attempts) break;
      this.counts.retried++;
      await sleep(this.options.clock, delay, signal);
      if (signal.aborted) return this.aborted(pod, nodeName);
      delay = Math.min(delay * 2, this.settings.maxBackoffMs);
    }
    this.counts.failed++;
    return errorStatus(`binding pod ${key} to node ${nodeName} failed: ${last}`);
  }

  private aborted(pod: Pod, nodeName: string): Status {
    this.counts.aborted++;
    return errorStatus(`binding pod ${podKey(pod)} to node ${nodeName} was aborted (the scheduler is stopping): not bound`);
  }

  private succeeded(pod: Pod, nodeName: string): Status {
    this.bound.set(podId(pod), nodeName);
    this.counts.bound++;
    return SUCCESS;
  }
}

/**
 * Binds each pod to its node, one after another, with the binder's policy (Apply Plan's bindings,
 * outside a scheduler's life cycle): for each pod that is not bound, why.
 */
export async function bindEach(
  options: KubeBinderOptions,
  bindings: ReadonlyArray<{ readonly pod: Pod; readonly node: string }>,
): Promise<Array<{ readonly pod: Pod; readonly reasons: readonly string[] }>> {
  const binder = new KubeBinder(options);
  const failed: Array<{ pod: Pod; reasons: readonly string[] }> = [];
  for (const { pod, node } of bindings) {
    const status = await binder.bind(pod, node);
    if (!isSuccess(status)) failed.push({ pod, reasons: status.reasons });
  }
  return failed;
}

function retriable(answer: BindingAnswer): boolean {
  return answer.kind === 'unreachable' || (answer.kind === 'status' && (answer.code >= 500 || answer.code === 429));
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimer(ms, () => {
      signal.removeEventListener('abort', wake);
      resolve();
    });
    const wake = () => {
      timer.cancel();
      resolve();
    };
    signal.addEventListener('abort', wake, { once: true });
  });
}
