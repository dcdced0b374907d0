import assert from 'node:assert/strict';
import { resolvePriorities } from '../../../src/engine/api/priority';
import type { PriorityClass } from '../../../src/engine/api/types';
import { explain } from '../../../src/engine/explain/explain';
import { simulate } from '../../../src/engine/scheduler/simulate';
import { makeNode, makePod } from '../../builders';

const klass = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({ metadata: { name }, value, ...extra });

describe('engine/scheduler/simulate', () => {
  describe('priorities as admission gives them (plugin/pkg/admission/priority)', () => {
    const classes = [klass('batch', 10, { globalDefault: true }), klass('urgent', 1000, { preemptionPolicy: 'Never' })];
    const table: Array<[string, ReturnType<typeof makePod>, number | undefined, string | undefined]> = [
      ['a class named: its value and preemption policy', makePod('a').priorityClass('urgent'), 1000, 'Never'],
      ['no class: the globalDefault one', makePod('b'), 10, 'PreemptLowerPriority'],
      ['a system class', makePod('c').priorityClass('system-node-critical'), 2000001000, 'PreemptLowerPriority'],
      ['spec.priority already set (read from a cluster): kept as it is', makePod('d').priority(7).priorityClass('urgent'), 7, undefined],
      [
        'a policy on the pod wins over the class',
        makePod('e').priorityClass('urgent').preemptionPolicy('PreemptLowerPriority'),
        1000,
        'PreemptLowerPriority',
      ],
    ];
    for (const [name, pod, priority, policy] of table) {
      it(name, () => {
        const [resolved] = resolvePriorities([pod.obj], classes).pods;
        assert.deepEqual([resolved?.spec.priority, resolved?.spec.preemptionPolicy], [priority, policy]);
      });
    }

    it('a class that does not exist: admission refuses the pod', () => {
      const out = resolvePriorities([makePod('f').priorityClass('nope').obj], classes);
      assert.deepEqual(out.refused, [{ pod: 'default/f', error: 'pods "f" is forbidden: no PriorityClass with name nope was found' }]);
    });
  });

  // As the oracle (upstream 1.37's framework) says: the PreFilter rejection stops the cycle before
  // DynamicResources' PreFilter, whose PostFilter then fails reading its state ("not found").
  it('a pod whose PersistentVolumeClaim does not exist is not placed, as a 1.37 cluster says', async () => {
    const result = await simulate({ nodes: [makeNode('n1').obj, makeNode('n2').obj], pods: [makePod('app').claims('data').obj] });
    assert.ok(result.ok);
    assert.deepEqual(
      result.value.outcomes.map((o) => [o.node, o.diagnosis.message]),
      [[undefined, '0/2 nodes are available: persistentvolumeclaim "data" not found. not found']],
    );
  });

  it('a gated pod waits, its gates named as upstream prints them', async () => {
    const result = await simulate({
      nodes: [makeNode('n1').obj],
      pods: [makePod('held').gate('example.com/quota').gate('example.com/review').obj],
    });
    assert.ok(result.ok);
    assert.deepEqual(result.value.waiting, [
      { pod: 'default/held', reason: 'waiting for scheduling gates: [example.com/quota example.com/review]' },
    ]);
  });

  describe('preemption', () => {
    const node = makeNode('n1').alloc({ cpu: '2', memory: '4Gi', pods: '10' });
    const running = () => [
      makePod('batch-1').req({ cpu: '1' }).priorityClass('batch').node('n1').started('2026-01-01T00:00:00Z'),
      makePod('batch-2').req({ cpu: '1' }).priorityClass('batch').node('n1').started('2026-01-01T00:01:00Z'),
    ];

    it('evicts the victims from the snapshot and places the preemptor on their node', async () => {
      const result = await simulate({
        nodes: [node.obj],
        pods: [...running(), makePod('urgent').req({ cpu: '1' }).priorityClass('urgent')].map((p) => p.obj),
        priorityClasses: [klass('batch', 10), klass('urgent', 1000)],
      });
      assert.ok(result.ok);
      const [outcome] = result.value.outcomes;
      // 2 cpu, all used, 1 asked: one batch pod must go; batch-1 has run longer, so it is more important and stays.
      assert.deepEqual([outcome?.pod, outcome?.node, outcome?.victims], ['default/urgent', 'n1', ['default/batch-2']]);
      assert.deepEqual(result.value.preempted, [{ pod: 'default/batch-2', node: 'n1', by: 'default/urgent' }]);
      const why = explain(outcome!.diagnosis).preemption;
      assert.deepEqual(
        [why?.node, why?.victims, why?.candidates.map((c) => c.summary)],
        ['n1', ['default/batch-2'], ['n1: evict default/batch-2 (priority 10): chosen']],
      );
    });

    it('a KubeSchedulerConfiguration profile that disables DefaultPreemption: nothing is evicted, and the message has no preemption part', async () => {
      const result = await simulate(
        {
          nodes: [node.obj],
          pods: [...running(), makePod('urgent').req({ cpu: '1' }).priorityClass('urgent')].map((p) => p.obj),
          priorityClasses: [klass('batch', 10), klass('urgent', 1000)],
        },
        { profile: { schedulerName: 'default-scheduler', plugins: { multiPoint: { disabled: [{ name: 'DefaultPreemption' }] } } } },
      );
      assert.ok(result.ok);
      assert.deepEqual(
        [result.value.outcomes[0]?.diagnosis.message, result.value.preempted],
        ['0/1 nodes are available: 1 Insufficient cpu.', []],
      );
    });

    it("DefaultPreemption's args from the profile are checked as upstream", async () => {
      const result = await simulate(
        { nodes: [node.obj], pods: [] },
        {
          profile: {
            schedulerName: 'default-scheduler',
            pluginConfig: [{ name: 'DefaultPreemption', args: { minCandidateNodesPercentage: 101 } }],
          },
        },
      );
      assert.deepEqual(result.ok ? [] : result.error.map((e) => e.message), [
        'profile default-scheduler: plugin DefaultPreemption: minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]',
      ]);
    });

    it('preemptionPolicy Never (from its class): the pod waits, and says why', async () => {
      const result = await simulate({
        nodes: [node.obj],
        pods: [...running(), makePod('polite').req({ cpu: '1500m' }).priorityClass('polite')].map((p) => p.obj),
        priorityClasses: [klass('batch', 10), klass('polite', 1000, { preemptionPolicy: 'Never' })],
      });
      assert.ok(result.ok);
      const [outcome] = result.value.outcomes;
      assert.equal(outcome?.node, undefined);
      assert.equal(
        outcome?.diagnosis.message,
        '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.',
      );
      assert.deepEqual(result.value.preempted, []);
    });
  });
});
