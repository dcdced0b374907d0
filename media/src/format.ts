// How the webview prints the numbers of a view model. Printing only: every amount is computed by
// the server (docs/architecture.md, Processes).
import type { AmountUnit, ResourceUseView } from '../../src/protocol/webview';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const KIB = 1024;

/** At most two decimals, trailing zeros dropped: 2.5, 3, 0.13. */
function short(n: number): string {
  return String(Math.round(n * 100) / 100);
}

export function formatAmount(unit: AmountUnit, amount: number): string {
  switch (unit) {
    case 'millicores':
      return amount < 1000 ? `${short(amount)}m` : `${short(amount / 1000)} ${amount === 1000 ? 'core' : 'cores'}`;
    case 'bytes':
      if (amount >= GIB) return `${short(amount / GIB)} GiB`;
      if (amount >= MIB) return `${short(amount / MIB)} MiB`;
      if (amount >= KIB) return `${short(amount / KIB)} KiB`;
      return `${short(amount)} B`;
    case 'count':
      return short(amount);
  }
}

/** The widths of a node's usage bar, in percent of allocatable, each clamped so the bar never overflows. */
export interface BarShares {
  readonly requested: number;
  readonly planned: number;
  /** Bound and planned pods together ask for more than the node offers. */
  readonly over: boolean;
}

export function barShares(use: ResourceUseView): BarShares {
  const total = use.requested + use.planned;
  if (use.allocatable <= 0) return { requested: 0, planned: 0, over: total > 0 };
  const requested = Math.min(100, (use.requested / use.allocatable) * 100);
  const planned = Math.min(100 - requested, (use.planned / use.allocatable) * 100);
  return { requested, planned, over: total > use.allocatable };
}

/** "3.5 / 4 cores (1.5 cores planned)": what a bar shows, as words for its label and tooltip. */
export function usageText(use: ResourceUseView): string {
  const used = formatAmount(use.unit, use.requested + use.planned);
  const of = formatAmount(use.unit, use.allocatable);
  const planned = use.planned > 0 ? ` (${formatAmount(use.unit, use.planned)} planned)` : '';
  return `${used} / ${of}${planned}`;
}

/** A stored plan's time, in UTC so that every reader of a shared history sees the same text. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}
