// engine/claims: the per-pool streaming claim scheduler (warm pools of idle pods).
export { ClaimScheduler, CLAIM_DEFAULTS, claimRequest, type ClaimSchedulerOptions, type PendingClaim } from './scheduler';
export { InMemoryPoolTarget, type PoolPodInit } from './memory-target';
export * from './types';
