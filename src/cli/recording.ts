// A command's run in the plan history (schedule and plan record theirs): a run on its source (the
// files, or the kube context by name and server), then its plan saved in one transaction and the run finished. Failures of the history are
// one line on stderr, never the command's.
import { createHash } from 'node:crypto';
import type { Profile } from '../engine/framework/profile';
import type { Plan } from '../engine/planner/plan';
import { DEFAULT_PROFILE } from '../engine/plugins/defaults';
import type { PlanStore } from '../store/store';
import type { SourceRef } from '../store/types';
import { databasePath, historyOff, openHistory } from './plan-store';
import type { CliIO } from './io';

export class Recording {
  private constructor(
    private readonly command: string,
    private readonly store: PlanStore,
    private readonly run: number,
    private readonly io: CliIO,
  ) {}

  /** Opens the history and starts a run on `source`; undefined (said on stderr) when it cannot be. */
  static async start(command: string, source: SourceRef, db: string | undefined, io: CliIO): Promise<Recording | undefined> {
    const opened = await openHistory(databasePath(db, io), io);
    if (!opened.ok) {
      io.stderr(`podplan ${command}: ${historyOff(opened.error)}\n`);
      return undefined;
    }
    const store = opened.value;
    const run = store.startRun(source, 'preview');
    if (run.ok) return new Recording(command, store, run.value, io);
    store.close();
    io.stderr(`podplan ${command}: ${historyOff(run.error)}\n`);
    return undefined;
  }

  failed(message: string): void {
    this.report(this.store.finishRun(this.run, 'failed', message));
    this.store.close();
  }

  /** Saves `plan` (made with `profile`, undefined: the default) and finishes the run with `message`. */
  finished(plan: Plan, profile: Profile | undefined, message: string): void {
    const saved = this.store.savePlan(this.run, plan, { profileHash: sha256(JSON.stringify(profile ?? DEFAULT_PROFILE)) });
    this.report(this.store.finishRun(this.run, 'succeeded', message));
    if (saved.ok) this.io.stderr(`Recorded as plan ${saved.value} in ${this.store.file} (podplan show ${saved.value}).\n`);
    else this.report(saved);
    this.store.close();
  }

  private report(result: { ok: true } | { ok: false; error: { message: string } }): void {
    if (!result.ok) this.io.stderr(`podplan ${this.command}: the run was not recorded in the plan history: ${result.error.message}\n`);
  }
}

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}
