// Every CLI command, in the order `podplan --help` lists them.
import type { Command } from '../io';
import { claim } from './claim';
import { completionCommand } from './completion';
import { crds, installCrds } from './crds';
import { diff } from './diff';
import { explainCommand } from './explain';
import { exportPlan } from './export';
import { history } from './history';
import { plan } from './plan';
import { run } from './run';
import { schedule } from './schedule';
import { servePlanner } from './serve-planner';
import { show } from './show';
import { snapshot } from './snapshot';

export const commands: readonly Command[] = [
  schedule,
  explainCommand,
  plan,
  servePlanner,
  snapshot,
  crds,
  installCrds,
  run,
  claim,
  history,
  show,
  diff,
  exportPlan,
  completionCommand(() => commands),
];
