// The language client: the bundled server (dist/server.cjs) over IPC, for YAML documents.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

/** The server's initializationOptions (src/server/server.ts InitializationOptions) from the settings. */
async function initializationOptions(extension: vscode.ExtensionContext): Promise<Record<string, unknown>> {
  const config = vscode.workspace.getConfiguration('podplan');
  const options: Record<string, unknown> = {};
  const schedulerName = config.get<string>('schedulerName');
  if (schedulerName) options['plannerSchedulerName'] = schedulerName;
  if (!config.get<boolean>('history.enabled', true)) {
    options['historyDatabase'] = false;
  } else {
    const database = config.get<string>('history.database');
    if (database) {
      options['historyDatabase'] = database;
    } else {
      // The extension's own storage, so that the history survives updates and is not in the workspace.
      await vscode.workspace.fs.createDirectory(extension.globalStorageUri);
      options['historyDatabase'] = vscode.Uri.joinPath(extension.globalStorageUri, 'history.db').fsPath;
    }
  }
  return options;
}

export async function createClient(extension: vscode.ExtensionContext, output: vscode.LogOutputChannel): Promise<LanguageClient> {
  const module = extension.asAbsolutePath('dist/server.cjs');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.{yaml,yml}') },
    outputChannel: output,
    initializationOptions: await initializationOptions(extension),
  };
  // The id `podplan` makes the client read the `podplan.trace.server` setting.
  return new LanguageClient('podplan', 'Podplan', serverOptions, clientOptions);
}
