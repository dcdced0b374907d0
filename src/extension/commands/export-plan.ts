// Export plan: the plan the panel shows (or a stored one) written as JSON where the user says.
import * as vscode from 'vscode';
import { OpenPlanRequest } from '../../protocol';
import type { PlanView } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { pickHistory } from '../pick';

async function planToExport(ctx: Ctx, id: number | undefined): Promise<PlanView | undefined> {
  if (id === undefined && ctx.panel.plan) return ctx.panel.plan;
  const wanted = id ?? (await pickHistory(ctx, 'Export which plan?', 1))?.[0]?.id;
  if (wanted === undefined) return undefined;
  const result = await ctx.request(OpenPlanRequest, { id: wanted });
  if (result.ok) return result.value;
  void vscode.window.showErrorMessage(`Podplan: ${result.error}`);
  return undefined;
}

export const exportPlan = (ctx: Ctx) => async (args?: { readonly id?: number }) => {
  const plan = await planToExport(ctx, args?.id);
  if (!plan) return;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = `${plan.podSet}-plan${plan.historyId !== undefined ? `-${plan.historyId}` : ''}.json`;
  const target = await vscode.window.showSaveDialog({
    filters: { JSON: ['json'] },
    saveLabel: 'Export plan',
    ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
  });
  if (!target) return;
  await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(`${JSON.stringify(plan, null, 2)}\n`));
  void vscode.window.showInformationMessage(`Podplan: plan of ${plan.podSet} exported to ${vscode.workspace.asRelativePath(target)}.`);
};
