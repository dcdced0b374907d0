// The extension's state, handed to every command factory (commands/index.ts): the language client,
// the output channel, the plan panel and the status bar. The server computes; this only asks.
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import type { RequestParam, RequestType, RequestType0 } from 'vscode-languageclient';
import {
  PlanBoundRequest,
  SchedulerRequest,
  WorkspaceChangedNotification,
  WorkspaceSummaryRequest,
  type SchedulerStatus,
  type SourceView,
  type WorkspaceSummary,
} from '../protocol/requests';
import type { PlanBoundView } from '../protocol/webview';
import { CommandIds } from './command-ids';
import { sourceStatusWords } from './commands/source-words';
import { createClient } from './client';
import { PlanPanel } from './panel';
import { boundLogLine } from './plan-log';
import { StatusItem } from './status';
import { errorMessage } from '../protocol/errors';

/** How often the status bar asks a running scheduler how it does. */
const SCHEDULER_POLL_MS = 1_000;

export class Ctx implements vscode.Disposable {
  readonly output: vscode.LogOutputChannel;
  readonly panel: PlanPanel;
  private readonly status: StatusItem;
  private client: LanguageClient | undefined;
  private readonly clientSubscriptions: vscode.Disposable[] = [];
  private readonly workspaceChanged = new vscode.EventEmitter<void>();
  private readonly historyChanged = new vscode.EventEmitter<void>();
  /** The server read a change of the workspace (or started): views ask again. */
  readonly onDidChangeWorkspace = this.workspaceChanged.event;
  /** A plan was kept or its status changed in the history. */
  readonly onDidChangeHistory = this.historyChanged.event;
  private historyNoticeShown = false;
  /** The source and scheduler item: click to switch the source. */
  private readonly sourceItem = vscode.window.createStatusBarItem('podplan.source', vscode.StatusBarAlignment.Left, 9);
  private source: SourceView = { kind: 'workspace', name: 'workspace' };
  private schedulerStatus: SchedulerStatus | undefined;
  private schedulerPoll: ReturnType<typeof setInterval> | undefined;

  constructor(readonly extension: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel('Podplan', { log: true });
    this.panel = new PlanPanel(extension.extensionUri);
    this.status = new StatusItem();
    extension.subscriptions.push(this, this.output, this.panel, this.status, this.workspaceChanged, this.historyChanged, this.sourceItem);
    this.sourceItem.name = 'Podplan Source';
    this.sourceItem.command = CommandIds.selectSource;
    this.showSource();
  }

  /** Where the server plans from now. */
  get currentSource(): SourceView {
    return this.source;
  }

  /** The server plans from this source now (the status bar says so, the views ask again). */
  setSource(source: SourceView): void {
    this.source = source;
    void vscode.commands.executeCommand('setContext', 'podplan.sourceIsCluster', source.kind === 'cluster');
    this.showSource();
    this.workspaceChanged.fire();
  }

  /** The scheduler's latest status; polled while it runs, so the status bar follows it. */
  setScheduler(status: SchedulerStatus): void {
    this.schedulerStatus = status;
    void vscode.commands.executeCommand('setContext', 'podplan.schedulerRunning', status.running);
    if (status.running && !this.schedulerPoll) {
      this.schedulerPoll = setInterval(() => {
        this.request(SchedulerRequest, { action: 'status', trusted: this.trusted }).then(
          (answer) => answer.ok && this.setScheduler(answer.value),
          () => undefined,
        );
      }, SCHEDULER_POLL_MS);
    } else if (!status.running && this.schedulerPoll) {
      clearInterval(this.schedulerPoll);
      this.schedulerPoll = undefined;
    }
    this.showSource();
    this.workspaceChanged.fire();
  }

  get scheduler(): SchedulerStatus | undefined {
    return this.schedulerStatus;
  }

  private showSource(): void {
    const words = sourceStatusWords(this.source, this.schedulerStatus);
    this.sourceItem.text = words.text;
    this.sourceItem.tooltip = words.tooltip;
    this.sourceItem.show();
  }

  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  async start(): Promise<void> {
    const client = createClient(this.extension, this.output);
    this.client = client;
    this.clientSubscriptions.push(
      client.onDidChangeState((e) => {
        this.status.setState(e.newState === State.Running ? 'running' : e.newState === State.Starting ? 'starting' : 'stopped');
        // package.json's when-clauses offer the server's commands only while it runs.
        void vscode.commands.executeCommand('setContext', 'podplan.serverRunning', e.newState === State.Running);
        if (e.newState === State.Running) void this.refreshSummary();
      }),
    );
    this.status.setState('starting');
    await client.start();
    this.clientSubscriptions.push(client.onNotification(WorkspaceChangedNotification, () => void this.refreshSummary()));
  }

  async stop(): Promise<void> {
    if (this.schedulerPoll) clearInterval(this.schedulerPoll);
    this.schedulerPoll = undefined;
    for (const d of this.clientSubscriptions.splice(0)) d.dispose();
    const client = this.client;
    this.client = undefined;
    if (client) await client.dispose();
    this.status.setState('stopped');
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** The running client; a command started before the server is up (or after it died) says so. */
  private running(): LanguageClient {
    if (!this.client || this.client.state !== State.Running)
      throw new Error('the Podplan language server is not running (see Output → Podplan)');
    return this.client;
  }

  request<P, R>(type: RequestType<P, R, void>, params: RequestParam<P>): Promise<R> {
    return this.running().sendRequest(type, params);
  }

  request0<R>(type: RequestType0<R, void>): Promise<R> {
    return this.running().sendRequest(type);
  }

  /** Converts a server WorkspaceEdit into VS Code's. */
  workspaceEdit(
    edit: Parameters<LanguageClient['protocol2CodeConverter']['asWorkspaceEdit']>[0],
  ): Promise<vscode.WorkspaceEdit | undefined> {
    return this.running().protocol2CodeConverter.asWorkspaceEdit(edit);
  }

  /** Asks for the bound of a preview shown before it, logs it and hands it to the panel. */
  async followBound(token: string): Promise<void> {
    let bound: PlanBoundView | undefined;
    try {
      const answer = await this.request(PlanBoundRequest, { token });
      if (answer.ok) bound = answer.value.bound;
      else this.output.warn(`the bound of the preview: ${answer.error}`);
      if (answer.ok) this.output.info(boundLogLine(bound));
    } catch (e) {
      this.output.warn(`the bound of the preview: ${errorMessage(e)}`);
    }
    this.panel.boundProven(token, bound);
  }

  summary(): Promise<WorkspaceSummary> {
    return this.request0(WorkspaceSummaryRequest);
  }

  /** Every view asks again. */
  refreshViews(): void {
    this.workspaceChanged.fire();
  }

  /** Views showing the history ask again (after a preview or a schedule kept a plan). */
  historyUpdated(): void {
    this.historyChanged.fire();
  }

  private async refreshSummary(): Promise<void> {
    this.workspaceChanged.fire();
    try {
      const summary = await this.summary();
      this.status.setSummary(summary);
      if (!summary.history.available && summary.history.noDriver && summary.history.reason && !this.historyNoticeShown) {
        // Once per session, in words: planning works, only keeping plans does not.
        this.historyNoticeShown = true;
        this.output.warn(summary.history.reason);
        void vscode.window.showWarningMessage(
          `Podplan: plan history is off, ${summary.history.reason}. Plans are still previewed and scheduled, but not kept. To keep them, run the editor with Node 22.5 or newer; to hide this notice, set podplan.history.enabled to false.`,
        );
      }
    } catch (e) {
      this.output.warn(`workspace summary failed: ${errorMessage(e)}`);
    }
  }

  dispose(): void {
    void this.stop();
  }
}
