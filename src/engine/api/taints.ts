// Taints and tolerations as Kubernetes evaluates them (k8s.io/api/core/v1 Toleration.ToleratesTaint and
// k8s.io/component-helpers/scheduling/corev1 FindMatchingUntoleratedTaint).
import type { Taint, Toleration } from './types';

/** The taint a cordoned node (spec.unschedulable) implies. */
export const TAINT_NODE_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/**
 * Whether the toleration tolerates the taint: an empty effect matches every effect, an empty key with
 * `Exists` matches every key, and `Equal` (the default operator) compares values.
 */
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

export function tolerationsTolerateTaint(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  if (!tolerations) return false;
  for (const t of tolerations) if (toleratesTaint(t, taint)) return true;
  return false;
}

/** Taints that keep pods off the node (as opposed to PreferNoSchedule, which only lowers its score). */
export function isDoNotScheduleTaint(taint: Taint): boolean {
  return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
}

/** The first taint passing `filter` that no toleration tolerates, if any. */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  filter: (taint: Taint) => boolean,
): Taint | undefined {
  if (!taints) return undefined;
  for (const taint of taints) {
    if (filter(taint) && !tolerationsTolerateTaint(tolerations, taint)) return taint;
  }
  return undefined;
}
