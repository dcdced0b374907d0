// The live source from the editor: pick a kube context (or the workspace files) for the server to
// plan from, Apply Plan on that cluster, and Run/Stop Podplan as its scheduler. The chosen context
// is kept in this workspace's state, never written to the kubeconfig. The server does the work and
// refuses writes for an untrusted workspace too; this only asks, confirms and shows.
import * as vscode from 'vscode';
import {
  ApplyPlanRequest,
  ListContextsRequest,
  SchedulerRequest,
  SelectSourceRequest,
  type ObjectRef,
  type SchedulerStatus,
  type SourceView,
} from '../../protocol/requests';
import type { Ctx } from '../ctx';
import { pickTrigger } from '../pick';
import { planLogLines } from '../plan-log';
import { applyWords, schedulerWords } from './source-words';

/** The workspace state key of the chosen context (absent: the workspace files). */
export const SOURCE_STATE_KEY = 'podplan.source.context';
const WORKSPACE_FILES = 'Workspace files';
const SELECT_SOURCE = 'Select Source…';

async function select(ctx: Ctx, context: string | undefined): Promise<SourceView | undefined> {
  const selected = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Window,
      title: context ? `Podplan: reading context ${context}…` : 'Podplan: back to the workspace files',
    },
    () => ctx.request(SelectSourceRequest, context !== undefined ? { context } : {}),
  );
  if (!selected.ok) {
    // A context that cannot be read leaves the server on the workspace files; a running scheduler keeps its context.
    const listed = await ctx.request0(ListContextsRequest);
    const source: SourceView = listed.ok ? listed.value.source : { kind: 'workspace', name: 'workspace' };
    await ctx.extension.workspaceState.update(SOURCE_STATE_KEY, source.kind === 'cluster' ? source.name : undefined);
    ctx.setSource(source);
    void vscode.window.showErrorMessage(`Podplan: ${selected.error}`);
    return undefined;
  }
  await ctx.extension.workspaceState.update(SOURCE_STATE_KEY, context);
  ctx.setSource(selected.value);
  return selected.value;
}

/** At start: the context this workspace used last, if it still exists. */
export async function restoreSource(ctx: Ctx): Promise<void> {
  const context = ctx.extension.workspaceState.get<string>(SOURCE_STATE_KEY);
  if (context !== undefined) await select(ctx, context);
}

export const selectSource = (ctx: Ctx) => async (args?: { readonly context?: string }) => {
  if (args?.context !== undefined) return select(ctx, args.context);
  const listed = await ctx.request0(ListContextsRequest);
  const contexts = listed.ok ? listed.value.contexts : [];
  const current = listed.ok ? listed.value.source : undefined;
  const items: Array<vscode.QuickPickItem & { context?: string }> = [
    { label: WORKSPACE_FILES, description: current?.kind === 'workspace' ? 'in use' : 'the YAML files of this workspace' },
    { label: 'Kube contexts', kind: vscode.QuickPickItemKind.Separator },
    ...contexts.map((c) => ({
      label: c.name,
      context: c.name,
      description: [
        current?.kind === 'cluster' && current.name === c.name ? 'in use' : '',
        c.current ? 'current-context' : '',
        c.namespace ?? '',
      ]
        .filter(Boolean)
        .join(' · '),
      detail: c.server ?? c.cluster,
    })),
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Podplan: plan from',
    placeHolder: listed.ok ? 'The workspace files or a kube context (the kubeconfig is not changed)' : `No contexts: ${listed.error}`,
  });
  if (!picked) return undefined;
  return select(ctx, picked.context);
};

/** From the palette (nothing), a pod set's node in the view (`podSet` a name beside `namespace`) or a caller's refs. */
export const applyPlan =
  (ctx: Ctx) => async (args?: { readonly trigger?: ObjectRef; readonly podSet?: ObjectRef | string; readonly namespace?: string }) => {
    if (!ctx.trusted) {
      void vscode.window.showWarningMessage(
        'Podplan: Apply Plan writes to a cluster, so it is off in an untrusted workspace. Trust the workspace (Manage Workspace Trust) to use it.',
      );
      return;
    }
    if (ctx.currentSource.kind !== 'cluster') {
      // Apply Plan writes to a cluster: with the workspace files as the source, choose a context first.
      const choice = await vscode.window.showWarningMessage(
        'Podplan: Apply Plan writes to a cluster, and Podplan plans from the workspace files now. Select a kube context as the source first.',
        SELECT_SOURCE,
      );
      if (choice !== SELECT_SOURCE) return;
      const selected = await selectSource(ctx)();
      if (selected?.kind !== 'cluster') return;
    }
    const podSet =
      typeof args?.podSet === 'string' ? { name: args.podSet, ...(args.namespace ? { namespace: args.namespace } : {}) } : args?.podSet;
    const target = args?.trigger ? { trigger: args.trigger } : podSet ? { podSet } : { trigger: await pickTrigger(ctx) };
    if (!target.trigger && !target.podSet) return;
    const request = {
      ...(target.trigger ? { trigger: target.trigger } : {}),
      ...(target.podSet ? { podSet: target.podSet } : {}),
      trusted: ctx.trusted,
    };
    const preview = await ctx.request(ApplyPlanRequest, request);
    if (!preview.ok) {
      void vscode.window.showErrorMessage(`Podplan: ${preview.error}`);
      return;
    }
    const words = applyWords(preview.value);
    const choice = await vscode.window.showWarningMessage(words.question, { modal: true, detail: words.detail }, words.action);
    if (choice !== words.action) return;
    const applied = await ctx.request(ApplyPlanRequest, { ...request, confirm: preview.value.token });
    if (!applied.ok) {
      void vscode.window.showErrorMessage(`Podplan: ${applied.error}`);
      return;
    }
    ctx.historyUpdated();
    for (const line of planLogLines(applied.value.plan, 'schedule')) ctx.output.info(line);
    void vscode.window.showInformationMessage(`Podplan: ${words.done}`);
  };

async function scheduler(ctx: Ctx, action: 'start' | 'stop'): Promise<SchedulerStatus | undefined> {
  if (action === 'start' && !ctx.trusted) {
    void vscode.window.showWarningMessage('Podplan: running as a scheduler writes to a cluster, so it is off in an untrusted workspace.');
    return undefined;
  }
  const leaseNamespace = vscode.workspace.getConfiguration('podplan').get<string>('scheduler.leaseNamespace');
  const answer = await ctx.request(SchedulerRequest, { action, trusted: ctx.trusted, ...(leaseNamespace ? { leaseNamespace } : {}) });
  if (!answer.ok) {
    void vscode.window.showErrorMessage(`Podplan: ${answer.error}`);
    return undefined;
  }
  ctx.setScheduler(answer.value);
  ctx.output.info(schedulerWords(answer.value));
  return answer.value;
}

export const runScheduler = (ctx: Ctx) => () => scheduler(ctx, 'start');
export const stopScheduler = (ctx: Ctx) => () => scheduler(ctx, 'stop');
