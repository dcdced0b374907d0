import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import { seededRandom } from '../../../src/engine/api/random';
import { ok, type Result } from '../../../src/engine/api/result';
import type { Pod } from '../../../src/engine/api/types';
import { ClusterCache } from '../../../src/engine/cache/cache';
import type { Binder } from '../../../src/engine/framework/binder';
import { Registry } from '../../../src/engine/framework/registry';
import { Framework } from '../../../src/engine/framework/runtime';
import { errorStatus, SUCCESS } from '../../../src/engine/framework/status';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { IN_TREE_PLUGINS, inTreeRegistry } from '../../../src/engine/plugins/registry';
import { Scheduler } from '../../../src/engine/scheduler/scheduler';
import { makeNode, makePod, type NodeBuilder, type PodBuilder } from '../../builders';

/** A binder that refuses the nodes in `refuse` and records what it bound. */
function recordingBinder(refuse: readonly string[] = []): Binder & { bound: Array<[string, string]> } {
  const bound: Array<[string, string]> = [];
  return {
    bound,
    bind: async (pod: Pod, node: string) => {
      if (refuse.includes(node)) return errorStatus(`node ${node} refused the binding`);
      bound.push([pod.metadata.name, node]);
      return SUCCESS;
    },
  };
}

function setup(nodes: NodeBuilder[], pods: PodBuilder[], binder: Binder = recordingBinder(), registry = inTreeRegistry()) {
  assert.ok(registry.ok, 'registry builds');
  const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1), binder });
  assert.ok(framework.ok, 'default profile builds');
  const clock = new ManualClock(0);
  const cache = new ClusterCache({ clock, assumedPodTtlMs: 30_000 });
  const scheduler = new Scheduler({ framework: framework.value, cache, clock });
  for (const n of nodes) scheduler.onNodeAdd(n.obj);
  for (const p of pods) scheduler.onPodAdd(p.obj);
  return { scheduler, cache, clock };
}

const placements = (s: Scheduler) => Object.fromEntries([...s.outcomes].map(([pod, o]) => [pod, o.node ?? null]));

/** The in-tree plugins with their filterKey and scoreKey hidden: nothing is remembered across cycles. */
function unremembered(): Result<Registry> {
  const registry = new Registry();
  for (const { NAME, factory } of IN_TREE_PLUGINS) {
    registry.register(NAME, (args, handle) => {
      const built = factory(args, handle);
      const hidden = new Set<PropertyKey>(['filterKey', 'scoreKey']);
      return built.ok
        ? ok(new Proxy(built.value, { get: (plugin, key) => (hidden.has(key) ? undefined : Reflect.get(plugin, key, plugin)) }))
        : built;
    });
  }
  return ok(registry);
}

describe('engine/scheduler/scheduler', () => {
  it('places a pod on the least allocated node, and the next one around it', async () => {
    const busy = makePod('busy').req({ cpu: '3', memory: '1Gi' }).node('n1');
    const { scheduler, clock } = setup(
      [makeNode('n1'), makeNode('n2')],
      [busy, makePod('a').req({ cpu: '1' }), makePod('b').req({ cpu: '1' })],
    );
    await scheduler.runUntilIdle(clock);
    assert.deepEqual(placements(scheduler), { 'default/a': 'n2', 'default/b': 'n2' });
  });

  it('schedules by priority: the important pod takes the only room', async () => {
    const { scheduler, clock } = setup(
      [makeNode('n1').alloc({ cpu: '1', memory: '4Gi', pods: '10' })],
      [makePod('low').req({ cpu: '1' }).priority(1), makePod('high').req({ cpu: '1' }).priority(100)],
    );
    await scheduler.runUntilIdle(clock);
    assert.equal(scheduler.outcomes.get('default/high')?.node, 'n1');
    assert.equal(scheduler.outcomes.get('default/low')?.node, undefined);
    // The high-priority pod holds the room; the low one cannot preempt it.
    assert.equal(
      scheduler.outcomes.get('default/low')?.diagnosis.message,
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
  });

  it('keeps an unschedulable pod until a node that helps arrives, then places it', async () => {
    const { scheduler, clock } = setup(
      [makeNode('small').alloc({ cpu: '1', memory: '1Gi', pods: '10' })],
      [makePod('big').req({ cpu: '8' })],
    );
    await scheduler.runUntilIdle(clock);
    assert.equal(scheduler.queue.whereIs('uid-default-big'), 'unschedulable');
    scheduler.onNodeAdd(makeNode('large').alloc({ cpu: '16', memory: '64Gi', pods: '110' }).obj);
    await scheduler.runUntilIdle(clock);
    assert.equal(scheduler.outcomes.get('default/big')?.node, 'large');
  });

  // upstream SchedulerPopFromBackoffQ: a pod moved to backoffQ by an event is tried again as soon
  // as activeQ is empty, its back-off running or not; a pod in activeQ goes first.
  describe('retries a rejected pod moved to backoffQ without waiting out its back-off when nothing else is ready', () => {
    const table: Array<[name: string, busy: boolean, order: string[]]> = [
      ['activeQ empty: retried at once', false, ['default/big', 'default/big']],
      ['activeQ busy: the waiting pod first, then the one backing off', true, ['default/big', 'default/other', 'default/big']],
    ];
    for (const [name, busy, order] of table) {
      it(name, async () => {
        const { scheduler, clock } = setup(
          [makeNode('small').alloc({ cpu: '1', memory: '1Gi', pods: '10' })],
          [makePod('big').req({ cpu: '8' })],
        );
        const cycles: string[] = [];
        await scheduler.runUntilIdle(clock, { onCycle: (o) => cycles.push(o.pod) });
        assert.equal(scheduler.queue.whereIs('uid-default-big'), 'unschedulable');
        if (busy) scheduler.onPodAdd(makePod('other').req({ cpu: '100m' }).obj);
        scheduler.onNodeAdd(makeNode('large').alloc({ cpu: '16', memory: '64Gi', pods: '110' }).obj);
        assert.equal(scheduler.queue.whereIs('uid-default-big'), 'backoff', 'its 1 s back-off still runs');
        await scheduler.runUntilIdle(clock, { onCycle: (o) => cycles.push(o.pod) });
        assert.deepEqual(cycles, order);
        assert.equal(scheduler.outcomes.get('default/big')?.node, 'large');
        assert.equal(clock.now(), 0, 'the simulated clock never moved');
      });
    }
  });

  // upstream: an update that binds a pod reaches the assigned-pod handlers as an add (client-go's
  // filtering handler), AssignedPodAdd, which NodeResourcesFit does not register for (it frees no
  // room); an update of a pod already bound is split into its parts (PodSchedulingPropertiesChange):
  // AssignedPod/UpdatePodScaleDown frees room, and NodeResourcesFit's hint queues the pod when the
  // bound pod asks for less of what it asks for; AssignedPod/UpdatePodLabel is not registered.
  describe('a pod rejected for room is moved by a bound pod scaled down, not by the update that binds one nor a label change', () => {
    const table: Array<[name: string, alreadyBound: boolean, updated: PodBuilder, where: string]> = [
      [
        'another pod seen bound by its update: an add, the pod stays unschedulable',
        false,
        makePod('other').req({ cpu: '100m' }),
        'unschedulable',
      ],
      [
        "a bound pod's labels changed: the pod stays",
        true,
        makePod('other').req({ cpu: '100m' }).labels({ seen: 'again' }),
        'unschedulable',
      ],
      ['a bound pod scaled down: the pod is moved', true, makePod('other').req({ cpu: '50m' }), 'backoff'],
      [
        'a bound pod scaled down in memory, which the pod does not ask for: the pod stays',
        true,
        makePod('other').req({ cpu: '100m', memory: '1Mi' }),
        'unschedulable',
      ],
    ];
    for (const [name, alreadyBound, updated, where] of table) {
      it(name, async () => {
        const other = makePod('other').req({ cpu: '100m', memory: '2Mi' });
        const { scheduler, clock } = setup(
          [makeNode('small').alloc({ cpu: '1', memory: '1Gi', pods: '10' })],
          [makePod('big').req({ cpu: '8' })],
        );
        if (alreadyBound) scheduler.onPodAdd(other.node('small').obj);
        await scheduler.runUntilIdle(clock);
        assert.equal(scheduler.queue.whereIs('uid-default-big'), 'unschedulable');
        scheduler.onPodUpdate(updated.node('small').obj);
        assert.equal(scheduler.queue.whereIs('uid-default-big'), where);
      });
    }
  });

  // upstream updatePodInSchedulingQueue: a pending pod whose nominated node changed frees the room it
  // held there for pods of lower or equal priority (AssignedPodDelete of its old version, with
  // getLEPriorityPreCheck): NodeResourcesFit's hint queues them.
  describe('a pod rejected for room is moved when a pod nominated to a node loses its nomination, if it is not of higher priority', () => {
    const table: Array<[name: string, nominatedPriority: number, where: string]> = [
      ['the nominated pod has higher priority: moved', 10, 'backoff'],
      ['the nominated pod has the same priority: moved', 0, 'backoff'],
      ['the nominated pod has lower priority: stays', -1, 'unschedulable'],
    ];
    for (const [name, nominatedPriority, where] of table) {
      it(name, async () => {
        const nominated = () => makePod('q').req({ cpu: '8' }).priority(nominatedPriority);
        const { scheduler, clock } = setup(
          [makeNode('small').alloc({ cpu: '1', memory: '1Gi', pods: '10' })],
          [makePod('big').req({ cpu: '2' }), nominated().nominatedTo('small')],
        );
        await scheduler.runUntilIdle(clock);
        assert.deepEqual(
          [scheduler.queue.whereIs('uid-default-big'), scheduler.queue.whereIs('uid-default-q')],
          ['unschedulable', 'unschedulable'],
        );
        scheduler.onPodUpdate(nominated().obj);
        assert.equal(scheduler.queue.whereIs('uid-default-big'), where);
      });
    }
  });

  // upstream nominator.UpdateNominatedPod: a pending pod's nomination follows its status; one the
  // update clears is removed, unless neither version names a node (the nomination preemption made
  // in memory, not yet written, is kept).
  describe("a pending pod's nomination follows its status.nominatedNodeName", () => {
    const table: Array<{ name: string; before?: string; inMemory?: string; after?: string; node: string | undefined }> = [
      { name: 'cleared: no longer nominated', before: 'n1', node: undefined },
      { name: 'moved to another node: nominated there', before: 'n1', after: 'n2', node: 'n2' },
      { name: 'set: nominated', after: 'n1', node: 'n1' },
      { name: 'none before nor after: the nomination in memory is kept', inMemory: 'n1', node: 'n1' },
    ];
    for (const row of table) {
      it(row.name, () => {
        const pod = () => makePod('q').gate('wait');
        const { scheduler } = setup([makeNode('n1'), makeNode('n2')], [row.before ? pod().nominatedTo(row.before) : pod()]);
        if (row.inMemory) scheduler.nominated.nominate(pod().info, row.inMemory);
        scheduler.onPodUpdate((row.after ? pod().nominatedTo(row.after) : pod().labels({ touched: 'yes' })).obj);
        assert.equal(scheduler.nominated.nodeOfPod('uid-default-q'), row.node);
      });
    }
  });

  it('waits out the back-off of a pod that failed with an error (error back-off is not popped early)', async () => {
    const { scheduler, clock } = setup([makeNode('n1')], [makePod('p')], recordingBinder(['n1']));
    const at: number[] = [];
    await scheduler.runUntilIdle(clock, { maxAttempts: 3, onCycle: () => at.push(clock.now()) });
    // Errors 1 and 2 back off 1 s and 2 s, each to the end of the whole second it expires in.
    assert.deepEqual(at, [0, 2_000, 5_000]);
  });

  it('falls through to the next candidate when binding fails, keeping the cache in step', async () => {
    const binder = recordingBinder(['n1']);
    // n1 is the best node (emptiest), so it is tried first and refused.
    const { scheduler, cache, clock } = setup(
      [makeNode('n1'), makeNode('n2').alloc({ cpu: '2', memory: '8Gi', pods: '110' })],
      [makePod('p').req({ cpu: '1' })],
      binder,
    );
    await scheduler.runUntilIdle(clock);
    assert.deepEqual(binder.bound, [['p', 'n2']]);
    assert.equal(cache.getPod('uid-default-p')?.nodeName, 'n2');
    assert.equal(cache.getPod('uid-default-p')?.state, 'Added');
    const stages = scheduler.outcomes
      .get('default/p')
      ?.diagnosis.stages.filter((s) => s.stage === 'Bind')
      .map((s) => [s.node, s.status.code]);
    assert.deepEqual(stages, [
      ['n1', 'Error'],
      ['n2', 'Success'],
    ]);
  });

  // upstream handleBindingCycleError and handleSchedulingFailure: a binding that fails forgets the
  // assumed pod, which frees its room as its deletion would (AssignedPodDelete, not offered to the
  // pod itself); the pod is retried after its back-off unless it was deleted meanwhile (no longer
  // in the informer cache).
  describe('a failed binding: the forgotten pod wakes the pods its room may help; a pod deleted during its binding is not retried', () => {
    const table: Array<{ name: string; deleteDuringBinding: boolean; a: string | undefined; b: string }> = [
      {
        name: 'a binding refused: a retried after back-off, b (rejected for the room a held) moved',
        deleteDuringBinding: false,
        a: 'backoff',
        b: 'backoff',
      },
      { name: 'a deleted while its binding runs, then refused: a gone, b moved', deleteDuringBinding: true, a: undefined, b: 'backoff' },
    ];
    for (const row of table) {
      it(row.name, async () => {
        let answer: (status: ReturnType<typeof errorStatus>) => void = () => assert.fail('no binding asked');
        let asked: () => void = () => undefined;
        const bindingAsked = new Promise<void>((resolve) => (asked = resolve));
        const binder: Binder = {
          bind: () =>
            new Promise((resolve) => {
              answer = resolve;
              asked();
            }),
        };
        const a = makePod('a').req({ cpu: '1' }).priority(10);
        const { scheduler } = setup(
          [makeNode('n1').alloc({ cpu: '1', memory: '4Gi', pods: '10' })],
          [a, makePod('b').req({ cpu: '1' })],
          binder,
        );
        const binding = scheduler.scheduleNext();
        assert.equal((await scheduler.scheduleNext())?.node, undefined, 'b finds no room beside the assumed a');
        assert.equal(scheduler.queue.whereIs('uid-default-b'), 'unschedulable');
        await bindingAsked;
        if (row.deleteDuringBinding) scheduler.onPodDelete(a.obj);
        answer(errorStatus('the API server refused the binding'));
        assert.equal((await binding)?.node, undefined);
        assert.deepEqual([scheduler.queue.whereIs('uid-default-a'), scheduler.queue.whereIs('uid-default-b')], [row.a, row.b]);
        if (row.deleteDuringBinding) assert.deepEqual(scheduler.queue.failureCounts('uid-default-a'), { unschedulable: 0, errors: 0 });
      });
    }
  });

  it('gives a pod up after repeated binding failures and says why', async () => {
    const { scheduler, cache, clock } = setup([makeNode('n1')], [makePod('p')], recordingBinder(['n1']));
    await scheduler.runUntilIdle(clock, { maxAttempts: 3 });
    const outcome = scheduler.outcomes.get('default/p');
    assert.equal(outcome?.attempts, 3);
    assert.match(outcome?.diagnosis.message ?? '', /was not bound: n1 \(Bind DefaultBinder: node n1 refused the binding\)/);
    assert.equal(cache.getPod('uid-default-p'), undefined, 'the assumed pod was forgotten');
  });

  it('leaves pods of other schedulers and gated pods alone', async () => {
    const { scheduler, clock } = setup(
      [makeNode('n1')],
      [makePod('mine'), makePod('theirs').scheduler('podset-planner-scheduler'), makePod('gated').gate('wait')],
    );
    await scheduler.runUntilIdle(clock);
    assert.deepEqual(placements(scheduler), { 'default/mine': 'n1' });
    assert.equal(scheduler.queue.whereIs('uid-default-gated'), 'gated');
  });

  it('decides every pod as it would without remembering plugin verdicts and scores across cycles', async () => {
    const zones = ['a', 'b', 'c'];
    const nodes = Array.from({ length: 24 }, (_, i) => {
      const node = makeNode(`n${i}`)
        .alloc({ cpu: `${2 + (i % 3)}`, memory: '8Gi', pods: '8' })
        .labels({ zone: zones[i % 3] as string, disk: i % 4 === 0 ? 'ssd' : 'hdd' });
      if (i % 5 === 0) node.taint('dedicated', 'gpu');
      if (i % 7 === 0) node.taint('spot', 'true', 'PreferNoSchedule');
      if (i % 6 === 0) node.image(['nginx:1.27'], 300 * 1024 * 1024);
      if (i === 11) node.unschedulable();
      return node;
    });
    const shapes: Array<(p: PodBuilder) => PodBuilder> = [
      (p) => p.req({ cpu: '500m', memory: '1Gi' }),
      (p) => p.req({ cpu: '1', memory: '2Gi' }).tolerate({ key: 'dedicated', operator: 'Exists' }),
      (p) => p.req({ cpu: '250m' }).nodeSelector({ disk: 'ssd' }),
      (p) =>
        p
          .req({ cpu: '300m', memory: '512Mi' })
          .preferNode(10, { key: 'zone', operator: 'In', values: ['b'] })
          .image('nginx:1.27'),
      (p) => p.req({ cpu: '100m' }).hostPort(8080),
      (p) => p.req({ cpu: '100m' }).hostPort(9090).tolerate({ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }),
      (p) =>
        p
          .req({ cpu: '400m' })
          .preferNode(5, { key: 'disk', operator: 'In', values: ['ssd'] })
          .tolerate({ key: 'spot', operator: 'Exists' }),
      (p) =>
        p
          .req({ cpu: '200m' })
          .labels({ app: 'web' })
          .requirePods('podAntiAffinity', { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'zone' }),
      (p) => p.req({ cpu: '3' }).requireNode({ key: 'zone', operator: 'NotIn', values: ['c'] }),
    ];
    const pods = () =>
      Array.from({ length: 90 }, (_, i) => (shapes[(i * 5) % shapes.length] as (p: PodBuilder) => PodBuilder)(makePod(`p${i}`)));
    const decisions = async (registry: Result<Registry>) => {
      const { scheduler, clock } = setup(nodes, pods(), recordingBinder(), registry);
      await scheduler.runUntilIdle(clock);
      return [...scheduler.outcomes].map(([pod, o]) => [pod, o.node ?? o.diagnosis.message, o.diagnosis.scores]);
    };
    const remembered = await decisions(inTreeRegistry());
    assert.ok(
      remembered.some(([, node]) => typeof node === 'string' && node.startsWith('0/')),
      'some pods fit nowhere',
    );
    assert.deepEqual(remembered, await decisions(unremembered()));
  });

  it('reports a pod with a malformed request instead of queueing it', () => {
    const { scheduler } = setup([makeNode('n1')], [makePod('bad').req({ cpu: 'lots' })]);
    assert.deepEqual(scheduler.rejected, [
      {
        pod: 'default/bad',
        error:
          'pod default/bad: spec.containers[0].resources.requests.cpu: "lots" is not a quantity (examples: 100m, 0.5, 1Gi, 500Mi, 1e3)',
      },
    ]);
  });
});
