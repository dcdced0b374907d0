// Where the Cluster view's nodes and pending pods come from. Today the workspace snapshot the
// language server read; a live kube context is another ClusterSource filling the same view.
import type * as vscode from 'vscode';
import { ClusterSummaryRequest, type ClusterSummary } from '../../protocol/requests';
import type { Ctx } from '../ctx';

export interface ClusterSource {
  summary(): Promise<ClusterSummary>;
  /** Fires when what `summary` answers may have changed. */
  readonly onDidChange: vscode.Event<void>;
}

/** The nodes and pods of the workspace's YAML files, as the server reads them. */
export function workspaceClusterSource(ctx: Ctx): ClusterSource {
  return { summary: () => ctx.request0(ClusterSummaryRequest), onDidChange: ctx.onDidChangeWorkspace };
}
