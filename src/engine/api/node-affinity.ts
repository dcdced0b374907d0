// Node selectors as Kubernetes evaluates them (k8s.io/component-helpers/scheduling/corev1/nodeaffinity):
// a pod's nodeSelector and required node affinity, preferred terms with weights, and the scheduler's
// added affinity. Selectors are compiled once (per pod, per profile) and then matched against many
// nodes, so matching does no parsing and allocates nothing.
import { fieldInvalid, fieldNotSupported, labelValueError, qualifiedNameError, type FieldError, type FieldPath } from './field';
import { labelValue } from './labels';
import { err, ok, type Result } from './result';
import type { Labels, Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, PreferredSchedulingTerm } from './types';

/** The only node field a selector can match on. */
export const NODE_NAME_FIELD = 'metadata.name';

const NODE_SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
const FIELD_SELECTOR_OPERATORS = ['In', 'NotIn'];
const EMPTY_LABELS: Labels = Object.freeze({});

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A base-10 64-bit integer as strconv.ParseInt reads it, or undefined. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

type LabelTest = (labels: Labels) => boolean;
type FieldTest = (nodeName: string) => boolean;

interface Term {
  readonly labels: readonly LabelTest[];
  readonly fields: readonly FieldTest[];
}

function labelTest(req: NodeSelectorRequirement, path: FieldPath, errors: FieldError[]): LabelTest | undefined {
  const { key, operator } = req;
  const values = req.values ?? [];
  if (!NODE_SELECTOR_OPERATORS.includes(operator)) {
    errors.push(fieldNotSupported([...path, 'operator'], operator, NODE_SELECTOR_OPERATORS));
    return undefined;
  }
  const before = errors.length;
  const keyError = qualifiedNameError(key);
  if (keyError) errors.push(fieldInvalid([...path, 'key'], key, keyError));
  switch (operator) {
    case 'In':
    case 'NotIn': {
      if (values.length === 0)
        errors.push(fieldInvalid([...path, 'values'], values, "for 'in', 'notin' operators, values set can't be empty"));
      values.forEach((v, i) => {
        const valueError = labelValueError(v);
        if (valueError) errors.push(fieldInvalid([...path, 'values', i], v, valueError));
      });
      if (errors.length > before) return undefined;
      const set = new Set(values);
      return operator === 'In'
        ? (labels) => {
            const v = labelValue(labels, key);
            return v !== undefined && set.has(v);
          }
        : (labels) => {
            const v = labelValue(labels, key);
            return v === undefined || !set.has(v);
          };
    }
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0)
        errors.push(fieldInvalid([...path, 'values'], values, 'values set must be empty for exists and does not exist'));
      if (errors.length > before) return undefined;
      return operator === 'Exists' ? (labels) => Object.hasOwn(labels, key) : (labels) => !Object.hasOwn(labels, key);
    default: {
      // Gt, Lt: the node's label, read as an integer, compared with the single value.
      const bound = values.length === 1 ? parseInt64(values[0] ?? '') : undefined;
      if (values.length !== 1)
        errors.push(fieldInvalid([...path, 'values'], values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      else if (bound === undefined)
        errors.push(fieldInvalid([...path, 'values', 0], values[0], "for 'Gt', 'Lt' operators, the value must be an integer"));
      if (errors.length > before || bound === undefined) return undefined;
      const greater = operator === 'Gt';
      return (labels) => {
        const v = labelValue(labels, key);
        const n = v === undefined ? undefined : parseInt64(v);
        if (n === undefined) return false;
        return greater ? n > bound : n < bound;
      };
    }
  }
}

function fieldTest(req: NodeSelectorRequirement, path: FieldPath, errors: FieldError[]): FieldTest | undefined {
  if (!FIELD_SELECTOR_OPERATORS.includes(req.operator)) {
    errors.push(fieldNotSupported([...path, 'operator'], req.operator, FIELD_SELECTOR_OPERATORS));
    return undefined;
  }
  const values = req.values ?? [];
  const value = values[0];
  if (values.length !== 1 || value === undefined) {
    errors.push(fieldInvalid([...path, 'values'], values, 'must have one element'));
    return undefined;
  }
  // A node has no field but its name; any other field reads as empty, as upstream's fields.Set.
  const read = req.key === NODE_NAME_FIELD ? (name: string) => name : () => '';
  return req.operator === 'In' ? (name) => read(name) === value : (name) => read(name) !== value;
}

function isEmptyTerm(term: NodeSelectorTerm): boolean {
  return !term.matchExpressions?.length && !term.matchFields?.length;
}

/** Compiles a non-empty term; undefined (with errors pushed) when any requirement is malformed. */
function compileTerm(term: NodeSelectorTerm, path: FieldPath, errors: FieldError[]): Term | undefined {
  const before = errors.length;
  const labels = (term.matchExpressions ?? []).map((r, i) => labelTest(r, [...path, 'matchExpressions', i], errors));
  const fields = (term.matchFields ?? []).map((r, i) => fieldTest(r, [...path, 'matchFields', i], errors));
  if (errors.length > before) return undefined;
  return { labels: labels.filter((t) => t !== undefined), fields: fields.filter((t) => t !== undefined) };
}

function termMatches(term: Term, labels: Labels, nodeName: string): boolean {
  for (const test of term.labels) if (!test(labels)) return false;
  for (const test of term.fields) if (!test(nodeName)) return false;
  return true;
}

/** Node selector terms, ORed. Empty and malformed terms match nothing. */
export class NodeSelectorMatcher {
  private constructor(private readonly terms: readonly Term[]) {}

  /**
   * The matcher and the errors of malformed terms (callers that validate config reject any). A path
   * given as text is one segment (`'spec.nodeAffinity.required'`): it prints the same.
   */
  static compile(selector: NodeSelector, path: FieldPath | string): { matcher: NodeSelectorMatcher; errors: FieldError[] } {
    const base = typeof path === 'string' ? [path] : path;
    const errors: FieldError[] = [];
    const terms: Term[] = [];
    selector.nodeSelectorTerms.forEach((term, i) => {
      if (isEmptyTerm(term)) return;
      const compiled = compileTerm(term, [...base, 'nodeSelectorTerms', i], errors);
      if (compiled) terms.push(compiled);
    });
    return { matcher: new NodeSelectorMatcher(terms), errors };
  }

  matches(node: Node): boolean {
    const labels = node.metadata.labels ?? EMPTY_LABELS;
    for (const term of this.terms) if (termMatches(term, labels, node.metadata.name)) return true;
    return false;
  }
}

/** Preferred terms: a node scores the sum of the weights of the terms it matches. */
export class PreferredTerms {
  private constructor(private readonly terms: ReadonlyArray<{ readonly term: Term; readonly weight: number }>) {}

  /** The terms, or the aggregated errors when any is malformed; zero-weight and empty terms are left out. */
  static compile(terms: readonly PreferredSchedulingTerm[], path: FieldPath): Result<PreferredTerms, FieldError[]> {
    const errors: FieldError[] = [];
    const compiled: Array<{ term: Term; weight: number }> = [];
    terms.forEach((t, i) => {
      if (t.weight === 0 || isEmptyTerm(t.preference)) return;
      const term = compileTerm(t.preference, [...path, i, 'preference'], errors);
      if (term) compiled.push({ term, weight: t.weight });
    });
    return errors.length ? err(errors) : ok(new PreferredTerms(compiled));
  }

  get size(): number {
    return this.terms.length;
  }

  score(node: Node): number {
    const labels = node.metadata.labels ?? EMPTY_LABELS;
    let score = 0;
    for (const { term, weight } of this.terms) if (termMatches(term, labels, node.metadata.name)) score += weight;
    return score;
  }
}

/** What a pod requires of a node's labels: its nodeSelector AND its required node affinity. */
export class RequiredNodeAffinity {
  constructor(
    private readonly selector: ReadonlyArray<readonly [string, string]> | undefined,
    private readonly affinity: NodeSelectorMatcher | undefined,
  ) {}

  matches(node: Node): boolean {
    if (this.selector) {
      const labels = node.metadata.labels ?? EMPTY_LABELS;
      for (const [key, value] of this.selector) if (labelValue(labels, key) !== value) return false;
    }
    return this.affinity ? this.affinity.matches(node) : true;
  }
}

const requiredCache = new WeakMap<Pod, RequiredNodeAffinity>();

/**
 * The pod's required node affinity, compiled once per pod object. Malformed terms match nothing
 * (upstream reports such errors only through API validation).
 */
export function requiredNodeAffinity(pod: Pod): RequiredNodeAffinity {
  let required = requiredCache.get(pod);
  if (!required) {
    const selector =
      pod.spec.nodeSelector && Object.keys(pod.spec.nodeSelector).length > 0 ? Object.entries(pod.spec.nodeSelector) : undefined;
    const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    const affinity = terms
      ? NodeSelectorMatcher.compile(terms, ['spec', 'affinity', 'nodeAffinity', 'requiredDuringSchedulingIgnoredDuringExecution']).matcher
      : undefined;
    required = new RequiredNodeAffinity(selector, affinity);
    requiredCache.set(pod, required);
  }
  return required;
}
