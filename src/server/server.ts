// Wires an LSP connection to the language server's Session (session.ts: the state and its
// transitions) and the language service (service/: plain functions). Handlers only wire: each one
// waits for the session to be ready, routes the request to it, and on any exception logs it to the
// connection and answers with what it has (an empty list, null, an error result), so no input takes
// the server down.
import { homedir } from 'node:os';
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  LSPErrorCodes,
  ResponseError,
  type CancellationToken,
  type CodeActionParams,
  type CodeLensParams,
  type CompletionParams,
  type DefinitionParams,
  type DocumentSymbolParams,
  type HoverParams,
  type ReferenceParams,
  FileChangeType,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
  type WorkDoneProgressParams,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Clock } from '../engine/api/clock';
import { err, type Result } from '../engine/api/result';
import { errorDetail, errorMessage } from '../engine/api/errors';
import { systemClock } from '../platform/clock';
import { highsSolver } from '../platform/highs';
import { readInitializationOptions } from '../protocol/initialization';
import {
  ApplyPlanRequest,
  ClusterSummaryRequest,
  ListPodsRequest,
  type PodListItem,
  ComparePlansRequest,
  ExplainPodRequest,
  ListContextsRequest,
  ListHistoryRequest,
  OpenPlanRequest,
  PlanBoundRequest,
  PreviewPlanRequest,
  RecordAppliedRequest,
  ScheduleNowRequest,
  SchedulerRequest,
  SelectSourceRequest,
  WorkspaceChangedNotification,
  WorkspaceSummaryRequest,
  type ClusterSummary,
  type PreviewPlanParams,
  type ScheduleNowParams,
  type WorkspaceSummary,
} from '../protocol/requests';
import * as service from './service';
import { plural } from './service/words';
import { Session, type LogLevel, type SessionOptions } from './session';

export const SERVER_NAME = 'podplan';
const VERSION = '0.1.0';

export interface ServerOptions {
  readonly clock?: Clock;
  /** Where kubeconfig files are looked for (the process's KUBECONFIG and home by default). */
  readonly kube?: SessionOptions['kube'];
}

export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  /** A log line at its level (the client shows error, warning and info apart). */
  const logAt = (level: LogLevel, message: string) => {
    const line = `[podplan] ${message}`;
    if (level === 'error') connection.console.error(line);
    else if (level === 'warning') connection.console.warn(line);
    else connection.console.info(line);
  };
  /** A handler's failure: a bug, logged as an error. */
  const log = (message: string) => logAt('error', message);
  let created: (session: Session) => void = () => undefined;
  /** The session, made at initialize. */
  const session = new Promise<Session>((resolve) => (created = resolve));
  let watchDynamically = false;

  /** A handler that waits for the session to be ready, and answers `fallback` (after logging) if it throws. */
  function guard<P extends unknown[], R>(
    name: string,
    fallback: (e: unknown) => R | Promise<R>,
    handler: (s: Session, ...args: P) => R | Promise<R>,
  ): (...args: P) => Promise<R> {
    return async (...args: P) => {
      try {
        const s = await session;
        await s.ready;
        return await handler(s, ...args);
      } catch (e) {
        log(`${name} failed: ${errorDetail(e)}`);
        return fallback(e);
      }
    };
  }
  const failed =
    <T>(name: string) =>
    (e: unknown): Result<T> =>
      err(`${name} failed: ${errorMessage(e)}`);
  /** Runs `body` on the session once it exists (document events keep their order), logging a failure. */
  const onSession = (what: string, body: (s: Session) => void | Promise<void>) =>
    void session.then(body).catch((e: unknown) => log(`${what} failed: ${errorDetail(e)}`));

  connection.onInitialize((params): InitializeResult => {
    const s = new Session(
      {
        clock: options.clock ?? systemClock,
        kube: options.kube ?? { env: process.env, homedir: homedir(), cwd: process.cwd() },
        init: readInitializationOptions(params.initializationOptions),
        folders: params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []),
        loadSolver: highsSolver,
      },
      {
        publishDiagnostics: (uri, diagnostics, version) =>
          void connection.sendDiagnostics({ uri, ...(version !== undefined ? { version } : {}), diagnostics }),
        sourceChanged: (generation) => void connection.sendNotification(WorkspaceChangedNotification, { generation }),
        log: logAt,
      },
    );
    created(s);
    void s.start();
    watchDynamically = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    return {
      capabilities: {
        textDocumentSync: TextDocumentSyncKind.Incremental,
        completionProvider: { triggerCharacters: [':', ' ', '-', '/'] },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, CodeActionKind.Refactor] },
        codeLensProvider: { resolveProvider: false },
        documentSymbolProvider: true,
        definitionProvider: true,
        referencesProvider: true,
      },
      serverInfo: { name: SERVER_NAME, version: VERSION },
    };
  });

  connection.onInitialized(() => {
    if (watchDynamically) {
      connection.client
        .register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.{yaml,yml}' }] })
        .catch((e: unknown) => log(`watching files failed: ${errorDetail(e)}`));
    }
  });

  connection.onDidChangeWatchedFiles((params) =>
    onSession('file change', async (s) => {
      await s.ready;
      await s.filesChanged(params.changes.map((c) => ({ uri: c.uri, deleted: c.type === FileChangeType.Deleted })));
    }),
  );
  documents.onDidChangeContent((e) =>
    onSession(`reading ${e.document.uri}`, (s) =>
      s.bufferChanged(e.document.uri, e.document.languageId, e.document.getText(), e.document.version),
    ),
  );
  documents.onDidClose((e) => onSession(`closing ${e.document.uri}`, (s) => s.bufferClosed(e.document.uri)));

  /**
   * Plans with a progress notification: on the client's token when it sent one, else on one the
   * server creates (window/workDoneProgress/create, when the client shows them) for a plan big
   * enough to take a while. The plan runs synchronously, so `begin` is let out first.
   */
  async function planning<R>(
    params: WorkDoneProgressParams,
    size: service.PlanSize | undefined,
    title: string,
    plan: () => R | Promise<R>,
  ): Promise<R> {
    const reporter =
      params.workDoneToken !== undefined
        ? connection.languages.attachWorkDoneProgress(params)
        : size && service.takesLong(size)
          ? await connection.window.createWorkDoneProgress()
          : undefined;
    if (!reporter) return await plan();
    reporter.begin(
      title,
      undefined,
      size ? `${size.podSet}: ${plural(size.pods, 'pod')} on ${plural(size.nodes, 'node')}` : undefined,
      false,
    );
    await new Promise((resolve) => setImmediate(resolve));
    try {
      return await plan();
    } finally {
      reporter.done();
    }
  }

  /**
   * A document feature: as guard, but a request the client cancelled while it waited (for the
   * workspace to be read, for a plan or an earlier request to finish) is answered as cancelled, not
   * computed. An editor asks again at every trigger character and cancels the question before; each
   * stale completion, answered in turn, ranked every node again, and on a large workspace the one the
   * editor waited for came seconds later, its list showing "Loading…" all the while.
   */
  function feature<P, R>(
    name: string,
    fallback: R,
    handler: (s: Session, params: P) => R,
  ): (params: P, token: CancellationToken) => Promise<R | ResponseError<void>> {
    return guard(
      name,
      () => fallback,
      (s, params: P, token: CancellationToken) =>
        token.isCancellationRequested ? new ResponseError<void>(LSPErrorCodes.RequestCancelled, `${name}: cancelled`) : handler(s, params),
    );
  }

  // Document features read the files (checked against the live cluster when one is the source).
  connection.onCompletion(
    feature('completion', [], (s, p: CompletionParams) => service.complete(p.textDocument.uri, p.position, s.fileAnalysis())),
  );
  connection.onHover(feature('hover', null, (s, p: HoverParams) => service.hover(p.textDocument.uri, p.position, s.fileAnalysis())));
  // Only the kinds asked for (an editor asking for quick fixes gets no refactoring).
  const wanted = (kind: string | undefined, only: readonly string[] | undefined) =>
    !only || (kind !== undefined && only.some((o) => kind === o || kind.startsWith(`${o}.`)));
  connection.onCodeAction(
    feature('code actions', [], (s, p: CodeActionParams) =>
      service
        .codeActions(p.textDocument.uri, p.range, p.context.diagnostics, s.fileAnalysis())
        .filter((a) => wanted(a.kind, p.context.only)),
    ),
  );
  // Lenses start previews, which plan on the source: they are offered where the source has the file.
  connection.onCodeLens(feature('code lenses', [], (s, p: CodeLensParams) => service.codeLenses(p.textDocument.uri, s.analysis())));
  connection.onDocumentSymbol(
    feature('document symbols', [], (s, p: DocumentSymbolParams) => service.symbols(p.textDocument.uri, s.fileAnalysis())),
  );
  connection.onDefinition(
    feature('definition', [], (s, p: DefinitionParams) => service.definition(p.textDocument.uri, p.position, s.fileAnalysis())),
  );
  connection.onReferences(
    feature('references', [], (s, p: ReferenceParams) =>
      service.references(p.textDocument.uri, p.position, p.context.includeDeclaration, s.fileAnalysis()),
    ),
  );

  connection.onRequest(
    PreviewPlanRequest,
    guard('podplan/previewPlan', failed('podplan/previewPlan'), (s, p: PreviewPlanParams & WorkDoneProgressParams) =>
      planning(p, s.planSize(p), 'Podplan: planning', () => s.previewPlan(p)),
    ),
  );
  connection.onRequest(
    PlanBoundRequest,
    guard('podplan/planBound', failed('podplan/planBound'), (s, p) => s.planBound(p.token)),
  );
  connection.onRequest(
    ExplainPodRequest,
    guard('podplan/explainPod', failed('podplan/explainPod'), (s, p) => s.explainPod(p)),
  );
  connection.onRequest(
    ScheduleNowRequest,
    guard('podplan/scheduleNow', failed('podplan/scheduleNow'), (s, p: ScheduleNowParams & WorkDoneProgressParams) =>
      planning(p, s.planSize(p), 'Podplan: planning for Schedule Now', () => s.scheduleNow(p)),
    ),
  );
  connection.onRequest(
    RecordAppliedRequest,
    guard('podplan/recordApplied', failed('podplan/recordApplied'), (s, p) => s.recordApplied(p.id)),
  );
  connection.onRequest(
    WorkspaceSummaryRequest,
    guard(
      'podplan/workspaceSummary',
      async (): Promise<WorkspaceSummary> => {
        const s = await session;
        return {
          folders: s.folders,
          files: 0,
          nodes: 0,
          pods: 0,
          workloads: 0,
          triggers: 0,
          plans: 0,
          profiles: [],
          podSets: [],
          problems: s.problems(),
          history: { available: false },
        };
      },
      (s) => s.workspaceSummary(),
    ),
  );
  connection.onRequest(
    ListPodsRequest,
    guard(
      'podplan/listPods',
      (): PodListItem[] => [],
      (s) => s.listPods(),
    ),
  );
  connection.onRequest(
    ClusterSummaryRequest,
    guard(
      'podplan/clusterSummary',
      (): ClusterSummary => ({ source: { kind: 'workspace', name: 'workspace' }, nodes: [], pending: [] }),
      (s) => s.clusterSummary(),
    ),
  );
  connection.onRequest(
    ListContextsRequest,
    guard('podplan/listContexts', failed('podplan/listContexts'), (s) => s.listContexts()),
  );
  connection.onRequest(
    SelectSourceRequest,
    guard('podplan/selectSource', failed('podplan/selectSource'), (s, p) => s.selectSource(p)),
  );
  connection.onRequest(
    ApplyPlanRequest,
    guard('podplan/applyPlan', failed('podplan/applyPlan'), (s, p) => s.applyPlan(p)),
  );
  connection.onRequest(
    SchedulerRequest,
    guard('podplan/scheduler', failed('podplan/scheduler'), (s, p) => s.scheduler(p)),
  );
  connection.onRequest(
    ListHistoryRequest,
    guard('podplan/listHistory', failed('podplan/listHistory'), (s, p) => s.listHistory(p)),
  );
  connection.onRequest(
    OpenPlanRequest,
    guard('podplan/openPlan', failed('podplan/openPlan'), (s, p) => s.openPlan(p.id)),
  );
  connection.onRequest(
    ComparePlansRequest,
    guard('podplan/comparePlans', failed('podplan/comparePlans'), (s, p) => s.comparePlans(p.from, p.to)),
  );

  connection.onShutdown(async () => {
    // Shut down before initialize: there is nothing to stop.
    const s = await Promise.race([session, Promise.resolve(undefined)]);
    await s?.shutdown();
  });

  documents.listen(connection);
  connection.listen();
}
