import assert from 'node:assert/strict';
import { readFile } from '../../src/manifests';
import { at, fixture } from './fixtures';

describe('manifests/planner', () => {
  const model = readFile(fixture('planner.yaml'));

  it('reads a ScheduleTrigger: pod set and quiet time from its labels, state, dependsOn', () => {
    assert.deepEqual(model.triggers[0]?.value, {
      name: 'batch-trigger',
      namespace: 'analytics',
      labels: { 'planner.ciena.io/pod-set': 'batch', 'planner.ciena.io/quiet-time': '2m0s' },
      podSet: 'batch',
      quietTime: '2m0s',
      state: 'Planning',
      dependsOn: [{ name: 'ingest-trigger' }, { name: 'warmup', namespace: 'infra', kind: 'PodSet' }],
    });
  });

  it('a trigger without quiet time or dependsOn has none', () => {
    const t = model.triggers[1]?.value;
    assert.equal(t?.state, 'Schedule');
    assert.equal(t?.quietTime, undefined);
    assert.deepEqual(t?.dependsOn, []);
  });

  it('reads a SchedulePlan: pod set from its label, spec.plan entries', () => {
    assert.deepEqual(model.plans[0]?.value, {
      name: 'batch-fhjfk7jd8',
      namespace: 'analytics',
      labels: { 'planner.ciena.io/pod-set': 'batch' },
      podSet: 'batch',
      plan: [
        { pod: 'batch-0', node: 'node-a' },
        { pod: 'batch-1', node: 'node-b' },
      ],
    });
  });

  it('reports a state outside Planning|Schedule, and a trigger without its pod-set label, and leaves them out', () => {
    assert.deepEqual(
      model.errors.map((e) => [e.code, e.path, at(e.range), e.message]),
      [
        ['bad-value', 'spec.state', '48:10', '"schedule" is not one of Planning, Schedule (did you mean Schedule?)'],
        ['missing-field', 'metadata', '52:1', 'missing label "planner.ciena.io/pod-set": a ScheduleTrigger names its pod set with it'],
      ],
    );
    assert.deepEqual(
      model.triggers.map((t) => t.value.name),
      ['batch-trigger', 'ingest-trigger'],
    );
  });

  describe('reports malformed entries where they are', () => {
    const trigger = 'apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata: { name: t, labels: { planner.ciena.io/pod-set: s } }\n';
    const plan = trigger.replace('ScheduleTrigger', 'SchedulePlan');
    const table: Array<[what: string, yaml: string, expected: Array<[code: string, path: string]>]> = [
      [
        'a dependsOn entry without a name, or of a kind nothing can be',
        `${trigger}spec:\n  state: Planning\n  dependsOn: [{ namespace: x }, { name: y, kind: Deployment }]\n`,
        [
          ['missing-field', 'spec.dependsOn[0]'],
          ['bad-value', 'spec.dependsOn[1].kind'],
        ],
      ],
      ['a trigger without a state', `${trigger}spec: { dependsOn: [] }\n`, [['missing-field', 'spec']]],
      ['a SchedulePlan entry without its node', `${plan}spec:\n  plan:\n    - pod: a\n`, [['missing-field', 'spec.plan[0]']]],
      ['a SchedulePlan entry that is not a mapping', `${plan}spec:\n  plan: [a]\n`, [['wrong-type', 'spec.plan[0]']]],
    ];
    for (const [what, yaml, expected] of table) {
      it(what, () =>
        assert.deepEqual(
          readFile({ name: 'x.yaml', text: yaml }).errors.map((e) => [e.code, e.path]),
          expected,
        ));
    }
  });
});
