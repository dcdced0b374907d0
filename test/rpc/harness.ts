// Real gRPC on loopback for the rpc tests: a planner server on a free port and a client dialling it.
import assert from 'node:assert/strict';
import { ok } from '../../src/engine/api/result';
import {
  connectPlanner,
  startPlannerServer,
  type PlanFunction,
  type PlannerClient,
  type PlannerServer,
  type SchedulePlanRequest,
} from '../../src/rpc';

export interface Loopback {
  readonly server: PlannerServer;
  readonly client: PlannerClient;
  /** Every request the planner was called with, in arrival order. */
  readonly seen: SchedulePlanRequest[];
  stop(): Promise<void>;
}

async function servePlanner(planner: PlanFunction, options: { shutdownGraceMs?: number }): Promise<Loopback> {
  const seen: SchedulePlanRequest[] = [];
  const started = await startPlannerServer({
    port: 0,
    planner: (request) => (seen.push(request), planner(request)),
    shutdownGraceMs: options.shutdownGraceMs,
  });
  assert.ok(started.ok, started.ok ? '' : started.error);
  const connected = connectPlanner(started.value.address, { deadlineMs: 10_000 });
  assert.ok(connected.ok, connected.ok ? '' : connected.error);
  const server = started.value;
  const client = connected.value;
  return {
    server,
    client,
    seen,
    stop: async () => {
      client.close();
      await server.close();
    },
  };
}

export type Serve = (planner: PlanFunction, options?: { shutdownGraceMs?: number }) => Promise<Loopback>;

/** For a describe block: `serve` starts a loopback pair, stopped after the test that started it. */
export function loopbacks(): Serve {
  const running: Loopback[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((loopback) => loopback.stop()));
  });
  return async (planner, options = {}) => {
    const loopback = await servePlanner(planner, options);
    running.push(loopback);
    return loopback;
  };
}

export const planRequest = (fields: Partial<SchedulePlanRequest> = {}): SchedulePlanRequest => ({
  namespace: 'default',
  podSet: 'web',
  scheduledPod: 'web-0',
  eligibleNodes: ['node-a', 'node-b'],
  ...fields,
});

/** A planner that puts pod `<podSet>-i` on the i-th eligible node. */
export const onePodPerNode: PlanFunction = async (request) =>
  ok(Object.fromEntries(request.eligibleNodes.map((node, i) => [`${request.podSet}-${i}`, node])));

/** A promise the test resolves when it chooses, to hold a planner in the middle of a call. */
export function gate(): { readonly opened: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open: () => open() };
}
