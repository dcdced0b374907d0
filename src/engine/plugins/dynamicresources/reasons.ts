// Why the allocator found no allocation on a node, as data (api/device-failures.ts): run only when
// a node's complete verdict is asked for (explain, the editor's matrix), never in a scheduling
// cycle. Each request is looked at on its own against the node's devices (class selectors, request
// selectors, taints and capacity, devices in use), then each claim's constraints over the free
// devices; when each request could be met alone, the requests compete ("together").
import type { DeviceFailure, DeviceHolder, FalseSelector } from '../../api/device-failures';
import type { Device, DeviceConstraint, DeviceRequestSpec, DeviceSelector, ResourceClaim, ResourceSlice } from '../../api/dra';
import type { Node } from '../../api/types';
import { deviceId, lookupAttribute, nodeMatches, taintPreventsAllocation, type AllocatorInput, type AttrValue } from './allocator';
import { fitsCapacity } from './capacity';
import { compileSelector } from './cel';

/** Who holds a device in use, where known (none for a device a plan's earlier pod takes). */
export type HoldersOf = (deviceId: string) => DeviceHolder | undefined;

interface Candidate {
  readonly id: string;
  readonly device: Device;
  readonly driver: string;
  readonly slice: ResourceSlice;
}

interface Option {
  readonly name: string;
  readonly base: string;
  readonly sub: string | undefined;
  readonly spec: DeviceRequestSpec;
  readonly adminAccess: boolean;
}

/** The first selector false for the device, or 'match'; undefined when a selector does not compile or errs (the allocator's Error says so). */
function firstFalse(selectors: readonly DeviceSelector[], c: Candidate): number | 'match' | undefined {
  for (const [i, s] of selectors.entries()) {
    const compiled = compileSelector(s.cel?.expression ?? '');
    if (!compiled.ok) return undefined;
    const r = compiled.matches(c.device, c.driver);
    if (!r.ok) return undefined;
    if (!r.value) return i;
  }
  return 'match';
}

/** The devices of `candidates` the selectors pass, and the selector most often first false for the rest. */
function select(
  selectors: readonly DeviceSelector[],
  owner: FalseSelector['owner'],
  candidates: readonly Candidate[],
): { readonly passed: Candidate[]; readonly selector: FalseSelector | undefined } {
  const passed: Candidate[] = [];
  const falseAt = new Map<number, number>();
  for (const c of candidates) {
    const v = firstFalse(selectors, c);
    if (v === 'match') passed.push(c);
    else if (v !== undefined) falseAt.set(v, (falseAt.get(v) ?? 0) + 1);
  }
  let best: number | undefined;
  for (const [i, n] of falseAt) if (best === undefined || n > (falseAt.get(best) ?? 0) || (n === falseAt.get(best) && i < best)) best = i;
  const selector = best === undefined ? undefined : { owner, index: best, expression: selectors[best]?.cel?.expression ?? '' };
  return { passed, selector };
}

function valueText(a: AttrValue): string {
  return String(a.v);
}

function claimKey(claim: ResourceClaim): string {
  return `${claim.metadata.namespace ?? 'default'}/${claim.metadata.name}`;
}

function appliesTo(constraint: DeviceConstraint, option: Option): boolean {
  const requests = constraint.requests ?? [];
  return requests.length === 0 || requests.includes(option.base) || (option.sub !== undefined && requests.includes(option.name));
}

/**
 * Per claim and request, why the claims cannot be allocated on the node. Empty when the node's
 * pools cannot be read or a selector errs (the allocator's own message says so).
 */
export function deviceFailures(input: AllocatorInput, node: Node, claims: readonly ResourceClaim[], holdersOf: HoldersOf): DeviceFailure[] {
  const pools = input.slices.poolsFor(node);
  if (typeof pools === 'string') return [];
  const candidates: Candidate[] = [];
  for (const pool of pools) {
    if (pool.incomplete || pool.invalid) continue;
    for (const slice of pool.slices) {
      for (const device of slice.spec.devices ?? []) {
        if (slice.spec.perDeviceNodeSelection && !nodeMatches(node, device.nodeName, device.allNodes, device.nodeSelector)) continue;
        candidates.push({ id: deviceId(pool.driver, pool.pool, device.name), device, driver: slice.spec.driver, slice });
      }
    }
  }
  const out: DeviceFailure[] = [];
  let everyRequestAlone = true;
  for (const claim of claims) {
    const claimName = claimKey(claim);
    /** Per request that can be met alone: its option and free devices, for the constraints. */
    const met: Array<{ readonly option: Option; readonly free: readonly Candidate[]; readonly wanted: number }> = [];
    for (const request of claim.spec.devices?.requests ?? []) {
      const options: Option[] =
        (request.firstAvailable ?? []).length > 0
          ? (request.firstAvailable ?? []).map((sub) => ({
              name: `${request.name}/${sub.name}`,
              base: request.name,
              sub: sub.name,
              spec: sub,
              adminAccess: false,
            }))
          : request.exactly
            ? [
                {
                  name: request.name,
                  base: request.name,
                  sub: undefined,
                  spec: request.exactly,
                  adminAccess: request.exactly.adminAccess === true,
                },
              ]
            : [];
      const failures: DeviceFailure[] = [];
      let metBy: (typeof met)[number] | undefined;
      for (const option of options) {
        const failure = optionFailure(input, option, candidates, claimName, holdersOf);
        if ('free' in failure) {
          metBy = { option, free: failure.free, wanted: failure.wanted };
          break;
        }
        failures.push(failure.failure);
      }
      if (metBy) met.push(metBy);
      else {
        everyRequestAlone = false;
        out.push(...failures);
      }
    }
    for (const [index, constraint] of (claim.spec.devices?.constraints ?? []).entries()) {
      const covered = met.filter((m) => appliesTo(constraint, m.option));
      if (covered.length === 0) continue;
      const failure = constraintFailure(constraint, index, covered, claimName);
      if (failure) {
        everyRequestAlone = false;
        out.push(failure);
      }
    }
  }
  if (everyRequestAlone && claims[0]) out.push({ claim: claimKey(claims[0]), request: '*', deviceClass: '', wanted: 0, code: 'together' });
  return out;
}

/** Why an allocated claim keeps the pod off a node its node selector leaves out (api/device-failures.ts). */
export function allocatedElsewhere(claim: ResourceClaim): DeviceFailure {
  const terms = claim.status?.allocation?.nodeSelector?.nodeSelectorTerms ?? [];
  const nodes = terms.flatMap((t) =>
    (t.matchFields ?? []).filter((f) => f.key === 'metadata.name' && f.operator === 'In').flatMap((f) => f.values ?? []),
  );
  return {
    claim: claimKey(claim),
    request: '*',
    deviceClass: '',
    wanted: 0,
    code: 'allocatedElsewhere',
    nodes,
    pods: (claim.status?.reservedFor ?? []).filter((r) => r.resource === 'pods').map((r) => r.name),
  };
}

function optionFailure(
  input: AllocatorInput,
  option: Option,
  candidates: readonly Candidate[],
  claim: string,
  holdersOf: HoldersOf,
): { readonly failure: DeviceFailure } | { readonly free: readonly Candidate[]; readonly wanted: number } {
  const all = (option.spec.allocationMode ?? 'ExactCount') === 'All';
  const head = {
    claim,
    request: option.name,
    deviceClass: option.spec.deviceClassName,
    wanted: all ? ('All' as const) : (option.spec.count ?? 1),
  };
  if (candidates.length === 0) return { failure: { ...head, code: 'noDevices' } };
  const cls = input.classes.get(option.spec.deviceClassName);
  const ofClass = select(cls?.spec.selectors ?? [], 'class', candidates);
  if (ofClass.passed.length === 0)
    return {
      failure: { ...head, code: 'noClassMatch', devices: candidates.length, ...(ofClass.selector ? { selector: ofClass.selector } : {}) },
    };
  const matching = select(option.spec.selectors ?? [], 'request', ofClass.passed);
  if (matching.passed.length === 0) {
    if (!matching.selector) return { failure: { ...head, code: 'noClassMatch', devices: candidates.length } };
    return { failure: { ...head, code: 'selectorFalse', devices: ofClass.passed.length, selector: matching.selector } };
  }
  let tainted = 0;
  let capacity = 0;
  const usable: Candidate[] = [];
  for (const c of matching.passed) {
    if (taintPreventsAllocation(c.device, option.spec.tolerations)) tainted++;
    else if (!fitsCapacity(option.spec.capacity?.requests, c.device)) capacity++;
    else usable.push(c);
  }
  if (usable.length === 0) return { failure: { ...head, code: 'unsuitable', devices: matching.passed.length, tainted, capacity } };
  const free = option.adminAccess ? usable : usable.filter((c) => !input.allocated.has(c.id));
  const wanted = all ? usable.length : (option.spec.count ?? 1);
  if (free.length >= wanted && (!all || free.length === usable.length)) return { free, wanted };
  const holders = new Map<string, DeviceHolder>();
  let planned = 0;
  for (const c of usable) {
    if (!input.allocated.has(c.id)) continue;
    const h = holdersOf(c.id);
    if (!h) planned++;
    else if (!holders.has(h.claim)) holders.set(h.claim, h);
  }
  return {
    failure: {
      ...head,
      code: 'notEnough',
      matching: usable.length,
      free: free.length,
      holders: [...holders.values()].sort((a, b) => (a.claim < b.claim ? -1 : 1)),
      planned,
    },
  };
}

function constraintFailure(
  constraint: DeviceConstraint,
  index: number,
  covered: ReadonlyArray<{ readonly option: Option; readonly free: readonly Candidate[]; readonly wanted: number }>,
  claim: string,
): DeviceFailure | undefined {
  const attribute = constraint.matchAttribute ?? constraint.distinctAttribute;
  if (attribute === undefined) return undefined;
  // Free devices per attribute value, per covered request (a device without the attribute never satisfies it).
  const perValue = new Map<string, { readonly value: AttrValue; readonly ids: Set<string>; readonly perRequest: number[] }>();
  covered.forEach(({ free }, r) => {
    for (const c of free) {
      const a = lookupAttribute(c.device, c.driver, attribute);
      if (!a) continue;
      const k = `${a.t}\u0000${String(a.v)}`;
      let g = perValue.get(k);
      if (!g) perValue.set(k, (g = { value: a, ids: new Set(), perRequest: covered.map(() => 0) }));
      g.ids.add(c.id);
      g.perRequest[r] = (g.perRequest[r] ?? 0) + 1;
    }
  });
  const groups = [...perValue.values()]
    .map((g) => ({ value: valueText(g.value), devices: g.ids.size }))
    .sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  const requests = covered.map((c) => c.option.name);
  const wanted = covered.reduce((n, c) => n + c.wanted, 0);
  const head = { claim, request: requests.join(', '), deviceClass: covered[0]?.option.spec.deviceClassName ?? '', wanted };
  if (constraint.matchAttribute !== undefined) {
    const satisfiable = [...perValue.values()].some(
      (g) => g.ids.size >= wanted && covered.every((c, r) => (g.perRequest[r] ?? 0) >= c.wanted),
    );
    if (satisfiable) return undefined;
    return { ...head, code: 'constraintUnmet', constraint: 'matchAttribute', index, attribute, groups, requests };
  }
  if (perValue.size >= wanted) return undefined;
  return { ...head, code: 'constraintUnmet', constraint: 'distinctAttribute', index, attribute, groups, requests };
}
