// Resource amounts as views carry them (with their unit) and as people read them.
import { CPU, EPHEMERAL_STORAGE, MEMORY, type Resource } from '../../engine/api/resources';
import type { AmountUnit, ResourceAmountView } from '../../protocol/webview';

/** cpu in millicores, memory and storage in bytes, everything else (pods, GPUs) counted. */
export const unitOf = (resource: string): AmountUnit => (resource === CPU ? 'millicores' : resource === MEMORY || resource === EPHEMERAL_STORAGE ? 'bytes' : 'count');

export function amounts(r: Resource): ResourceAmountView[] {
  return Object.entries(r.toRecord()).map(([resource, amount]) => ({ resource, unit: unitOf(resource), amount }));
}

const GI = 1024 ** 3;
const MI = 1024 ** 2;

/** An amount as a person reads it: 1500 millicores → "1500m", 4000 → "4", 3 GiB → "3Gi", 17. */
export function formatAmount(amount: number, unit: AmountUnit): string {
  const trim = (n: number) => String(Math.round(n * 100) / 100);
  if (unit === 'millicores') return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
  if (unit === 'bytes') {
    if (amount >= GI) return `${trim(amount / GI)}Gi`;
    if (amount >= MI) return `${trim(amount / MI)}Mi`;
    return amount >= 1024 ? `${trim(amount / 1024)}Ki` : String(amount);
  }
  return String(amount);
}
