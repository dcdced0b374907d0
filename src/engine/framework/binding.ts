// The binding pipeline after a cycle: the commit candidates are tried best first (Reserve, Permit,
// CheckConflicts, PreBind, Bind), a failed candidate's reservation undone before the next. Every step
// is a stage outcome in the Diagnosis, but a PreBind plugin with nothing to do (Skip), which upstream's
// PreBindPreFlight leaves out too.
import type { CycleState } from './cycle-state';
import type { Diagnosis, StageOutcome } from './diagnosis';
import type { BindPlugin, CheckConflictsPlugin, PermitPlugin, PreBindPlugin, ReservePlugin } from './interfaces';
import type { PodInfo } from './node-info';
import { guarded, type Entry } from './plugin-call';
import { Code, errorStatus, statusMessage, SUCCESS, type Stage, type Status } from './status';

export type CommitResult =
  | { readonly ok: true; readonly node: string; readonly diagnosis: Diagnosis }
  | { readonly ok: false; readonly status: Status; readonly diagnosis: Diagnosis };

/**
 * How the caller's cache follows a commit: the pod is assumed on a candidate before it is reserved
 * there (so the next cycle sees it) and forgotten when that candidate fails.
 */
export interface Assumption {
  assume(nodeName: string): Status;
  forget(nodeName: string): void;
}

export interface BindingPlugins {
  readonly reserve: readonly Entry<ReservePlugin>[];
  readonly permit: readonly Entry<PermitPlugin>[];
  readonly checkConflicts: readonly Entry<CheckConflictsPlugin>[];
  /** The Reserve plugins that complete their reservation before the pod is bound, in Reserve order. */
  readonly preBind: readonly Entry<PreBindPlugin>[];
  readonly bind: readonly Entry<BindPlugin>[];
}

export class BindingPipeline {
  constructor(
    private readonly plugins: BindingPlugins,
    /** How many candidates after the first a commit may try. */
    private readonly bindRetries: number,
  ) {}

  /** Reserve on `nodeName` with every reserve plugin in order; stops at the first failure. */
  reserve(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): Status {
    return runInOrder(this.plugins.reserve, 'Reserve', nodeName, outcomes, (p) => p.reserve(state, pod, nodeName));
  }

  /** Undoes reserve on every reserve plugin, in reverse order; a plugin that throws is recorded and passed. */
  unreserve(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): void {
    const reserve = this.plugins.reserve;
    for (let i = reserve.length - 1; i >= 0; i--) {
      const { name, plugin } = reserve[i] as Entry<ReservePlugin>;
      const status = guarded(name, 'Unreserve', () => (plugin.unreserve(state, pod, nodeName), SUCCESS));
      outcomes.push({ stage: 'Unreserve', plugin: name, status, node: nodeName });
    }
  }

  permit(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[] = []): Status {
    return runInOrder(this.plugins.permit, 'Permit', nodeName, outcomes, (p) => p.permit(state, pod, nodeName));
  }

  /**
   * The pipeline over the commit candidates, best first: Reserve → Permit → CheckConflicts → PreBind → Bind; on
   * a failure the reservation is undone and the next candidate tried, at most 1 + bindRetries
   * candidates. Every step is added to the Diagnosis's stages.
   */
  async commit(
    state: CycleState,
    pod: PodInfo,
    candidates: readonly string[],
    diagnosis: Diagnosis,
    assumption?: Assumption,
  ): Promise<CommitResult> {
    const stages = [...diagnosis.stages];
    const attempts = Math.min(candidates.length, 1 + this.bindRetries);
    const failures: string[] = [];
    let last: Status | undefined;
    for (let a = 0; a < attempts; a++) {
      const node = candidates[a] as string;
      const assumed = assumption ? assumption.assume(node) : SUCCESS;
      if (assumed.code !== Code.Success) {
        failures.push(`${node} (assume: ${statusMessage(assumed)})`);
        last = assumed;
        continue;
      }
      let status = this.reserve(state, pod, node, stages);
      if (status.code === Code.Success) status = this.permit(state, pod, node, stages);
      if (status.code === Code.Success && this.plugins.checkConflicts.length > 0)
        status = await this.checkConflicts(state, pod, node, stages);
      if (status.code === Code.Success && this.plugins.preBind.length > 0) status = await this.preBind(state, pod, node, stages);
      if (status.code === Code.Success) status = await this.bind(state, pod, node, stages);
      if (status.code === Code.Success) return { ok: true, node, diagnosis: { ...diagnosis, stages, status: SUCCESS, chosenNode: node } };
      this.unreserve(state, pod, node, stages);
      assumption?.forget(node);
      failures.push(`${node} (${status.stage ?? 'Bind'}${status.plugin ? ` ${status.plugin}` : ''}: ${statusMessage(status)})`);
      last = status;
    }
    last ??= { ...errorStatus('there is no candidate node to bind to'), stage: 'Bind' };
    const { chosenNode: _, ...rest } = diagnosis;
    const message = `pod ${pod.key} was not bound: ${failures.length > 0 ? failures.join('; ') : statusMessage(last)}`;
    return { ok: false, status: last, diagnosis: { ...rest, stages, status: last, message } };
  }

  private async checkConflicts(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[]): Promise<Status> {
    for (const { name, plugin } of this.plugins.checkConflicts) {
      const status = await guarded(name, 'CheckConflicts', () => plugin.checkConflicts(state, pod, nodeName));
      outcomes.push({ stage: 'CheckConflicts', plugin: name, status, node: nodeName });
      if (status.code !== Code.Success && status.code !== Code.Skip) return status;
    }
    return SUCCESS;
  }

  /** PreBind plugins in order; one that has nothing to do (Skip) is not recorded; anything but Success stops. */
  private async preBind(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[]): Promise<Status> {
    for (const { name, plugin } of this.plugins.preBind) {
      const status = await guarded(name, 'PreBind', () => plugin.preBind(state, pod, nodeName));
      if (status.code === Code.Skip) continue;
      outcomes.push({ stage: 'PreBind', plugin: name, status, node: nodeName });
      if (status.code !== Code.Success) return status;
    }
    return SUCCESS;
  }

  /** Bind plugins in order until one binds; Skip passes to the next. */
  private async bind(state: CycleState, pod: PodInfo, nodeName: string, outcomes: StageOutcome[]): Promise<Status> {
    for (const { name, plugin } of this.plugins.bind) {
      const status = await guarded(name, 'Bind', () => plugin.bind(state, pod, nodeName));
      outcomes.push({ stage: 'Bind', plugin: name, status, node: nodeName });
      if (status.code !== Code.Skip) return status;
    }
    return { ...errorStatus('no bind plugin bound the pod'), stage: 'Bind' };
  }
}

/** Plugins of a non-per-node stage in order, recorded; Skip passes, anything but Success stops. */
function runInOrder<T>(
  entries: readonly Entry<T>[],
  stage: Stage,
  node: string,
  outcomes: StageOutcome[],
  call: (plugin: T) => Status,
): Status {
  for (const { name, plugin } of entries) {
    const status = guarded(name, stage, () => call(plugin));
    outcomes.push({ stage, plugin: name, status, node });
    if (status.code !== Code.Success && status.code !== Code.Skip) return status;
  }
  return SUCCESS;
}
