// Explain pod: one scheduling cycle for one pod (podplan/explainPod), every node's verdict shown.
// The pod comes from the webview, or the Pod manifest under the cursor, or the user types it.
import * as vscode from 'vscode';
import { ExplainPodRequest, type ObjectRef, type PlanRefView } from '../../protocol';
import type { Ctx } from '../ctx';

async function podUnderCursor(): Promise<ObjectRef | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>('vscode.executeDocumentSymbolProvider', editor.document.uri);
  const pod = symbols?.find((s) => s.detail === 'Pod' && s.range.contains(editor.selection.active));
  return pod ? parseRef(pod.name) : undefined;
}

/** `namespace/name` or `name` (namespace default). */
function parseRef(text: string): ObjectRef | undefined {
  const [first, second, ...rest] = text.trim().split('/');
  if (!first || rest.length > 0) return undefined;
  return second === undefined ? { namespace: 'default', name: first } : second ? { namespace: first, name: second } : undefined;
}

export const explainPod = (ctx: Ctx) => async (args?: { readonly pod?: ObjectRef; readonly inPlan?: PlanRefView }) => {
  let pod = args?.pod ?? (await podUnderCursor());
  if (!pod) {
    const typed = await vscode.window.showInputBox({ prompt: 'Explain which pod?', placeHolder: 'namespace/name', validateInput: (v) => (parseRef(v) ? undefined : 'namespace/name or name') });
    pod = typed === undefined ? undefined : parseRef(typed);
  }
  if (!pod) return;
  const ref = pod;
  await ctx.panel.show(`Why ${ref.name}`, `Explaining ${ref.name}…`, async () => {
    const result = await ctx.request(ExplainPodRequest, { pod: ref, ...(args?.inPlan ? { inPlan: args.inPlan } : {}) });
    return result.ok ? { type: 'explanation', explanation: result.value } : { type: 'error', message: result.error };
  });
};
