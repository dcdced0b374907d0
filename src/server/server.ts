// Wires an LSP connection to the language service. Handlers only wire: each one waits for the
// first read of the workspace, calls the service, and on any exception logs it to the connection
// and answers with what it has (an empty list, null, an error result), so no input takes the
// server down.
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  CodeActionKind,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  TextDocuments,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic,
  type InitializeResult,
  type WorkDoneProgressParams,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Clock } from '../engine/api/clock';
import { err, type Result } from '../engine/api/result';
import { systemClock } from '../platform/clock';
import {
  ApplyPlanRequest,
  ClusterSummaryRequest,
  ListContextsRequest,
  SchedulerRequest,
  SelectSourceRequest,
  ComparePlansRequest,
  ExplainPodRequest,
  ListHistoryRequest,
  OpenPlanRequest,
  PreviewPlanRequest,
  RecordAppliedRequest,
  ScheduleNowRequest,
  WorkspaceChangedNotification,
  WorkspaceSummaryRequest,
  type ApplyPlanParams,
  type ClusterSummary,
  type ComparePlansParams,
  type SchedulerParams,
  type SelectSourceParams,
  type SourceView,
  type ExplainPodParams,
  type ListHistoryParams,
  type OpenPlanParams,
  type PreviewPlanParams,
  type RecordAppliedParams,
  type ScheduleNowParams,
  type WorkspaceSummary,
} from '../protocol/requests';
import type { InitializationOptions } from '../protocol/initialization';
import { defaultDatabasePath } from '../store/paths';
import { noHistory, type History } from './history';
import { openHistory } from './store-history';
import * as service from './service';
import { planView } from './service/planning';
import { Debouncer } from './debounce';
import { LiveSource } from './live-source';
import { workspaceSource } from './store-history';
import { Workspace } from './workspace';
import { errorDetail, errorMessage } from '../engine/api/errors';

export const SERVER_NAME = 'podplan';
const VERSION = '0.1.0';

export interface ServerOptions {
  readonly clock?: Clock;
  /** Where kubeconfig files are looked for (the process's KUBECONFIG and home by default). */
  readonly kube?: { readonly env: Readonly<Record<string, string | undefined>>; readonly homedir: string; readonly cwd: string };
}

const YAML_FILE = /\.ya?ml$/i;
/** Folders never holding manifests worth reading, and big enough to slow the first read. */
const SKIPPED_DIRECTORIES = new Set(['node_modules', '.git', 'dist', 'out', '.vscode-test', '.cache']);
/** Larger files are left out (a manifest this big is generated output, not something edited here). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_FILES = 20_000;


export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const documents = new TextDocuments(TextDocument);
  const published = new Map<string, string>();
  const forced = new Set<string>();
  let workspace = new Workspace();
  let live: LiveSource | undefined;
  let folders: string[] = [];
  let history: History = noHistory('the workspace is still being read');
  let debouncer = new Debouncer(publishAll);
  let watchDynamically = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const log = (message: string) => connection.console.error(`[podplan] ${message}`);

  /** A handler that waits for the workspace, and answers `fallback` (after logging) if it throws. */
  function guard<P extends unknown[], R>(name: string, fallback: (e: unknown) => R, handler: (...args: P) => R | Promise<R>): (...args: P) => Promise<R> {
    return async (...args: P) => {
      try {
        await ready;
        return await handler(...args);
      } catch (e) {
        log(`${name} failed: ${errorDetail(e)}`);
        return fallback(e);
      }
    };
  }
  const failed = <T>(name: string) => (e: unknown): Result<T> => err(`${name} failed: ${errorMessage(e)}`);

  function problems(): { errors: number; warnings: number } {
    let errors = 0;
    let warnings = 0;
    for (const json of published.values()) {
      for (const d of JSON.parse(json) as Diagnostic[]) {
        if (d.severity === 1) errors++;
        else if (d.severity === 2) warnings++;
      }
    }
    return { errors, warnings };
  }

  /** Validates every file and publishes what changed (and the files forced by an edit, changed or not). */
  function publishAll(): void {
    let analysis: service.Analysis;
    try {
      analysis = workspace.analysis();
    } catch (e) {
      log(`reading the workspace failed: ${errorDetail(e)}`);
      return;
    }
    const present = new Set<string>();
    for (const file of workspace.files()) {
      present.add(file.uri);
      try {
        const diagnostics = service.validate(file.uri, analysis);
        const json = JSON.stringify(diagnostics);
        if (published.get(file.uri) === json && !forced.has(file.uri)) continue;
        published.set(file.uri, json);
        // A version only for open documents: a file read from disk has none the client knows.
        void connection.sendDiagnostics({ uri: file.uri, ...(workspace.isOpen(file.uri) ? { version: file.document.version } : {}), diagnostics });
      } catch (e) {
        log(`validating ${file.uri} failed: ${errorDetail(e)}`);
      }
    }
    for (const uri of [...published.keys()]) {
      if (present.has(uri)) continue;
      published.delete(uri);
      void connection.sendDiagnostics({ uri, diagnostics: [] });
    }
    forced.clear();
    void connection.sendNotification(WorkspaceChangedNotification.method, { generation: workspace.generation });
  }

  function changed(uri?: string): void {
    if (uri) forced.add(uri);
    debouncer.schedule();
  }

  async function readDisk(uri: string): Promise<void> {
    try {
      const file = fileURLToPath(uri);
      const info = await stat(file);
      if (!info.isFile() || info.size > MAX_FILE_BYTES) return;
      workspace.setDisk(uri, await readFile(file, 'utf8'));
    } catch (e) {
      // Gone between the event and the read: a delete event follows.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') log(`reading ${uri} failed: ${errorDetail(e)}`);
    }
  }

  /** Every YAML file under the folders, breadth first, within the limits above. */
  async function scan(roots: readonly string[]): Promise<void> {
    const queue = roots.flatMap((uri) => (uri.startsWith('file:') ? [fileURLToPath(uri)] : []));
    let files = 0;
    while (queue.length > 0 && files < MAX_FILES) {
      const dir = queue.shift() as string;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (e) {
        log(`listing ${dir} failed: ${errorDetail(e)}`);
        continue;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name)) queue.push(full);
        else if (entry.isFile() && YAML_FILE.test(entry.name) && files++ < MAX_FILES) await readDisk(pathToFileURL(full).toString());
      }
    }
  }

  connection.onInitialize((params): InitializeResult => {
    const init = (params.initializationOptions ?? {}) as InitializationOptions;
    if (typeof init.debounceMs === 'number' && init.debounceMs >= 0) debouncer = new Debouncer(publishAll, init.debounceMs);
    workspace = new Workspace({
      clock: options.clock ?? systemClock,
      ...(typeof init.plannerSchedulerName === 'string' && init.plannerSchedulerName ? { plannerSchedulerName: init.plannerSchedulerName } : {}),
    });
    folders = params.workspaceFolders?.map((f) => f.uri) ?? (params.rootUri ? [params.rootUri] : []);
    const clock = options.clock ?? systemClock;
    live = new LiveSource({
      kubeconfig: options.kube ?? { env: process.env, homedir: homedir(), cwd: process.cwd() },
      clock,
      analysis: { clock, ...(typeof init.plannerSchedulerName === 'string' && init.plannerSchedulerName ? { plannerSchedulerName: init.plannerSchedulerName } : {}) },
      onChange: () => void connection.sendNotification(WorkspaceChangedNotification.method, { generation: ++liveGeneration }),
      log,
      history: () => history,
    });
    watchDynamically = params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    void (async () => {
      try {
        const database = init.historyDatabase === undefined ? defaultDatabasePath() : init.historyDatabase;
        history = database === false ? noHistory('turned off (historyDatabase: false)') : await openHistory(database, folders, log);
        await scan(folders);
      } catch (e) {
        log(`reading the workspace failed: ${errorDetail(e)}`);
      } finally {
        markReady();
        changed();
      }
    })();
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
      connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.{yaml,yml}' }] }).catch((e: unknown) => log(`watching files failed: ${errorDetail(e)}`));
    }
  });

  connection.onDidChangeWatchedFiles(async (params) => {
    try {
      await ready;
      for (const change of params.changes) {
        if (!YAML_FILE.test(change.uri)) continue;
        if (change.type === FileChangeType.Deleted) workspace.deleteDisk(change.uri);
        else await readDisk(change.uri);
      }
      changed();
    } catch (e) {
      log(`file change failed: ${errorDetail(e)}`);
    }
  });

  const isYaml = (doc: TextDocument) => doc.languageId === 'yaml' || YAML_FILE.test(doc.uri);
  documents.onDidChangeContent((e) => {
    try {
      if (!isYaml(e.document)) return;
      workspace.setBuffer(e.document.uri, e.document.getText(), e.document.version);
    } catch (err) {
      log(`reading ${e.document.uri} failed: ${errorDetail(err)}`);
    }
    // Published even when reading failed: the client waits for diagnostics of its version.
    if (isYaml(e.document)) changed(e.document.uri);
  });
  documents.onDidClose((e) => {
    try {
      workspace.closeBuffer(e.document.uri);
      changed();
    } catch (err) {
      log(`closing ${e.document.uri} failed: ${errorDetail(err)}`);
    }
  });

  /** What previews, Explain, the Cluster view and the history plan on: the live source when one is picked. */
  const analysis = () => live?.analysis() ?? workspace.analysis();
  let liveGeneration = 0;
  const workspaceView = (): SourceView => ({ kind: 'workspace', name: workspaceSource(folders).name });
  const liveSource = (): LiveSource => {
    if (!live) throw new Error('the server is not initialized');
    return live;
  };

  /**
   * Plans with a progress notification: on the client's token when it sent one, else on one the
   * server creates (window/workDoneProgress/create, when the client shows them) for a plan big
   * enough to take a while. The plan runs synchronously, so `begin` is let out first.
   */
  async function planning<R>(params: WorkDoneProgressParams, size: service.PlanSize | undefined, title: string, plan: () => R): Promise<R> {
    const reporter =
      params.workDoneToken !== undefined ? connection.languages.attachWorkDoneProgress(params) : size && service.takesLong(size) ? await connection.window.createWorkDoneProgress() : undefined;
    if (!reporter) return plan();
    reporter.begin(title, undefined, size ? `${size.podSet}: ${size.pods} pods on ${size.nodes} nodes` : undefined, false);
    await new Promise((resolve) => setImmediate(resolve));
    try {
      return plan();
    } finally {
      reporter.done();
    }
  }
  connection.onCompletion(guard('completion', () => [], (p) => service.complete(p.textDocument.uri, p.position, analysis())));
  connection.onHover(guard('hover', () => null, (p) => service.hover(p.textDocument.uri, p.position, analysis())));
  connection.onCodeAction(guard('code actions', () => [], (p) => service.codeActions(p.textDocument.uri, p.range, p.context.diagnostics, analysis())));
  connection.onCodeLens(guard('code lenses', () => [], (p) => service.codeLenses(p.textDocument.uri, analysis())));
  connection.onDocumentSymbol(guard('document symbols', () => [], (p) => service.symbols(p.textDocument.uri, analysis())));
  connection.onDefinition(guard('definition', () => [], (p) => service.definition(p.textDocument.uri, p.position, analysis())));
  connection.onReferences(guard('references', () => [], (p) => service.references(p.textDocument.uri, p.position, p.context.includeDeclaration, analysis())));

  connection.onRequest(
    PreviewPlanRequest,
    guard('podplan/previewPlan', failed('podplan/previewPlan'), (p: PreviewPlanParams & WorkDoneProgressParams) =>
      planning(p, service.planSize(p, analysis()), 'Podplan: planning', () => service.previewPlan(p, analysis(), history)),
    ),
  );
  connection.onRequest(ExplainPodRequest, guard('podplan/explainPod', failed('podplan/explainPod'), (p: ExplainPodParams) => service.explainPodRequest(p, analysis(), history)));
  connection.onRequest(
    ScheduleNowRequest,
    guard('podplan/scheduleNow', failed('podplan/scheduleNow'), (p: ScheduleNowParams & WorkDoneProgressParams) =>
      planning(p, service.planSize(p, analysis()), 'Podplan: planning for Schedule Now', () => service.scheduleNow(p, analysis(), history)),
    ),
  );
  connection.onRequest(RecordAppliedRequest, guard('podplan/recordApplied', failed('podplan/recordApplied'), (p: RecordAppliedParams) => history.markApplied(p.id)));
  connection.onRequest(
    WorkspaceSummaryRequest,
    guard(
      'podplan/workspaceSummary',
      (): WorkspaceSummary => ({ folders, files: 0, nodes: 0, pods: 0, workloads: 0, triggers: 0, plans: 0, profiles: [], podSets: [], problems: problems(), history: { available: false } }),
      () => service.workspaceSummary(analysis(), folders, problems(), history),
    ),
  );
  connection.onRequest(
    ClusterSummaryRequest,
    guard('podplan/clusterSummary', (): ClusterSummary => ({ source: { kind: 'workspace', name: 'workspace' }, nodes: [], pending: [] }), async (): Promise<ClusterSummary> => {
      const summary = service.clusterSummary(analysis(), folders);
      const source = liveSource().source();
      const contexts = liveSource().contexts(workspaceView());
      const scheduler = await liveSource().scheduler({ action: 'status', trusted: false });
      return {
        ...summary,
        ...(source ? { source: { kind: source.kind, name: source.name } } : {}),
        ...(contexts.ok ? { contexts: contexts.value.contexts.map((c) => c.name) } : {}),
        ...(source && scheduler.ok ? { scheduler: scheduler.value } : {}),
      };
    }),
  );
  connection.onRequest(ListContextsRequest, guard('podplan/listContexts', failed('podplan/listContexts'), () => liveSource().contexts(workspaceView())));
  connection.onRequest(
    SelectSourceRequest,
    guard('podplan/selectSource', failed('podplan/selectSource'), async (p: SelectSourceParams) => {
      const selected = await liveSource().select(p.context);
      const source = liveSource().source();
      history.useSource(source ? { kind: 'kube-context', name: source.name, ...(source.server ? { server: source.server } : {}) } : workspaceSource(folders));
      void connection.sendNotification(WorkspaceChangedNotification.method, { generation: ++liveGeneration });
      return selected.ok ? { ok: true as const, value: source ?? workspaceView() } : selected;
    }),
  );
  connection.onRequest(ApplyPlanRequest, guard('podplan/applyPlan', failed('podplan/applyPlan'), (p: ApplyPlanParams) => liveSource().applyPlan(p, history)));
  connection.onRequest(SchedulerRequest, guard('podplan/scheduler', failed('podplan/scheduler'), (p: SchedulerParams) => liveSource().scheduler(p)));
  connection.onRequest(ListHistoryRequest, guard('podplan/listHistory', failed('podplan/listHistory'), (p: ListHistoryParams) => history.list(p)));
  connection.onRequest(OpenPlanRequest, guard('podplan/openPlan', failed('podplan/openPlan'), (p: OpenPlanParams) => history.open(p.id, (plan, id) => planView(plan, analysis(), id))));
  connection.onRequest(ComparePlansRequest, guard('podplan/comparePlans', failed('podplan/comparePlans'), (p: ComparePlansParams) => history.compare(p.from, p.to)));

  connection.onShutdown(async () => {
    debouncer.cancel();
    await live?.close();
    history.close();
  });

  documents.listen(connection);
  connection.listen();
}
