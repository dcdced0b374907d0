// Comparing two plans pod by pod. Pure over what the store reads, so it costs two map passes.
import type { PlanVictim } from '../engine/planner/plan';
import type { ReasonCount } from './diagnoses';
import type { PlanDiff, PlanSummary } from './types';

/** Where each pod of a plan went: its node when placed, its failure message when not; and the running pods it evicts, by name. */
export interface Placements {
  readonly placed: ReadonlyMap<string, string>;
  readonly unplaced: ReadonlyMap<string, string>;
  readonly victims: ReadonlyMap<string, PlanVictim>;
}

/** `reasonsInTo` is asked only for pods that became unplaced, so their histograms are read lazily. */
export function diffPlacements(
  from: PlanSummary,
  to: PlanSummary,
  a: Placements,
  b: Placements,
  reasonsInTo: (pod: string) => readonly ReasonCount[],
): PlanDiff {
  const moved: Array<{ pod: string; from: string; to: string }> = [];
  const becamePlaced: Array<{ pod: string; node: string; was: string }> = [];
  const becameUnplaced: Array<{ pod: string; was: string; message: string; reasons: readonly ReasonCount[] }> = [];
  const added: Array<{ pod: string; node?: string; message?: string }> = [];
  const removed: Array<{ pod: string; node?: string; message?: string }> = [];
  let unchanged = 0;
  let stillUnplaced = 0;

  for (const [pod, node] of b.placed) {
    const before = a.placed.get(pod);
    if (before === node) unchanged++;
    else if (before !== undefined) moved.push({ pod, from: before, to: node });
    else {
      const was = a.unplaced.get(pod);
      if (was !== undefined) becamePlaced.push({ pod, node, was });
      else added.push({ pod, node });
    }
  }
  for (const [pod, message] of b.unplaced) {
    const before = a.placed.get(pod);
    if (before !== undefined) becameUnplaced.push({ pod, was: before, message, reasons: reasonsInTo(pod) });
    else if (a.unplaced.has(pod)) stillUnplaced++;
    else added.push({ pod, message });
  }
  const newlyEvicted = [...b.victims.values()].filter((v) => !a.victims.has(v.pod));
  const noLongerEvicted = [...a.victims.values()].filter((v) => !b.victims.has(v.pod));
  for (const [pod, node] of a.placed) if (!b.placed.has(pod) && !b.unplaced.has(pod)) removed.push({ pod, node });
  for (const [pod, message] of a.unplaced) if (!b.placed.has(pod) && !b.unplaced.has(pod)) removed.push({ pod, message });

  return {
    from,
    to,
    moved: moved.sort(byPod),
    becamePlaced: becamePlaced.sort(byPod),
    becameUnplaced: becameUnplaced.sort(byPod),
    added: added.sort(byPod),
    removed: removed.sort(byPod),
    unchanged,
    stillUnplaced,
    newlyEvicted: newlyEvicted.sort(byPod),
    noLongerEvicted: noLongerEvicted.sort(byPod),
    stillEvicted: b.victims.size - newlyEvicted.length,
  };
}

function byPod(x: { pod: string }, y: { pod: string }): number {
  return x.pod < y.pod ? -1 : x.pod > y.pod ? 1 : 0;
}
