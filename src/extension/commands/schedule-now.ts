// Schedule now (the lens on a trigger): the server answers with the edit that sets the trigger's
// spec.state to Schedule and writes its SchedulePlan; the edit is applied to the workspace files
// (never to a cluster) and the plan shown.
import * as vscode from 'vscode';
import { ScheduleNowRequest, type ObjectRef } from '../../protocol';
import type { Ctx } from '../ctx';
import { pickTrigger } from '../pick';

export const scheduleNow = (ctx: Ctx) => async (args?: { readonly trigger?: ObjectRef }) => {
  const trigger = args?.trigger ?? (await pickTrigger(ctx));
  if (!trigger) return;
  const result = await ctx.request(ScheduleNowRequest, { trigger });
  if (!result.ok) {
    void vscode.window.showErrorMessage(`Podplan: ${result.error}`);
    return;
  }
  const edit = await ctx.workspaceEdit(result.value.edit);
  if (!edit || !(await vscode.workspace.applyEdit(edit))) {
    void vscode.window.showErrorMessage(`Podplan: the plan of ${trigger.name} could not be written to the workspace.`);
    return;
  }
  const plan = result.value.plan;
  await ctx.panel.show(`Plan: ${plan.podSet}`, `Showing the plan of ${plan.podSet}…`, () => Promise.resolve({ type: 'plan', plan }));
};
