// Every CLI command, in the order `podplan --help` lists them.
import type { Command } from '../io';

export const commands: readonly Command[] = [];
