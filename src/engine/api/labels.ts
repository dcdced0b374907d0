// Label selectors as Kubernetes evaluates them.
import type { LabelSelector, LabelSelectorRequirement, Labels } from './types';

/**
 * Whether `labels` match `selector`. An absent selector matches nothing (as in affinity terms and
 * topology spread); an empty one ({}) matches everything.
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  if (!selector) return false;
  // Own keys only: a label named `constructor` must not find Object.prototype's.
  const label = (key: string): string | undefined => (labels && Object.hasOwn(labels, key) ? labels[key] : undefined);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (label(key) !== value) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const value = label(req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (value === undefined) return false;
        break;
      case 'DoesNotExist':
        if (value !== undefined) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

const KEY = String.raw`[\w./-]+`;
const VALUE = String.raw`[\w.-]*`;
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`);
const NOT_EQUAL = new RegExp(`^(${KEY})\\s*!=\\s*(${VALUE})$`);
const EQUAL = new RegExp(`^(${KEY})\\s*==?\\s*(${VALUE})$`);
const NOT_EXISTS = new RegExp(`^!\\s*(${KEY})$`);
const EXISTS = new RegExp(`^(${KEY})$`);
const SET_VALUE = new RegExp(`^${VALUE}$`);

/**
 * Parses the string form `a=b,c!=d,e in (x,y),f notin (z),!g,h` into a selector; undefined when
 * malformed. The empty string is the empty selector, which matches everything (as upstream).
 */
export function parseSelector(text: string): LabelSelector | undefined {
  // A Map, so keys such as `constructor` or `__proto__` are plain keys.
  const matchLabels = new Map<string, string>();
  const matchExpressions: LabelSelectorRequirement[] = [];
  if (text.trim() === '') return { matchLabels: {}, matchExpressions };
  const parts = splitTopLevel(text);
  if (!parts) return undefined;
  for (const raw of parts) {
    const part = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = SET.exec(part))) {
      const values = (m[3] ?? '').split(',').map((v) => v.trim());
      // Upstream requires a non-empty set of valid values for in/notin.
      if (values.some((v) => v === '' || !SET_VALUE.test(v))) return undefined;
      matchExpressions.push({ key: m[1] ?? '', operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = NOT_EQUAL.exec(part))) {
      matchExpressions.push({ key: m[1] ?? '', operator: 'NotIn', values: [m[2] ?? ''] });
    } else if ((m = EQUAL.exec(part))) {
      const [, key = '', value = ''] = m;
      // Requirements are ANDed: a second `key=` must not overwrite the first.
      if (matchLabels.has(key)) matchExpressions.push({ key, operator: 'In', values: [value] });
      else matchLabels.set(key, value);
    } else if ((m = NOT_EXISTS.exec(part))) {
      matchExpressions.push({ key: m[1] ?? '', operator: 'DoesNotExist' });
    } else if ((m = EXISTS.exec(part))) {
      matchExpressions.push({ key: m[1] ?? '', operator: 'Exists' });
    } else {
      return undefined;
    }
  }
  return { matchLabels: Object.fromEntries(matchLabels), matchExpressions };
}

/** Splits on commas outside parentheses; undefined when parentheses are unbalanced or nested. */
function splitTopLevel(text: string): string[] | undefined {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(' && ++depth > 1) return undefined;
    if (ch === ')' && --depth < 0) return undefined;
    if (ch === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  parts.push(text.slice(start));
  return parts;
}
