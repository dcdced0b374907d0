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

  it('reports a state outside Planning|Schedule and keeps the trigger, read as Planning; leaves out a trigger without its pod-set label', () => {
    assert.deepEqual(
      model.errors.map((e) => [e.code, e.path, at(e.range), e.message]),
      [
        ['bad-value', 'spec.state', '48:10', '"schedule" is not one of Planning, Schedule (did you mean Schedule?)'],
        ['missing-field', 'metadata', '52:1', 'missing label "planner.ciena.io/pod-set": a ScheduleTrigger names its pod set with it'],
      ],
    );
    assert.deepEqual(
      model.triggers.map((t) => [t.value.name, t.value.state]),
      [
        ['batch-trigger', 'Planning'],
        ['ingest-trigger', 'Schedule'],
        ['typo', 'Planning'],
      ],
    );
  });

  describe('reports malformed entries where they are', () => {
    const trigger =
      'apiVersion: planner.ciena.io/v1alpha1\nkind: ScheduleTrigger\nmetadata: { name: t, labels: { planner.ciena.io/pod-set: s } }\n';
    const plan = trigger.replace('ScheduleTrigger', 'SchedulePlan');
    // What is kept: the object with the bad part left out (so its other parts keep their features), or nothing.
    const table: Array<[what: string, yaml: string, expected: Array<[code: string, path: string]>, kept: unknown]> = [
      [
        'a dependsOn entry without a name, or of a kind nothing can be',
        `${trigger}spec:\n  state: Planning\n  dependsOn: [{ namespace: x }, { name: y, kind: Deployment }, { name: z }]\n`,
        [
          ['missing-field', 'spec.dependsOn[0]'],
          ['bad-value', 'spec.dependsOn[1].kind'],
        ],
        { trigger: [{ name: 'z' }] },
      ],
      ['a trigger without a state', `${trigger}spec: { dependsOn: [] }\n`, [['missing-field', 'spec']], {}],
      [
        'a SchedulePlan entry without its node',
        `${plan}spec:\n  plan:\n    - pod: a\n    - { pod: b, node: n }\n`,
        [['missing-field', 'spec.plan[0]']],
        { plan: [{ pod: 'b', node: 'n' }] },
      ],
      ['a SchedulePlan entry that is not a mapping', `${plan}spec:\n  plan: [a]\n`, [['wrong-type', 'spec.plan[0]']], { plan: [] }],
      [
        'a SchedulePlan with a malformed status',
        `${plan}spec:\n  plan: []\nstatus: { placed: -1 }\n`,
        [['bad-value', 'status.placed']],
        { plan: [] },
      ],
    ];
    for (const [what, yaml, expected, kept] of table) {
      it(what, () => {
        const read = readFile({ name: 'x.yaml', text: yaml });
        assert.deepEqual(
          read.errors.map((e) => [e.code, e.path]),
          expected,
        );
        const trigger = read.triggers[0]?.value.dependsOn;
        const plan = read.plans[0] && {
          plan: read.plans[0].value.plan,
          ...(read.plans[0].value.status ? { status: read.plans[0].value.status } : {}),
        };
        assert.deepEqual({ ...(trigger ? { trigger } : {}), ...plan }, kept);
      });
    }
  });
});
