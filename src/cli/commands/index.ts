// Every CLI command, in the order `podplan --help` lists them.
import type { Command } from '../io';
import { schedule } from './schedule';
import { history } from './history';
import { show } from './show';
import { diff } from './diff';
import { exportPlan } from './export';

export const commands: readonly Command[] = [
  schedule,
  history,
  show,
  diff,
  exportPlan,
];
