// Resource amounts as views carry them: numbers with their unit (formatted by protocol/amounts.ts).
import type { Resource } from '../../engine/api/resources';
import { unitOf } from '../../protocol/amounts';
import type { ResourceAmountView } from '../../protocol/webview';

export function amounts(r: Resource): ResourceAmountView[] {
  return Object.entries(r.toRecord()).map(([resource, amount]) => ({ resource, unit: unitOf(resource), amount }));
}
