// The extension entry (dist/extension.cjs): starts the language server, registers the command
// table and routes what the plan panel asks for to the same commands. Everything computed comes
// from the server (docs/architecture.md, Processes).
import * as vscode from 'vscode';
import type { WebviewToHost } from '../protocol/webview';
import { CommandIds, type CommandName } from './command-ids';
import { commandTable } from './commands';
import { restoreSource } from './commands/source';
import { Ctx } from './ctx';
import { reveal } from './reveal';
import { workspaceClusterSource } from './views/cluster-source';
import { registerViews } from './views';
import { isViewNode } from './views/model';
import { offerSchemasToYamlExtension } from './yaml-extension';
import { errorMessage } from '../protocol/errors';

/** Settings the server reads once at start: a change restarts it. */
const SERVER_SETTINGS = ['podplan.schedulerName', 'podplan.history.enabled', 'podplan.history.database'];

let ctx: Ctx | undefined;

function intent(message: WebviewToHost): Thenable<unknown> | undefined {
  switch (message.type) {
    case 'explainPod':
      return vscode.commands.executeCommand(CommandIds.explainPod, {
        pod: { namespace: message.namespace, name: message.pod },
        ...(message.inPlan ? { inPlan: message.inPlan } : {}),
      });
    case 'openPlan':
      return vscode.commands.executeCommand(CommandIds.openPlan, { id: message.id });
    case 'comparePlans':
      return vscode.commands.executeCommand(CommandIds.comparePlans, { from: message.from, to: message.to });
    case 'moreHistory':
      return vscode.commands.executeCommand(CommandIds.showHistory, { before: message.before });
    case 'scheduleNow':
      return vscode.commands.executeCommand(CommandIds.scheduleNow, { trigger: { namespace: message.namespace, name: message.trigger } });
    case 'reveal':
      return reveal(message.kind, message.name, message.namespace);
    case 'ready':
    case 'refresh':
    case 'back':
    case 'forward':
      return undefined;
  }
}

export async function activate(extension: vscode.ExtensionContext): Promise<void> {
  const context = new Ctx(extension);
  ctx = context;
  for (const [name, factory] of Object.entries(commandTable) as Array<[CommandName, (typeof commandTable)[CommandName]]>) {
    const handler = factory(context);
    extension.subscriptions.push(
      vscode.commands.registerCommand(CommandIds[name], async (...args: unknown[]) => {
        try {
          // From a tree's context menu or inline action: the node's arguments, not the node.
          const [first, ...rest] = args;
          return await handler(...(isViewNode(first) ? [first.args, ...rest] : args));
        } catch (e) {
          const message = errorMessage(e);
          context.output.error(`${CommandIds[name]} failed: ${message}`);
          void vscode.window.showErrorMessage(`Podplan: ${message}`);
          return undefined;
        }
      }),
    );
  }
  extension.subscriptions.push(
    ...registerViews(context, workspaceClusterSource(context)),
    offerSchemasToYamlExtension(extension, context.output),
  );
  context.panel.onIntent = (message) =>
    void Promise.resolve(intent(message)).catch((e: unknown) =>
      context.output.error(`webview intent ${message.type} failed: ${String(e)}`),
    );
  extension.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (SERVER_SETTINGS.some((s) => e.affectsConfiguration(s))) void vscode.commands.executeCommand(CommandIds.restartServer);
    }),
  );
  try {
    await context.start();
    await restoreSource(context);
  } catch (e) {
    context.output.error(`the language server did not start: ${errorMessage(e)}`);
    void vscode.window.showErrorMessage('Podplan: the language server did not start (see Output → Podplan).');
  }
}

export async function deactivate(): Promise<void> {
  await ctx?.stop();
  ctx = undefined;
}
