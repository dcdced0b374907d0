// The plan panel: one webview, reused, that shows what the last command loaded (a plan, an
// explanation, the history, a comparison). `refresh` from the webview runs the same load again;
// every other intent goes to the command that handles it.
import * as vscode from 'vscode';
import type { HostToWebview, PlanView, WebviewToHost } from '../protocol/webview';
import { newNonce, panelHtml } from './webview/html';

export type Load = () => Promise<HostToWebview>;

export class PlanPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private load: Load | undefined;
  private shown: HostToWebview | undefined;
  private ready = false;
  /** Set by main.ts: what to do with an intent other than `ready` and `refresh`. */
  onIntent: (intent: WebviewToHost) => void = () => undefined;

  constructor(private readonly extensionUri: vscode.Uri) {}

  /** The plan the panel shows now, if it shows one (for Export plan). */
  get plan(): PlanView | undefined {
    return this.shown?.type === 'plan' ? this.shown.plan : undefined;
  }

  /** Opens (or brings forward) the panel and shows what `load` answers. */
  async show(title: string, what: string, load: Load): Promise<void> {
    this.load = load;
    const panel = this.open();
    panel.title = title;
    panel.reveal(undefined, true);
    await this.run(what);
  }

  private async run(what: string): Promise<void> {
    const load = this.load;
    if (!load) return;
    this.post({ type: 'loading', what });
    let message: HostToWebview;
    try {
      message = await load();
    } catch (e) {
      message = { type: 'error', message: e instanceof Error ? e.message : String(e) };
    }
    // A newer load started meanwhile: its answer is the one to show.
    if (load === this.load) this.post(message);
  }

  private post(message: HostToWebview): void {
    if (message.type !== 'loading') this.shown = message;
    // Before `ready` the script cannot hear it yet; `ready` sends what is shown by then.
    if (this.panel && this.ready) void this.panel.webview.postMessage(message);
  }

  private open(): vscode.WebviewPanel {
    if (this.panel) return this.panel;
    const roots = [vscode.Uri.joinPath(this.extensionUri, 'dist'), vscode.Uri.joinPath(this.extensionUri, 'media')];
    const panel = vscode.window.createWebviewPanel('podplan.plan', 'Podplan', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: roots,
      retainContextWhenHidden: false,
    });
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
      this.load = undefined;
      this.shown = undefined;
    });
    this.panel = panel;
    this.ready = false;
    return panel;
  }

  private receive(intent: WebviewToHost): void {
    if (intent.type === 'ready') {
      this.ready = true;
      if (this.shown) this.post(this.shown);
    } else if (intent.type === 'refresh') {
      void this.run('Asking the server again…');
    } else {
      this.onIntent(intent);
    }
  }

  dispose(): void {
    this.panel?.dispose();
  }
}
