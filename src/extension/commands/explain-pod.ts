// Explain pod: one scheduling cycle for one pod (podplan/explainPod), every node's verdict shown.
// The pod comes from the webview, or the Pod manifest under the cursor, or a pick list of the
// source's pods (those not yet placed first).
import * as vscode from 'vscode';
import { ExplainPodRequest, ListPodsRequest, type ObjectRef, type PlanRefView } from '../../protocol';
import type { Ctx } from '../ctx';

async function podUnderCursor(): Promise<ObjectRef | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>(
    'vscode.executeDocumentSymbolProvider',
    editor.document.uri,
  );
  const pod = symbols?.find((s) => s.detail === 'Pod' && s.range.contains(editor.selection.active));
  return pod ? parseRef(pod.name) : undefined;
}

/** `namespace/name`, or a bare `name` (the server finds it when it is unique across namespaces). */
function parseRef(text: string): ObjectRef | undefined {
  const [first, second, ...rest] = text.trim().split('/');
  if (!first || rest.length > 0) return undefined;
  return second === undefined ? { name: first } : second ? { namespace: first, name: second } : undefined;
}

/** The source's pods to pick from, those not yet placed first. */
async function pickPod(ctx: Ctx): Promise<ObjectRef | undefined> {
  const pods = await ctx.request0(ListPodsRequest);
  if (pods.length === 0) {
    void vscode.window.showInformationMessage('Podplan: no pod in the workspace to explain.');
    return undefined;
  }
  const items = pods.map((p) => ({
    label: p.name,
    description: p.namespace,
    detail: [
      p.node !== undefined ? `on ${p.node}` : 'not placed',
      ...(p.podSet !== undefined ? [`pod set ${p.podSet}`] : []),
      `scheduler ${p.schedulerName}`,
    ].join(' · '),
    ref: { namespace: p.namespace, name: p.name },
  }));
  const picked = await vscode.window.showQuickPick(items, {
    placeHolder: 'Explain which pod? (those not placed first)',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.ref;
}

export const explainPod = (ctx: Ctx) => async (args?: { readonly pod?: ObjectRef; readonly inPlan?: PlanRefView }) => {
  let pod = args?.pod ?? (await podUnderCursor());
  pod ??= await pickPod(ctx);
  if (!pod) return;
  const ref = pod;
  await ctx.panel.show(`Why ${ref.name}`, `Explaining ${ref.name}…`, async () => {
    const result = await ctx.request(ExplainPodRequest, { pod: ref, ...(args?.inPlan ? { inPlan: args.inPlan } : {}) });
    return result.ok ? { type: 'explanation', explanation: result.value } : { type: 'error', message: result.error };
  });
};
