// The Dynamic Resource Allocation families of the differential suite: clusters whose nodes reach
// GPUs (node-local ResourceSlices) and NICs (network-attached slices: a zone's nodeSelector or all
// nodes), DeviceClasses with CEL selectors, and pods with ResourceClaims by name or from templates
// (with the claim the controller created, owned by the pod), claims allocated before and reserved by
// running pods, shared claims. Each family leans on one part: claims, templates, classes, slices,
// selectors, constraints, prioritized lists (firstAvailable), shared claims.
import { seededRandom } from '../../../src/engine/api/random';
import { Gen, type FidelityCase, type K8sObject } from './generate';

export const DRA_FAMILIES = [
  'dra-claims',
  'dra-templates',
  'dra-classes',
  'dra-slices',
  'dra-selectors',
  'dra-constraints',
  'dra-prioritized',
  'dra-shared',
  'dra-extended',
  'dra-partitionable',
  'dra-taint-rules',
  'dra-binding',
  'dra-consumable',
] as const;
export type DraFamily = (typeof DRA_FAMILIES)[number];

const GPU = 'gpu.example.com';
const EXTENDED = 'example.com/gpu';
const NIC = 'nic.example.com';
const ZONES = ['zone-a', 'zone-b'];
const MODELS = ['a100', 'h100', 'l4'];
const MEMORY: Record<string, string> = { a100: '80Gi', h100: '80Gi', l4: '24Gi' };
const VERSIONS = ['1.2.3', '1.4.0', '2.0.0-rc.1', '2.0.0'];

interface Knobs {
  readonly nodes: readonly [number, number];
  readonly pending: readonly [number, number];
  /** How likely a node has a GPU slice. */
  readonly gpuNodes: number;
  readonly missingClaim: number;
  readonly template: number;
  readonly missingClass: number;
  readonly selectors: number;
  readonly constraints: number;
  readonly firstAvailable: number;
  readonly shared: number;
  readonly allocated: number;
  readonly taints: number;
  readonly oddSlices: number;
  readonly all: number;
  /** How likely a pending pod asks for example.com/gpu (served by a DeviceClass or a device plugin). */
  readonly extended: number;
  /** How likely a GPU node's pool is partitionable (DRAPartitionableDevices: shared counters, devices consuming them). */
  readonly partitionable: number;
  /** How likely such a pool is odd: its counters missing, on another node or all nodes, or a consumption of an unknown counter. */
  readonly oddCounters: number;
  /** How many DeviceTaintRules at most (DRADeviceTaintRules), each as likely as not. */
  readonly taintRules: number;
  /** How likely a GPU, and an allocated claim, has binding conditions (DRADeviceBindingConditions). */
  readonly binding: number;
  /** How likely a GPU allows multiple allocations with a request policy on its memory (DRAConsumableCapacity). */
  readonly consumable: number;
  /** How likely a request's GPU selectors get one that fails on some devices (RUNTIME_ERROR_SELECTORS). */
  readonly runtimeErrors: number;
}

const BASE: Knobs = {
  nodes: [2, 6],
  pending: [1, 6],
  gpuNodes: 0.7,
  missingClaim: 0.03,
  template: 0.3,
  missingClass: 0.03,
  selectors: 0.3,
  constraints: 0.15,
  firstAvailable: 0.15,
  shared: 0.1,
  allocated: 0.15,
  taints: 0.1,
  oddSlices: 0.1,
  all: 0.04,
  extended: 0,
  partitionable: 0,
  oddCounters: 0,
  taintRules: 0,
  binding: 0,
  consumable: 0,
  runtimeErrors: 0,
};

const KNOBS: Record<DraFamily, Knobs> = {
  'dra-claims': { ...BASE, missingClaim: 0.1, pending: [2, 8] },
  'dra-templates': { ...BASE, template: 0.9 },
  'dra-classes': { ...BASE, missingClass: 0.12, selectors: 0.2 },
  'dra-slices': { ...BASE, oddSlices: 0.6, gpuNodes: 0.8, taints: 0.3, all: 0.1 },
  'dra-selectors': { ...BASE, selectors: 0.9, runtimeErrors: 0.2 },
  'dra-constraints': { ...BASE, constraints: 0.8 },
  'dra-prioritized': { ...BASE, firstAvailable: 0.8 },
  'dra-shared': { ...BASE, shared: 0.6, allocated: 0.6, pending: [2, 7] },
  'dra-extended': { ...BASE, extended: 0.8, template: 0.1, pending: [2, 7] },
  'dra-partitionable': { ...BASE, partitionable: 0.8, oddCounters: 0.3, allocated: 0.3, pending: [2, 7] },
  'dra-taint-rules': { ...BASE, taintRules: 4, taints: 0.3, pending: [2, 7] },
  'dra-binding': { ...BASE, binding: 0.6, allocated: 0.7, shared: 0.7, pending: [2, 7] },
  'dra-consumable': { ...BASE, consumable: 0.7, allocated: 0.5, pending: [3, 8] },
};

/**
 * A device shared by several claims (DRAConsumableCapacity): allowMultipleAllocations and a request
 * policy on its memory (a default and a range with a step, or a list of values, or none); the
 * defaults and values keep to their policy.
 */
function consumableMemory(g: Gen, memory: string): Record<string, unknown> {
  const gib = Number(memory.replace('Gi', ''));
  const kind = g.int(0, 2);
  if (kind === 0)
    return {
      value: memory,
      requestPolicy: {
        default: '8Gi',
        validRange: { min: '4Gi', step: '4Gi', ...(g.chance(0.5) ? { max: `${Math.floor(gib / 2 / 4) * 4}Gi` } : {}) },
      },
    };
  if (kind === 1) return { value: memory, requestPolicy: { default: '6Gi', validValues: ['6Gi', '12Gi', '20Gi'] } };
  return { value: memory };
}

/** Two fixed times either side of any day the suite runs on: an allocation at the first has timed out (10 minutes), at the second not. */
const LONG_AGO = '2020-01-01T00:00:00Z';
const FAR_AHEAD = '2099-01-01T00:00:00Z';

// Devices with binding conditions are not published here: a pod allocated one waits in upstream's
// PreBind until its driver reports them (up to ten minutes), which Podplan does not model.

/**
 * An allocated claim's binding state (DRADeviceBindingConditions, DRAResourceClaimDeviceStatus):
 * its results name binding conditions (and sometimes failure conditions), its allocation a time
 * long ago, far ahead or none, and its status per device the conditions a driver reported, true or
 * false, or nothing yet.
 */
function bindingState(
  g: Gen,
  node: string,
  taken: readonly string[],
): { results: Record<string, unknown>[]; extra: Record<string, unknown>; devices: unknown[] } {
  const failure = g.chance(0.7);
  const results = taken.map((device) => ({
    request: 'req-0',
    driver: GPU,
    pool: node,
    device,
    bindingConditions: ['attached'],
    ...(failure ? { bindingFailureConditions: ['failed'] } : {}),
  }));
  let when = g.int(0, 2);
  const devices: { device: string; conditions: Record<string, unknown>[] }[] = [];
  for (const device of taken) {
    if (!g.chance(0.8)) continue;
    const conditions: Record<string, unknown>[] = [];
    for (const type of ['attached', 'failed']) {
      if (!g.chance(0.7)) continue;
      conditions.push({
        type,
        status: g.chance(type === 'failed' ? 0.3 : 0.6) ? 'True' : 'False',
        reason: 'Reported',
        message: '',
        lastTransitionTime: LONG_AGO,
      });
    }
    devices.push({ device, conditions });
  }
  // A claim neither bound, failed nor timed out makes upstream's PreBind wait for it (up to ten
  // minutes), which Podplan does not model: such a claim is given an allocation long ago.
  // Device by device, as the scheduler looks: no status yet or a condition not true stops the look.
  let waits = false;
  for (const device of taken) {
    const reported = devices.find((d) => d.device === device);
    const isTrue = (type: string) => reported?.conditions.find((c) => c.type === type)?.status === 'True';
    if (!reported) waits = true;
    else if (failure && isTrue('failed')) break;
    else if (!isTrue('attached')) waits = true;
    if (waits) break;
  }
  if (waits) when = 0;
  const extra = when === 2 ? {} : { allocationTimestamp: when === 0 ? LONG_AGO : FAR_AHEAD };
  return { results, extra, devices: devices.map((d) => ({ driver: GPU, pool: node, ...d })) };
}

/**
 * DeviceTaintRules (DRADeviceTaintRules): selectors by driver, pool (a node's GPU pool or a fabric)
 * and device name, alone or together, one without a selector (matches nothing), with the taint keys
 * the requests' tolerations name and every effect.
 */
function taintRules(g: Gen, nodes: readonly string[], knobs: Knobs): K8sObject[] {
  const rules: K8sObject[] = [];
  for (let i = 0; i < knobs.taintRules; i++) {
    if (!g.chance(0.5)) continue;
    const selector: Record<string, string> = {};
    if (g.chance(0.6)) selector.driver = g.chance(0.8) ? GPU : NIC;
    if (g.chance(0.5)) selector.pool = g.chance(0.8) && nodes.length > 0 ? g.pick(nodes) : g.pick(['fabric-zone-a', 'fabric-global']);
    if (g.chance(0.5)) selector.device = g.pick(['gpu-0', 'gpu-1', 'gpu-2', 'nic-0', 'gnic-1']);
    rules.push({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceTaintRule',
      metadata: { name: `rule-${i}` },
      spec: {
        ...(g.chance(0.9) ? { deviceSelector: selector } : {}),
        taint: { key: g.pick(['unhealthy', 'maintenance']), value: 'true', effect: g.pick(['NoSchedule', 'NoExecute', 'None']) },
      },
    });
  }
  return rules;
}

/**
 * A partitionable GPU pool (DRAPartitionableDevices) on a node: a slice of shared counters, one set
 * per physical GPU (its memory and seven compute units), and a slice of devices that consume them:
 * the whole GPU, two halves and three sevenths, each with the attributes the selectors read. Odd
 * pools: the counters not published yet (incomplete), published for all nodes or on another node
 * (the pool complete only with slices that do not reach this node), or a device consuming a counter
 * the sets do not have (an invalid pool).
 */
function partitionablePool(
  g: Gen,
  node: string,
  nodes: readonly string[],
  model: string,
  knobs: Knobs,
): { slices: K8sObject[]; devices: string[] } {
  const memory = MEMORY[model]!;
  const gib = Number(memory.replace('Gi', ''));
  const physical = g.int(1, 2);
  const devices: Record<string, unknown>[] = [];
  const sets: Record<string, unknown>[] = [];
  let index = 0;
  const odd = g.chance(knobs.oddCounters) ? g.int(0, 3) : -1;
  for (let p = 0; p < physical; p++) {
    sets.push({ name: `gpu-${p}-counters`, counters: { memory: { value: memory }, compute: { value: '7' } } });
    const part = (name: string, mem: string, compute: number) => {
      const device = gpuDevice(g, index++, model, knobs);
      device.name = name;
      device.capacity = { memory: { value: mem } };
      device.attributes = { ...(device.attributes as Record<string, unknown>), profile: { string: name.split('-')[2] ?? 'whole' } };
      device.consumesCounters = [
        { counterSet: `gpu-${p}-counters`, counters: { memory: { value: mem }, compute: { value: `${compute}` } } },
      ];
      devices.push(device);
    };
    part(`gpu-${p}`, memory, 7);
    for (let h = 0; h < 2; h++) part(`gpu-${p}-half-${h}`, `${gib / 2}Gi`, 3);
    for (let q = 0; q < 3; q++) part(`gpu-${p}-seventh-${q}`, `${Math.floor((gib * 1024) / 7)}Mi`, 1);
  }
  if (odd === 3) {
    const last = devices[devices.length - 1]!;
    last.consumesCounters = [{ counterSet: 'gpu-0-counters', counters: { power: { value: '100' } } }];
  }
  const counters = slice(`${node}-gpu-counters`, GPU, node, { nodeName: node }, [], 1, 2);
  const spec = counters.spec as Record<string, unknown>;
  delete spec.devices;
  spec.sharedCounters = sets;
  if (odd === 1) {
    delete spec.nodeName;
    spec.allNodes = true;
  }
  if (odd === 2) spec.nodeName = g.pick(nodes);
  const slices = [slice(`${node}-gpu`, GPU, node, { nodeName: node }, devices, 1, 2)];
  if (odd !== 0) slices.push(counters);
  return { slices, devices: devices.map((d) => d.name as string) };
}

function classes(): K8sObject[] {
  const cls = (name: string, expression: string): K8sObject => ({
    apiVersion: 'resource.k8s.io/v1',
    kind: 'DeviceClass',
    metadata: { name },
    spec: { selectors: [{ cel: { expression } }] },
  });
  return [
    cls('gpu', `device.driver == "${GPU}"`),
    cls('large-gpu', `device.driver == "${GPU}" && device.capacity["${GPU}"].memory.compareTo(quantity("40Gi")) >= 0`),
    cls('new-driver-gpu', `device.driver == "${GPU}" && device.attributes["${GPU}"].driverVersion.isGreaterThan(semver("1.3.0"))`),
    cls('nic', `device.driver == "${NIC}"`),
  ];
}

/** Request selectors, each safe on every device of its class. */
export const GPU_SELECTORS = [
  `device.attributes["${GPU}"].model == "a100"`,
  `device.attributes["${GPU}"].model != "l4"`,
  `device.attributes["${GPU}"].numa == 0`,
  `device.attributes["${GPU}"].healthy`,
  `device.capacity["${GPU}"].memory.isGreaterThan(quantity("30Gi"))`,
  `device.attributes["${GPU}"].driverVersion.major() >= 2`,
  `"model" in device.attributes["${GPU}"] && device.attributes["${GPU}"].model.startsWith("h")`,
  `device.attributes["${GPU}"].index < 2`,
  `!("nope" in device.attributes["other.example.com"])`,
  // The regex library and cel.bind on one string attribute: cheap enough for kube-apiserver's cost
  // limit (test/real/cel.test.ts), no iteration over lists.
  `device.attributes["${GPU}"].model.find("[0-9]+") == "100"`,
  `cel.bind(gpu, device.attributes["${GPU}"], gpu.model.findAll("[a-z]", 1) == ["h"] || gpu.numa == 1)`,
  // The lists, sets, ip and cidr libraries, as 7239678 had them but for the one kube-apiserver refuses
  // as too complex (ip() of string() of an int: no size bound); Podplan's manifest check refuses it too.
  `[device.attributes["${GPU}"].numa, device.attributes["${GPU}"].index].max() >= 1`,
  `[0, 2, 4].indexOf(device.attributes["${GPU}"].index) >= 0`,
  `sets.contains([0, 1], [device.attributes["${GPU}"].numa])`,
  `cidr("10.0.0.0/31").containsIP("10.0.0." + string(device.attributes["${GPU}"].index))`,
  // CEL's optional syntax (a.?f, a[?k], [?e], {?k: v}) and selects and indexes on optionals.
  `device.attributes["${GPU}"].?model.orValue("") == "a100"`,
  `device.attributes["${GPU}"][?"numa"].orValue(1) == 0`,
  `[?device.attributes["${GPU}"].?model, ?device.attributes["${GPU}"].?nope].size() == 1 && device.attributes["${GPU}"].healthy`,
  `{?"i": device.attributes["${GPU}"].?index}[?"i"].orValue(9) < 2`,
  `device.capacity[?"${GPU}"].?memory.optMap(m, m.isGreaterThan(quantity("30Gi"))).orValue(false)`,
  `optional.of(device.attributes["${GPU}"]).model.value().startsWith("h")`,
  `has(optional.of(device.attributes["${GPU}"]).driverVersion) && device.attributes["${GPU}"].?driverVersion.value().major() >= 2`,
];
/**
 * GPU selectors that fail on some devices at evaluation (a runtime error: the allocator's `CEL
 * runtime error: …`, an Error that ends the cycle, compared on its words) and answer on others.
 */
export const RUNTIME_ERROR_SELECTORS = [
  `10 / device.attributes["${GPU}"].numa > 1`,
  `10 % device.attributes["${GPU}"].index == 0`,
  `device.attributes["${GPU}"].model.charAt(device.attributes["${GPU}"].index + 2) != "x"`,
  `device.attributes["${GPU}"].model.substring(device.attributes["${GPU}"].index + 3) != "x"`,
  `int(device.attributes["${GPU}"].model) > 0 || device.attributes["${GPU}"].healthy`,
  `double(device.attributes["${GPU}"].model.substring(1)) > 50.0`,
  `uint(device.attributes["${GPU}"].numa - 1) >= 0u`,
  `9223372036854775807 - device.attributes["${GPU}"].index + 2 > 0`,
  `[10, 20][device.attributes["${GPU}"].index] > 5`,
  `{0: true}[device.attributes["${GPU}"].numa]`,
  `semver(device.attributes["${GPU}"].model).major() > 0`,
  `device.attributes["${GPU}"].nope == 1 || device.attributes["${GPU}"].healthy`,
  `"%d".format([dyn(device.attributes["${GPU}"].model)]) != ""`,
];
export const NIC_SELECTORS = [`device.attributes["${NIC}"].speed >= 100`, `device.attributes["${NIC}"].rdma`];

function gpuDevice(g: Gen, i: number, model: string, knobs: Knobs): Record<string, unknown> {
  const device: Record<string, unknown> = {
    name: `gpu-${i}`,
    attributes: {
      model: { string: model },
      numa: { int: i % 2 },
      index: { int: i },
      healthy: { bool: g.chance(0.85) },
      driverVersion: { version: g.pick(VERSIONS) },
    },
    capacity: { memory: { value: MEMORY[model] } },
  };
  if (g.chance(knobs.taints))
    device.taints = [{ key: g.pick(['unhealthy', 'maintenance']), value: 'true', effect: g.pick(['NoSchedule', 'NoExecute', 'None']) }];
  if (knobs.consumable > 0 && g.chance(knobs.consumable)) {
    device.allowMultipleAllocations = true;
    device.capacity = { memory: consumableMemory(g, MEMORY[model]!) };
  }
  return device;
}

function slice(
  name: string,
  driver: string,
  pool: string,
  where: Record<string, unknown>,
  devices: unknown[],
  generation = 1,
  count = 1,
): K8sObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name },
    spec: { driver, pool: { name: pool, generation, resourceSliceCount: count }, ...where, devices },
  };
}

interface World {
  readonly objects: K8sObject[];
  /** Per node, its GPU device names (for pre-allocated claims). */
  readonly gpus: Map<string, string[]>;
  /** The GPUs (`node/device`) that allow multiple allocations. */
  readonly multi: Set<string>;
}

function slices(g: Gen, nodes: readonly string[], knobs: Knobs): World {
  const objects: K8sObject[] = [];
  const gpus = new Map<string, string[]>();
  const multi = new Set<string>();
  for (const node of nodes) {
    if (!g.chance(knobs.gpuNodes)) continue;
    const model = g.pick(MODELS);
    if (knobs.partitionable > 0 && g.chance(knobs.partitionable)) {
      const pool = partitionablePool(g, node, nodes, model, knobs);
      objects.push(...pool.slices);
      gpus.set(node, pool.devices);
      continue;
    }
    const n = g.int(1, 4);
    const devices = Array.from({ length: n }, (_, i) => gpuDevice(g, i, model, knobs));
    for (const d of devices) if (d.allowMultipleAllocations === true) multi.add(`${node}/${d.name as string}`);
    gpus.set(
      node,
      devices.map((d) => d.name as string),
    );
    if (g.chance(knobs.oddSlices)) {
      const odd = g.int(0, 3);
      if (odd === 0 && n > 1) {
        // Two slices in the pool.
        objects.push(slice(`${node}-gpu-b`, GPU, node, { nodeName: node }, devices.slice(1), 1, 2));
        objects.push(slice(`${node}-gpu-a`, GPU, node, { nodeName: node }, devices.slice(0, 1), 1, 2));
        continue;
      }
      if (odd === 1) {
        // An incomplete pool: one of two slices published so far.
        objects.push(slice(`${node}-gpu`, GPU, node, { nodeName: node }, devices, 1, 2));
        gpus.delete(node);
        continue;
      }
      if (odd === 2) {
        // An older generation beside the current one.
        objects.push(slice(`${node}-gpu-old`, GPU, node, { nodeName: node }, [gpuDevice(g, 9, 'l4', knobs)], 1, 1));
        objects.push(slice(`${node}-gpu`, GPU, node, { nodeName: node }, devices, 2, 1));
        continue;
      }
    }
    objects.push(slice(`${node}-gpu`, GPU, node, { nodeName: node }, devices));
  }
  // Network-attached NICs: a zone's fabric, or one reachable from every node.
  const nics = (prefix: string) =>
    Array.from({ length: g.int(1, 3) }, (_, i) => ({
      name: `${prefix}-${i}`,
      attributes: { speed: { int: g.pick([25, 100, 400]) }, rdma: { bool: g.chance(0.5) } },
    }));
  if (g.chance(0.6)) {
    const zone = g.pick(ZONES);
    objects.push(
      slice(
        `fabric-${zone}`,
        NIC,
        `fabric-${zone}`,
        {
          nodeSelector: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [zone] }] }],
          },
        },
        nics('nic'),
      ),
    );
  }
  if (g.chance(0.3)) objects.push(slice('fabric-global', NIC, 'fabric-global', { allNodes: true }, nics('gnic')));
  if (g.chance(knobs.oddSlices * 0.5) && nodes.length > 0) {
    const node = g.pick(nodes);
    objects.push(
      slice('per-device', NIC, 'per-device', { perDeviceNodeSelection: true }, [
        { name: 'pd-0', nodeName: node, attributes: { speed: { int: 100 }, rdma: { bool: true } } },
        { name: 'pd-1', allNodes: true, attributes: { speed: { int: 25 }, rdma: { bool: false } } },
      ]),
    );
  }
  return { objects, gpus, multi };
}

function requestSpec(g: Gen, knobs: Knobs): Record<string, unknown> {
  const nic = g.chance(0.2);
  const spec: Record<string, unknown> = {
    deviceClassName: g.chance(knobs.missingClass) ? 'missing-class' : nic ? 'nic' : g.pick(['gpu', 'gpu', 'large-gpu', 'new-driver-gpu']),
  };
  // As the API server's defaulting leaves them: ExactCount with a count (1 when not written).
  if (g.chance(knobs.all)) spec.allocationMode = 'All';
  else Object.assign(spec, { allocationMode: 'ExactCount', count: g.chance(0.4) ? g.int(1, 3) : 1 });
  if (g.chance(knobs.selectors)) {
    const expressions = g.some(nic ? NIC_SELECTORS : GPU_SELECTORS, 2);
    // Drawn only where the knob is on, so the other families' cases stay as they were.
    if (!nic && knobs.runtimeErrors > 0 && g.chance(knobs.runtimeErrors)) expressions.push(g.pick(RUNTIME_ERROR_SELECTORS));
    spec.selectors = expressions.map((expression) => ({ cel: { expression } }));
  }
  if (g.chance(knobs.taints))
    spec.tolerations = [
      g.pick([
        { key: 'unhealthy', operator: 'Exists' },
        { key: 'maintenance', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
        { operator: 'Exists' },
      ]),
    ];
  if (g.chance(knobs.consumable > 0 ? 0.6 : 0.1))
    spec.capacity = {
      requests: { memory: knobs.consumable > 0 ? g.pick(['3Gi', '5Gi', '8Gi', '13Gi', '20Gi', '60Gi']) : g.pick(['20Gi', '60Gi']) },
    };
  return spec;
}

function claimSpec(g: Gen, knobs: Knobs): Record<string, unknown> {
  const requests: Record<string, unknown>[] = [];
  const n = g.chance(0.25) ? 2 : 1;
  for (let i = 0; i < n; i++) {
    const name = `req-${i}`;
    if (g.chance(knobs.firstAvailable)) {
      requests.push({
        name,
        firstAvailable: Array.from({ length: g.int(2, 3) }, (_, j) => ({ name: `sub-${j}`, ...requestSpec(g, knobs) })),
      });
    } else {
      const exactly = requestSpec(g, knobs);
      if (g.chance(0.03)) exactly.adminAccess = true;
      requests.push({ name, exactly });
    }
  }
  const devices: Record<string, unknown> = { requests };
  if (g.chance(knobs.constraints)) {
    const attr = g.pick([`${GPU}/numa`, `${GPU}/model`, `${GPU}/driverVersion`]);
    devices.constraints = [
      g.chance(0.7) ? { matchAttribute: attr, ...(g.chance(0.3) ? { requests: ['req-0'] } : {}) } : { distinctAttribute: `${GPU}/numa` },
    ];
  }
  return { devices };
}

/** One DRA case of a family, from its seed. */
export function generateDraCase(family: DraFamily, seed: number, familyIndex: number): FidelityCase {
  const g = new Gen(seededRandom(seed * 7919 + familyIndex + 1));
  const knobs = KNOBS[family];
  const nodeNames: string[] = [];
  const objects: K8sObject[] = [
    {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'default', labels: { 'kubernetes.io/metadata.name': 'default', 'resource.kubernetes.io/admin-access': 'true' } },
    },
  ];
  const count = g.int(knobs.nodes[0], knobs.nodes[1]);
  for (let i = 0; i < count; i++) {
    const name = `node-${i}`;
    nodeNames.push(name);
    const cap: Record<string, string> = { cpu: `${g.pick([4, 8, 16])}`, memory: `${g.pick([16, 32])}Gi`, pods: '110' };
    // A node with a device plugin offering the resource (DRA does not serve it there).
    if (knobs.extended > 0 && g.chance(knobs.extended * 0.3)) cap[EXTENDED] = `${g.int(1, 2)}`;
    objects.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': ZONES[i % ZONES.length] } },
      spec: {},
      status: { capacity: cap, allocatable: cap },
    });
  }
  objects.push(...classes());
  if (knobs.extended > 0) {
    // DRAExtendedResource: the class serving example.com/gpu (and deviceclass.resource.kubernetes.io/gpu-ext).
    objects.push({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'gpu-ext' },
      spec: { selectors: [{ cel: { expression: `device.driver == "${GPU}"` } }], extendedResourceName: EXTENDED },
    });
  }
  const world = slices(g, nodeNames, knobs);
  objects.push(...world.objects);
  if (knobs.taintRules > 0) objects.push(...taintRules(g, nodeNames, knobs));
  const claims: K8sObject[] = [];
  const pods: K8sObject[] = [];
  const sharedNames: string[] = [];
  // Running pods holding allocated claims (the devices are taken; the claim may be shared).
  let running = 0;
  for (const [node, devices] of world.gpus) {
    if (!g.chance(knobs.allocated)) continue;
    const name = `running-${running++}`;
    const uid = `uid-default-${name}`;
    const claimName = `held-${node}`;
    const taken = g.some(devices, 2);
    const binding = knobs.binding > 0 && g.chance(knobs.binding) ? bindingState(g, node, taken) : undefined;
    claims.push({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: claimName, namespace: 'default', uid: `uid-claim-${claimName}` },
      spec: {
        devices: { requests: [{ name: 'req-0', exactly: { deviceClassName: 'gpu', allocationMode: 'ExactCount', count: taken.length } }] },
      },
      status: {
        allocation: {
          devices: {
            results:
              binding?.results ??
              taken.map((device, i) => ({
                request: 'req-0',
                driver: GPU,
                pool: node,
                device,
                // A share of a device that allows multiple allocations, as the scheduler writes it.
                ...(world.multi.has(`${node}/${device}`)
                  ? {
                      shareID: `00000000-0000-4000-8000-${String(running * 10 + i).padStart(12, '0')}`,
                      consumedCapacity: { memory: g.pick(['8Gi', '12Gi', '20Gi']) },
                    }
                  : {}),
              })),
          },
          nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
          ...binding?.extra,
        },
        reservedFor: [{ resource: 'pods', name, uid }],
        ...(binding && binding.devices.length > 0 ? { devices: binding.devices } : {}),
      },
    });
    sharedNames.push(claimName);
    pods.push(pod(name, [{ name: 'gpus', resourceClaimName: claimName }], node));
  }
  const pending = g.int(knobs.pending[0], knobs.pending[1]);
  for (let i = 0; i < pending; i++) {
    const name = `pending-${i}`;
    const refs: Record<string, unknown>[] = [];
    const statuses: Record<string, unknown>[] = [];
    const n = knobs.extended > 0 && g.chance(0.6) ? 0 : g.chance(0.15) ? 2 : g.chance(0.9) ? 1 : 0;
    for (let j = 0; j < n; j++) {
      const ref = `claim-${j}`;
      if (g.chance(knobs.missingClaim)) {
        refs.push({ name: ref, resourceClaimName: 'no-such-claim' });
      } else if (sharedNames.length > 0 && g.chance(knobs.shared)) {
        refs.push({ name: ref, resourceClaimName: g.pick(sharedNames) });
      } else if (g.chance(knobs.template)) {
        // The template, and the claim its controller created for the pod.
        const template = `tmpl-${name}-${j}`;
        const spec = claimSpec(g, knobs);
        objects.push({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaimTemplate',
          metadata: { name: template, namespace: 'default' },
          spec: { spec },
        });
        const claimName = `${name}-${ref}-x7k2p`;
        claims.push({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaim',
          metadata: {
            name: claimName,
            namespace: 'default',
            uid: `uid-claim-${claimName}`,
            ownerReferences: [
              { apiVersion: 'v1', kind: 'Pod', name, uid: `uid-default-${name}`, controller: true, blockOwnerDeletion: true },
            ],
          },
          spec,
        });
        refs.push({ name: ref, resourceClaimTemplateName: template });
        statuses.push({ name: ref, resourceClaimName: claimName });
      } else {
        const claimName = `${name}-own-${j}`;
        claims.push({
          apiVersion: 'resource.k8s.io/v1',
          kind: 'ResourceClaim',
          metadata: { name: claimName, namespace: 'default', uid: `uid-claim-${claimName}` },
          spec: claimSpec(g, knobs),
        });
        refs.push({ name: ref, resourceClaimName: claimName });
        if (g.chance(knobs.shared)) sharedNames.push(claimName);
      }
    }
    const extended =
      // Not beside claims of its own: upstream's PreBind then fails on a node whose device plugin
      // serves the resource (no request mappings for the pod's status), a binding failure Podplan does not model.
      knobs.extended > 0 && refs.length === 0 && g.chance(knobs.extended)
        ? { name: g.chance(0.8) ? EXTENDED : 'deviceclass.resource.kubernetes.io/gpu-ext', count: g.int(1, 2), init: g.chance(0.2) }
        : undefined;
    pods.push(pod(name, refs, undefined, statuses, extended));
  }
  return { id: `${family}-${seed}`, family, objects: [...objects, ...claims, ...pods] };
}

function pod(
  name: string,
  refs: readonly Record<string, unknown>[],
  node?: string,
  statuses: readonly Record<string, unknown>[] = [],
  extended?: { readonly name: string; readonly count: number; readonly init: boolean },
): K8sObject {
  // An extended resource is requested with an equal limit (the API server requires it).
  const gpus = extended ? { [extended.name]: `${extended.count}` } : {};
  const spec: Record<string, unknown> = {
    containers: [
      {
        name: 'main',
        image: 'registry.example.com/ml/trainer:v3',
        resources: {
          requests: { cpu: '500m', memory: '1Gi', ...gpus },
          ...(extended ? { limits: gpus } : {}),
          ...(refs.length > 0 ? { claims: refs.map((r) => ({ name: r.name })) } : {}),
        },
      },
    ],
  };
  if (extended?.init)
    spec.initContainers = [
      { name: 'init', image: 'busybox:1.36', resources: { requests: { [extended.name]: '1' }, limits: { [extended.name]: '1' } } },
    ];
  if (refs.length > 0) spec.resourceClaims = refs;
  if (node) spec.nodeName = node;
  const status: Record<string, unknown> = node ? { phase: 'Running' } : {};
  if (statuses.length > 0) status.resourceClaimStatuses = statuses;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-default-${name}`, labels: { app: 'trainer' } },
    spec,
    ...(Object.keys(status).length > 0 ? { status } : {}),
  };
}
