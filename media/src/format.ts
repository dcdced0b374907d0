// How the webview prints the numbers of a view model. Printing only: every amount is computed by
// the server (docs/architecture.md, Processes).
import { formatAmount } from '../../src/protocol/amounts';
import type { ResourceUseView } from '../../src/protocol/webview';

/** The widths of a node's usage bar, in percent of allocatable, each clamped so the bar never overflows. */
export interface BarShares {
  readonly requested: number;
  /** The pods other sets' plans put there before this plan (ResourceUseView.before). */
  readonly before: number;
  readonly planned: number;
  /** Bound, placed-before and planned pods together ask for more than the node offers. */
  readonly over: boolean;
}

export function barShares(use: ResourceUseView): BarShares {
  const earlier = use.before ?? 0;
  const total = use.requested + earlier + use.planned;
  if (use.allocatable <= 0) return { requested: 0, before: 0, planned: 0, over: total > 0 };
  const requested = Math.min(100, (use.requested / use.allocatable) * 100);
  const before = Math.min(100 - requested, (earlier / use.allocatable) * 100);
  const planned = Math.min(100 - requested - before, (use.planned / use.allocatable) * 100);
  return { requested, before, planned, over: total > use.allocatable };
}

/** "3.5 / 4 cores (1.5 cores planned, 1 core placed before)": what a bar shows, as words for its label and tooltip. */
export function usageText(use: ResourceUseView): string {
  const earlier = use.before ?? 0;
  const used = formatAmount(use.requested + earlier + use.planned, use.unit, 'words');
  const of = formatAmount(use.allocatable, use.unit, 'words');
  const parts = [
    ...(use.planned > 0 ? [`${formatAmount(use.planned, use.unit, 'words')} planned`] : []),
    ...(earlier > 0 ? [`${formatAmount(earlier, use.unit, 'words')} placed before`] : []),
  ];
  return `${used} / ${of}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/** A stored plan's time, in UTC so that every reader of a shared history sees the same text. */
export function formatTime(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? '' : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}
