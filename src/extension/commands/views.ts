// Commands of the Podplan view container: open an object a tree names, refresh the trees, and
// copy a bundled example to a folder and open it (the walkthrough's first and last steps).
import * as vscode from 'vscode';
import type { ObjectKindView } from '../../protocol/webview';
import type { Ctx } from '../ctx';
import { reveal } from '../reveal';

export const revealObject = () => (kind: ObjectKindView, name: string, namespace?: string) => reveal(kind, name, namespace);

export const refreshViews = (ctx: Ctx) => () => {
  ctx.refreshViews();
};

/** The bundled examples the walkthrough copies: the cluster with its pod sets, and the GPU cluster (DRA). */
const EXAMPLES = { cluster: 'podplan-example', dra: 'podplan-gpu-example' } as const;

export const openExample =
  (ctx: Ctx) =>
  async (example: unknown = 'cluster') => {
    const name: keyof typeof EXAMPLES = example === 'dra' ? 'dra' : 'cluster';
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      openLabel: 'Copy the example here',
      title: name === 'dra' ? 'Podplan: where to put the GPU example workspace' : 'Podplan: where to put the example workspace',
    });
    const parent = picked?.[0];
    if (!parent) return;
    const target = vscode.Uri.joinPath(parent, EXAMPLES[name]);
    await vscode.workspace.fs.copy(vscode.Uri.joinPath(ctx.extension.extensionUri, 'examples', name), target, { overwrite: false });
    await vscode.commands.executeCommand('vscode.openFolder', target);
  };
