// Show history, Open plan, Compare plans: the server's plan history (podplan/listHistory,
// podplan/openPlan, podplan/comparePlans) in the panel.
import { ComparePlansRequest, ListHistoryRequest, OpenPlanRequest } from '../../protocol';
import type { HistoryEntryView } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { pickHistory } from '../pick';

/** With `before`, the next older page is added to what the panel lists. */
export const showHistory = (ctx: Ctx) => {
  let entries: HistoryEntryView[] = [];
  return async (args?: { readonly before?: number }) => {
    const before = args?.before;
    await ctx.panel.show('Plan history', 'Reading the plan history…', async () => {
      const page = await ctx.request(ListHistoryRequest, before === undefined ? {} : { before });
      if (!page.ok) return { type: 'error', message: page.error };
      entries = before === undefined ? [...page.value.entries] : [...entries, ...page.value.entries];
      return { type: 'history', entries, ...(page.value.next !== undefined ? { next: page.value.next } : {}) };
    });
  };
};

export const openPlan = (ctx: Ctx) => async (args?: { readonly id?: number }) => {
  const id = args?.id ?? (await pickHistory(ctx, 'Open which plan?', 1))?.[0]?.id;
  if (id === undefined) return;
  await ctx.panel.show(`Plan #${id}`, `Opening plan #${id}…`, async () => {
    const result = await ctx.request(OpenPlanRequest, { id });
    return result.ok ? { type: 'plan', plan: result.value } : { type: 'error', message: result.error };
  });
};

export const comparePlans = (ctx: Ctx) => async (args?: { readonly from?: number; readonly to?: number }) => {
  let from = args?.from;
  let to = args?.to;
  if (from === undefined || to === undefined) {
    const picked = await pickHistory(ctx, 'Compare which two plans?', 2);
    const [a, b] = (picked ?? []).map((e) => e.id).sort((x, y) => x - y);
    if (a === undefined || b === undefined) return;
    [from, to] = [a, b];
  }
  const params = { from, to };
  await ctx.panel.show(`Plans #${from} → #${to}`, `Comparing plan #${from} with #${to}…`, async () => {
    const result = await ctx.request(ComparePlansRequest, params);
    return result.ok ? { type: 'diff', diff: result.value } : { type: 'error', message: result.error };
  });
};
