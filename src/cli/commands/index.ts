// Every CLI command, in the order `podplan --help` lists them.
import type { Command } from '../io';
import { schedule } from './schedule';

export const commands: readonly Command[] = [schedule];
