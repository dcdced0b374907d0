// Every CLI command, in the order `podplan --help` lists them.
import type { Command } from '../io';
import { claim } from './claim';
import { diff } from './diff';
import { exportPlan } from './export';
import { history } from './history';
import { plan } from './plan';
import { run } from './run';
import { schedule } from './schedule';
import { servePlanner } from './serve-planner';
import { show } from './show';

export const commands: readonly Command[] = [schedule, plan, servePlanner, run, claim, history, show, diff, exportPlan];
