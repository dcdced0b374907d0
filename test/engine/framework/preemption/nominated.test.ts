// Nominated pods in Filter: a pod nominated to a node holds its room there against pods of lower or
// equal priority; Filter must pass with those pods added and without them.
import assert from 'node:assert/strict';
import { ManualClock } from '../../../../src/engine/api/clock';
import { seededRandom } from '../../../../src/engine/api/random';
import { ClusterCache } from '../../../../src/engine/cache/cache';
import { CycleState } from '../../../../src/engine/framework/cycle-state';
import type { FilterPlugin, PreFilterPlugin } from '../../../../src/engine/framework/interfaces';
import { filterWithNominatedPods, NOMINATED_PODS, NominatedPods } from '../../../../src/engine/framework/preemption/nominated';
import { Framework } from '../../../../src/engine/framework/runtime';
import { Code, errorStatus, SUCCESS, unschedulable, type Status } from '../../../../src/engine/framework/status';
import { DEFAULT_PROFILE } from '../../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../../src/engine/plugins/registry';
import { Scheduler } from '../../../../src/engine/scheduler/scheduler';
import { makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../../builders';
import { frameworkOf } from '../fakes';

const LOW = makePod('low-priority').priority(0);
const HIGH = makePod('high-priority').priority(1000);

/** A PreFilter plugin whose AddPod extension answers `addPod`. */
const preFilterAnswering = (addPod: Status): PreFilterPlugin => ({
  name: 'TestPlugin1',
  preFilter: () => ({ status: SUCCESS }),
  addPod: () => addPod,
});
/** A Filter plugin answering `status`. */
const filterAnswering = (status: Status): FilterPlugin => ({ name: 'TestPlugin2', filter: () => status });

describe('engine/framework/preemption/nominated', () => {
  // pkg/scheduler/framework/runtime/framework_test.go, TestFilterPluginsWithNominatedPods
  describe('upstream TestFilterPluginsWithNominatedPods', () => {
    const table: Array<
      [
        name: string,
        preFilter: PreFilterPlugin | undefined,
        filter: FilterPlugin | undefined,
        pod: PodBuilder,
        nominated: PodBuilder | undefined,
        want: Partial<Status>,
      ]
    > = [
      ['node has no nominated pod', undefined, undefined, LOW, undefined, { code: Code.Success }],
      [
        'node has a high-priority nominated pod and all filters succeed',
        preFilterAnswering(SUCCESS),
        filterAnswering(SUCCESS),
        LOW,
        HIGH,
        { code: Code.Success },
      ],
      [
        'node has a high-priority nominated pod and pre filters fail',
        preFilterAnswering(errorStatus('injected status')),
        undefined,
        LOW,
        HIGH,
        { code: Code.Error, reasons: ['running AddPod on PreFilter plugin "TestPlugin1": injected status'], plugin: 'TestPlugin1' },
      ],
      [
        'node has a high-priority nominated pod and filters fail',
        preFilterAnswering(SUCCESS),
        filterAnswering(errorStatus('injected filter status')),
        LOW,
        HIGH,
        { code: Code.Error, reasons: ['injected filter status'], plugin: 'TestPlugin2' },
      ],
      // The low-priority nominated pod is not added: its AddPod is never asked.
      [
        'node has a low-priority nominated pod and pre filters return unschedulable',
        preFilterAnswering(unschedulable('injected')),
        filterAnswering(SUCCESS),
        HIGH,
        LOW,
        { code: Code.Success },
      ],
    ];
    for (const [name, preFilter, filter, pod, nominatedPod, want] of table) {
      it(name, () => {
        const framework = frameworkOf([preFilter, filter].filter((p) => p !== undefined));
        const node = snapshotOf([makeNode('node1')]).list()[0];
        assert.ok(node);
        const nominated = new NominatedPods();
        if (nominatedPod) nominated.nominate(nominatedPod.info, 'node1');
        const got = filterWithNominatedPods(framework, new CycleState(), pod.info, node, nominated);
        assert.deepEqual(
          { code: got.code, ...(want.reasons ? { reasons: got.reasons } : {}), ...(want.plugin ? { plugin: got.plugin } : {}) },
          want,
        );
      });
    }
  });

  describe('in a cycle of the default profile', () => {
    function cycle(pod: PodBuilder, nodes: NodeBuilder[], nominations: Array<[PodBuilder, string]>) {
      const registry = inTreeRegistry();
      assert.ok(registry.ok);
      const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
      assert.ok(framework.ok);
      const nominated = new NominatedPods();
      for (const [p, node] of nominations) nominated.nominate(p.info, node);
      const state = new CycleState();
      state.write(NOMINATED_PODS, nominated);
      const result = framework.value.scheduleOne(state, pod.info, snapshotOf(nodes));
      return result.ok ? result.suggestedHost : result.diagnosis.message;
    }
    const node = () => makeNode('n1').alloc({ cpu: '2', memory: '8Gi', pods: '110' });
    const waiting = (priority: number) => makePod('preemptor', 'other').req({ cpu: '2' }).priority(priority);
    const table: Array<
      [name: string, pod: PodBuilder, nodes: NodeBuilder[], nominations: Array<[PodBuilder, string]>, want: string | undefined]
    > = [
      [
        'a pod of lower priority does not take the room held by a nominated pod',
        makePod('p').req({ cpu: '1' }).priority(50),
        [node()],
        [[waiting(100), 'n1']],
        '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
      ],
      [
        'nor one of equal priority (priority ≥ the pod’s counts)',
        makePod('p').req({ cpu: '1' }).priority(100),
        [node()],
        [[waiting(100), 'n1']],
        '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
      ],
      ['a pod of higher priority is not held back', makePod('p').req({ cpu: '1' }).priority(200), [node()], [[waiting(100), 'n1']], 'n1'],
      ['the pod’s own nomination does not count against it', waiting(100), [node()], [[waiting(100), 'n1']], 'n1'],
      [
        'a nomination to another node leaves this one alone',
        makePod('p').req({ cpu: '1' }).priority(50),
        [node(), makeNode('n2').alloc({ cpu: '2', memory: '8Gi', pods: '110' })],
        [[waiting(100), 'n2']],
        'n1',
      ],
      [
        'both passes: a pod whose required affinity only a nominated pod satisfies does not fit (the pass without nominated pods fails)',
        makePod('p')
          .priority(50)
          .requirePods('podAffinity', { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: 'kubernetes.io/hostname' }),
        [makeNode('n1').labels({ 'kubernetes.io/hostname': 'n1' }), makeNode('n2').labels({ 'kubernetes.io/hostname': 'n2' })],
        [[makePod('db', 'default').labels({ app: 'db' }).priority(100), 'n1']],
        undefined,
      ],
    ];
    for (const [name, pod, nodes, nominations, want] of table) {
      it(name, () => {
        const got = cycle(pod, nodes, nominations);
        if (want === undefined) assert.match(got ?? '', /^0\/2 nodes are available: 2 node\(s\) didn't match pod affinity rules\./);
        else assert.equal(got, want);
      });
    }
  });

  it('the scheduler nominates a pod from its status.nominatedNodeName and forgets it once bound', async () => {
    const registry = inTreeRegistry();
    assert.ok(registry.ok);
    const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
    assert.ok(framework.ok);
    const clock = new ManualClock(0);
    const scheduler = new Scheduler({ framework: framework.value, cache: new ClusterCache({ clock, assumedPodTtlMs: 30_000 }), clock });
    scheduler.onNodeAdd(makeNode('n1').alloc({ cpu: '2', memory: '8Gi', pods: '110' }).obj);
    const nominatedPod = makePod('preemptor').req({ cpu: '2' }).priority(100).obj;
    // The preemptor is nominated (by an earlier scheduler run) but waits behind a pod that is queued first.
    scheduler.onPodAdd({ ...nominatedPod, status: { nominatedNodeName: 'n1' } });
    assert.equal(scheduler.nominated.nodeOfPod('uid-default-preemptor'), 'n1');
    scheduler.onPodAdd(makePod('small').req({ cpu: '1' }).priority(10).obj);
    await scheduler.runUntilIdle(clock);
    assert.equal(scheduler.outcomes.get('default/preemptor')?.node, 'n1');
    assert.equal(scheduler.outcomes.get('default/small')?.node, undefined);
    assert.equal(scheduler.nominated.size, 0);
  });
});
