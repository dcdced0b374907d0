// How the webview prints the numbers of a view model. Printing only: every amount is computed by
// the server (docs/architecture.md, Processes).
import { formatAmount } from '../../src/protocol/amounts';
import type { ResourceUseView } from '../../src/protocol/webview';

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
  const used = formatAmount(use.requested + use.planned, use.unit, 'words');
  const of = formatAmount(use.allocatable, use.unit, 'words');
  const planned = use.planned > 0 ? ` (${formatAmount(use.planned, use.unit, 'words')} planned)` : '';
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
