// Decoders for the resource.k8s.io/v1 kinds of Dynamic Resource Allocation (src/engine/api/dra.ts):
// ResourceClaim, ResourceClaimTemplate, DeviceClass and ResourceSlice, field for field, with the
// checks the API server makes on the fields the allocator reads (one of exactly / firstAvailable,
// one node selection of a slice, attribute values with exactly one type, quantities that parse).
import type {
  AllocatedDeviceStatus,
  AllocationResult,
  Device,
  DeviceAttribute,
  DeviceCapacity,
  DeviceClass,
  DeviceCondition,
  DeviceConstraint,
  DeviceRequest,
  DeviceRequestAllocationResult,
  DeviceSelector,
  DeviceSubRequest,
  DeviceTaint,
  DeviceTaintRule,
  DeviceToleration,
  ExactDeviceRequest,
  ResourceClaim,
  ResourceClaimConsumerReference,
  ResourceClaimSpec,
  ResourceClaimTemplate,
  ResourceSlice,
} from '../engine/api/dra';
import { parseQuantity } from '../engine/api/quantity';
import { compileSelector, newSelectorError, selectorCost, TOO_COMPLEX } from '../engine/plugins/dynamicresources/cel';
import { anyValue, arrayOf, boolean, integer, object, oneOf, recordOf, refine, string, wrongType, type Decoder } from './decode';
import { nodeSelector, objectMeta, templateMeta } from './kube';
import { joinPath } from './source-map';

const stringList = arrayOf(string);

const quantity: Decoder<string> = (v, path, ctx) => {
  if (typeof v !== 'string' && typeof v !== 'number') return wrongType(ctx, path, 'a quantity such as 40Gi', v);
  const text = String(v);
  const q = parseQuantity(text);
  if (!q.ok) return ctx.report(path, 'bad-quantity', q.error);
  return text;
};

const taintEffect = oneOf(['NoSchedule', 'NoExecute', 'None'] as const);

const deviceTaint = object<DeviceTaint>({ key: string, value: string, effect: taintEffect, timeAdded: string }, ['key', 'effect']);

const deviceToleration = object<DeviceToleration>({
  key: string,
  operator: oneOf(['Exists', 'Equal'] as const),
  value: string,
  effect: taintEffect,
  tolerationSeconds: integer(),
});

/**
 * A CEL selector: an expression that does not compile, or whose estimated cost exceeds the limit
 * (kube-apiserver's `Forbidden: too complex, exceeds cost limit`), is an error where it is written
 * (the API server refuses it). An admitted object's (one with a uid: the cluster stored it) is
 * checked as the scheduler compiles it: neither its estimated cost nor the functions new
 * expressions lack (`includes`) are held against it; evaluation applies the runtime cost limit.
 */
const deviceSelector = refine(
  object<DeviceSelector>({ cel: object<NonNullable<DeviceSelector['cel']>>({ expression: string }, ['expression']) }, ['cel']),
  (sel, path, ctx) => {
    const expression = sel.cel?.expression;
    if (expression === undefined) return;
    const compiled = compileSelector(expression);
    const at = joinPath(joinPath(path, 'cel'), 'expression');
    const error = compiled.ok ? (ctx.admitted ? undefined : newSelectorError(expression)) : compiled.error;
    if (error !== undefined) ctx.report(at, 'bad-value', `the CEL expression does not compile: ${error}`);
    else if (!ctx.admitted && selectorCost(expression)?.exceeds === true) ctx.report(at, 'bad-value', TOO_COMPLEX);
  },
);

const selectors = arrayOf(deviceSelector);

const allocationMode = oneOf(['ExactCount', 'All'] as const);

const capacityRequirements = object<NonNullable<ExactDeviceRequest['capacity']>>({ requests: recordOf(quantity) });

const exactRequest = object<ExactDeviceRequest>(
  {
    deviceClassName: string,
    selectors,
    allocationMode,
    count: integer(1),
    adminAccess: boolean,
    tolerations: arrayOf(deviceToleration),
    capacity: capacityRequirements,
  },
  ['deviceClassName'],
);

const subRequest = object<DeviceSubRequest>(
  {
    name: string,
    deviceClassName: string,
    selectors,
    allocationMode,
    count: integer(1),
    tolerations: arrayOf(deviceToleration),
    capacity: capacityRequirements,
  },
  ['name', 'deviceClassName'],
);

const deviceRequest = refine(
  object<DeviceRequest>({ name: string, exactly: exactRequest, firstAvailable: arrayOf(subRequest) }, ['name']),
  (r, path, ctx) => {
    const firstAvailable = r.firstAvailable !== undefined && r.firstAvailable.length > 0;
    if ((r.exactly !== undefined) === firstAvailable)
      ctx.report(path, 'bad-value', 'exactly one of exactly and firstAvailable must be set');
    if ((r.firstAvailable?.length ?? 0) > 8) ctx.report(joinPath(path, 'firstAvailable'), 'bad-value', `must have at most 8 items`);
  },
);

const constraint = refine(
  object<DeviceConstraint>({ requests: stringList, matchAttribute: string, distinctAttribute: string }),
  (c, path, ctx) => {
    if ((c.matchAttribute === undefined) === (c.distinctAttribute === undefined))
      ctx.report(path, 'bad-value', 'exactly one of matchAttribute and distinctAttribute must be set');
  },
);

const anyList: Decoder<readonly unknown[]> = (v, path, ctx) => (Array.isArray(v) ? v : wrongType(ctx, path, 'a list', v));

export const resourceClaimSpec = object<ResourceClaimSpec>({
  devices: object<NonNullable<ResourceClaimSpec['devices']>>({
    requests: arrayOf(deviceRequest),
    constraints: arrayOf(constraint),
    config: anyList,
  }),
});

const allocationResultItem = object<DeviceRequestAllocationResult>(
  {
    request: string,
    driver: string,
    pool: string,
    device: string,
    adminAccess: boolean,
    tolerations: arrayOf(deviceToleration),
    bindingConditions: stringList,
    bindingFailureConditions: stringList,
    shareID: string,
    consumedCapacity: recordOf(quantity),
  },
  ['request', 'driver', 'pool', 'device'],
);

const allocationResult = object<AllocationResult>({
  devices: object<NonNullable<AllocationResult['devices']>>({ results: arrayOf(allocationResultItem), config: anyList }),
  nodeSelector,
  allocationTimestamp: string,
});

const deviceCondition = object<DeviceCondition>(
  {
    type: string,
    status: oneOf(['True', 'False', 'Unknown'] as const),
    reason: string,
    message: string,
    lastTransitionTime: string,
    observedGeneration: integer(0),
  },
  ['type', 'status'],
);

const allocatedDeviceStatus = object<AllocatedDeviceStatus>(
  {
    driver: string,
    pool: string,
    device: string,
    shareID: string,
    conditions: arrayOf(deviceCondition),
    data: anyValue,
    networkData: anyValue,
  },
  ['driver', 'pool', 'device'],
);

const consumerReference = object<ResourceClaimConsumerReference>({ apiGroup: string, resource: string, name: string, uid: string }, [
  'resource',
  'name',
  'uid',
]);

export const resourceClaim = object<ResourceClaim>(
  {
    apiVersion: string,
    kind: oneOf(['ResourceClaim'] as const),
    metadata: objectMeta,
    spec: resourceClaimSpec,
    status: object<NonNullable<ResourceClaim['status']>>({
      allocation: allocationResult,
      reservedFor: arrayOf(consumerReference),
      devices: arrayOf(allocatedDeviceStatus),
    }),
  },
  ['metadata', 'spec'],
);

export const resourceClaimTemplate = object<ResourceClaimTemplate>(
  {
    apiVersion: string,
    kind: oneOf(['ResourceClaimTemplate'] as const),
    metadata: objectMeta,
    spec: object<ResourceClaimTemplate['spec']>({ metadata: templateMeta, spec: resourceClaimSpec }, ['spec']),
  },
  ['metadata', 'spec'],
);

export const deviceClass = object<DeviceClass>(
  {
    apiVersion: string,
    kind: oneOf(['DeviceClass'] as const),
    metadata: objectMeta,
    spec: object<DeviceClass['spec']>({ selectors, config: anyList, extendedResourceName: string }),
  },
  ['metadata', 'spec'],
);

/** An attribute: exactly one of int, bool, string, version. */
const deviceAttribute = refine(object<DeviceAttribute>({ int: integer(), bool: boolean, string, version: string }), (a, path, ctx) => {
  const set = [a.int, a.bool, a.string, a.version].filter((x) => x !== undefined).length;
  if (set !== 1) ctx.report(path, 'bad-value', 'exactly one of int, bool, string and version must be set');
});

const requestPolicy = refine(
  object<NonNullable<DeviceCapacity['requestPolicy']>>({
    default: quantity,
    validValues: arrayOf(quantity),
    validRange: object<NonNullable<NonNullable<DeviceCapacity['requestPolicy']>['validRange']>>(
      { min: quantity, max: quantity, step: quantity },
      ['min'],
    ),
  }),
  (p, path, ctx) => {
    if (p.validValues !== undefined && p.validRange !== undefined)
      ctx.report(path, 'bad-value', 'only one of validValues and validRange may be set');
  },
);

const deviceCapacity = object<DeviceCapacity>({ value: quantity, requestPolicy }, ['value']);

const counters = recordOf(object<{ value: string }>({ value: quantity }, ['value']));

const device = object<Device>(
  {
    name: string,
    attributes: recordOf(deviceAttribute),
    capacity: recordOf(deviceCapacity),
    taints: arrayOf(deviceTaint),
    nodeName: string,
    nodeSelector,
    allNodes: boolean,
    consumesCounters: arrayOf(
      object<NonNullable<Device['consumesCounters']>[number]>({ counterSet: string, counters }, ['counterSet', 'counters']),
    ),
    allowMultipleAllocations: boolean,
    bindingConditions: stringList,
    bindingFailureConditions: stringList,
    bindsToNode: boolean,
  },
  ['name'],
);

const sliceSpec = refine(
  object<ResourceSlice['spec']>(
    {
      driver: string,
      pool: object<ResourceSlice['spec']['pool']>({ name: string, generation: integer(0), resourceSliceCount: integer(1) }, [
        'name',
        'generation',
        'resourceSliceCount',
      ]),
      nodeName: string,
      nodeSelector,
      allNodes: boolean,
      perDeviceNodeSelection: boolean,
      devices: arrayOf(device),
      sharedCounters: arrayOf(
        object<NonNullable<ResourceSlice['spec']['sharedCounters']>[number]>({ name: string, counters }, ['name', 'counters']),
      ),
    },
    ['driver', 'pool'],
  ),
  (s, path, ctx) => {
    const chosen = [s.nodeName !== undefined, s.nodeSelector !== undefined, s.allNodes === true, s.perDeviceNodeSelection === true].filter(
      Boolean,
    ).length;
    if (chosen !== 1)
      ctx.report(path, 'bad-value', 'exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set');
    // Partitionable devices: a slice publishes devices or the pool's shared counters, not both.
    if (s.sharedCounters !== undefined && s.devices !== undefined)
      ctx.report(path, 'bad-value', 'only one of sharedCounters and devices may be set');
    if ((s.sharedCounters ?? []).length > 8) ctx.report(joinPath(path, 'sharedCounters'), 'bad-value', 'must have at most 8 items');
    const sets = new Set<string>();
    for (const [i, set] of (s.sharedCounters ?? []).entries()) {
      if (sets.has(set.name))
        ctx.report(joinPath(joinPath(joinPath(path, 'sharedCounters'), i), 'name'), 'bad-value', `duplicate counter set ${set.name}`);
      sets.add(set.name);
    }
    for (const [i, d] of (s.devices ?? []).entries()) {
      const consumes = d.consumesCounters ?? [];
      const at = joinPath(joinPath(joinPath(path, 'devices'), i), 'consumesCounters');
      if (consumes.length > 2) ctx.report(at, 'bad-value', 'must have at most 2 items');
      const named = new Set<string>();
      for (const [j, c] of consumes.entries()) {
        if (named.has(c.counterSet))
          ctx.report(joinPath(joinPath(at, j), 'counterSet'), 'bad-value', `duplicate counter set ${c.counterSet}`);
        named.add(c.counterSet);
      }
    }
  },
);

/** DRADeviceTaintRules: a selector (driver, pool, device) and the one taint it adds to the devices it matches. */
export const deviceTaintRule = object<DeviceTaintRule>(
  {
    apiVersion: string,
    kind: oneOf(['DeviceTaintRule'] as const),
    metadata: objectMeta,
    spec: object<DeviceTaintRule['spec']>(
      {
        deviceSelector: object<NonNullable<DeviceTaintRule['spec']['deviceSelector']>>({ driver: string, pool: string, device: string }),
        taint: deviceTaint,
      },
      ['taint'],
    ),
    status: anyValue,
  },
  ['metadata', 'spec'],
);

export const resourceSlice = object<ResourceSlice>(
  { apiVersion: string, kind: oneOf(['ResourceSlice'] as const), metadata: objectMeta, spec: sliceSpec },
  ['metadata', 'spec'],
);
