// Label and field selectors as the API server parses them (apimachinery labels/fields packages):
// labels: `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a)`, `k`, `!k`; fields: `f=v`, `f==v`, `f!=v`.
import { METADATA_FIELDS, type FieldGetter, type KubeObject, type ResourceType } from './resources';
import { errors } from './status';

export type Matcher = (obj: KubeObject) => boolean;

const always: Matcher = () => true;

type LabelRequirement = (labels: Record<string, string>) => boolean;

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim()).filter((t) => t !== '');
}

const SET_TERM = /^([A-Za-z0-9_./-]+)\s+(in|notin)\s*\(([^)]*)\)$/;
const EQ_TERM = /^([A-Za-z0-9_./-]+)\s*(==|!=|=)\s*([A-Za-z0-9_.-]*)$/;
const EXISTS_TERM = /^(!?)\s*([A-Za-z0-9_./-]+)$/;

function labelRequirement(term: string): LabelRequirement {
  let m = SET_TERM.exec(term);
  if (m) {
    const [, key = '', op, list = ''] = m;
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in' ? (l) => key in l && values.has(l[key] as string) : (l) => !(key in l) || !values.has(l[key] as string);
  }
  m = EQ_TERM.exec(term);
  if (m) {
    const [, key = '', op, value = ''] = m;
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  m = EXISTS_TERM.exec(term);
  if (m) {
    const [, not, key = ''] = m;
    return not ? (l) => !(key in l) : (l) => key in l;
  }
  throw errors.badRequest(`unable to parse requirement: found '${term}', expected: in, notin, =, ==, !=, gt, lt`);
}

export function labelSelector(text: string | null): Matcher {
  if (!text) return always;
  const reqs = splitTerms(text).map(labelRequirement);
  return (obj) => {
    const labels = obj.metadata?.labels ?? {};
    return reqs.every((r) => r(labels));
  };
}

const FIELD_TERM = /^([^=!]+?)\s*(==|!=|=)\s*(.*)$/;

export function fieldSelector(text: string | null, type: ResourceType): Matcher {
  if (!text) return always;
  const reqs = splitTerms(text).map((term) => {
    const m = FIELD_TERM.exec(term);
    if (!m) throw errors.badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    const [, field = '', op, value = ''] = m;
    const get: FieldGetter | undefined = METADATA_FIELDS[field] ?? type.fields[field];
    if (!get) throw errors.badRequest(`field label not supported: ${field}`);
    return op === '!=' ? (o: KubeObject) => get(o) !== value : (o: KubeObject) => get(o) === value;
  });
  return (obj) => reqs.every((r) => r(obj));
}

/** Both selectors of a request, as one matcher. */
export function selectorMatcher(query: URLSearchParams, type: ResourceType): Matcher {
  const byLabel = labelSelector(query.get('labelSelector'));
  const byField = fieldSelector(query.get('fieldSelector'), type);
  if (byLabel === always) return byField;
  if (byField === always) return byLabel;
  return (obj) => byLabel(obj) && byField(obj);
}
