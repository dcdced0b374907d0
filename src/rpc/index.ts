// The Pallet planner API over gRPC: a server around an injected planner and a client for external
// planners. The wire definition is src/rpc/planner.proto (Pallet's api/planner.proto).
export { connectPlanner, type PlannerClient, type PlannerClientOptions, type RpcCode, type RpcFailure } from './client';
export { startPlannerServer, type PlanFunction, type PlannerFailure, type PlannerServer, type PlannerServerOptions } from './server';
export { SERVICE_NAME, type Assignments, type SchedulePlanRequest, type SchedulePlanResponse } from './service';
