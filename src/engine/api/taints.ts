// Taints and tolerations as upstream's core/v1 helpers (Toleration.ToleratesTaint,
// FindMatchingUntoleratedTaint).
import type { Taint, Toleration } from './types';

/** An empty key with Exists tolerates every taint; an empty effect tolerates every effect. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/** The taints that keep pods off a node at scheduling time (upstream DoNotScheduleTaintsFilterFunc). */
export const doNotScheduleTaint = (taint: Taint): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';

/** The first taint passing `filter` that no toleration tolerates. */
export function findUntoleratedTaint(taints: readonly Taint[] | undefined, tolerations: readonly Toleration[] | undefined, filter: (taint: Taint) => boolean): Taint | undefined {
  for (const taint of taints ?? []) {
    if (!filter(taint)) continue;
    if (!(tolerations ?? []).some((t) => toleratesTaint(t, taint))) return taint;
  }
  return undefined;
}
