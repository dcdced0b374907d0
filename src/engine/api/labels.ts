// Label selectors as Kubernetes evaluates them.
import { qualifiedNameError } from './field';
import type { LabelSelector, LabelSelectorRequirement, Labels } from './types';

/** A compiled selector: evaluates without allocating, for the per-pod loops of the plugins. */
export type LabelMatcher = (labels: Labels | undefined) => boolean;

export const MATCH_NOTHING: LabelMatcher = () => false;
export const MATCH_EVERYTHING: LabelMatcher = () => true;

/**
 * The value of a label, or undefined when absent. Reads own string values only, so a label key such
 * as "constructor" does not pick up Object.prototype.
 */
export function labelValue(labels: Labels | undefined, key: string): string | undefined {
  const value = labels?.[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Compiles `selector` once. An absent selector matches nothing (as in affinity terms and topology
 * spread); an empty one ({}) matches everything; an unknown operator makes it match nothing.
 */
export function compileSelector(selector: LabelSelector | undefined): LabelMatcher {
  if (!selector) return MATCH_NOTHING;
  const checks: Array<(labels: Labels | undefined) => boolean> = [];
  for (const [key, want] of Object.entries(selector.matchLabels ?? {})) {
    checks.push((labels) => labelValue(labels, key) === want);
  }
  for (const req of selector.matchExpressions ?? []) {
    const check = requirementCheck(req);
    if (!check) return MATCH_NOTHING;
    checks.push(check);
  }
  if (checks.length === 0) return MATCH_EVERYTHING;
  if (checks.length === 1) return checks[0] as LabelMatcher;
  return (labels) => {
    for (const check of checks) if (!check(labels)) return false;
    return true;
  };
}

function requirementCheck(req: LabelSelectorRequirement): ((labels: Labels | undefined) => boolean) | undefined {
  const { key } = req;
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return (labels) => {
        const value = labelValue(labels, key);
        return value !== undefined && values.includes(value);
      };
    case 'NotIn':
      return (labels) => {
        const value = labelValue(labels, key);
        return value === undefined || !values.includes(value);
      };
    case 'Exists':
      return (labels) => labelValue(labels, key) !== undefined;
    case 'DoesNotExist':
      return (labels) => labelValue(labels, key) === undefined;
    default:
      return undefined;
  }
}

/**
 * Whether `labels` match `selector`. An absent selector matches nothing (as in affinity terms and
 * topology spread); an empty one ({}) matches everything. Compile with `compileSelector` in loops.
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  return compileSelector(selector)(labels);
}

/**
 * `selector` narrowed by the owning pod's own values: `key In (value)` for each of `matchKeys` and
 * `key NotIn (value)` for each of `mismatchKeys` (matchLabelKeys / mismatchLabelKeys of affinity
 * terms and spread constraints). Keys the pod does not carry are ignored, as upstream.
 */
export function withLabelKeys(
  selector: LabelSelector,
  labels: Labels | undefined,
  matchKeys: readonly string[] = [],
  mismatchKeys: readonly string[] = [],
): LabelSelector {
  const added: LabelSelectorRequirement[] = [];
  for (const [keys, operator] of [
    [matchKeys, 'In'],
    [mismatchKeys, 'NotIn'],
  ] as const) {
    for (const key of keys) {
      const value = labelValue(labels, key);
      if (value !== undefined) added.push({ key, operator, values: [value] });
    }
  }
  if (added.length === 0) return selector;
  return { ...selector, matchExpressions: [...(selector.matchExpressions ?? []), ...added] };
}

/** Whether `key` is a valid label key: an optional DNS subdomain prefix and "/", then a name of at most 63 characters. */
export function isQualifiedName(key: string): boolean {
  return qualifiedNameError(key) === undefined;
}
