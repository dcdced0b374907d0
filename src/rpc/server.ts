// Serves the Pallet planner API (planner.SchedulePlanner/BuildSchedulePlan) over gRPC with an
// injected planner, so a Pallet deployment can use Podplan's planner. Every outcome, a planner that
// throws included, becomes a gRPC status for the caller; nothing takes the process down.
import * as grpc from '@grpc/grpc-js';
import { err, ok, type Result } from '../engine/api/result';
import { plannerService, type Assignments, type SchedulePlanRequest, type SchedulePlanResponse } from './service';
import { errorMessage } from '../engine/api/errors';

/** Why a planner could not answer; each kind is one gRPC status code. */
export interface PlannerFailure {
  /**
   * invalid-argument: the request cannot be planned as asked (INVALID_ARGUMENT); not-found: the pod
   * set has no pods (NOT_FOUND); internal: anything else (INTERNAL).
   */
  readonly kind: 'invalid-argument' | 'not-found' | 'internal';
  readonly message: string;
}

/** The planner behind the server: one well-formed request in, a plan or a failure out. */
export type PlanFunction = (request: SchedulePlanRequest) => Promise<Result<Assignments, PlannerFailure>>;

export interface PlannerServerOptions {
  /** 0 picks a free port (see PlannerServer.port). Pallet dials 7309. */
  readonly port: number;
  /** Defaults to 127.0.0.1, so nothing beyond this machine can call unless asked to. */
  readonly host?: string;
  readonly planner: PlanFunction;
  /** How long close() lets calls in flight finish before it cancels them; default 5000 ms. */
  readonly shutdownGraceMs?: number;
}

export interface PlannerServer {
  readonly host: string;
  /** The bound port (the chosen one when asked for 0). */
  readonly port: number;
  /** host:port, as a client dials it. */
  readonly address: string;
  /** Stops accepting calls, waits for those in flight up to the grace period, then cancels them. */
  close(): Promise<void>;
}

const STATUS_OF: Readonly<Record<PlannerFailure['kind'], grpc.status>> = {
  'invalid-argument': grpc.status.INVALID_ARGUMENT,
  'not-found': grpc.status.NOT_FOUND,
  internal: grpc.status.INTERNAL,
};

/** What makes a request unplannable whatever the cluster holds, or undefined when it is well formed. */
function requestProblem(request: SchedulePlanRequest): string | undefined {
  if (request.namespace === '') return 'namespace is required';
  if (request.podSet === '') return 'podSet is required';
  const blank = request.eligibleNodes.indexOf('');
  if (blank >= 0) return `eligibleNodes[${blank}] is an empty node name`;
  return undefined;
}

type CallOutcome = Result<SchedulePlanResponse, { code: grpc.status; details: string }>;

async function answer(planner: PlanFunction, request: SchedulePlanRequest): Promise<CallOutcome> {
  const problem = requestProblem(request);
  if (problem !== undefined) return err({ code: grpc.status.INVALID_ARGUMENT, details: `invalid SchedulePlanRequest: ${problem}` });
  try {
    const planned = await planner(request);
    if (planned.ok) return ok({ assignments: planned.value });
    return err({ code: STATUS_OF[planned.error.kind], details: planned.error.message });
  } catch (error) {
    // A planner that throws has a bug: the caller gets INTERNAL and the server keeps serving.
    const message = errorMessage(error);
    return err({ code: grpc.status.INTERNAL, details: `planner failed on pod set ${request.namespace}/${request.podSet}: ${message}` });
  }
}

function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Starts serving; a port that cannot be bound (in use, bad host) is an error value. */
export async function startPlannerServer(options: PlannerServerOptions): Promise<Result<PlannerServer, string>> {
  const host = options.host ?? '127.0.0.1';
  const graceMs = options.shutdownGraceMs ?? 5000;
  const server = new grpc.Server();
  const buildSchedulePlan: grpc.handleUnaryCall<SchedulePlanRequest, SchedulePlanResponse> = (call, callback) => {
    void answer(options.planner, call.request).then((outcome) => (outcome.ok ? callback(null, outcome.value) : callback(outcome.error)));
  };
  server.addService(plannerService, { BuildSchedulePlan: buildSchedulePlan });

  const wanted = hostPort(host, options.port);
  // A failed bind is returned as a value: grpc-js's own log line of it ("E No address added …") would only repeat it, rawly.
  grpc.setLogVerbosity(grpc.logVerbosity.NONE);
  const bound = await new Promise<Result<number, string>>((resolve) =>
    server.bindAsync(wanted, grpc.ServerCredentials.createInsecure(), (error, port) => resolve(error ? err(error.message) : ok(port))),
  );
  grpc.setLogVerbosity(grpc.logVerbosity.ERROR);
  if (!bound.ok) {
    server.forceShutdown();
    // Matched in the text because grpc-js gives nothing else: its bindAsync error is one Error whose
    // message joins each address's Node error *message* ("No address added … errors: [listen
    // EADDRINUSE …]"); the Node errors' codes are dropped (server.js bindOneAddress keeps err.message).
    // A node:net probe of the port first would give a structured EADDRINUSE, but only for a moment
    // before grpc-js binds (another process can take the port between) and for one of the addresses a
    // host name resolves to: the bind's own failure is the fact, and its text the only carrier of it.
    const inUse = /EADDRINUSE/.test(bound.error);
    return err(
      `cannot serve the planner API on ${wanted}: ${inUse ? 'the port is already in use (another planner server?); choose another port' : bound.error}`,
    );
  }

  let closing: Promise<void> | undefined;
  return ok({
    host,
    port: bound.value,
    address: hostPort(host, bound.value),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      })),
  });
}
