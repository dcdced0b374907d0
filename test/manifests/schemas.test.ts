// schemas/: the JSON schemas offered to YAML tooling and, later, the language server. They must say
// what the readers accept.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PLANNER_API_VERSION, POD_SET_LABEL, QUIET_TIME_LABEL } from '../../src/engine/planner/plan';
import { DEPENDENCY_KINDS, TRIGGER_STATES } from '../../src/manifests';

interface Schema {
  readonly properties?: Readonly<Record<string, Schema>>;
  readonly items?: Schema;
  readonly required?: readonly string[];
  readonly enum?: readonly string[];
  readonly pattern?: string;
}

function schema(name: string): Schema {
  return JSON.parse(readFileSync(fileURLToPath(new URL(`../../schemas/${name}`, import.meta.url)), 'utf8')) as Schema;
}

/** The schema of a nested property, following `properties` and `items`. */
function at(s: Schema, ...path: string[]): Schema {
  return path.reduce<Schema>((cur, key) => {
    const next = key === '[]' ? cur.items : cur.properties?.[key];
    assert.ok(next, `no ${key} in schema`);
    return next;
  }, s);
}

describe('schemas', () => {
  const trigger = schema('schedule-trigger.json');
  const plan = schema('schedule-plan.json');

  it('name the planner apiVersion, kinds and labels the readers use', () => {
    for (const s of [trigger, plan]) {
      assert.deepEqual(at(s, 'apiVersion').enum, [PLANNER_API_VERSION]);
      assert.deepEqual(at(s, 'metadata', 'labels').required, [POD_SET_LABEL]);
    }
    assert.deepEqual(at(trigger, 'kind').enum, ['ScheduleTrigger']);
    assert.deepEqual(at(plan, 'kind').enum, ['SchedulePlan']);
    assert.ok(at(trigger, 'metadata', 'labels', QUIET_TIME_LABEL));
  });

  it('the trigger state and dependsOn kinds are those the reader accepts', () => {
    assert.deepEqual(at(trigger, 'spec', 'state').enum, [...TRIGGER_STATES]);
    assert.deepEqual(at(trigger, 'spec').required, ['state']);
    assert.deepEqual(at(trigger, 'spec', 'dependsOn', '[]', 'kind').enum, [...DEPENDENCY_KINDS]);
  });

  it("a plan entry needs pod and node, as Pallet's CRD says", () => {
    assert.deepEqual(at(plan, 'spec', 'plan', '[]').required, ['node', 'pod']);
  });

  describe('the quiet time is a Go duration that is also a label value', () => {
    const pattern = new RegExp(at(trigger, 'metadata', 'labels', QUIET_TIME_LABEL).pattern ?? '');
    const table: Array<[text: string, valid: boolean]> = [
      ['2m0s', true],
      ['1h30m', true],
      ['300ms', true],
      ['1.5h', true],
      ['0', true],
      ['10us', true],
      ['2 minutes', false],
      ['5', false],
      ['-1m', false],
      ['1d', false],
      ['', false],
    ];
    for (const [text, valid] of table) {
      it(`"${text}" is ${valid ? 'valid' : 'refused'}`, () => assert.equal(pattern.test(text), valid));
    }
  });
});
