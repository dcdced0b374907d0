// What Podplan offers the Red Hat YAML extension: a schema chosen by kind and apiVersion (never by
// file name) that describes our objects and validates nothing, so that each problem of a
// ScheduleTrigger is reported once, by Podplan's server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { contributedSchema, describingOnly, holdsOurKinds, OFFERED } from '../../src/extension/yaml-schemas';

type Json = Parameters<typeof describingOnly>[0];
const schemas = Object.fromEntries(OFFERED.map((o) => [o.kind, JSON.parse(readFileSync(`schemas/${o.file}`, 'utf8')) as Json]));

/** Every key used anywhere as a schema keyword (names under `properties` are not keywords). */
function keywords(schema: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) schema.forEach((s) => keywords(s, into));
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      into.add(key);
      if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value))
        Object.values(value).forEach((s) => keywords(s, into));
      else keywords(value, into);
    }
  }
  return into;
}

describe('extension/yaml-schemas', () => {
  it('claims a file by the kinds and apiVersion it holds, not by its name', () => {
    const cases: Array<[string, string, boolean]> = [
      ['a ScheduleTrigger', 'apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata: { name: a }\n', true],
      [
        'a SchedulePlan after a Deployment',
        'apiVersion: apps/v1\nkind: Deployment\n---\napiVersion: "planner.ciena.io/v1alpha1"\nkind: SchedulePlan # ours\n',
        true,
      ],
      ['a Deployment (deploy-plan.yaml)', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\n', false],
      [
        'a KEDA ScaledObject with triggers (keda-trigger.yaml)',
        'apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nspec:\n  triggers:\n    - type: cron\n',
        false,
      ],
      ['our kind under another API group', 'apiVersion: example.com/v1\nkind: ScheduleTrigger\n', false],
      [
        'our kind named only in a nested field',
        'apiVersion: planner.ciena.io/v1alpha1\nkind: Other\nspec:\n  dependsOn:\n    - kind: ScheduleTrigger\n',
        false,
      ],
    ];
    for (const [name, text, ours] of cases) assert.equal(holdsOurKinds(text), ours, name);
  });

  it('keeps descriptions and structure, and drops every keyword that could report a problem', () => {
    const described = contributedSchema(schemas);
    const used = keywords(described);
    for (const k of ['type', 'enum', 'required', 'pattern', 'maxLength', 'additionalProperties'])
      assert.ok(keywords(schemas['ScheduleTrigger'] as Json).has(k), `the source uses ${k}`);
    const inThen = keywords((described as { allOf: Array<{ then: Json }> }).allOf.map((a) => a.then));
    for (const k of ['type', 'enum', 'required', 'pattern', 'maxLength', 'additionalProperties', 'minItems']) assert.ok(!inThen.has(k), k);
    for (const k of ['description', 'properties', 'allOf', 'if', 'then']) assert.ok(used.has(k), k);
  });

  it('gives each document the schema of its own kind (matched by kind and apiVersion) and other documents none', () => {
    const { allOf } = contributedSchema(schemas) as {
      allOf: Array<{ if: Json; then: { title: string; properties: Record<string, unknown> } }>;
    };
    assert.deepEqual(
      allOf.map((a) => a.if),
      OFFERED.map((o) => ({
        properties: { apiVersion: { const: 'planner.ciena.io/v1alpha1' }, kind: { const: o.kind } },
        required: ['apiVersion', 'kind'],
      })),
    );
    assert.deepEqual(
      allOf.map((a) => a.then.title),
      ['ScheduleTrigger (planner.ciena.io/v1alpha1)', 'SchedulePlan (planner.ciena.io/v1alpha1)'],
    );
    assert.ok('spec' in (allOf[0]?.then.properties ?? {}));
  });

  it('keeps a property named like a keyword', () => {
    assert.deepEqual(describingOnly({ properties: { type: { type: 'string', description: 'the trigger type' } } }), {
      properties: { type: { description: 'the trigger type' } },
    });
  });
});
