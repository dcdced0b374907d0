// Kubernetes names and labels of our objects, checked as the API server checks them and worded as it
// words them, and the quiet-time label: a Go duration that must also be a label value.
import { dnsLabelError, labelValueError, qualifiedNameError, subdomainError } from '../../engine/api/field';
import { QUIET_TIME_LABEL } from '../../engine/planner/plan';
import { joinPath } from '../../manifests';
import { CODES } from './codes';
import { quietTimeProblem } from '../../engine/planner/podset/quiet-time';
import type { SchemaIssue } from './schema';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);

/** A lowercase form that passes, to suggest: "Nightly_Batch" → "nightly-batch". */
export function suggestedName(name: string): string | undefined {
  const fixed = name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return fixed && fixed !== name && !subdomainError(fixed) ? fixed : undefined;
}

/**
 * The names and labels of an object of our kinds (its plain value): metadata.name, namespace,
 * label keys and values, and the quiet time. Paths are relative to the object.
 */
export function checkNames(value: unknown): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  if (!isObject(value)) return issues;
  const meta = own(value, 'metadata');
  if (!isObject(meta)) return issues;
  const report = (path: string, anchor: 'value' | 'key', code: SchemaIssue['code'], message: string) =>
    issues.push({ code, severity: 'error', path, anchor, message });
  const name = own(meta, 'name');
  if (typeof name === 'string') {
    const problem = subdomainError(name);
    const fix = suggestedName(name);
    if (problem)
      report(
        'metadata.name',
        'value',
        CODES.nameInvalid,
        `metadata.name ${JSON.stringify(name)} is not a valid name: ${problem}${fix ? `; for example "${fix}"` : ''}`,
      );
  }
  const namespace = own(meta, 'namespace');
  if (typeof namespace === 'string') {
    const problem = dnsLabelError(namespace);
    if (problem)
      report(
        'metadata.namespace',
        'value',
        CODES.nameInvalid,
        `metadata.namespace ${JSON.stringify(namespace)} is not a valid namespace: ${problem}`,
      );
  }
  const labels = own(meta, 'labels');
  if (isObject(labels)) {
    for (const [key, v] of Object.entries(labels)) {
      const at = joinPath('metadata.labels', key);
      const keyProblem = qualifiedNameError(key);
      if (keyProblem) report(at, 'key', CODES.labelKeyInvalid, `label key ${JSON.stringify(key)} is not valid: ${keyProblem}`);
      if (typeof v !== 'string') continue;
      if (key === QUIET_TIME_LABEL) {
        const quiet = quietTimeIssue(v);
        if (quiet) issues.push({ ...quiet, path: at });
        continue;
      }
      const valueProblem = labelValueError(v);
      if (valueProblem)
        report(at, 'value', CODES.labelValueInvalid, `label ${key}: ${JSON.stringify(v)} is not a valid label value: ${valueProblem}`);
    }
  }
  return issues;
}

/** What is wrong with a quiet time (engine/planner/podset/quiet-time.ts, as podplan reads it), as a schema issue at the value. */
export function quietTimeIssue(text: string): Omit<SchemaIssue, 'path'> | undefined {
  const problem = quietTimeProblem(text);
  return problem && { code: problem.code, severity: 'error', anchor: 'value', message: problem.message };
}
