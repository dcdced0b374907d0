// Drives the real language server over stdio with a real LSP client connection, as an editor would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  InitializeRequest,
  InitializedNotification,
  ExitNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type InitializeResult,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';

const SERVER = path.resolve('src/server/main.ts');

export interface LspSession {
  readonly connection: ProtocolConnection;
  readonly initialize: InitializeResult;
  readonly process: ChildProcess;
  /** Everything the server wrote to stderr (for failure messages). */
  stderr(): string;
  close(): Promise<void>;
}

/** Starts the server (from source, through tsx) on `workspace` and completes the initialize handshake. */
export async function startLspSession(workspace: string, initializationOptions: unknown = {}): Promise<LspSession> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (!child.stdout || !child.stdin) throw new Error('server stdio not piped');
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  connection.listen();
  const root = pathToFileURL(path.resolve(workspace)).toString();
  const initialize = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: root,
    workspaceFolders: [{ uri: root, name: path.basename(workspace) }],
    capabilities: {
      textDocument: { publishDiagnostics: { relatedInformation: true }, completion: { completionItem: { snippetSupport: true } } },
      workspace: { workspaceFolders: true, didChangeWatchedFiles: { dynamicRegistration: true } },
    },
    initializationOptions,
  });
  await connection.sendNotification(InitializedNotification.type, {});
  return {
    connection,
    initialize,
    process: child,
    stderr: () => stderr,
    async close() {
      if (child.exitCode === null) {
        await connection.sendRequest(ShutdownRequest.type);
        await connection.sendNotification(ExitNotification.type);
        await new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));
      }
      connection.dispose();
    },
  };
}
