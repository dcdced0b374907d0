// Plan history as the server uses it: list, open and compare stored plans, and keep each preview.
// Backed by src/store (store-history.ts) when it can be opened; otherwise every request says why there
// is no history.
import { err, type Result } from '../engine/api/result';
import type { Diagnosis } from '../engine/framework/diagnosis';
import type { Plan } from '../engine/planner/plan';
import type { PlanBound } from '../engine/planner/solver/bound';
import type { HistoryPage, ListHistoryParams } from '../protocol/requests';
import type { RecordingOptions, RunRecording } from '../store/recording';
import type { PlanBasis, RunKind, SourceRef, StoredBasis } from '../store/types';
import type { HistoryEntryView, PlanDiffView, PlanView } from '../protocol/webview';

/** What explaining a stored plan's pod needs of it: its pods' namespace, its placements, the cluster and profile it was made with. */
export interface StoredPlanCluster {
  readonly namespace: string;
  /** The ScheduleTrigger it was planned through, if any. */
  readonly trigger?: string;
  /** Made by a live scheduler, whose plans the history keeps without their cluster. */
  readonly live: boolean;
  readonly assignments: ReadonlyArray<{ readonly pod: string; readonly node: string }>;
  /**
   * Undefined when the history did not keep it (a plan recorded before it did); its profile is absent
   * before schema version 9, the pods placed before the plan before schema version 10.
   */
  readonly basis: StoredBasis | undefined;
}

export interface History {
  /** Why there is no history, when there is none: the error each request answers with. */
  readonly unavailable?: string;
  /** When there is none: the reason alone, and whether it is that no SQLite driver loads in this Node. */
  readonly off?: { readonly reason: string; readonly noDriver: boolean };
  /** The SQLite driver it runs on, when there is one. */
  readonly driver?: string;
  list(params: ListHistoryParams): Result<HistoryPage>;
  /** A stored plan; `view` turns the stored plan into the view the client renders. */
  open(id: number, view: (plan: Plan, id: number) => PlanView): Result<PlanView>;
  compare(from: number, to: number): Result<PlanDiffView>;
  /** The cycle of `pod` kept with stored plan `id`; undefined when the plan kept none. */
  diagnosis(id: number, pod: string): Result<Diagnosis | undefined>;
  /**
   * Keeps a preview made from `basis` (the cluster and the pod-set profile) with the profile of this
   * hash; its id. A plan identical to the pod set's latest draft (the same basis, snapshot, planner,
   * objective, trigger, placements, unplaced pods, evictions and pods placed before it) is not stored again: the draft's id
   * comes back. A draft kept without its basis is never reused.
   */
  savePreview(plan: Plan, profileHash: string, generated: ReadonlySet<string>, basis: PlanBasis): Result<number>;
  /**
   * Stored plan `id`'s placements and what it was made from (`basis` undefined when the history did
   * not keep it: a plan recorded before it did), where its pods are explained.
   */
  planned(id: number): Result<StoredPlanCluster>;
  /** The bound proven for kept plan `id` after it was kept (a preview is kept before its bound). */
  setBound(id: number, bound: PlanBound): Result<void>;
  /** The plan was written to the workspace: applied, the set's previously applied plan superseded. */
  markApplied(id: number): Result<HistoryEntryView>;
  /** Starts a run of `kind` on `source` that is recorded as it goes (the editor's scheduler: decisions and plans). */
  record(source: SourceRef, kind: RunKind, options: Omit<RecordingOptions, 'closeStore'>): Result<RunRecording>;
  /** Runs from now on are recorded as runs of this source (the workspace, or a kube context). */
  useSource(source: SourceRef): void;
  close(): void;
}

/** No history: each request answers with the reason. */
export function noHistory(reason: string, noDriver = false): History {
  const unavailable = `history unavailable: ${reason}`;
  const no = () => err(unavailable);
  return {
    unavailable,
    off: { reason, noDriver },
    list: no,
    open: no,
    compare: no,
    diagnosis: no,
    planned: no,
    savePreview: no,
    setBound: no,
    markApplied: no,
    record: no,
    useSource: () => undefined,
    close: () => undefined,
  };
}
