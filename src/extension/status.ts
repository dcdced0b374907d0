// The status bar item: the server's state and what it read of the workspace (summary.ts words).
import * as vscode from 'vscode';
import type { WorkspaceSummary } from '../protocol/requests';
import { CommandIds } from './command-ids';
import { statusWords, type ServerState } from './summary';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('podplan.status', vscode.StatusBarAlignment.Left, 10);
  private state: ServerState = 'starting';
  private summary: WorkspaceSummary | undefined;

  constructor() {
    this.item.name = 'Podplan';
    this.render();
    this.item.show();
  }

  setState(state: ServerState): void {
    this.state = state;
    if (state !== 'running') this.summary = undefined;
    this.render();
  }

  setSummary(summary: WorkspaceSummary): void {
    this.summary = summary;
    this.render();
  }

  private render(): void {
    const words = statusWords(this.state, this.summary);
    this.item.text = words.text;
    this.item.tooltip = words.tooltip;
    this.item.command = this.state === 'stopped' ? CommandIds.showOutput : CommandIds.previewPlan;
    this.item.backgroundColor = this.state === 'stopped' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
