// The ScheduleTrigger and SchedulePlan CustomResourceDefinitions, compatible with the ones Pallet
// publishes (config/crd/bases/planner.ciena.io_*.yaml in ciena/pallet): same group and version,
// kinds, plural/singular/short names, printer columns, required fields, status subresource and
// schemas. Podplan's one schema addition is the optional spec.dependsOn (and spec.requireReady) of a
// ScheduleTrigger (with Pallet's own CRD installed the API server prunes them). Pallet declares a SchedulePlan's `status`
// as a bare object, so the server prunes every field under it: Podplan therefore writes its plan
// status (planner, profile, the pods it could not place) as JSON in the PLAN_STATUS_ANNOTATION
// annotation, which survives under either CRD. No `x-kubernetes-preserve-unknown-fields`: Pallet's
// CRDs have none.
import { err, ok, type Result } from '../engine/api/result';
import type { KubeHttp } from './http';
import type { ApiObject } from './objects';
import { PLANNER_GROUP, SCHEDULE_PLAN, SCHEDULE_TRIGGER } from './resources';

/** Where Podplan keeps a SchedulePlan's status (JSON), since Pallet's CRD prunes `status`. */
export const PLAN_STATUS_ANNOTATION = 'podplan.io/plan-status';

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';
const CRD_COLLECTION = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const VERSION = SCHEDULE_PLAN.apiVersion.split('/')[1] as string;

const API_VERSION_FIELD = {
  description:
    'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
const KIND_FIELD = {
  description:
    'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};

function crd(
  kind: string,
  plural: string,
  shortName: string,
  columns: object[],
  spec: object,
  statusDescription: string,
  description: string,
): ApiObject {
  return {
    apiVersion: CRD_API_VERSION,
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${PLANNER_GROUP}` },
    spec: {
      group: PLANNER_GROUP,
      names: { kind, listKind: `${kind}List`, plural, shortNames: [shortName], singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          additionalPrinterColumns: columns,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              description,
              type: 'object',
              required: ['spec'],
              properties: {
                apiVersion: API_VERSION_FIELD,
                kind: KIND_FIELD,
                metadata: { type: 'object' },
                spec,
                status: { description: statusDescription, type: 'object' },
              },
            },
          },
        },
      ],
    },
  };
}

const POD_SET_COLUMN = { jsonPath: '.metadata.labels.planner\\.ciena\\.io/pod-set', name: 'PodSet', type: 'string' };
const AGE_COLUMN = { jsonPath: '.metadata.creationTimestamp', name: 'Age', type: 'date' };

export const SCHEDULE_TRIGGER_CRD: ApiObject = crd(
  SCHEDULE_TRIGGER.kind,
  SCHEDULE_TRIGGER.plural,
  'st',
  [
    { jsonPath: '.spec.state', name: 'State', type: 'string' },
    POD_SET_COLUMN,
    { jsonPath: '.metadata.labels.planner\\.ciena\\.io/quiet-time', name: 'QuietTime', priority: 1, type: 'string' },
    AGE_COLUMN,
  ],
  {
    description: 'ScheduleTriggerSpec defines an event indicating that the pod-set can be transitioned from planning to schedule state.',
    type: 'object',
    required: ['state'],
    properties: {
      state: { type: 'string', enum: ['Planning', 'Schedule'] },
      dependsOn: {
        description: "Podplan's addition: objects that must be scheduled before this trigger's pod set is planned.",
        type: 'array',
        items: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string' },
            namespace: { type: 'string' },
            kind: { type: 'string', enum: ['ScheduleTrigger', 'SchedulePlan', 'PodSet'] },
          },
        },
      },
      requireReady: {
        description: "Podplan's addition: wait until the pods of what dependsOn names are Ready, not only planned.",
        type: 'boolean',
      },
    },
  },
  'ScheduleTriggerStatus defines the status for a trigger.',
  'ScheduleTrigger is the Schema for the scheduleTrigger api',
);

export const SCHEDULE_PLAN_CRD: ApiObject = crd(
  SCHEDULE_PLAN.kind,
  SCHEDULE_PLAN.plural,
  'sp',
  [POD_SET_COLUMN, AGE_COLUMN, { jsonPath: '.spec.plan', name: 'Plan', priority: 1, type: 'string' }],
  {
    description: 'SchedulePlanSpec defines a plan for a pod-set containing the pod to node assignments.',
    type: 'object',
    required: ['plan'],
    properties: {
      plan: {
        type: 'array',
        items: {
          description: 'PlanSpec defines a plan spec for pod to node assignments for a pod-set.',
          type: 'object',
          required: ['node', 'pod'],
          properties: { node: { type: 'string' }, pod: { type: 'string' } },
        },
      },
    },
  },
  'SchedulePlanStatus defines the plan status for a pod-set.',
  'SchedulePlan is the Schema for the schedulePlan api',
);

export const PLANNER_CRDS: readonly ApiObject[] = [SCHEDULE_TRIGGER_CRD, SCHEDULE_PLAN_CRD];

/**
 * A SchedulePlan as Podplan writes it to a cluster: its `status` moved into the
 * PLAN_STATUS_ANNOTATION annotation (see the top of this file).
 */
export function planForCluster(plan: ApiObject): ApiObject {
  const { status, ...rest } = plan as ApiObject & { status?: unknown };
  if (status === undefined) return plan;
  const annotations = {
    ...((plan.metadata.annotations as Record<string, string> | undefined) ?? {}),
    [PLAN_STATUS_ANNOTATION]: JSON.stringify(status),
  };
  return { ...rest, metadata: { ...plan.metadata, annotations } } as ApiObject;
}

export type CrdAction = 'create' | 'update' | 'unchanged';

export interface CrdStep {
  readonly name: string;
  readonly action: CrdAction;
  /** The object to write (with the existing resourceVersion for an update). */
  readonly object: ApiObject;
}

/** Whether everything `want` sets is in `have` with the same value (the server adds defaults). */
function covers(have: unknown, want: unknown): boolean {
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => covers(have[i], w));
  if (typeof want === 'object' && want !== null) {
    if (typeof have !== 'object' || have === null || Array.isArray(have)) return false;
    return Object.entries(want).every(([k, v]) => covers((have as Record<string, unknown>)[k], v));
  }
  return have === want;
}

/** What installing the CRDs would do, per CRD, read from the cluster (nothing is written). */
export async function planCrdInstall(http: KubeHttp): Promise<Result<CrdStep[], string>> {
  const steps: CrdStep[] = [];
  for (const want of PLANNER_CRDS) {
    const name = want.metadata.name;
    const existing = await http.request<ApiObject>(`${CRD_COLLECTION}/${name}`);
    if (!existing.ok && existing.error.kind !== 'not-found')
      return err(`reading CustomResourceDefinition ${name}: ${existing.error.message}`);
    if (!existing.ok) {
      steps.push({ name, action: 'create', object: want });
      continue;
    }
    const have = existing.value as ApiObject & { spec?: unknown };
    const unchanged = covers(have.spec, (want as ApiObject & { spec: unknown }).spec);
    steps.push({
      name,
      action: unchanged ? 'unchanged' : 'update',
      object: { ...want, metadata: { ...want.metadata, resourceVersion: have.metadata.resourceVersion } },
    });
  }
  return ok(steps);
}

/** Carries the steps out (create, or update with the resourceVersion read); the first failure stops. */
export async function applyCrdInstall(http: KubeHttp, steps: readonly CrdStep[]): Promise<Result<void, string>> {
  for (const step of steps) {
    if (step.action === 'unchanged') continue;
    const written =
      step.action === 'create'
        ? await http.request(CRD_COLLECTION, { method: 'POST', body: step.object })
        : await http.request(`${CRD_COLLECTION}/${step.name}`, { method: 'PUT', body: step.object });
    if (!written.ok)
      return err(`${step.action === 'create' ? 'creating' : 'updating'} CustomResourceDefinition ${step.name}: ${written.error.message}`);
  }
  return ok(undefined);
}
