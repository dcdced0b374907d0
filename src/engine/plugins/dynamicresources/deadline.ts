// DRASchedulerFilterTimeout (beta, on by default in 1.37): upstream's Filter gives the allocator a
// context with the profile's filterTimeout (DynamicResourcesArgs, 10 s by default, 0: none;
// pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go, Filter), and the structured
// allocator checks that context at every step of its search (structured/internal/incubating
// allocator_incubating.go allocateOne: `filter operation aborted: context deadline exceeded`), which
// Filter reports as an Error naming the node. Podplan's engine reads no real time: the deadline is
// on the injected clock, and the allocator asks it where upstream's asks its context.
import type { Clock } from '../../api/clock';

/** upstream DynamicResourcesFilterTimeoutDefault (pkg/scheduler/apis/config/types_pluginargs.go). */
export const FILTER_TIMEOUT_MS = 10_000;

/** When one node's allocation must stop: a clock time on the injected clock. */
export interface AllocationDeadline {
  readonly clock: Clock;
  /** The clock's time (ms) from which the allocation has timed out. */
  readonly at: number;
}

/**
 * upstream context.WithTimeout(ctx, filterTimeout) for one Filter call: none without a clock (no
 * time passes for the engine) or with a timeout of 0 (upstream applies none).
 */
export function allocationDeadline(clock: Clock | undefined, timeoutMs: number): AllocationDeadline | undefined {
  if (!clock || timeoutMs <= 0) return undefined;
  return { clock, at: clock.now() + timeoutMs };
}

/** upstream `ctx.Err() != nil` for the timeout's context: Go's deadline counts as passed from its instant on. */
export function deadlinePassed(deadline: AllocationDeadline | undefined): boolean {
  return deadline !== undefined && deadline.clock.now() >= deadline.at;
}

/** upstream Filter's Error when the allocation on a node timed out (a context.DeadlineExceeded). */
export function timedOutMessage(nodeName: string): string {
  return `node ${nodeName}: timed out trying to allocate devices`;
}
