// The plan history on src/store: previews are kept as runs of the workspace source, and the
// history requests read them back as the views of protocol/webview.ts.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ok, err, type Result } from '../engine/api/result';
import type { Diagnosis } from '../engine/framework/diagnosis';
import type { Plan } from '../engine/planner/plan';
import type { PlanBound } from '../engine/planner/solver/bound';
import type { HistoryPage, ListHistoryParams } from '../protocol/requests';
import type { HistoryEntryView, PlanDiffView, PlanView } from '../protocol/webview';
import { madeUpPods, RunRecording, type RecordingOptions } from '../store/recording';
import { basisHash, openStore, type PlanStore } from '../store/store';
import type { PlanBasis, PlanSummary, RunKind, SourceRef, StoreError } from '../store/types';
import { noHistory, type History, type StoredPlanCluster } from './history';
import { moveReason } from './service/pipeline';

function entry(s: PlanSummary): HistoryEntryView {
  return {
    id: s.id,
    podSet: s.podSet,
    namespace: s.namespace,
    ...(s.trigger !== undefined ? { trigger: s.trigger } : {}),
    planner: s.planner,
    profile: s.profile,
    status: s.status,
    createdAt: s.createdAt,
    placed: s.placed,
    unplaced: s.unplaced,
    ...(s.evicted > 0 ? { evicted: s.evicted } : {}),
  };
}

const message = <T>(r: Result<T, StoreError>): Result<T> => (r.ok ? r : err(`history: ${r.error.message}`));

/** The workspace as a history source: named by its first folder, by path (never anything else). */
export function workspaceSource(folders: readonly string[]): SourceRef {
  const first = folders[0];
  const where = first?.startsWith('file:') ? fileURLToPath(first) : (first ?? '');
  return { kind: 'workspace', name: where ? path.basename(where) : 'workspace', server: where };
}

class StoreHistory implements History {
  readonly driver: string;

  constructor(
    private readonly store: PlanStore,
    private source: SourceRef,
  ) {
    this.driver = store.driver;
  }

  list(params: ListHistoryParams): Result<HistoryPage> {
    const page = message(
      this.store.history({
        ...(params.podSet !== undefined ? { podSet: params.podSet } : {}),
        ...(params.namespace !== undefined ? { namespace: params.namespace } : {}),
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(params.before !== undefined ? { before: params.before } : {}),
      }),
    );
    return page.ok
      ? ok({ entries: page.value.items.map(entry), ...(page.value.next !== undefined ? { next: page.value.next } : {}) })
      : page;
  }

  open(id: number, view: (plan: Plan, id: number) => PlanView): Result<PlanView> {
    const plan = message(this.store.loadPlan(id));
    return plan.ok ? ok(view(plan.value, id)) : plan;
  }

  compare(from: number, to: number): Result<PlanDiffView> {
    const diff = message(this.store.diffPlans(from, to));
    if (!diff.ok) return diff;
    const d = diff.value;
    return ok({
      from: entry(d.from),
      to: entry(d.to),
      moved: (() => {
        // The newer plan's node counts: computed once, from the diff (moved, unchanged pods are not listed per node).
        const newerPlan = d.moved.some((m) => {
          const newer = this.store.diagnosis(to, m.pod);
          return !newer.ok || newer.value === undefined;
        })
          ? message(this.store.loadPlan(to))
          : undefined;
        const counts = new Map<string, number>();
        if (newerPlan?.ok) for (const a of newerPlan.value.assignments) counts.set(a.node, (counts.get(a.node) ?? 0) + 1);
        return d.moved.map((m) => {
          const newer = this.store.diagnosis(to, m.pod);
          const older = this.store.diagnosis(from, m.pod);
          const context = {
            planner: d.to.planner,
            ...(older.ok && older.value ? { older: older.value } : {}),
            ...(newerPlan?.ok ? { podsOn: (node: string) => counts.get(node) ?? 0 } : {}),
          };
          return { ...m, reason: moveReason(m.from, m.to, newer.ok ? newer.value : undefined, context) };
        });
      })(),
      becamePlaced: d.becamePlaced,
      becameUnplaced: d.becameUnplaced.map((u) => ({ pod: u.pod, was: u.was, message: u.message })),
      added: d.added,
      removed: d.removed,
      unchanged: d.unchanged,
      stillUnplaced: d.stillUnplaced,
      newlyEvicted: d.newlyEvicted,
      noLongerEvicted: d.noLongerEvicted,
      stillEvicted: d.stillEvicted,
    });
  }

  diagnosis(id: number, pod: string): Result<Diagnosis | undefined> {
    return message(this.store.diagnosis(id, pod));
  }

  planned(id: number): Result<StoredPlanCluster> {
    const plan = message(this.store.getPlan(id));
    if (!plan.ok) return plan;
    const basis = message(this.store.planBasis(id));
    if (!basis.ok) return basis;
    return ok({
      namespace: plan.value.summary.namespace,
      ...(plan.value.summary.trigger !== undefined ? { trigger: plan.value.summary.trigger } : {}),
      live: plan.value.summary.runKind === 'live',
      assignments: plan.value.assignments.map((a) => ({ pod: a.pod, node: a.node })),
      basis: basis.value,
    });
  }

  savePreview(plan: Plan, profileHash: string, generated: ReadonlySet<string>, basis: PlanBasis): Result<number> {
    const same = this.sameAsLatestDraft(plan, profileHash, basis);
    if (same !== undefined) return ok(same);
    const run = message(this.store.startRun(this.source, 'preview'));
    if (!run.ok) return run;
    const madeUp = madeUpPods(plan, generated);
    const saved = message(this.store.savePlan(run.value, plan, { profileHash, ...(madeUp.length ? { madeUp } : {}), basis }));
    const finished = this.store.finishRun(run.value, saved.ok ? 'succeeded' : 'failed', saved.ok ? undefined : saved.error);
    return saved.ok && !finished.ok ? message(finished) : saved;
  }

  setBound(id: number, bound: PlanBound): Result<void> {
    return message(this.store.setBound(id, bound));
  }

  markApplied(id: number): Result<HistoryEntryView> {
    const marked = message(this.store.markApplied(id));
    if (!marked.ok) return marked;
    const summary = message(this.store.summary(id));
    return summary.ok ? ok(entry(summary.value)) : summary;
  }

  record(source: SourceRef, kind: RunKind, options: Omit<RecordingOptions, 'closeStore'>): Result<RunRecording> {
    return message(RunRecording.start(this.store, source, kind, options));
  }

  useSource(source: SourceRef): void {
    this.source = source;
  }

  close(): void {
    this.store.close();
  }

  /**
   * The id of the pod set's latest plan when it is a draft equal to `plan` made from the same basis:
   * the snapshot hash covers only nodes and pods (with the pods a trigger's dependencies placed first),
   * the basis hash every other object of the cluster and the profile, the pods placed before it where
   * they went (a draft kept before schema version 10 kept none: one made after other sets' plans is
   * not reused). A draft kept without its basis (before schema version 8) is never reused: it is not
   * known what it was made from.
   */
  private sameAsLatestDraft(plan: Plan, profileHash: string, basis: PlanBasis): number | undefined {
    const latest = this.store.history({ podSet: plan.podSet, namespace: plan.namespace, limit: 1 });
    const last = latest.ok ? latest.value.items[0] : undefined;
    if (
      !last ||
      last.status !== 'draft' ||
      last.basis === undefined ||
      last.basis !== basisHash(basis) ||
      last.snapshotHash !== plan.snapshotHash ||
      last.profileHash !== profileHash ||
      last.planner !== plan.planner ||
      (last.objective ?? '') !== (plan.objective ?? '')
    )
      return undefined;
    if ((last.trigger ?? '') !== (plan.trigger ?? '') || last.placed !== plan.assignments.length || last.unplaced !== plan.unplaced.length)
      return undefined;
    const stored = this.store.loadPlan(last.id);
    if (!stored.ok) return undefined;
    const placements = (p: Plan) =>
      JSON.stringify([
        p.assignments.map((a) => [a.pod, a.node]),
        p.unplaced.map((u) => [u.pod, u.message]),
        (p.victims ?? []).map((v) => [v.pod, v.node, v.by]),
        (p.placedBefore ?? []).map((b) => [b.namespace, b.pod, b.node]),
      ]);
    return placements(stored.value) === placements(plan) ? last.id : undefined;
  }
}

/**
 * The history in `file`, or none with the reason (no driver, a newer schema, …): the server runs on
 * either way. The reason's details (each driver's own error) go to `log`, not to the user.
 */
export async function openHistory(file: string, folders: readonly string[], log: (message: string) => void): Promise<History> {
  const opened = await openStore(file);
  if (opened.ok) return new StoreHistory(opened.value, workspaceSource(folders));
  log(`plan history is off: ${opened.error.message}${opened.error.detail ? ` (${opened.error.detail})` : ''}`);
  return noHistory(opened.error.message, opened.error.kind === 'no-driver');
}
