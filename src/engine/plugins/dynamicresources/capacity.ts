// Consumable capacity (DRAConsumableCapacity, on by default in 1.37) as upstream's incubating
// allocator checks it (k8s.io/dynamic-resource-allocation/structured/internal/incubating,
// consumable_capacity.go): what a request consumes of each capacity of a device (its amount rounded
// up by the capacity's requestPolicy, or the policy's default, or the whole capacity when not
// asked for), whether that amount breaks the policy, and whether it fits beside what the device's
// other shares already consume. Amounts are exact: nano units in bigint. DRAFractionalCapacityRange
// is off by default in 1.37, so a validRange rounds whole units (upstream's Value()).
import type { Device, DeviceCapacity } from '../../api/dra';
import { parseQuantity } from '../../api/quantity';

const NANO = 1_000_000_000n;

/** Capacity name → amount consumed, in nano units. */
export type Consumed = ReadonlyMap<string, bigint>;

/** Parsed amounts by their text: slices repeat a few quantities on every device (budget: framework/caches.ts). */
const parsed = new Map<string, bigint>();
const PARSED_MAX = 4096;

/** A quantity in nano units, rounded up (exact for every quantity the API accepts). */
export function nano(text: string): bigint {
  let amount = parsed.get(text);
  if (amount !== undefined) return amount;
  const q = parseQuantity(text);
  if (!q.ok) return 0n;
  const scaled = q.value.numerator * NANO;
  const quotient = scaled / q.value.denominator;
  amount = scaled % q.value.denominator !== 0n && scaled > 0n ? quotient + 1n : quotient;
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(text, amount);
  return amount;
}

const policies = new WeakMap<Device, boolean>();

/** Whether any capacity of the device has a request policy (kept per device object). */
function hasPolicy(device: Device): boolean {
  let has = policies.get(device);
  if (has === undefined) policies.set(device, (has = Object.values(device.capacity ?? {}).some((c) => c.requestPolicy !== undefined)));
  return has;
}

/** An amount in nano units as a quantity string (whole units when it is one). */
export function quantityText(amount: bigint): string {
  return amount % NANO === 0n ? `${amount / NANO}` : `${amount}n`;
}

/** Upstream Quantity.Value(): whole units, rounded up. */
function units(amount: bigint): bigint {
  const q = amount / NANO;
  return amount % NANO !== 0n && amount > 0n ? q + 1n : q;
}

/** Upstream calculateConsumedCapacity (roundUpRange, roundUpValidValues, fillEmptyRequest). */
function consumedOf(requested: string | undefined, capacity: DeviceCapacity): bigint {
  const policy = capacity.requestPolicy;
  if (requested === undefined) return nano(policy?.default ?? capacity.value);
  const amount = nano(requested);
  if (!policy) return amount;
  const range = policy.validRange;
  if (range?.min !== undefined) {
    const min = nano(range.min);
    if (amount < min) return min;
    if (range.step === undefined) return amount;
    const step = units(nano(range.step));
    const minUnits = units(min);
    const added = units(amount) - minUnits;
    let n = added / step;
    if (added % step !== 0n) n++;
    return (minUnits + step * n) * NANO;
  }
  if (policy.validValues !== undefined) {
    for (const v of policy.validValues) if (amount <= nano(v)) return nano(v);
  }
  return amount;
}

/** Upstream violatesPolicy (the default, as an amount, always passes). */
function violatesPolicy(amount: bigint, capacity: DeviceCapacity): boolean {
  const policy = capacity.requestPolicy;
  if (!policy) return false;
  if (policy.default !== undefined && amount === nano(policy.default)) return false;
  if (policy.validRange) {
    const range = policy.validRange;
    if (range.max !== undefined && amount > nano(range.max)) return true;
    if (range.step !== undefined) {
      const step = units(nano(range.step));
      if (step !== 0n && (units(amount) - units(nano(range.min ?? '0'))) % step !== 0n) return true;
    }
    return false;
  }
  if ((policy.validValues ?? []).length > 0) return !(policy.validValues ?? []).some((v) => nano(v) === amount);
  return false;
}

/** Upstream GetConsumedCapacityFromRequest: what a share of the device consumes of each of its capacities. */
export function consumedBy(requests: Readonly<Record<string, string>> | undefined, device: Device): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [name, capacity] of Object.entries(device.capacity ?? {})) out.set(name, consumedOf(requests?.[name], capacity));
  return out;
}

/**
 * Upstream CmpRequestOverCapacity: every capacity the request names exists, no consumed amount breaks
 * its policy, and what the device's shares consume (allocated before, in this allocation, and this
 * one) stays within each capacity. Without the shares, the static check: the device's capacity alone.
 */
export function fitsCapacity(
  requests: Readonly<Record<string, string>> | undefined,
  device: Device,
  allocated?: Consumed,
  allocating?: Consumed,
): boolean {
  // Nothing asked, no policy, no other share: each capacity is consumed whole, which fits.
  if (requests === undefined && allocated === undefined && allocating === undefined && !hasPolicy(device)) return true;
  const capacities = device.capacity ?? {};
  for (const name of Object.keys(requests ?? {})) if (!(name in capacities)) return false;
  for (const [name, capacity] of Object.entries(capacities)) {
    const amount = consumedOf(requests?.[name], capacity);
    if (amount < 0n || violatesPolicy(amount, capacity)) return false;
    if ((allocated?.get(name) ?? 0n) + amount + (allocating?.get(name) ?? 0n) > nano(capacity.value)) return false;
  }
  return true;
}
