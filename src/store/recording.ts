// One run in the plan history, as `podplan schedule`/`plan` (kind preview), `podplan run` and the
// editor's "Run Podplan as scheduler" (kind live) record it: a run started on its source, its plans
// saved as they are made, a scheduler's decisions gathered and saved in batches as plans of every
// pending pod ("*"), trigger flips saved as transitions, then the run finished. The history never
// fails the work it records: each failure is one line handed to `onError` (the CLI prints it, the
// server logs it).
import { createHash } from 'node:crypto';
import type { Clock, Timer } from '../engine/api/clock';
import { ok, type Result } from '../engine/api/result';
import { explain } from '../engine/explain/explain';
import type { Plan, PlanVictim } from '../engine/planner/plan';
import type { ScheduleOutcome } from '../engine/scheduler/scheduler';
import { ALL_PENDING_PODS, type PlanStore } from './store';
import type { PlanBasis, RunKind, SourceRef, StoreError } from './types';

/** A live scheduler's decisions are saved in batches this far apart. */
export const DECISION_FLUSH_MS = 2_000;

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** How the decisions of a run become the plans of pod set "*" the history keeps. */
export interface DecisionPlan {
  /** The planner column: the command that decided (`schedule`, `run`). */
  readonly planner: string;
  /** The scheduler name of the profile that decided. */
  readonly profile: string;
  /** Score records kept per placed pod, best nodes first (an unplaced pod keeps its whole diagnosis). */
  readonly scores: number;
}

/**
 * The decisions as one plan of every pending pod: bound pods as assignments, the others unplaced with
 * upstream's message, and the pods preemption evicted for them (on the node it chose) as its victims.
 */
export function decisionsPlan(outcomes: readonly ScheduleOutcome[], how: DecisionPlan, createdAt: number, snapshotHash = ''): Plan {
  // A pod evicted once, whoever named it last (a nominated preemptor's victims can be named again by another).
  const evictions = new Map<string, PlanVictim>();
  for (const o of outcomes) {
    const node = o.node ?? o.nominatedNode;
    if (node !== undefined) for (const pod of o.victims ?? []) evictions.set(pod, { pod, node, by: o.pod });
  }
  const victims = [...evictions.values()];
  return {
    podSet: ALL_PENDING_PODS,
    namespace: ALL_PENDING_PODS,
    planner: how.planner,
    profile: how.profile,
    assignments: outcomes.flatMap((o) =>
      o.node !== undefined
        ? [{ pod: o.pod, node: o.node, diagnosis: { ...o.diagnosis, scores: o.diagnosis.scores.slice(0, how.scores) } }]
        : [],
    ),
    unplaced: outcomes
      .filter((o) => o.node === undefined)
      .map((o) => ({ pod: o.pod, message: explain(o.diagnosis).message, diagnosis: o.diagnosis })),
    ...(victims.length > 0 ? { victims } : {}),
    createdAt,
    snapshotHash,
  };
}

/**
 * The pods of `plan` whose names were made up for workload replicas with no pod in the files, as
 * the plan names them (the history's made_up marks, which `show`, `diff` and `export` read).
 * `generated`: the workspace's made-up pods as namespace/name. The CLI's schedule and plan and the
 * editor's previews record them through this one function.
 */
export function madeUpPods(plan: Plan, generated: ReadonlySet<string>): string[] {
  if (generated.size === 0) return [];
  const key = (pod: string) => (plan.namespace === ALL_PENDING_PODS ? pod : `${plan.namespace}/${pod}`);
  return [...plan.assignments, ...plan.unplaced].map((p) => p.pod).filter((pod) => generated.has(key(pod)));
}

export interface RecordingOptions {
  readonly clock: Clock;
  /** One line per failure to write the history. */
  readonly onError: (message: string) => void;
  /** Closes the store once the run is finished (the CLI opened it for this run; the server keeps its own). */
  readonly closeStore?: boolean;
  /** For a scheduler: how its decisions are kept; they are saved every DECISION_FLUSH_MS and when the run finishes. */
  readonly decisions?: DecisionPlan;
}

export class RunRecording {
  private batch = new Map<string, ScheduleOutcome>();
  private timer: Timer | undefined;
  private finished = false;

  private constructor(
    private readonly store: PlanStore,
    readonly run: number,
    private readonly options: RecordingOptions,
  ) {
    if (options.decisions) this.timer = options.clock.setTimer(DECISION_FLUSH_MS, () => this.tick());
  }

  /** Starts a run of `kind` on `source`; the store's error when it cannot (the store is then closed if it was handed over). */
  static start(store: PlanStore, source: SourceRef, kind: RunKind, options: RecordingOptions): Result<RunRecording, StoreError> {
    const run = store.startRun(source, kind);
    if (run.ok) return ok(new RunRecording(store, run.value, options));
    if (options.closeStore) store.close();
    return run;
  }

  /** Where the history is (for the line that names the saved plan). */
  get file(): string {
    return this.store.file;
  }

  /**
   * Saves a plan under the run; its id, or undefined after reporting why it was not saved. `basis`:
   * the cluster it was made on and its profile, kept so the plan's pods can be explained on them later.
   */
  savePlan(plan: Plan, profileHash: string = sha256(plan.profile), madeUp?: readonly string[], basis?: PlanBasis): number | undefined {
    const saved = this.store.savePlan(this.run, plan, {
      profileHash,
      ...(madeUp?.length ? { madeUp } : {}),
      ...(basis ? { basis } : {}),
    });
    this.report(saved);
    return saved.ok ? saved.value : undefined;
  }

  /** A scheduler's decision: kept until the next flush (a pod's latest decision wins). */
  decision(outcome: ScheduleOutcome): void {
    this.batch.set(outcome.pod, outcome);
  }

  /** The quiet time of a ScheduleTrigger passed and it was set to Schedule. */
  triggerScheduled(namespace: string, trigger: string): void {
    this.report(
      this.store.recordTriggerTransition({
        namespace,
        trigger,
        from: 'Planning',
        to: 'Schedule',
        cause: 'quiet-time',
        at: this.options.clock.now(),
      }),
    );
  }

  /** Saves the decisions gathered since the last flush as one plan of every pending pod. */
  flush(): void {
    const how = this.options.decisions;
    if (!how || this.batch.size === 0) return;
    const outcomes = [...this.batch.values()];
    this.batch = new Map();
    this.savePlan(decisionsPlan(outcomes, how, this.options.clock.now()), sha256(how.profile));
  }

  /** Saves what is left and finishes the run (once; later calls do nothing). */
  finish(outcome: 'succeeded' | 'failed', message: string): void {
    if (this.finished) return;
    this.finished = true;
    this.timer?.cancel();
    this.flush();
    this.report(this.store.finishRun(this.run, outcome, message));
    if (this.options.closeStore) this.store.close();
  }

  private tick(): void {
    this.flush();
    if (!this.finished) this.timer = this.options.clock.setTimer(DECISION_FLUSH_MS, () => this.tick());
  }

  private report(result: { ok: true } | { ok: false; error: StoreError }): void {
    if (!result.ok) this.options.onError(`the plan history was not written: ${result.error.message}`);
  }
}
