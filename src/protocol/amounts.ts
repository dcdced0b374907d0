// Resource amounts as people read them: the one formatter the server's views and hovers, the CLI
// and the webview all print with. Amounts travel as numbers with their unit (ResourceAmountView);
// the text is made here, at the edge.
import type { AmountUnit } from './webview';

/** cpu in millicores, memory and storage in bytes, everything else (pods, GPUs) counted. */
export const unitOf = (resource: string): AmountUnit =>
  resource === 'cpu' ? 'millicores' : resource === 'memory' || resource === 'ephemeral-storage' ? 'bytes' : 'count';

const GI = 1024 ** 3;
const MI = 1024 ** 2;
const KI = 1024;

/** At most two decimals, trailing zeros dropped: 2.5, 3, 0.13. */
const short = (n: number): string => String(Math.round(n * 100) / 100);

/**
 * An amount as a person reads it. `quantity` (hovers, completion, messages, the CLI): as a manifest
 * writes it, 1500 millicores → "1500m", 4000 → "4", 3 GiB → "3Gi", 17. `words` (the webview's
 * tiles and bars): 1500 → "1.5 cores", 3 GiB → "3 GiB", 512 bytes → "512 B".
 */
export function formatAmount(amount: number, unit: AmountUnit, style: 'quantity' | 'words' = 'quantity'): string {
  const words = style === 'words';
  switch (unit) {
    case 'millicores':
      if (words) return amount < 1000 ? `${short(amount)}m` : `${short(amount / 1000)} ${amount === 1000 ? 'core' : 'cores'}`;
      return amount % 1000 === 0 ? String(amount / 1000) : `${amount}m`;
    case 'bytes':
      if (amount >= GI) return `${short(amount / GI)}${words ? ' GiB' : 'Gi'}`;
      if (amount >= MI) return `${short(amount / MI)}${words ? ' MiB' : 'Mi'}`;
      if (amount >= KI) return `${short(amount / KI)}${words ? ' KiB' : 'Ki'}`;
      return words ? `${short(amount)} B` : String(amount);
    case 'count':
      return short(amount);
  }
}
