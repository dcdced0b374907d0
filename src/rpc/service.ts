// The Pallet planner API (src/rpc/planner.proto) as gRPC method definitions. They are built with
// @grpc/proto-loader's fromJSON from a protobufjs JSON descriptor held here as code: esbuild bundles
// JavaScript only, so a .proto read at run time would be missing beside dist/*.cjs, while this
// descriptor travels inside the bundle. test/rpc/service.test.ts checks it against planner.proto.
import { fromJSON, type MethodDefinition, type Options, type ServiceDefinition } from '@grpc/proto-loader';

/** planner.SchedulePlanRequest: the pod set to plan, and the nodes eligible for the pod being scheduled. */
export interface SchedulePlanRequest {
  readonly namespace: string;
  readonly podSet: string;
  /** The pod Pallet's scheduler is placing ('' when none); eligibleNodes are that pod's. */
  readonly scheduledPod: string;
  readonly eligibleNodes: readonly string[];
}

/** Pod name → node name, for each pod of the set the planner placed. */
export type Assignments = Readonly<Record<string, string>>;

/** planner.SchedulePlanResponse. */
export interface SchedulePlanResponse {
  readonly assignments: Assignments;
}

/** The same package, messages, fields and numbers as planner.proto (protobufjs JSON form). */
const descriptor = {
  nested: {
    planner: {
      nested: {
        SchedulePlanRequest: {
          fields: {
            namespace: { type: 'string', id: 1 },
            podSet: { type: 'string', id: 2 },
            scheduledPod: { type: 'string', id: 3 },
            eligibleNodes: { rule: 'repeated', type: 'string', id: 4 },
          },
        },
        SchedulePlanResponse: {
          fields: { assignments: { keyType: 'string', type: 'string', id: 1 } },
        },
        SchedulePlanner: {
          methods: { BuildSchedulePlan: { requestType: 'SchedulePlanRequest', responseType: 'SchedulePlanResponse' } },
        },
      },
    },
  },
};

/**
 * Field names as written in the proto (Pallet's are camelCase already); absent fields decode to
 * their proto3 defaults ('' and []), and an absent map to {}, so a decoded message is always whole.
 */
export const LOADER_OPTIONS: Options = { keepCase: true, defaults: true, arrays: true, objects: true };

export const SERVICE_NAME = 'planner.SchedulePlanner';

// protobufjs's JSON types know no map fields and want a comment on each method, hence the cast; the
// test's comparison with planner.proto is what checks this descriptor.
export const plannerDefinition = fromJSON(descriptor as Parameters<typeof fromJSON>[0], LOADER_OPTIONS);

// The descriptor above defines this service; the loader types every entry as any definition kind.
export const plannerService = plannerDefinition[SERVICE_NAME] as ServiceDefinition;

/** /planner.SchedulePlanner/BuildSchedulePlan, typed by the options above. */
export const buildSchedulePlanMethod = plannerService['BuildSchedulePlan'] as MethodDefinition<SchedulePlanRequest, SchedulePlanResponse>;
