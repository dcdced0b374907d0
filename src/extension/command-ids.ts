// Every command the extension contributes, by name. Kept free of `vscode` so that a test can hold it
// against package.json's `contributes.commands`; commands/index.ts must give each one a handler.
import { Commands } from '../protocol/commands';

export const CommandIds = {
  // The ids the server puts in code lenses (protocol/commands.ts).
  ...Commands,
  explainPod: 'podplan.explainPod',
  showHistory: 'podplan.showHistory',
  openPlan: 'podplan.openPlan',
  comparePlans: 'podplan.comparePlans',
  exportPlan: 'podplan.exportPlan',
  restartServer: 'podplan.restartServer',
  showOutput: 'podplan.showOutput',
  revealObject: 'podplan.revealObject',
  refreshViews: 'podplan.refreshViews',
  openExample: 'podplan.openExample',
  selectSource: 'podplan.selectSource',
  applyPlan: 'podplan.applyPlan',
  runScheduler: 'podplan.runScheduler',
  stopScheduler: 'podplan.stopScheduler',
} as const;

export type CommandName = keyof typeof CommandIds;
