// Schedule now (the lens on a trigger, the Pod sets view, the palette): the server answers with
// what it would write (the trigger's spec.state, its pod set's SchedulePlan) or why it may not yet
// (a dependency not complete). The user confirms a dialog naming each file and field — a second,
// plainly worded question when the plan leaves pods unplaced — then the edit is applied to the
// workspace files and saved (never to a cluster), and the plan is recorded as applied.
import * as vscode from 'vscode';
import { RecordAppliedRequest, ScheduleNowRequest, type ObjectRef, type ScheduleNowResult } from '../../protocol';
import type { Ctx } from '../ctx';
import { pickTrigger } from '../pick';
import { planLogLines } from '../plan-log';
import { confirmationWords } from './schedule-words';

async function saveAll(uris: readonly vscode.Uri[]): Promise<void> {
  for (const uri of uris) {
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (document?.isDirty) await document.save();
  }
}

export const scheduleNow = (ctx: Ctx) => async (args?: { readonly trigger?: ObjectRef }) => {
  if (!ctx.trusted) {
    void vscode.window.showWarningMessage('Podplan: Schedule Now writes files, so it is off in an untrusted workspace. Trust the workspace (Manage Workspace Trust) to use it.');
    return;
  }
  const trigger = args?.trigger ?? (await pickTrigger(ctx));
  if (!trigger) return;
  const result = await ctx.request(ScheduleNowRequest, { trigger });
  if (!result.ok) {
    void vscode.window.showErrorMessage(`Podplan: ${result.error}`);
    return;
  }
  const { plan, writes } = result.value satisfies ScheduleNowResult;
  const words = confirmationWords(plan, writes, (uri) => vscode.workspace.asRelativePath(vscode.Uri.parse(uri)));
  const choice = await vscode.window.showWarningMessage(words.question, { modal: true, detail: words.detail }, words.action);
  if (choice !== words.action) return;
  const edit = await ctx.workspaceEdit(result.value.edit);
  if (!edit || !(await vscode.workspace.applyEdit(edit))) {
    void vscode.window.showErrorMessage(`Podplan: the plan of ${plan.podSet} could not be written to the workspace.`);
    return;
  }
  await saveAll(edit.entries().map(([uri]) => uri));
  let recorded = 'Plan history is off, so it is not recorded.';
  if (plan.historyId !== undefined) {
    const applied = await ctx.request(RecordAppliedRequest, { id: plan.historyId });
    recorded = applied.ok ? `Plan #${applied.value.id} is recorded as applied in the history.` : `It could not be recorded as applied: ${applied.error}`;
    ctx.historyUpdated();
  }
  for (const logLine of planLogLines(plan, 'schedule')) ctx.output.info(logLine);
  void vscode.window.showInformationMessage(`Podplan: ${words.done} ${recorded}`);
  await ctx.panel.show(`Plan: ${plan.podSet}`, `Showing the plan of ${plan.podSet}…`, () => Promise.resolve({ type: 'plan', plan }));
};
