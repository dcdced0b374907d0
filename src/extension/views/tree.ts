// One tree data provider for the three trees: it asks `load` for the nodes (model.ts) and shows
// them; `refresh` asks again. A failed load shows one line saying why, not an empty tree.
import * as vscode from 'vscode';
import type { ViewNode } from './model';
import { errorMessage } from '../../protocol/errors';

export class NodeTree implements vscode.TreeDataProvider<ViewNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly load: () => Promise<ViewNode[]>) {}

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(node?: ViewNode): Promise<ViewNode[]> {
    if (node) return [...(node.children ?? [])];
    try {
      return await this.load();
    } catch (e) {
      return [{ key: 'error', label: errorMessage(e), icon: 'warning' }];
    }
  }

  getTreeItem(node: ViewNode): vscode.TreeItem {
    const state =
      node.children && node.children.length > 0
        ? node.expanded
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(node.label, state);
    item.id = node.key;
    if (node.description !== undefined) item.description = node.description;
    if (node.tooltip !== undefined) item.tooltip = node.tooltip;
    if (node.icon !== undefined) item.iconPath = new vscode.ThemeIcon(node.icon);
    if (node.contextValue !== undefined) item.contextValue = node.contextValue;
    if (node.open) item.command = { command: node.open.command, title: node.label, arguments: [...node.open.args] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
