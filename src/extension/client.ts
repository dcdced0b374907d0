// The language client: the bundled server (dist/server.cjs) over IPC, for YAML documents.
import * as vscode from 'vscode';
import type { InitializationOptions } from '../protocol/initialization';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

/** The server's initializationOptions from the settings. */
function initializationOptions(extension: vscode.ExtensionContext): InitializationOptions {
  const config = vscode.workspace.getConfiguration('podplan');
  const plannerSchedulerName = config.get<string>('schedulerName') || undefined;
  if (!config.get<boolean>('history.enabled', true)) return { plannerSchedulerName, historyDatabase: false };
  const database = config.get<string>('history.database');
  if (database) return { plannerSchedulerName, historyDatabase: database };
  // The extension's own storage, so that the history survives updates and is not in the workspace.
  // The store makes the folder (src/store/store.ts): no round trip through the workbench first.
  return { plannerSchedulerName, historyDatabase: vscode.Uri.joinPath(extension.globalStorageUri, 'history.db').fsPath };
}

export function createClient(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): LanguageClient {
  const module = extension.asAbsolutePath('dist/server.cjs');
  const serverOptions: ServerOptions = {
    // Node's own printing of process warnings is off: the server logs them as warnings (main.ts),
    // not as stderr, which the client shows as errors.
    run: { module, transport: TransportKind.ipc, options: { execArgv: ['--no-warnings'] } },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--no-warnings', '--nolazy', '--inspect=6019'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{yaml,yml}') },
    outputChannel: output,
    initializationOptions: initializationOptions(extension),
  };
  // The id `podplan` makes the client read the `podplan.trace.server` setting.
  return new LanguageClient('podplan', 'Podplan', serverOptions, clientOptions);
}
