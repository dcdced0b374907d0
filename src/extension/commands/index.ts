// The command table: one factory per command id (command-ids.ts), each turning the context into a
// handler. `Record<CommandName, …>` makes a missing or extra entry a type error.
import type { Ctx } from '../ctx';
import type { CommandName } from '../command-ids';
import { explainPod } from './explain-pod';
import { exportPlan } from './export-plan';
import { comparePlans, openPlan, showHistory } from './history';
import { previewPlan } from './preview-plan';
import { scheduleNow } from './schedule-now';
import { restartServer, showOutput } from './server';
import { showPodSet } from './show-pod-set';
import { applyPlan, runScheduler, selectSource, stopScheduler } from './source';
import { openExample, refreshViews, revealObject } from './views';

// Handlers take whatever arguments their callers (lenses, webview intents, the palette) pass.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type CommandFactory = (ctx: Ctx) => (...args: any[]) => unknown;

export const commandTable: Readonly<Record<CommandName, CommandFactory>> = {
  showPodSet,
  previewPlan,
  scheduleNow,
  explainPod,
  showHistory,
  openPlan,
  comparePlans,
  exportPlan,
  restartServer,
  showOutput,
  revealObject,
  refreshViews,
  openExample,
  selectSource,
  applyPlan,
  runScheduler,
  stopScheduler,
};
