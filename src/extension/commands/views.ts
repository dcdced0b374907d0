// Commands of the Podplan view container: open an object a tree names, refresh the trees, and
// copy the bundled example to a folder and open it (the walkthrough's first step).
import * as vscode from 'vscode';
import type { ObjectKindView } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { reveal } from '../reveal';

export const revealObject = () => (kind: ObjectKindView, name: string, namespace?: string) => reveal(kind, name, namespace);

export const refreshViews = (ctx: Ctx) => () => {
  ctx.refreshViews();
};

export const openExample = (ctx: Ctx) => async () => {
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    openLabel: 'Copy the example here',
    title: 'Podplan: where to put the example workspace',
  });
  const parent = picked?.[0];
  if (!parent) return;
  const target = vscode.Uri.joinPath(parent, 'podplan-example');
  await vscode.workspace.fs.copy(vscode.Uri.joinPath(ctx.extension.extensionUri, 'examples', 'cluster'), target, { overwrite: false });
  await vscode.commands.executeCommand('vscode.openFolder', target);
};
