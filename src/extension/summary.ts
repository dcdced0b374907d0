// What the status bar says about the server and the workspace it read. Free of `vscode` so that a
// test can check the words; status.ts puts them on the item.
import type { WorkspaceSummary } from '../protocol/requests';

export type ServerState = 'starting' | 'running' | 'stopped';

export interface StatusWords {
  readonly text: string;
  readonly tooltip: string;
}

function count(n: number, word: string): string {
  return `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;
}

export function statusWords(state: ServerState, summary?: WorkspaceSummary): StatusWords {
  if (state === 'starting') return { text: '$(sync~spin) Podplan', tooltip: 'Podplan: the language server is starting' };
  if (state === 'stopped') return { text: '$(error) Podplan', tooltip: 'Podplan: the language server stopped. Click to see its output.' };
  if (!summary) return { text: '$(server-process) Podplan', tooltip: 'Podplan: reading the workspace' };
  const pending = summary.podSets.reduce((n, s) => n + s.pending, 0);
  // Each count beside its own icon, as VS Code's Problems item shows them.
  const { errors, warnings } = summary.problems;
  const problems = `${errors > 0 ? ` $(error) ${errors}` : ''}${warnings > 0 ? ` $(warning) ${warnings}` : ''}`;
  const text = `$(server-process) ${count(summary.nodes, 'node')}, ${count(pending, 'pod')} to place${problems}`;
  const lines = [
    `Podplan: ${count(summary.files, 'file')} read`,
    `${count(summary.nodes, 'node')}, ${count(summary.pods, 'pod')}, ${count(summary.workloads, 'workload')}`,
    `${count(summary.podSets.length, 'pod set')}, ${count(summary.triggers, 'trigger')}, ${count(summary.plans, 'plan')}`,
    `${count(summary.problems.errors, 'error')}, ${count(summary.problems.warnings, 'warning')}`,
    summary.history.available
      ? `Plan history: on${summary.history.driver ? ` (${summary.history.driver})` : ''}`
      : `Plan history: off${summary.history.reason ? ` (${summary.history.reason})` : ''}`,
  ];
  return { text, tooltip: lines.join('\n') };
}
