// Questions a command asks when it was started without arguments (from the palette).
import * as vscode from 'vscode';
import { ListHistoryRequest, type ObjectRef } from '../protocol/requests';
import type { HistoryEntryView } from '../protocol/webview';
import type { Ctx } from './ctx';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export interface PodSetRef {
  readonly namespace: string;
  readonly name: string;
  readonly trigger?: string;
}

export async function pickPodSet(ctx: Ctx, placeHolder: string): Promise<PodSetRef | undefined> {
  const summary = await ctx.summary();
  if (summary.podSets.length === 0) {
    void vscode.window.showInformationMessage('Podplan: no pod set in the workspace (pods labelled planner.ciena.io/pod-set).');
    return undefined;
  }
  const items = summary.podSets.map((s) => ({
    label: s.name,
    description: s.namespace,
    detail: `${plural(s.pods, 'pod')}, ${s.pending} to place${s.trigger ? ` · trigger ${s.trigger} (${s.state ?? 'no state'})` : ' · no trigger'}`,
    set: { namespace: s.namespace, name: s.name, ...(s.trigger ? { trigger: s.trigger } : {}) },
  }));
  return (await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true }))?.set;
}

export async function pickTrigger(ctx: Ctx): Promise<ObjectRef | undefined> {
  const summary = await ctx.summary();
  const items = summary.podSets.flatMap((s) =>
    s.trigger
      ? [
          {
            label: s.trigger,
            description: `${s.namespace} · pod set ${s.name} · ${s.state ?? ''}`,
            ref: { namespace: s.namespace, name: s.trigger },
          },
        ]
      : [],
  );
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Podplan: no ScheduleTrigger in the workspace.');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder: 'Schedule which trigger now?' }))?.ref;
}

/** Up to `count` stored plans, newest first, picked from the history's first page. */
export async function pickHistory(ctx: Ctx, placeHolder: string, count: 1 | 2): Promise<HistoryEntryView[] | undefined> {
  const page = await ctx.request(ListHistoryRequest, { limit: 200 });
  if (!page.ok) {
    void vscode.window.showErrorMessage(`Podplan: ${page.error}`);
    return undefined;
  }
  if (page.value.entries.length < count) {
    void vscode.window.showInformationMessage(`Podplan: the history holds ${plural(page.value.entries.length, 'plan')}.`);
    return undefined;
  }
  const items = page.value.entries.map((e) => ({
    label: `#${e.id} ${e.namespace}/${e.podSet}`,
    description: `${e.status} · ${new Date(e.createdAt).toLocaleString()}`,
    detail: `${e.placed} placed, ${e.unplaced} not placed${e.evicted ? `, ${e.evicted} evicted` : ''} · ${e.planner}`,
    entry: e,
  }));
  if (count === 1) {
    const one = await vscode.window.showQuickPick(items, { placeHolder });
    return one ? [one.entry] : undefined;
  }
  const two = await vscode.window.showQuickPick(items, { placeHolder, canPickMany: true });
  if (!two) return undefined;
  if (two.length !== 2) {
    void vscode.window.showWarningMessage('Podplan: pick exactly two plans to compare.');
    return undefined;
  }
  return two.map((i) => i.entry);
}
