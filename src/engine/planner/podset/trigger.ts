// ScheduleTriggers: a pod set is held while its trigger is Planning and planned when it turns to
// Schedule, by hand or once its quiet time has passed since the last pod of the set arrived. As in
// Pallet's trigger controller, the quiet timer starts with the first pod to arrive, every new pod
// starts it over, a changed quiet time restarts it, and a trigger without one waits for a hand.
import type { Clock, Timer } from '../../api/clock';
import { err, ok, type Result } from '../../api/result';
import type { Labels } from '../../api/types';
import type { DependencyRef } from '../../reconcile/triggers';
import { settingsFromLabels } from '../build';
import { parseGoDuration } from './duration';
import { QUIET_TIME_LABEL } from '../plan';
import { quietTimeProblem, type QuietTimeCode } from './quiet-time';

export const TRIGGER_STATES = ['Planning', 'Schedule'] as const;
export type TriggerState = (typeof TRIGGER_STATES)[number];

/** A ScheduleTrigger as the engine reads it, from a manifest or the API server, unchecked. */
export interface TriggerSpec {
  readonly name: string;
  readonly namespace: string;
  /** Its planner.ciena.io/pod-set label. */
  readonly podSet: string;
  /** spec.state as written. */
  readonly state: string;
  /** Its planner.ciena.io/quiet-time label as written (a Go duration). */
  readonly quietTime?: string;
  readonly labels?: Labels;
  /** Podplan's spec.dependsOn: what must be planned (or Ready) first. */
  readonly dependsOn?: readonly DependencyRef[];
  /** Wait for the dependencies' pods to be Ready, not only planned. */
  readonly requireReady?: boolean;
}

/** A trigger that has been checked: a known state, the quiet time in ms, labels the planner can use. */
export interface TriggerConfig {
  readonly spec: TriggerSpec;
  readonly state: TriggerState;
  readonly quietTimeMs?: number;
}

export const triggerKey = (spec: Pick<TriggerSpec, 'namespace' | 'name'>): string => `${spec.namespace}/${spec.name}`;

/** What is wrong with a trigger, and where in the object (field path segments, e.g. ['spec', 'state']). */
export interface TriggerError {
  /** The stable code podplan prints and the editor's diagnostics carry. */
  readonly code: QuietTimeCode | 'bad-value';
  readonly field: readonly string[];
  /** Names the trigger: "ScheduleTrigger ns/name: …". */
  readonly message: string;
}

/** Checks a trigger; the error names it, the field, and what is wrong. */
export function readTrigger(spec: TriggerSpec): Result<TriggerConfig, TriggerError> {
  const where = `ScheduleTrigger ${triggerKey(spec)}`;
  if (!(TRIGGER_STATES as readonly string[]).includes(spec.state)) {
    return err({
      code: 'bad-value',
      field: ['spec', 'state'],
      message: `${where}: unknown state "${spec.state}" (one of ${TRIGGER_STATES.join(', ')})`,
    });
  }
  let quietTimeMs: number | undefined;
  if (spec.quietTime !== undefined) {
    const field = ['metadata', 'labels', QUIET_TIME_LABEL];
    const problem = quietTimeProblem(spec.quietTime);
    const parsed = parseGoDuration(spec.quietTime);
    if (problem || !parsed.ok)
      return err({
        code: problem?.code ?? 'quiet-time/not-duration',
        field,
        message: `${where}: label ${QUIET_TIME_LABEL}: ${problem?.message ?? (parsed.ok ? '' : parsed.error)}`,
      });
    quietTimeMs = parsed.value;
  }
  const labels = settingsFromLabels([spec.labels]);
  if (!labels.ok)
    return err({ code: 'bad-value', field: ['metadata', 'labels', labels.error.label], message: `${where}: ${labels.error.message}` });
  return ok({
    spec,
    state: spec.state as TriggerState,
    ...(quietTimeMs !== undefined ? { quietTimeMs } : {}),
  });
}

/** Why a trigger turned to Schedule. */
export type ScheduleCause = 'by-hand' | 'quiet-time';

/** One trigger's state over time: the quiet timer runs on the injected clock. */
export class Trigger {
  private current: TriggerState;
  private timer: Timer | undefined;
  private due: number | undefined;

  constructor(
    private config: TriggerConfig,
    private readonly clock: Clock,
    private readonly onSchedule: (trigger: Trigger, cause: ScheduleCause) => void,
  ) {
    this.current = config.state;
  }

  get state(): TriggerState {
    return this.current;
  }

  get spec(): TriggerSpec {
    return this.config.spec;
  }

  get quietTimeMs(): number | undefined {
    return this.config.quietTimeMs;
  }

  /** When the quiet timer fires (injected clock, ms), while it runs. */
  get quietUntil(): number | undefined {
    return this.due;
  }

  /** A new pod of the set arrived: while Planning with a quiet time, the timer starts over. */
  podArrived(): void {
    if (this.current === 'Planning') this.startTimer();
  }

  /**
   * The trigger object changed. Planning → Schedule plans the set (by hand); Schedule → Planning
   * holds its pods again; a new quiet time restarts a running timer, and no quiet time stops it.
   */
  update(config: TriggerConfig): void {
    const previous = this.config;
    this.config = config;
    if (config.state !== this.current) {
      this.current = config.state;
      this.stopTimer();
      if (config.state === 'Schedule') this.onSchedule(this, 'by-hand');
    } else if (this.timer && config.quietTimeMs !== previous.quietTimeMs) {
      this.startTimer();
    }
  }

  /** The trigger is gone: its timer with it. */
  stop(): void {
    this.stopTimer();
  }

  private startTimer(): void {
    this.stopTimer();
    const quiet = this.config.quietTimeMs;
    if (quiet === undefined) return;
    this.due = this.clock.now() + quiet;
    this.timer = this.clock.setTimer(quiet, () => {
      this.timer = undefined;
      this.due = undefined;
      this.current = 'Schedule';
      this.onSchedule(this, 'quiet-time');
    });
  }

  private stopTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.due = undefined;
  }
}
