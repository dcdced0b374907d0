// Opens the manifest of a pod, node, trigger or plan the webview names. The server's document
// symbols say where each object is written (pods as namespace/name, nodes by name); the YAML
// files are asked one by one until one holds it.
import * as vscode from 'vscode';
import type { ObjectKindView } from '../protocol/webview';

const MAX_FILES = 2000;

function matches(symbol: vscode.DocumentSymbol, kind: ObjectKindView, wanted: string): boolean {
  if (symbol.name !== wanted) return false;
  // Workloads are `Deployment · 3 replicas`; a pod they make is named after them, not matched here.
  return symbol.detail === kind || symbol.detail.startsWith(`${kind} ·`);
}

export async function reveal(kind: ObjectKindView, name: string, namespace?: string): Promise<boolean> {
  const wanted = kind === 'Node' ? name : `${namespace ?? 'default'}/${name}`;
  const files = await vscode.workspace.findFiles('**/*.{yaml,yml}', '**/{node_modules,.git,dist}/**', MAX_FILES);
  for (const uri of files) {
    const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', uri);
    const found = symbols?.find((s) => matches(s, kind, wanted));
    if (found) {
      await vscode.window.showTextDocument(uri, { selection: found.selectionRange, viewColumn: vscode.ViewColumn.One });
      return true;
    }
  }
  void vscode.window.showInformationMessage(
    `Podplan: ${kind} ${wanted} is not written in a YAML file of the workspace (it may be made by a workload).`,
  );
  return false;
}
