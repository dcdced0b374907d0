import assert from 'node:assert/strict';
import { checkSchema, schemaAt, SCHEMAS } from '../../../src/server/service/schema';

const trigger = SCHEMAS['ScheduleTrigger']!;
const plan = SCHEMAS['SchedulePlan']!;
const base = {
  apiVersion: 'planner.ciena.io/v1alpha1',
  kind: 'ScheduleTrigger',
  metadata: { name: 't', labels: { 'planner.ciena.io/pod-set': 's' } },
};
const issues = (value: unknown, schema = trigger) => checkSchema(value, schema).map((i) => [i.code, i.path, i.anchor, i.severity]);

describe('server/service/schema: schemas/*.json checked against a document', () => {
  it('a whole trigger passes', () =>
    assert.deepEqual(issues({ ...base, spec: { state: 'Planning', dependsOn: [{ name: 'x', kind: 'PodSet' }] } }), []));

  const cases: Array<[string, unknown, unknown[][]]> = [
    ['a missing required field is shown on the line of its mapping', { ...base, spec: {} }, [['schema/required', 'spec', 'line', 'error']]],
    ['an empty required field at its key', { ...base, spec: { state: null } }, [['schema/required', 'spec.state', 'key', 'error']]],
    [
      'a value of the wrong type',
      { ...base, spec: { state: 'Planning', dependsOn: 'x' } },
      [['schema/type', 'spec.dependsOn', 'value', 'error']],
    ],
    ['a value outside the enum', { ...base, spec: { state: 'Later' } }, [['schema/enum', 'spec.state', 'value', 'error']]],
    [
      'an unknown field, where the schema allows none, as a warning at its key',
      { ...base, spec: { state: 'Planning', when: 1 } },
      [['schema/unknown-field', 'spec.when', 'key', 'warning']],
    ],
    [
      'items of lists',
      { ...base, spec: { state: 'Planning', dependsOn: [{ kind: 'Pod' }] } },
      [
        ['schema/required', 'spec.dependsOn[0]', 'line', 'error'],
        ['schema/enum', 'spec.dependsOn[0].kind', 'value', 'error'],
      ],
    ],
    [
      'label values are strings',
      { ...base, metadata: { name: 't', labels: { 'planner.ciena.io/pod-set': 's', n: 5 } }, spec: { state: 'Planning' } },
      [['schema/type', 'metadata.labels.n', 'value', 'error']],
    ],
  ];
  for (const [what, value, expected] of cases) it(what, () => assert.deepEqual(issues(value), expected));

  it('minimum and date-time in a plan’s status', () => {
    const value = { ...base, kind: 'SchedulePlan', spec: { plan: [] }, status: { placed: -1, createdAt: 'now' } };
    assert.deepEqual(issues(value, plan), [
      ['schema/value', 'status.placed', 'value', 'error'],
      ['schema/value', 'status.createdAt', 'value', 'error'],
    ]);
  });

  it('messages say how to fix', () => {
    const [missing] = checkSchema({ ...base, spec: {} }, trigger);
    assert.equal(missing?.message, 'missing required field "state": add "state: Planning" (one of Planning, Schedule)');
    assert.equal(missing?.field, 'state');
    const [number] = checkSchema(
      { ...base, metadata: { name: 't', labels: { 'planner.ciena.io/pod-set': 7 } }, spec: { state: 'Planning' } },
      trigger,
    );
    assert.equal(number?.message, 'planner.ciena.io/pod-set must be a string, not the number 7; quote it: "7"');
  });

  it('finds the schema of a path, through items and additional properties', () => {
    assert.deepEqual(schemaAt(trigger, ['spec', 'dependsOn', 0, 'kind'])?.enum, ['ScheduleTrigger', 'SchedulePlan', 'PodSet']);
    assert.equal(schemaAt(trigger, ['metadata', 'labels', 'anything'])?.type, 'string');
    assert.equal(schemaAt(trigger, ['spec', 'nothing']), undefined);
  });
});
