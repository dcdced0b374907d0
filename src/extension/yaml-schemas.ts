// Our schemas for the Red Hat YAML extension (redhat.vscode-yaml), offered by kind and apiVersion
// through its schema contributor API, never by file name: a `deploy-plan.yaml` holding a Deployment
// or a KEDA `keda-trigger.yaml` is not ours and gets nothing from us.
//
// Who reports what: Podplan's language server reports every problem of a ScheduleTrigger or
// SchedulePlan (it must, for editors without the YAML extension), so the schema handed to the
// YAML extension carries descriptions and structure only — no validation keywords — and each
// problem is shown once. What the YAML extension adds is completion of keys and their docs; and a
// file holding our kinds is not checked against another schema (say a Kubernetes schema the user
// mapped to every *.yaml), which would call ScheduleTrigger an unknown kind.
//
// Free of `vscode` so that a test can read it; yaml-extension.ts registers it.

/** The kinds we offer schemas for, with the file under schemas/. */
export const OFFERED = [
  { kind: 'ScheduleTrigger', file: 'schedule-trigger.json' },
  { kind: 'SchedulePlan', file: 'schedule-plan.json' },
] as const;

export const PLANNER_API_VERSION = 'planner.ciena.io/v1alpha1';

/** The URI scheme of the schema we contribute (the YAML extension asks us for its content). */
export const SCHEMA_SCHEME = 'podplan-schema';
export const SCHEMA_URI = `${SCHEMA_SCHEME}://schemas/podplan.json`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON Schema keywords that make a document invalid; what only describes (or nests) is kept. */
const VALIDATION_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'required',
  'additionalProperties',
  'additionalItems',
  'pattern',
  'patternProperties',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'dependencies',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
]);

/** Keywords whose value is a map from names to schemas (the names are not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'definitions', '$defs']);

/** The schema with every validation keyword removed, descriptions and nesting kept. */
export function describingOnly(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(describingOnly);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATION_KEYWORDS.has(key) || key === '$schema') continue;
    if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, describingOnly(sub)]));
    } else {
      out[key] = describingOnly(value);
    }
  }
  return out;
}

/**
 * One schema for a whole file: each YAML document gets the describing schema of its own kind
 * (matched by kind and apiVersion), and any other document nothing at all.
 */
export function contributedSchema(schemas: Readonly<Record<string, Json>>): Json {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'Podplan planner objects (planner.ciena.io/v1alpha1)',
    allOf: OFFERED.filter((o) => schemas[o.kind] !== undefined).map((o) => ({
      if: { properties: { apiVersion: { const: PLANNER_API_VERSION }, kind: { const: o.kind } }, required: ['apiVersion', 'kind'] },
      then: describingOnly(schemas[o.kind] as Json),
    })),
  };
}

const OUR_KIND = new RegExp(`^kind:\\s*["']?(${OFFERED.map((o) => o.kind).join('|')})["']?\\s*(#.*)?$`, 'm');
const OUR_API_VERSION = /^apiVersion:\s*["']?planner\.ciena\.io\/v1alpha1["']?\s*(#.*)?$/m;

/** Whether a file's text holds one of our kinds at the top level of a document (a quick look, not a parse). */
export function holdsOurKinds(text: string): boolean {
  return OUR_KIND.test(text) && OUR_API_VERSION.test(text);
}

/** The contributor API the YAML extension exports (its schema-extension-api). */
export interface YamlExtensionApi {
  registerContributor(
    schema: string,
    requestSchema: (resource: string) => string | undefined,
    requestSchemaContent: (uri: string) => string | undefined,
    label?: string,
  ): boolean;
}
