import assert from 'node:assert/strict';
import { Snapshot } from '../../../src/engine/framework/snapshot';
import { assumePlacements, podsByKey, writtenPlansBefore } from '../../../src/engine/planner/placed-before';
import type { Plan } from '../../../src/engine/planner/plan';
import { schedulePlanName } from '../../../src/engine/planner/podset/name';
import type { TriggerSpec } from '../../../src/engine/planner/podset/trigger';
import { WhatIf } from '../../../src/engine/planner/search/what-if';
import type { DependencyRef } from '../../../src/engine/reconcile/triggers';
import { makeNode } from '../../builders';
import { setPod } from './fixtures';

const trigger = (set: string, dependsOn: Array<string | DependencyRef> = []): TriggerSpec => ({
  name: set,
  namespace: 'default',
  podSet: set,
  state: 'Planning',
  dependsOn: dependsOn.map((d) => (typeof d === 'string' ? { name: d } : d)),
});
const written = (set: string): Plan => ({
  podSet: set,
  namespace: 'default',
  planner: 'greedy',
  profile: '',
  assignments: [{ pod: `${set}-0`, node: 'n1' }],
  unplaced: [],
  createdAt: 0,
  snapshotHash: '',
});

describe('engine/planner/placed-before', () => {
  describe('writtenPlansBefore: the written plans a set is planned beside', () => {
    const plans = ['a', 'b', 'c', 'lone'].map(written);
    const table: Array<[string, TriggerSpec[], string[], ((t: TriggerSpec) => boolean)?]> = [
      [
        'none planned now: every written plan its trigger reaches, deepest first',
        [trigger('a'), trigger('b', ['a']), trigger('c', ['b'])],
        ['a', 'b'],
      ],
      [
        'a trigger planned now stands for its set: its written plan is not',
        [trigger('a'), trigger('b', ['a']), trigger('c', ['b'])],
        ['a'],
        (t) => t.podSet === 'b',
      ],
      [
        'a SchedulePlan entry of a set without a trigger',
        [trigger('c', [{ kind: 'SchedulePlan', name: schedulePlanName('default', 'lone') }])],
        ['lone'],
      ],
      ['a PodSet entry of a set without a trigger', [trigger('c', [{ kind: 'PodSet', name: 'lone' }])], ['lone']],
      ['a set with no written plan adds nothing', [trigger('c', [{ kind: 'PodSet', name: 'nothing-written' }])], []],
      ['a cycle back to the set itself: never its own plan', [trigger('c', ['b']), trigger('b', ['c'])], ['b']],
      ['no trigger: nothing', [], []],
    ];
    for (const [name, triggers, expect, plannedNow] of table) {
      it(name, () => {
        assert.deepEqual(
          writtenPlansBefore({ namespace: 'default', name: 'c' }, triggers, plans, plannedNow).map((p) => p.podSet),
          expect,
        );
      });
    }
  });

  it('assumePlacements puts each pending pod on its node and returns what it put; bound, unknown pods and nodes are skipped', () => {
    const base = Snapshot.fromCluster({ nodes: [makeNode('n1').alloc({ cpu: '4', pods: '10' }).obj], pods: [] });
    assert.ok(base.ok);
    const working = new WhatIf(base.value);
    const pods = [setPod('a-0', 'a').req({ cpu: '1' }).obj, setPod('a-1', 'a').req({ cpu: '1' }).node('n1').obj];
    const put = assumePlacements(
      working,
      [
        { namespace: 'default', pod: 'a-0', node: 'n1' },
        { namespace: 'default', pod: 'a-1', node: 'n1' },
        { namespace: 'default', pod: 'missing', node: 'n1' },
        { namespace: 'default', pod: 'a-0', node: 'nowhere' },
      ],
      podsByKey(pods),
    );
    assert.deepEqual(put, [{ namespace: 'default', pod: 'a-0', node: 'n1' }]);
    assert.deepEqual(
      working.snapshot.get('n1')?.pods.map((p) => p.pod.metadata.name),
      ['a-0'],
    );
  });
});
