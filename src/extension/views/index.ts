// The Podplan view container (package.json viewsContainers/views): Pod sets & triggers, Plans and
// Cluster, refreshed when the server says the workspace changed or a plan was kept.
import * as vscode from 'vscode';
import { ListHistoryRequest } from '../../protocol/requests';
import type { HistoryEntryView } from '../../protocol/webview';
import { CommandIds } from '../command-ids';
import type { Ctx } from '../ctx';
import type { ClusterSource } from './cluster-source';
import { ViewIds } from './ids';
import { clusterNodes, planNodes, podSetNodes } from './model';
import { NodeTree } from './tree';

/** Plans listed in the Plans view (the newest; the history command pages through the rest). */
const PLANS_SHOWN = 200;

async function historyEntries(ctx: Ctx): Promise<HistoryEntryView[]> {
  const page = await ctx.request(ListHistoryRequest, { limit: PLANS_SHOWN });
  if (!page.ok) throw new Error(page.error);
  return [...page.value.entries];
}

export function registerViews(ctx: Ctx, cluster: ClusterSource): vscode.Disposable[] {
  const podSets = new NodeTree(async () => {
    const summary = await ctx.summary();
    void vscode.commands.executeCommand('setContext', 'podplan.podSetCount', summary.podSets.length);
    return podSetNodes(summary, CommandIds.revealObject);
  });
  const plans = new NodeTree(async () => planNodes(await historyEntries(ctx), CommandIds.openPlan));
  const nodes = new NodeTree(async () => clusterNodes(await cluster.summary(), CommandIds.revealObject, CommandIds.selectSource));
  return [
    podSets,
    plans,
    nodes,
    vscode.window.createTreeView(ViewIds.podSets, { treeDataProvider: podSets, showCollapseAll: true }),
    vscode.window.createTreeView(ViewIds.plans, { treeDataProvider: plans, showCollapseAll: true }),
    vscode.window.createTreeView(ViewIds.cluster, { treeDataProvider: nodes, showCollapseAll: true }),
    ctx.onDidChangeWorkspace(() => {
      podSets.refresh();
      plans.refresh();
    }),
    ctx.onDidChangeHistory(() => plans.refresh()),
    cluster.onDidChange(() => nodes.refresh()),
  ];
}
