// Every CLI command, in the order `podplan --help` lists them.
import type { Command } from '../io';
import { plan } from './plan';
import { schedule } from './schedule';
import { servePlanner } from './serve-planner';

export const commands: readonly Command[] = [schedule, plan, servePlanner];
