// The DRA selector environment's share of the cost model: the `device` variable's declared type and
// the sizes k8s.io/dynamic-resource-allocation v0.37.2 cel/compile.go declares for it (1.37's default
// features: DRAConsumableCapacity on, DRAListTypeAttributes off: attributes are scalars of at most
// DeviceAttributeMaxValueLength), with its sizeEstimator's walk of an expression's path.
import { QUANTITY_T, T, type AstNode, type Estimate } from './cel-cost';

/** apiservercel.DeclType as far as the size estimator reads it. */
interface DeclNode {
  readonly max: bigint;
  readonly fields?: Readonly<Record<string, DeclNode>>;
  readonly key?: DeclNode;
  readonly elem?: DeclNode;
}

// k8s.io/api resource/v1 limits.
const DRIVER_NAME_MAX_LENGTH = 63n;
const DEVICE_MAX_DOMAIN_LENGTH = 63n;
const DEVICE_MAX_ID_LENGTH = 32n;
const DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH = 64n;
const MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32n;

const domain: DeclNode = { max: DEVICE_MAX_DOMAIN_LENGTH };
const id: DeclNode = { max: DEVICE_MAX_ID_LENGTH };
const attribute: DeclNode = { max: DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH };
const innerAttributes: DeclNode = { max: MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE, key: id, elem: attribute };
const quantity: DeclNode = { max: 0n };
const innerCapacity: DeclNode = { max: MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE, key: id, elem: quantity };
const device: DeclNode = {
  max: 0n,
  fields: {
    driver: { max: DRIVER_NAME_MAX_LENGTH },
    allowMultipleAllocations: { max: 1n },
    attributes: { max: MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE, key: domain, elem: innerAttributes },
    capacity: { max: MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE, key: domain, elem: innerCapacity },
  },
};

/** The `device` variable's CEL type (kubernetes.DRADevice with allowMultipleAllocations). */
export const DRA_VARIABLES = { device: T.struct('kubernetes.DRADevice') };
export const DRA_STRUCT_FIELDS = {
  'kubernetes.DRADevice': {
    driver: T.string,
    allowMultipleAllocations: T.bool,
    attributes: T.map(T.string, T.map(T.string, T.any)),
    capacity: T.map(T.string, T.map(T.string, QUANTITY_T)),
  },
};

/** compile.go's sizeEstimator.EstimateSize: the declared maximum at the end of the node's path. */
export function draEstimateSize(node: AstNode): Estimate | undefined {
  const path = node.path;
  if (!path || path.length === 0 || path[0] !== 'device') return undefined;
  let current = device;
  for (const name of path.slice(1)) {
    if (name === '@items' || name === '@values') {
      if (!current.elem) return undefined;
      current = current.elem;
    } else if (name === '@keys') {
      if (!current.key) return undefined;
      current = current.key;
    } else {
      const field = current.fields?.[name];
      if (field) current = field;
      // Any name in an attribute map reads an attribute.
      else if (current.elem === attribute) current = attribute;
      else return undefined;
    }
  }
  return { min: 0n, max: current.max };
}
