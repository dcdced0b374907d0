// A command's run in the plan history (src/store/recording.ts): the history opened (--db, else
// PODPLAN_DB, else the user's data directory) and a run started on the command's source (the files,
// or the kube context by name and server). Failures of the history are one line on stderr, never
// the command's.
import type { ClusterSnapshot } from '../engine/api/types';
import type { Profile } from '../engine/framework/profile';
import type { Plan } from '../engine/planner/plan';
import { DEFAULT_PROFILE } from '../engine/plugins/defaults';
import { madeUpPods, RunRecording, sha256, type DecisionPlan } from '../store/recording';
import type { RunKind, SourceRef } from '../store/types';
import { databasePath, historyOff, openHistory } from './plan-store';
import type { CliIO } from './io';

/** Opens the history and starts a run of `kind` on `source`; undefined (said on stderr) when it cannot be. */
export async function startRecording(
  command: string,
  source: SourceRef,
  kind: RunKind,
  db: string | undefined,
  io: CliIO,
  decisions?: DecisionPlan,
): Promise<RunRecording | undefined> {
  const opened = await openHistory(databasePath(db, io), io);
  const started = opened.ok
    ? RunRecording.start(opened.value, source, kind, {
        clock: io.clock,
        closeStore: true,
        onError: (m) => io.stderr(`podplan ${command}: ${m}\n`),
        ...(decisions ? { decisions } : {}),
      })
    : opened;
  if (started.ok) return started.value;
  io.stderr(`podplan ${command}: ${historyOff(started.error)}\n`);
  return undefined;
}

/** The run of a command that makes one plan (schedule, plan): the plan saved with the run's message, or the run failed. */
export class Recording {
  private constructor(
    private readonly recording: RunRecording,
    private readonly io: CliIO,
  ) {}

  static async start(command: string, source: SourceRef, db: string | undefined, io: CliIO): Promise<Recording | undefined> {
    const recording = await startRecording(command, source, 'preview', db, io);
    return recording && new Recording(recording, io);
  }

  failed(message: string): void {
    this.recording.finish('failed', message);
  }

  /**
   * Saves `plan` (made with `profile`, undefined: the default; `generated`: the workspace's pods whose
   * names were made up for workload replicas, which the plan's record marks; `cluster`: the cluster it
   * was made on, which `podplan explain --plan` judges its pods on with the profile) and finishes the
   * run with `message`.
   */
  finished(plan: Plan, profile: Profile | undefined, message: string, generated: ReadonlySet<string>, cluster: ClusterSnapshot): void {
    const file = this.recording.file;
    const made = profile ?? DEFAULT_PROFILE;
    const saved = this.recording.savePlan(plan, sha256(JSON.stringify(made)), madeUpPods(plan, generated), { cluster, profile: made });
    this.recording.finish('succeeded', message);
    if (saved !== undefined) this.io.stderr(`Recorded as plan ${saved} in ${file} (podplan show ${saved}).\n`);
  }
}
