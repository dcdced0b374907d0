// Preview plan: plans a pod set on the workspace's nodes (podplan/previewPlan) and shows it.
// From a code lens the trigger is given; from the palette the user picks a pod set.
import { PreviewPlanRequest, type PreviewPlanParams, type TriggerCommandArgs } from '../../protocol';
import type { Ctx } from '../ctx';
import { pickPodSet } from '../pick';
import { planLogLines } from '../plan-log';

/** From a lens: the trigger; from the Pod sets view: the trigger, or the pod set when it has none. */
type PreviewArgs = Partial<TriggerCommandArgs> & { readonly namespace?: string };

export const previewPlan = (ctx: Ctx) => async (args?: PreviewArgs) => {
  let params: PreviewPlanParams;
  let title: string;
  if (args?.trigger) {
    params = { trigger: args.trigger };
    title = args.podSet ?? args.trigger.name;
  } else if (args?.podSet) {
    params = { podSet: { namespace: args.namespace ?? 'default', name: args.podSet } };
    title = args.podSet;
  } else {
    const set = await pickPodSet(ctx, 'Preview the plan of which pod set?');
    if (!set) return;
    params = set.trigger
      ? { trigger: { namespace: set.namespace, name: set.trigger } }
      : { podSet: { namespace: set.namespace, name: set.name } };
    title = set.name;
  }
  await ctx.panel.show(`Plan: ${title}`, `Planning ${title}…`, async () => {
    const result = await ctx.request(PreviewPlanRequest, params);
    if (result.ok) for (const line of planLogLines(result.value, 'preview')) ctx.output.info(line);
    if (result.ok && result.value.historyId !== undefined) ctx.historyUpdated();
    // Shown before its bound: asked for now that the preview is answered.
    if (result.ok && result.value.boundPending !== undefined) void ctx.followBound(result.value.boundPending);
    return result.ok ? { type: 'plan', plan: result.value } : { type: 'error', message: result.error };
  });
};
