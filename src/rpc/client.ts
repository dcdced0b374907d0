// A client for any Pallet-compatible planner (planner.SchedulePlanner), so Podplan can ask an
// external planner for a plan. Every failure, a missed deadline or an unreachable server included,
// is a value carrying the gRPC status name and the server's message.
import * as grpc from '@grpc/grpc-js';
import { err, ok, type Result } from '../engine/api/result';
import { buildSchedulePlanMethod, type Assignments, type SchedulePlanRequest } from './service';
import { errorMessage } from '../engine/api/errors';

/** A gRPC status name: 'DEADLINE_EXCEEDED', 'UNAVAILABLE', 'NOT_FOUND', … */
export type RpcCode = keyof typeof grpc.status;

export interface RpcFailure {
  readonly code: RpcCode;
  readonly message: string;
}

export interface PlannerClientOptions {
  /** Each call fails with DEADLINE_EXCEEDED when the planner has not answered within this time. */
  readonly deadlineMs: number;
}

export interface PlannerClient {
  buildSchedulePlan(request: SchedulePlanRequest): Promise<Result<Assignments, RpcFailure>>;
  /** Closes the connection; calls made after it are a programming error. */
  close(): void;
}

function failureOf(error: grpc.ServiceError): RpcFailure {
  const code = grpc.status[error.code] as RpcCode | undefined;
  return { code: code ?? 'UNKNOWN', message: error.details || error.message };
}

/**
 * A client for the planner at `address` (host:port, or any gRPC target such as dns:///host:port),
 * over plain TCP as Pallet dials its planners. It connects on the first call; an address gRPC
 * cannot parse is an error value here.
 */
export function connectPlanner(address: string, options: PlannerClientOptions): Result<PlannerClient, string> {
  let client: grpc.Client;
  try {
    client = new grpc.Client(address, grpc.credentials.createInsecure());
  } catch (error) {
    return err(`cannot use planner address "${address}": ${errorMessage(error)}`);
  }
  const method = buildSchedulePlanMethod;
  return ok({
    buildSchedulePlan: (request) =>
      new Promise((resolve) => {
        client.makeUnaryRequest(
          method.path,
          method.requestSerialize,
          method.responseDeserialize,
          request,
          new grpc.Metadata(),
          { deadline: Date.now() + options.deadlineMs },
          (error, response) => resolve(error ? err(failureOf(error)) : ok(response?.assignments ?? {})),
        );
      }),
    close: () => client.close(),
  });
}
