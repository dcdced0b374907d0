// Label selectors as Kubernetes evaluates them.
import type { LabelSelector, Labels } from './types';

/**
 * Whether `labels` match `selector`. An absent selector matches nothing (as in affinity terms and
 * topology spread); an empty one ({}) matches everything.
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Labels | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (have[key] !== value) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const value = have[req.key];
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

/** Parses the string form `a=b,c!=d,e in (x,y),!f,g` into a selector; undefined when malformed. */
export function parseSelector(text: string): LabelSelector | undefined {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }> = [];
  // Split on commas that are not inside parentheses.
  const parts = text.match(/(?:[^,(]|\([^)]*\))+/g) ?? [];
  for (const raw of parts) {
    const part = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(part))) {
      const values = (m[3] ?? '').split(',').map((v) => v.trim()).filter(Boolean);
      matchExpressions.push({ key: m[1] ?? '', operator: m[2] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = /^([\w./-]+)\s*!=\s*([\w.-]*)$/.exec(part))) {
      matchExpressions.push({ key: m[1] ?? '', operator: 'NotIn', values: [m[2] ?? ''] });
    } else if ((m = /^([\w./-]+)\s*==?\s*([\w.-]*)$/.exec(part))) {
      matchLabels[m[1] ?? ''] = m[2] ?? '';
    } else if ((m = /^!([\w./-]+)$/.exec(part))) {
      matchExpressions.push({ key: m[1] ?? '', operator: 'DoesNotExist' });
    } else if ((m = /^([\w./-]+)$/.exec(part))) {
      matchExpressions.push({ key: m[1] ?? '', operator: 'Exists' });
    } else {
      return undefined;
    }
  }
  return { matchLabels, matchExpressions };
}
