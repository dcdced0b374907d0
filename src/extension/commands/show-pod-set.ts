// Show pod set (the count lens on a trigger): the server's references of the pod-set name, found
// from the trigger's pod-set label, in a peek view.
import * as vscode from 'vscode';
import type { TriggerCommandArgs } from '../../protocol';
import type { Ctx } from '../ctx';
import { pickPodSet } from '../pick';
import { reveal } from '../reveal';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const showPodSet = (ctx: Ctx) => async (args?: TriggerCommandArgs) => {
  if (!args?.uri) {
    const set = await pickPodSet(ctx, 'Show the pods of which pod set?');
    if (set?.trigger) await reveal('ScheduleTrigger', set.trigger, set.namespace);
    else if (set)
      void vscode.window.showInformationMessage(
        `Podplan: pod set ${set.name} has no trigger; find its pods with Find All References on its label.`,
      );
    return;
  }
  const uri = vscode.Uri.parse(args.uri);
  const document = await vscode.workspace.openTextDocument(uri);
  const label = new RegExp(`planner\\.ciena\\.io/pod-set["']?\\s*:\\s*["']?(${escapeRegExp(args.podSet)})`);
  const text = document.getText();
  const match = label.exec(text);
  if (!match || match[1] === undefined) {
    await vscode.window.showTextDocument(document);
    return;
  }
  const at = document.positionAt(match.index + match[0].length - match[1].length);
  const locations = await vscode.commands.executeCommand<vscode.Location[]>('vscode.executeReferenceProvider', uri, at);
  await vscode.commands.executeCommand('editor.action.showReferences', uri, at, locations ?? []);
};
