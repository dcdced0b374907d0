// Wires an LSP connection to the language service. Handlers only translate; the service decides.
import { TextDocumentSyncKind, type Connection, type InitializeResult } from 'vscode-languageserver';

export const SERVER_NAME = 'podplan';

export function startServer(connection: Connection): void {
  connection.onInitialize(
    (): InitializeResult => ({
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
      },
      serverInfo: { name: SERVER_NAME, version: '0.1.0' },
    }),
  );
  connection.listen();
}
