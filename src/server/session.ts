// The language server's state and its transitions, with no connection: the workspace files (editor
// buffers over what is on disk), the source (those files, or a kube context the user picked), the
// plan history, the MILP solver, and the diagnostics published so far. server.ts routes each LSP
// message to it; tests drive it in-process.
//
// Two analyses: the source's (`analysis()`: previews, Explain, the Cluster view, Apply Plan, the
// history plan on it) and the files' (`fileAnalysis()`: diagnostics and document features). They are
// the same while the files are the source; with a kube context the files are checked against the
// live cluster (overlay.ts), re-checked when the cluster changes, and against their own nodes again
// once the source switches back.
import type { Diagnostic } from 'vscode-languageserver';
import type { Clock } from '../engine/api/clock';
import { err, ok, type Result } from '../engine/api/result';
import { errorDetail } from '../engine/api/errors';
import type { SolverSettings } from '../engine/planner/planner';
import { writeAhead } from '../engine/planner/podset/hash';
import type { MilpSolver } from '../engine/planner/solver/solver';
import type { WorkspaceModel } from '../manifests';
import type { KubeconfigOptions } from '../kube/kubeconfig';
import type { InitializationOptions } from '../protocol/initialization';
import type {
  ApplyPlanParams,
  ApplyPlanResult,
  ClusterSummary,
  ContextList,
  ExplainPodParams,
  HistoryPage,
  ListHistoryParams,
  PreviewPlanParams,
  ScheduleNowParams,
  PodListItem,
  ScheduleNowResult,
  SchedulerParams,
  SchedulerStatus,
  SelectSourceParams,
  SourceView,
  WorkspaceSummary,
} from '../protocol/requests';
import type { HistoryEntryView, PlanBoundView, PlanDiffView, PlanView, PodExplanationView } from '../protocol/webview';
import { defaultDatabasePath } from '../store/paths';
import { Debouncer } from './debounce';
import { readYamlFile, scanFolders, YAML_FILE } from './disk';
import { noHistory, type History } from './history';
import { LiveSource } from './live-source';
import { overlayCluster } from './overlay';
import * as service from './service';
import { podSetLabelOf } from './service/analysis';
import { planView } from './service/planning';
import { plural } from './service/words';
import { openHistory, workspaceSource } from './store-history';
import { Workspace } from './workspace';

/** Previews whose bound is kept to prove when asked: the client asks at once, so a few suffice. */
const PENDING_BOUNDS = 4;

/** A solve's wall-clock limit in the editor: a preview waits for it, so shorter than the CLI's. */
const SOLVER_TIME_LIMIT_MS = 2_000;

/**
 * How much a log line matters: `error` for what should not have happened (a bug, a failed read of
 * the workspace), `warning` for what the user may want to act on (no history, no solver, a file that
 * cannot be read), `info` for what went as it should (the workspace read, with its figures).
 */
export type LogLevel = 'error' | 'warning' | 'info';

/** What the session tells the client, through the connection. */
export interface SessionPorts {
  /** A file's diagnostics; `version` for a document the client has open (a file read from disk has none it knows). */
  publishDiagnostics(uri: string, diagnostics: Diagnostic[], version: number | undefined): void;
  /** The source or its diagnostics changed: views and previews may ask again. */
  sourceChanged(generation: number): void;
  log(level: LogLevel, message: string): void;
}

export interface SessionOptions {
  readonly clock: Clock;
  /** Where kubeconfig files are looked for. */
  readonly kube: Omit<KubeconfigOptions, 'context' | 'kubeconfig'>;
  readonly init: InitializationOptions;
  /** The workspace folders, as URIs. */
  readonly folders: readonly string[];
  /** Loads the solver previews plan with (the server passes HiGHS'); without one, plans have no bound. */
  readonly loadSolver?: () => Promise<Result<MilpSolver>>;
}

export interface FileChange {
  readonly uri: string;
  readonly deleted: boolean;
}

export class Session {
  readonly folders: readonly string[];
  /** Resolves once the history is open and the folders read (the solver may still be loading: what plans waits for it). */
  readonly ready: Promise<void>;
  /** Resolves once the solver is loaded or found missing. */
  private solverLoaded: Promise<void> = Promise.resolve();
  /** Names each preview's bound proven after its answer. */
  private bounds = 0;
  /** Previews' bounds still to prove, by token, oldest first: at most PENDING_BOUNDS (each holds its models). */
  private readonly pendingBounds = new Map<string, { prove: () => service.ProvenBoundView | undefined; historyId: number | undefined }>();
  private readonly workspace: Workspace;
  private readonly live: LiveSource;
  private readonly analysisOptions: service.AnalysisOptions;
  private readonly debouncer: Debouncer;
  private readonly published = new Map<string, string>();
  private readonly forced = new Set<string>();
  private history: History = noHistory('the workspace is still being read');
  private solver: SolverSettings | undefined;
  private overlaid: { files: WorkspaceModel; cluster: WorkspaceModel; analysis: service.Analysis } | undefined;
  private readonly overlayEngine = new service.EngineCache();
  private generation = 0;
  private markReady: () => void = () => undefined;

  constructor(
    private readonly options: SessionOptions,
    private readonly ports: SessionPorts,
  ) {
    const { init, clock } = options;
    this.folders = options.folders;
    this.debouncer = new Debouncer(() => this.publishAll(), init.debounceMs);
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
    const analysis: service.AnalysisOptions = {
      clock,
      solver: () => this.solver,
      ...(init.plannerSchedulerName ? { plannerSchedulerName: init.plannerSchedulerName } : {}),
    };
    this.analysisOptions = analysis;
    this.workspace = new Workspace(analysis);
    this.live = new LiveSource({
      kubeconfig: options.kube,
      clock,
      analysis,
      // Informer events (already debounced there): the files are checked again against the cluster.
      onChange: () => this.changed(),
      log: (message) => ports.log('warning', message),
      history: () => this.history,
    });
  }

  /** Opens the history, loads the solver and reads the folders; then publishes every file's diagnostics. */
  async start(): Promise<void> {
    const { init, loadSolver } = this.options;
    try {
      const database = init.historyDatabase === undefined ? defaultDatabasePath() : init.historyDatabase;
      // The history, the solver (WebAssembly to compile) and the files load side by side: the first
      // answer waits for the slowest of them, not for their sum.
      const history =
        database === false
          ? Promise.resolve(noHistory('turned off (historyDatabase: false)'))
          : openHistory(database, this.folders, this.warn);
      const solverLoading = loadSolver?.();
      // Marked handled now; a failure still reaches the catch below when awaited.
      history.catch(() => undefined);
      // The solver is only needed to plan: the workspace is ready without it, and plans wait for it.
      this.solverLoaded = (async () => {
        const solver = await solverLoading?.catch((e: unknown) => err(errorDetail(e)));
        if (solver?.ok) this.solver = { solver: solver.value, timeLimitMs: SOLVER_TIME_LIMIT_MS, seed: 1 };
        else if (solver) this.ports.log('warning', `plans have no bound: ${solver.error}`);
      })();
      const reading = performance.now();
      await scanFolders(this.folders, (uri, text) => this.workspace.setDisk(uri, text), this.warn);
      const files = this.workspace.files();
      const documents = files.reduce((n, f) => n + f.model.documents.length, 0);
      this.ports.log(
        'info',
        `read ${plural(files.length, 'YAML file')} (${plural(documents, 'document')}) in ${Math.round(performance.now() - reading)} ms`,
      );
      this.history = await history;
      // From the process's start (performance's time origin): what the editor waits for before its status shows.
      this.ports.log('info', `ready ${Math.round(performance.now())} ms after the server started`);
    } catch (e) {
      this.ports.log('error', `reading the workspace failed: ${errorDetail(e)}`);
    } finally {
      this.markReady();
      this.changed();
    }
  }

  // ---- the files

  /** An editor opened or changed a document (anything but YAML is not ours). */
  bufferChanged(uri: string, languageId: string, text: string, version: number): void {
    if (!isYaml(uri, languageId)) return;
    try {
      this.workspace.setBuffer(uri, text, version);
    } finally {
      // Published even when reading failed: the client waits for diagnostics of its version.
      this.changed(uri);
    }
  }

  bufferClosed(uri: string): void {
    this.workspace.closeBuffer(uri);
    this.changed();
  }

  /** Files changed on disk (the client watches them): each YAML one read again, or forgotten. */
  async filesChanged(changes: readonly FileChange[]): Promise<void> {
    for (const change of changes) {
      if (!YAML_FILE.test(change.uri)) continue;
      const text = change.deleted ? undefined : await readYamlFile(change.uri, this.warn);
      if (text !== undefined) this.workspace.setDisk(change.uri, text);
      else if (change.deleted) this.workspace.deleteDisk(change.uri);
    }
    this.changed();
  }

  // ---- the analyses

  /** What previews, Explain, the Cluster view and the history plan on: the live source when one is picked. */
  analysis(): service.Analysis {
    return this.live.analysis() ?? this.workspace.analysis();
  }

  /** What the files' diagnostics and document features read: the files, against the live cluster when one is the source. */
  fileAnalysis(): service.Analysis {
    const cluster = this.live.model();
    const source = this.live.source();
    if (!cluster || !source) return this.workspace.analysis();
    const files = this.workspace.model();
    const last = this.overlaid;
    if (last && last.files === files && last.cluster === cluster) return last.analysis;
    const analysis = new service.Analysis(overlayCluster(files, cluster), (uri) => this.workspace.file(uri), this.overlayEngine, {
      ...this.analysisOptions,
      where: `context ${source.name}`,
    });
    this.overlaid = { files, cluster, analysis };
    return analysis;
  }

  /** Errors and warnings published now, over every file. */
  problems(): { errors: number; warnings: number } {
    let errors = 0;
    let warnings = 0;
    for (const json of this.published.values()) {
      for (const d of JSON.parse(json) as Diagnostic[]) {
        if (d.severity === 1) errors++;
        else if (d.severity === 2) warnings++;
      }
    }
    return { errors, warnings };
  }

  // ---- requests

  planSize(params: PreviewPlanParams | ScheduleNowParams): service.PlanSize | undefined {
    return service.planSize(params, this.analysis());
  }

  /** A preview, answered before its bound: the bound follows (boundProven) once the solver proved it. */
  async previewPlan(params: PreviewPlanParams): Promise<Result<PlanView>> {
    await this.solverLoaded;
    return service.previewPlan(params, this.analysis(), this.history, this.boundLater);
  }

  /** Keeps a preview's bound to prove when the client asks for it (planBound), the oldest dropped past the budget. */
  private readonly boundLater: service.BoundLater = (prove, historyId) => {
    const token = `bound-${++this.bounds}`;
    this.pendingBounds.set(token, { prove, historyId });
    for (const old of this.pendingBounds.keys()) {
      if (this.pendingBounds.size <= PENDING_BOUNDS) break;
      this.pendingBounds.delete(old);
    }
    return token;
  };

  /** Proves the bound of the preview `token` names, keeps it with the kept plan, and answers it. */
  planBound(token: string): Result<{ bound?: PlanBoundView }> {
    const pending = this.pendingBounds.get(token);
    if (!pending) return err(`no preview waits for its bound as ${token} (asked for already, or replaced by newer previews)`);
    this.pendingBounds.delete(token);
    const proven = pending.prove();
    if (proven && pending.historyId !== undefined) {
      const kept = this.history.setBound(pending.historyId, proven.bound);
      if (!kept.ok) this.ports.log('warning', `the bound of plan #${pending.historyId} is not kept in the plan history: ${kept.error}`);
    }
    return ok(proven ? { bound: proven.view } : {});
  }

  async explainPod(params: ExplainPodParams): Promise<Result<PodExplanationView>> {
    await this.solverLoaded;
    return service.explainPodRequest(params, this.analysis(), this.history);
  }

  async scheduleNow(params: ScheduleNowParams): Promise<Result<ScheduleNowResult>> {
    await this.solverLoaded;
    return service.scheduleNow(params, this.analysis(), this.history);
  }

  recordApplied(id: number): Result<HistoryEntryView> {
    return this.history.markApplied(id);
  }

  listPods(): PodListItem[] {
    return service.listPods(this.analysis());
  }

  workspaceSummary(): WorkspaceSummary {
    return service.workspaceSummary(this.analysis(), this.folders, this.problems(), this.history);
  }

  async clusterSummary(): Promise<ClusterSummary> {
    const summary = service.clusterSummary(this.analysis(), this.folders);
    const source = this.live.source();
    const contexts = await this.live.contexts(this.workspaceView());
    const scheduler = await this.live.scheduler({ action: 'status', trusted: false });
    return {
      ...summary,
      ...(source ? { source: { kind: source.kind, name: source.name } } : {}),
      ...(contexts.ok ? { contexts: contexts.value.contexts.map((c) => c.name) } : {}),
      ...(source && scheduler.ok ? { scheduler: scheduler.value } : {}),
    };
  }

  listContexts(): Promise<Result<ContextList>> {
    return this.live.contexts(this.workspaceView());
  }

  /** Switches the source; the history records runs of it from now on, and the files are checked against it. */
  async selectSource(params: SelectSourceParams): Promise<Result<SourceView>> {
    const selected = await this.live.select(params.context);
    const source = this.live.source();
    this.history.useSource(
      source
        ? { kind: 'kube-context', name: source.name, ...(source.server ? { server: source.server } : {}) }
        : workspaceSource(this.folders),
    );
    this.overlaid = undefined;
    this.changed();
    return selected.ok ? ok(source ?? this.workspaceView()) : selected;
  }

  async applyPlan(params: ApplyPlanParams): Promise<Result<ApplyPlanResult>> {
    await this.solverLoaded;
    return this.live.applyPlan(params, this.history);
  }

  scheduler(params: SchedulerParams): Promise<Result<SchedulerStatus>> {
    return this.live.scheduler(params);
  }

  listHistory(params: ListHistoryParams): Result<HistoryPage> {
    return this.history.list(params);
  }

  openPlan(id: number): Result<PlanView> {
    return this.history.open(id, (plan, stored) => planView(plan, this.analysis(), stored));
  }

  comparePlans(from: number, to: number): Result<PlanDiffView> {
    return this.history.compare(from, to);
  }

  async shutdown(): Promise<void> {
    this.debouncer.cancel();
    await this.live.close();
    this.history.close();
  }

  // ---- publishing

  /** A file or the history that cannot be read: the user may act on it, the server runs on. */
  private readonly warn = (message: string): void => this.ports.log('warning', message);

  private workspaceView(): SourceView {
    return { kind: 'workspace', name: workspaceSource(this.folders).name };
  }

  /** Something the diagnostics depend on changed (`uri`: publish that file even if its diagnostics did not). */
  private changed(uri?: string): void {
    if (uri) this.forced.add(uri);
    this.debouncer.schedule();
  }

  /** Validates every file and publishes what changed (and the files forced by an edit, changed or not). */
  private publishAll(): void {
    let analysis: service.Analysis;
    try {
      analysis = this.fileAnalysis();
    } catch (e) {
      this.ports.log('error', `reading the workspace failed: ${errorDetail(e)}`);
      return;
    }
    const present = new Set<string>();
    for (const file of this.workspace.files()) {
      present.add(file.uri);
      try {
        const diagnostics = service.validate(file.uri, analysis);
        const json = JSON.stringify(diagnostics);
        if (this.published.get(file.uri) === json && !this.forced.has(file.uri)) continue;
        this.published.set(file.uri, json);
        this.ports.publishDiagnostics(file.uri, diagnostics, this.workspace.isOpen(file.uri) ? file.document.version : undefined);
      } catch (e) {
        this.ports.log('error', `validating ${file.uri} failed: ${errorDetail(e)}`);
      }
    }
    for (const uri of [...this.published.keys()]) {
      if (present.has(uri)) continue;
      this.published.delete(uri);
      this.ports.publishDiagnostics(uri, [], undefined);
    }
    this.forced.clear();
    this.ports.sourceChanged(++this.generation);
    this.writeHashAhead(analysis);
  }

  /**
   * In idle time after a publication, while the analysis just published has a pod set: the texts
   * a preview's snapshot hash is written from (its cluster's nodes and pods, the source's own while
   * the files are the source), written ahead a few hundred objects a turn (so a request waits for
   * one turn at most), until done or the next publication. The first preview then only joins and
   * hashes them; what it records is the same.
   */
  private writeHashAhead(analysis: service.Analysis): void {
    const { nodes, pods } = analysis.model.cluster;
    if (!pods.some((p) => podSetLabelOf(p) !== undefined)) return;
    const objects = [...nodes, ...pods];
    const generation = this.generation;
    let at = 0;
    const step = (): void => {
      if (this.generation !== generation || at >= objects.length) return;
      at = writeAhead(objects, at, HASH_AHEAD_STEP);
      setImmediate(step);
    };
    setImmediate(step);
  }
}

/** Objects whose snapshot-hash text one idle turn writes (about a millisecond's work). */
const HASH_AHEAD_STEP = 250;

function isYaml(uri: string, languageId: string): boolean {
  return languageId === 'yaml' || YAML_FILE.test(uri);
}
