// Structural schemas of custom resources (apiextensions-apiserver): unknown fields are pruned, or
// reported for `fieldValidation=Strict`/`Warn`; declared types, required fields and enums validated.

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
  enum?: unknown[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

type JsonMap = Record<string, unknown>;

function isMap(v: unknown): v is JsonMap {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Prunes `value` in place against `schema`; the paths of the dropped fields go to `unknown`. */
function prune(value: unknown, schema: JsonSchema | undefined, path: string, unknown: string[]): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) prune(item, schema.items, `${path}[${i}]`, unknown);
    return;
  }
  if (!isMap(value)) return;
  if (schema['x-kubernetes-embedded-resource']) pruneMeta(value, path, unknown);
  const props = schema.properties;
  const additional = schema.additionalProperties;
  for (const key of Object.keys(value)) {
    const child = `${path ? `${path}.` : ''}${key}`;
    const sub = props?.[key] ?? (isMap(additional) ? (additional as JsonSchema) : undefined);
    if (sub) prune(value[key], sub, child, unknown);
    else if (schema['x-kubernetes-preserve-unknown-fields'] || additional === true) continue;
    else if (schema['x-kubernetes-embedded-resource'] && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    else {
      unknown.push(child);
      delete value[key];
    }
  }
}

function pruneMeta(obj: JsonMap, path: string, unknown: string[]): void {
  const meta = obj.metadata;
  if (!isMap(meta)) return;
  for (const key of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      unknown.push(`${path ? `${path}.` : ''}metadata.${key}`);
      delete meta[key];
    }
  }
}

/** Prunes a whole custom resource in place and returns the paths it dropped. */
export function pruneObject(obj: JsonMap, schema: JsonSchema): string[] {
  const unknown: string[] = [];
  pruneMeta(obj, '', unknown);
  const rest: JsonMap = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') rest[k] = v;
  prune(rest, schema, '', unknown);
  for (const k of Object.keys(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata' && !(k in rest)) delete obj[k];
  return unknown;
}

export interface SchemaViolation {
  field: string;
  reason: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported';
  message: string;
}

function typeOk(value: unknown, schema: JsonSchema): boolean {
  if (schema['x-kubernetes-int-or-string']) return typeof value === 'string' || Number.isInteger(value);
  switch (schema.type) {
    case 'object':
      return isMap(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

function quote(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value)
    : `"${isMap(value) ? 'object' : Array.isArray(value) ? 'array' : String(value)}"`;
}

/** Type, required and enum violations, in the API server's wording. */
export function validate(value: unknown, schema: JsonSchema, path: string, out: SchemaViolation[] = []): SchemaViolation[] {
  if (value === null || value === undefined) return out;
  if (!typeOk(value, schema)) {
    const got = isMap(value)
      ? 'object'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'number'
          ? Number.isInteger(value)
            ? 'integer'
            : 'number'
          : typeof value;
    out.push({
      field: path,
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${quote(value)}: ${path} in body must be of type ${schema.type}: ${JSON.stringify(got)}`,
    });
    return out;
  }
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    out.push({
      field: path,
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
    });
  }
  if (Array.isArray(value) && schema.items) for (const [i, item] of value.entries()) validate(item, schema.items, `${path}[${i}]`, out);
  if (isMap(value)) {
    for (const req of schema.required ?? []) {
      if (value[req] === undefined || value[req] === null)
        out.push({ field: `${path ? `${path}.` : ''}${req}`, reason: 'FieldValueRequired', message: 'Required value' });
    }
    for (const [k, v] of Object.entries(value)) {
      const sub = schema.properties?.[k] ?? (isMap(schema.additionalProperties) ? (schema.additionalProperties as JsonSchema) : undefined);
      if (sub) validate(v, sub, `${path ? `${path}.` : ''}${k}`, out);
    }
  }
  return out;
}

/** The custom resource's own fields (not apiVersion/kind/metadata), validated against its schema. */
export function validateObject(obj: JsonMap, schema: JsonSchema): SchemaViolation[] {
  const rest: JsonMap = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'apiVersion' && k !== 'kind' && k !== 'metadata') rest[k] = v;
  const required = (schema.required ?? []).filter((r) => r !== 'apiVersion' && r !== 'kind' && r !== 'metadata');
  return validate(rest, { ...schema, required }, '');
}
