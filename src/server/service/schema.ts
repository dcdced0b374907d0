// The JSON schemas of schemas/ (ScheduleTrigger, SchedulePlan) checked against a document's value:
// the subset of draft-07 they use (type, required, properties, additionalProperties, items, enum,
// minimum, format date-time). Patterns and lengths of names and labels are left to names.ts, which
// says what is wrong with Kubernetes' own words. The same schemas give completion its fields and
// hover its docs.
import planSchema from '../../../schemas/schedule-plan.json';
import triggerSchema from '../../../schemas/schedule-trigger.json';
import { joinPath, splitPath, type PathSegment } from '../../manifests';
import { CODES, type Code } from './codes';

export interface JsonSchema {
  readonly type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  readonly title?: string;
  readonly description?: string;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly items?: JsonSchema;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: string;
}

/** The schema of each of our kinds. */
export const SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ScheduleTrigger: triggerSchema as JsonSchema,
  SchedulePlan: planSchema as JsonSchema,
};

/** Where a schema problem is shown: the value, the key of the field, or the line of the mapping that lacks it. */
export type Anchor = 'value' | 'key' | 'line';

export interface SchemaIssue {
  readonly code: Code;
  readonly severity: 'error' | 'warning';
  /** Relative to the checked object. */
  readonly path: string;
  readonly anchor: Anchor;
  readonly message: string;
  /** For a missing required field: its key (in the mapping at `path`). */
  readonly field?: string;
}

const TYPE_WORDS: Readonly<Record<NonNullable<JsonSchema['type']>, string>> = {
  object: 'a mapping',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
};

function hasType(value: unknown, type: NonNullable<JsonSchema['type']>): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    default:
      return typeof value === type;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value === 'number' ? 'the number' : 'the value'} ${String(value)}`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** The key of the last segment of a path, for messages ("state", "plan[2]"). */
function lastKey(path: string): string {
  const segments = splitPath(path) ?? [];
  const last = segments[segments.length - 1];
  return typeof last === 'number' ? `item ${last}` : (last ?? 'the document');
}

/** What a missing field would be written as, to say how to add it. */
function howToWrite(key: string, schema: JsonSchema): string {
  if (schema.enum?.length) return `add "${key}: ${schema.enum[0]}" (one of ${schema.enum.join(', ')})`;
  if (schema.type === 'object' && schema.required?.length)
    return `add "${key}:" with ${schema.required.map((r) => `"${r}"`).join(' and ')}`;
  if (schema.type === 'array') return `add "${key}:" with a list`;
  return `add "${key}:"`;
}

/** Every problem of `value` against `schema`, paths relative to `path`. */
export function checkSchema(value: unknown, schema: JsonSchema, path = '', issues: SchemaIssue[] = []): SchemaIssue[] {
  const report = (at: string, anchor: Anchor, code: Code, message: string, severity: 'error' | 'warning' = 'error', field?: string) =>
    issues.push({ code, severity, path: at, anchor, message, ...(field !== undefined ? { field } : {}) });
  if (schema.type && !hasType(value, schema.type)) {
    const hint =
      schema.type === 'string' && (typeof value === 'number' || typeof value === 'boolean') ? `; quote it: "${String(value)}"` : '';
    report(path, 'value', CODES.schemaType, `${lastKey(path)} must be ${TYPE_WORDS[schema.type]}, not ${describe(value)}${hint}`);
    return issues;
  }
  if (schema.enum && typeof value === 'string' && !schema.enum.includes(value)) {
    const sameCase = schema.enum.find((e) => e.toLowerCase() === value.toLowerCase());
    const hint = sameCase
      ? `: did you mean ${sameCase}?`
      : `: use ${schema.enum.length === 1 ? schema.enum[0] : `one of ${schema.enum.join(', ')}`}`;
    report(path, 'value', CODES.schemaEnum, `"${value}" is not a valid ${lastKey(path)}${hint}`);
  }
  if (schema.minimum !== undefined && typeof value === 'number' && value < schema.minimum) {
    report(path, 'value', CODES.schemaValue, `${lastKey(path)} must be at least ${schema.minimum}, not ${value}`);
  }
  if (schema.format === 'date-time' && typeof value === 'string' && !RFC3339.test(value)) {
    report(
      path,
      'value',
      CODES.schemaValue,
      `${lastKey(path)} must be an RFC 3339 time such as 2024-05-01T12:00:00Z, not ${JSON.stringify(value)}`,
    );
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => checkSchema(item, schema.items as JsonSchema, joinPath(path, i), issues));
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) {
      const field = Object.hasOwn(object, key) ? object[key] : undefined;
      if (field !== undefined && field !== null) continue;
      const how = howToWrite(key, schema.properties?.[key] ?? {});
      if (field === null)
        report(
          joinPath(path, key),
          'key',
          CODES.schemaRequired,
          `"${key}" is required and is empty: ${how.replace(/^add "[^"]*"/, 'give it a value')}`,
        );
      else report(path, 'line', CODES.schemaRequired, `missing required field "${key}": ${how}`, 'error', key);
    }
    for (const [key, field] of Object.entries(object)) {
      const at = joinPath(path, key);
      const known = schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      if (known) {
        if (field !== null) checkSchema(field, known, at, issues);
      } else if (schema.additionalProperties === false) {
        const fields = Object.keys(schema.properties ?? {});
        report(
          at,
          'key',
          CODES.schemaUnknownField,
          `unknown field "${key}"${fields.length ? `: the fields here are ${fields.join(', ')}` : ''}; it is ignored`,
          'warning',
        );
      } else if (typeof schema.additionalProperties === 'object' && field !== null) {
        checkSchema(field, schema.additionalProperties, at, issues);
      }
    }
  }
  return issues;
}

/** The schema of the field at `path` (segments from the object's root), following properties, additional properties and items. */
export function schemaAt(schema: JsonSchema, path: readonly PathSegment[]): JsonSchema | undefined {
  let current: JsonSchema | undefined = schema;
  for (const segment of path) {
    if (!current) return undefined;
    if (typeof segment === 'number') current = current.items;
    else if (current.properties && Object.hasOwn(current.properties, segment)) current = current.properties[segment];
    else current = typeof current.additionalProperties === 'object' ? current.additionalProperties : undefined;
  }
  return current;
}
