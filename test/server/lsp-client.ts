// Drives the real language server over stdio with a real LSP client connection, as an editor would.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  type MessageType,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { WorkspaceChangedNotification } from '../../src/protocol/requests';

const SERVER = path.resolve('src/server/main.ts');

export interface LspSession {
  readonly connection: ProtocolConnection;
  readonly initialize: InitializeResult;
  readonly process: ChildProcess;
  /** Everything the server wrote to stderr (for failure messages). */
  stderr(): string;
  /** The URI of a file of the workspace, by its path relative to the workspace folder. */
  uri(relative: string): string;
  /** The diagnostics last published for a URI. */
  diagnostics(uri: string): Diagnostic[] | undefined;
  /** Opens (first time) or replaces the whole text of a document, and waits until the server has published for the change. */
  edit(uri: string, text: string): Promise<Diagnostic[]>;
  close(uri: string): Promise<void>;
  /** Resolves once the server has published diagnostics after everything sent so far. */
  settled(): Promise<void>;
  /** Dynamic registrations the server asked the client for. */
  registrations(): string[];
  /** The server's log lines so far, with their levels (window/logMessage). */
  logs(): Array<{ type: MessageType; message: string }>;
  /** Shuts the server down and waits for the process to exit. */
  shutdown(): Promise<void>;
}

/**
 * Starts the server (from source, through tsx, unless `bundle` names a built server such as a
 * .vsix's dist/server.cjs; `env` over this process's environment, e.g. a KUBECONFIG) on
 * `workspace` with no debounce, completes the initialize handshake and waits for the first
 * diagnostics of the whole workspace.
 */
export async function startLspSession(
  workspace: string,
  initializationOptions: Record<string, unknown> = {},
  env: Readonly<Record<string, string>> = {},
  bundle?: string,
): Promise<LspSession> {
  const args = bundle === undefined ? ['--import', 'tsx', SERVER, '--stdio'] : [bundle, '--stdio'];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (!child.stdout || !child.stdin) throw new Error('server stdio not piped');
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = new Map<string, Diagnostic[]>();
  const registrations: string[] = [];
  const logs: Array<{ type: MessageType; message: string }> = [];
  connection.onNotification(LogMessageNotification.type, (p) => void logs.push(p));
  let generations = 0;
  let waiters: Array<{ after: number; resolve: () => void }> = [];
  connection.onNotification(PublishDiagnosticsNotification.type, (p) => void published.set(p.uri, p.diagnostics));
  connection.onNotification(WorkspaceChangedNotification.method, () => {
    generations++;
    const due = waiters.filter((w) => generations > w.after);
    waiters = waiters.filter((w) => generations <= w.after);
    for (const w of due) w.resolve();
  });
  connection.onRequest(RegistrationRequest.type, (p) => {
    for (const r of p.registrations) registrations.push(r.method);
  });
  connection.listen();
  const next = (after = generations) => new Promise<void>((resolve) => waiters.push({ after, resolve }));
  const first = next(0);
  const folder = path.resolve(workspace);
  const root = pathToFileURL(folder).toString();
  const initialize = await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: root,
    workspaceFolders: [{ uri: root, name: path.basename(workspace) }],
    capabilities: {
      textDocument: { publishDiagnostics: { relatedInformation: true }, completion: { completionItem: { snippetSupport: true } } },
      workspace: { workspaceFolders: true, didChangeWatchedFiles: { dynamicRegistration: true } },
    },
    initializationOptions: { debounceMs: 0, historyDatabase: ':memory:', ...initializationOptions },
  });
  await connection.sendNotification(InitializedNotification.type, {});
  await first;
  const versions = new Map<string, number>();
  const shutdown = async () => {
    if (child.exitCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await connection.sendRequest(ShutdownRequest.type);
      await connection.sendNotification(ExitNotification.type);
      await exited;
    }
    connection.dispose();
  };
  return {
    connection,
    initialize,
    process: child,
    stderr: () => stderr,
    uri: (relative) => pathToFileURL(path.join(folder, relative)).toString(),
    diagnostics: (uri) => published.get(uri),
    async edit(uri, text) {
      const version = (versions.get(uri) ?? 0) + 1;
      versions.set(uri, version);
      const done = next();
      if (version === 1)
        await connection.sendNotification(DidOpenTextDocumentNotification.type, {
          textDocument: { uri, languageId: 'yaml', version, text },
        });
      else
        await connection.sendNotification(DidChangeTextDocumentNotification.type, {
          textDocument: { uri, version },
          contentChanges: [{ text }],
        });
      await done;
      return published.get(uri) ?? [];
    },
    async close(uri) {
      versions.delete(uri);
      const done = next();
      await connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
      await done;
    },
    settled: () => next(),
    registrations: () => [...registrations],
    logs: () => [...logs],
    shutdown,
  };
}
