// PodDisruptionBudgets as preemption reads them (upstream filterPodsWithPDBViolation): a victim
// violates a budget when evicting it (after the victims before it) leaves fewer disruptions allowed
// than zero. Budgets read from a cluster carry status.disruptionsAllowed; for one written in a file
// without status it is computed as the disruption controller would from the snapshot's bound pods.
import { compileSelector, type LabelMatcher } from '../../api/labels';
import { podNamespace, type Pod, type PodDisruptionBudget, type IntOrString } from '../../api/types';
import type { PodInfo } from '../node-info';

/** A budget ready to match pods against. */
export interface Budget {
  readonly namespace: string;
  readonly matches: LabelMatcher;
  readonly disruptionsAllowed: number;
  readonly disruptedPods: ReadonlySet<string>;
}

/** Budgets with a nil or empty selector match nothing, as upstream; they are left out. */
export function prepareBudgets(pdbs: readonly PodDisruptionBudget[], pods: readonly Pod[]): Budget[] {
  const budgets: Budget[] = [];
  for (const pdb of pdbs) {
    const selector = pdb.spec?.selector;
    if (!selector || (!selector.matchExpressions?.length && Object.keys(selector.matchLabels ?? {}).length === 0)) continue;
    const namespace = pdb.metadata.namespace ?? 'default';
    const matches = compileSelector(selector);
    const allowed =
      pdb.status?.disruptionsAllowed ??
      computedDisruptionsAllowed(
        pdb,
        pods.filter((p) => p.spec.nodeName && podNamespace(p) === namespace && matches(p.metadata.labels)).length,
      );
    budgets.push({ namespace, matches, disruptionsAllowed: allowed, disruptedPods: new Set(Object.keys(pdb.status?.disruptedPods ?? {})) });
  }
  return budgets;
}

/** Healthy pods above what the budget must keep; every matching bound pod counts as healthy and expected. */
function computedDisruptionsAllowed(pdb: PodDisruptionBudget, healthy: number): number {
  const { minAvailable, maxUnavailable } = pdb.spec ?? {};
  let desired = healthy;
  if (minAvailable !== undefined) desired = scaled(minAvailable, healthy);
  else if (maxUnavailable !== undefined) desired = healthy - scaled(maxUnavailable, healthy);
  return Math.max(0, healthy - desired);
}

/** An int, or a percentage of `total` rounded up (as upstream GetScaledValueFromIntOrPercent with roundUp). */
function scaled(value: IntOrString, total: number): number {
  if (typeof value === 'number') return value;
  const percent = Number.parseInt(value.replace(/%$/, ''), 10);
  return Number.isNaN(percent) ? 0 : Math.ceil((percent * total) / 100);
}

/**
 * The victims split into those whose eviction violates a budget and the others, in the order given.
 * Every matching budget's allowance is spent by each victim it matches (unless the pod is already
 * among its disrupted pods); a victim violates when one of them goes below zero.
 */
export function splitByPdbViolation(
  victims: readonly PodInfo[],
  budgets: readonly Budget[],
): { violating: PodInfo[]; nonViolating: PodInfo[] } {
  const allowed = budgets.map((b) => b.disruptionsAllowed);
  const violating: PodInfo[] = [];
  const nonViolating: PodInfo[] = [];
  for (const victim of victims) {
    const pod = victim.pod;
    let violated = false;
    const labels = pod.metadata.labels;
    if (labels && Object.keys(labels).length > 0) {
      budgets.forEach((budget, i) => {
        if (budget.namespace !== podNamespace(pod) || !budget.matches(labels) || budget.disruptedPods.has(pod.metadata.name)) return;
        allowed[i] = (allowed[i] as number) - 1;
        if ((allowed[i] as number) < 0) violated = true;
      });
    }
    (violated ? violating : nonViolating).push(victim);
  }
  return { violating, nonViolating };
}
