// Schedule now (the lens on a trigger, the Pod sets view, the palette): the server answers with
// what it would write (the trigger's spec.state, its pod set's SchedulePlan) or why it may not yet
// (a dependency not complete). The user confirms a dialog naming each file and field — a second,
// plainly worded question when the plan leaves pods unplaced — then the edit is applied to the
// workspace files and saved (never to a cluster), and the plan is recorded as applied. The server
// checked the edit (it parses, and changes only what it means to); the client applies it only to
// files that still read as the server's copy, and says it is done only once each saved file reads
// back from disk as the server expected.
import * as vscode from 'vscode';
import { RecordAppliedRequest, ScheduleNowRequest, textDigest, type ObjectRef, type ScheduleNowResult } from '../../protocol';
import type { Ctx } from '../ctx';
import { pickTrigger } from '../pick';
import { planLogLines } from '../plan-log';
import { confirmationWords } from './schedule-words';

const openDocument = (uri: vscode.Uri) => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());

/** Saves each file; the files that could not be saved. */
async function saveAll(uris: readonly vscode.Uri[]): Promise<vscode.Uri[]> {
  const failed: vscode.Uri[] = [];
  for (const uri of uris) {
    const document = openDocument(uri);
    if (document?.isDirty && !(await document.save())) failed.push(uri);
  }
  return failed;
}

/** The file's text as the editor has it (its buffer when open, else the disk). */
async function currentText(uri: vscode.Uri): Promise<string> {
  return openDocument(uri)?.getText() ?? new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}

async function diskText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

export const scheduleNow = (ctx: Ctx) => async (args?: { readonly trigger?: ObjectRef }) => {
  if (!ctx.trusted) {
    void vscode.window.showWarningMessage(
      'Podplan: Schedule Now writes files, so it is off in an untrusted workspace. Trust the workspace (Manage Workspace Trust) to use it.',
    );
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
  const files = result.value.files.map((f) => ({ ...f, file: vscode.Uri.parse(f.uri) }));
  const relative = (uri: vscode.Uri) => vscode.workspace.asRelativePath(uri);
  for (const f of files) {
    if (textDigest(await currentText(f.file)) !== f.before) {
      void vscode.window.showErrorMessage(
        `Podplan: nothing was written: ${relative(f.file)} changed while the plan of ${plan.podSet} was made. Run Schedule Now again.`,
      );
      return;
    }
  }
  const edit = await ctx.workspaceEdit(result.value.edit);
  if (!edit || !(await vscode.workspace.applyEdit(edit))) {
    void vscode.window.showErrorMessage(`Podplan: the plan of ${plan.podSet} could not be written to the workspace.`);
    return;
  }
  const unsaved = await saveAll(files.map((f) => f.file));
  const wrong: string[] = [];
  for (const f of files)
    if (unsaved.includes(f.file) || textDigest((await diskText(f.file)) ?? '') !== f.after) wrong.push(relative(f.file));
  if (wrong.length > 0) {
    ctx.output.error(
      `Schedule Now: ${wrong.join(', ')} did not read back from disk as written; the plan of ${plan.podSet} is not recorded as applied.`,
    );
    void vscode.window.showErrorMessage(
      `Podplan: ${wrong.join(', ')} did not read back as intended after saving, so the plan of ${plan.podSet} is not recorded as applied. Check the file (Undo restores it).`,
    );
    return;
  }
  let recorded =
    plan.historyError !== undefined ? `It is not recorded: ${plan.historyError}.` : 'Plan history is off, so it is not recorded.';
  if (plan.historyId !== undefined) {
    const applied = await ctx.request(RecordAppliedRequest, { id: plan.historyId });
    recorded = applied.ok
      ? `Plan #${applied.value.id} is recorded as applied in the history.`
      : `It could not be recorded as applied: ${applied.error}`;
    ctx.historyUpdated();
  }
  for (const logLine of planLogLines(plan, 'schedule')) ctx.output.info(logLine);
  void vscode.window.showInformationMessage(`Podplan: ${words.done} ${recorded}`);
  await ctx.panel.show(`Plan: ${plan.podSet}`, `Showing the plan of ${plan.podSet}…`, () => Promise.resolve({ type: 'plan', plan }));
};
