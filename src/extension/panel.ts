// The plan panel: one webview that shows what the commands load (a plan, an explanation, the
// history, a comparison) and keeps them as a back/forward history, as a browser does. Going back
// shows the answer kept for that entry at once (the webview restores its own tab, selection and
// filters for it); `refresh` runs the entry's load again. Other intents go to the commands.
import * as vscode from 'vscode';
import type { BoundMessage, HostToWebview, PlanBoundView, PlanView, ViewMessage, WebviewToHost } from '../protocol/webview';
import { newNonce, panelHtml } from './webview/html';
import { PanelHistory, type HistoryEntry } from './webview/navigation';
import { errorMessage } from '../protocol/errors';

export type Load = () => Promise<ViewMessage>;

/** One place in the panel's history: how to load it, and its answer once it came. */
interface Page {
  readonly title: string;
  readonly what: string;
  readonly load: Load;
  shown?: ViewMessage;
}
type Entry = HistoryEntry<Page>;

/** Bounds kept for a plan the panel has not taken yet. */
const EARLY_BOUNDS = 4;

/** How many entries back the panel remembers. */
const HISTORY_LIMIT = 50;

export class PlanPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private readonly history = new PanelHistory<Page>(HISTORY_LIMIT);
  private ready = false;
  /** Plans shown before their bound, by the token the bound will come with. */
  private readonly awaitingBound = new Map<string, Page>();
  /** Bounds that came before the panel took their plan (its load still settling): at most a few. */
  private readonly earlyBounds = new Map<string, PlanBoundView | undefined>();
  /** Set by main.ts: what to do with an intent the panel does not handle itself. */
  onIntent: (intent: WebviewToHost) => void = () => undefined;

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** The plan the panel shows now, if it shows one (for Export plan). */
  get plan(): PlanView | undefined {
    const shown = this.history.current?.value.shown;
    return shown?.type === 'plan' ? shown.plan : undefined;
  }

  /** Opens (or brings forward) the panel and shows what `load` answers, as a new history entry. */
  async show(title: string, what: string, load: Load): Promise<void> {
    const entry = this.history.push({ title, what, load });
    this.open().reveal(undefined, true);
    await this.run(entry);
  }

  private async run(entry: Entry): Promise<void> {
    const page = entry.value;
    if (this.panel) this.panel.title = page.title;
    this.post({ type: 'loading', what: page.what, nav: this.history.nav(entry) });
    let message: ViewMessage;
    try {
      message = await page.load();
    } catch (e) {
      message = { type: 'error', message: errorMessage(e) };
    }
    page.shown = message;
    const token = message.type === 'plan' ? message.plan.boundPending : undefined;
    if (token !== undefined) this.awaitingBound.set(token, page);
    // Another entry was shown meanwhile: this answer waits in its entry.
    if (entry === this.history.current) this.post({ ...message, nav: this.history.nav(entry) });
    if (token !== undefined && this.earlyBounds.has(token)) {
      const bound = this.earlyBounds.get(token);
      this.earlyBounds.delete(token);
      this.boundProven(token, bound);
    }
  }

  /** The bound a shown plan said was coming: kept with its entry, and filled in where the panel shows it. */
  boundProven(token: string, bound: PlanBoundView | undefined): void {
    const page = this.awaitingBound.get(token);
    this.awaitingBound.delete(token);
    if (!page) {
      this.earlyBounds.set(token, bound);
      for (const old of this.earlyBounds.keys()) if (this.earlyBounds.size > EARLY_BOUNDS) this.earlyBounds.delete(old);
      return;
    }
    if (page.shown?.type !== 'plan') return;
    const { boundPending: _, ...plan } = page.shown.plan;
    page.shown = { type: 'plan', plan: bound ? { ...plan, bound } : plan };
    if (page === this.history.current?.value && this.panel && this.ready) {
      const message: BoundMessage = { type: 'bound', token, ...(bound ? { bound } : {}) };
      void this.panel.webview.postMessage(message);
    }
  }

  private go(step: -1 | 1): void {
    const entry = this.history.go(step);
    if (!entry) return;
    const shown = entry.value.shown;
    if (!shown) {
      void this.run(entry);
      return;
    }
    if (this.panel) this.panel.title = entry.value.title;
    this.post({ ...shown, nav: this.history.nav(entry) });
  }

  private post(message: HostToWebview): void {
    // Before `ready` the script cannot hear it yet; `ready` sends the current entry.
    if (this.panel && this.ready) void this.panel.webview.postMessage(message);
  }

  private open(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const roots = [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')];
    const panel = vscode.window.createWebviewPanel(
      'podplan.plan',
      'Podplan',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        enableCommandUris: false,
        localResourceRoots: roots,
        retainContextWhenHidden: false,
      },
    );
    const webview = panel.webview;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      script: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js')).toString(),
      style: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'podplan.css')).toString(),
      nonce: newNonce(),
      title: 'Podplan',
    });
    webview.onDidReceiveMessage((m: WebviewToHost) => this.receive(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
      this.history.clear();
      this.awaitingBound.clear();
    });
    this.panel = panel;
    this.ready = false;
    return panel;
  }

  private receive(intent: WebviewToHost): void {
    const entry = this.history.current;
    switch (intent.type) {
      case 'ready':
        this.ready = true;
        if (entry) this.post({ ...(entry.value.shown ?? { type: 'loading', what: entry.value.what }), nav: this.history.nav(entry) });
        return;
      case 'refresh':
        if (entry) void this.run(entry);
        return;
      case 'back':
        this.go(-1);
        return;
      case 'forward':
        this.go(1);
        return;
      default:
        this.onIntent(intent);
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
