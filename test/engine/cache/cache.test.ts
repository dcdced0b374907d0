import assert from 'node:assert/strict';
import { ManualClock } from '../../../src/engine/api/clock';
import { ok, type Result } from '../../../src/engine/api/result';
import type { LabelSelector, Node, Pod } from '../../../src/engine/api/types';
import { ClusterCache, type CacheError, type CacheErrorCode } from '../../../src/engine/cache/cache';
import type { Snapshot } from '../../../src/engine/framework/snapshot';
import { makeNode, makePod, type PodBuilder } from '../../builders';

const Mi = 1024 * 1024;
const Gi = 1024 * Mi;
const GPU = 'nvidia.com/gpu';
const TTL = 30_000;
const ZONE = 'topology.kubernetes.io/zone';

// The pods the scenarios use, by token; a token not listed is a pod of that name asking for nothing.
// `web+` and `web!` are later versions of `web` (same uid): a bigger one and a malformed one.
const PODS: Readonly<Record<string, () => PodBuilder>> = {
  web: () => makePod('web').req({ cpu: '500m', memory: '1Gi' }).labels({ app: 'web' }),
  'web+': () => makePod('web').req({ cpu: '1', memory: '1Gi' }).hostPort(9090).labels({ app: 'web', version: '2' }),
  'web!': () => makePod('web').req({ cpu: 'lots' }),
  gpu: () =>
    makePod('gpu')
      .req({ cpu: '1', [GPU]: '1' })
      .hostPort(8080),
  api: () => makePod('api').labels({ app: 'api', tier: 'backend' }),
  db: () => makePod('db').labels({ app: 'db', tier: 'backend' }),
  aff: () => makePod('aff').requirePods('podAffinity', { labelSelector: { matchLabels: { app: 'db' } }, topologyKey: ZONE }),
  anti: () => makePod('anti').requirePods('podAntiAffinity', { labelSelector: { matchLabels: { app: 'web' } }, topologyKey: ZONE }),
  bad: () => makePod('bad').req({ cpu: 'lots' }),
};

function pod(token: string, nodeName?: string): Pod {
  const builder = (PODS[token] ?? (() => makePod(token)))();
  return (nodeName ? builder.node(nodeName) : builder).obj;
}

/** `k=v` tokens as node labels; `zone=a` is the topology zone label. */
function node(name: string, labels: readonly string[]): Node {
  const entries = labels.map((token) => {
    const [key = '', value = ''] = token.split('=');
    return [key === 'zone' ? ZONE : key, value] as const;
  });
  return makeNode(name).labels(Object.fromEntries(entries)).obj;
}

class World {
  readonly clock = new ManualClock(1_000_000);
  readonly cache: ClusterCache;

  constructor(ttl = TTL) {
    this.cache = new ClusterCache({ clock: this.clock, assumedPodTtlMs: ttl });
  }

  /**
   * One step: `addNode n1 [k=v..]`, `updateNode n1 [k=v..]`, `removeNode n1`, `assume <pod> [node]`,
   * `finish <pod>`, `forget <pod> [node]`, `add <pod> [node]`, `update <pod> [node]`, `remove <pod> [node]`,
   * `advance <ms>`, `cleanup`.
   */
  run(step: string): Result<unknown, CacheError> {
    const [verb, a = '', b, ...more] = step.split(' ');
    const labels = b === undefined ? [] : [b, ...more];
    switch (verb) {
      case 'addNode':
        return this.cache.addNode(node(a, labels));
      case 'updateNode':
        return this.cache.updateNode(node(a, labels));
      case 'removeNode':
        return this.cache.removeNode(a);
      case 'assume':
        return this.cache.assumePod(pod(a), b ?? '');
      case 'finish':
        return this.cache.finishBinding(pod(a));
      case 'forget':
        return this.cache.forgetPod(pod(a, b));
      case 'add':
        return this.cache.addPod(pod(a, b));
      case 'update':
        return this.cache.updatePod(pod(a, b));
      case 'remove':
        return this.cache.removePod(pod(a, b));
      case 'advance':
        this.clock.advance(Number(a));
        return ok(undefined);
      case 'cleanup':
        return ok(this.cache.cleanupExpiredAssumedPods());
      default:
        throw new Error(`unknown step "${step}"`);
    }
  }
}

function given(steps: readonly string[], ttl?: number): World {
  const world = new World(ttl);
  for (const step of steps) {
    const r = world.run(step);
    if (!r.ok) throw new Error(`${step}: ${r.error.message}`);
  }
  return world;
}

const nameOf = (key: string): string => key.slice(key.indexOf('/') + 1);

/** Pods as "<state> on <node>", nodes as "<state> <pods..>". */
function state(cache: ClusterCache): { pods: Record<string, string>; nodes: Record<string, string> } {
  const dump = cache.dump();
  return {
    pods: Object.fromEntries(dump.pods.map((p) => [nameOf(p.key), `${p.state} on ${p.nodeName}`])),
    nodes: Object.fromEntries(dump.nodes.map((n) => [n.name, [n.state, ...n.pods.map(nameOf)].join(' ')])),
  };
}

type Scenario = [what: string, steps: string[], pods: Record<string, string>, nodes: Record<string, string>, ttl?: number];

function scenarios(table: readonly Scenario[]): void {
  for (const [what, steps, pods, nodes, ttl] of table) {
    it(what, () => assert.deepEqual(state(given(steps, ttl).cache), { pods, nodes }));
  }
}

describe('engine/cache/cache', () => {
  describe('pod transitions', () => {
    scenarios([
      ['assume counts a pod on its node before it is bound', ['addNode n1', 'assume web n1'], { web: 'Assumed on n1' }, { n1: 'Live web' }],
      ['forget drops an assumed pod', ['addNode n1', 'assume web n1', 'forget web'], {}, { n1: 'Live' }],
      ['forget may name the node it was assumed on', ['addNode n1', 'assume web n1', 'forget web n1'], {}, { n1: 'Live' }],
      ['forget after binding finished', ['addNode n1', 'assume web n1', 'finish web', 'forget web'], {}, { n1: 'Live' }],
      [
        'a forgotten pod can be assumed again',
        ['addNode n1', 'addNode n2', 'assume web n1', 'forget web', 'assume web n2'],
        { web: 'Assumed on n2' },
        { n1: 'Live', n2: 'Live web' },
      ],
      [
        'add confirms an assumed pod',
        ['addNode n1', 'assume web n1', 'finish web', 'add web n1'],
        { web: 'Added on n1' },
        { n1: 'Live web' },
      ],
      [
        'add confirms an assumed pod whose binding is still in flight',
        ['addNode n1', 'assume web n1', 'add web n1'],
        { web: 'Added on n1' },
        { n1: 'Live web' },
      ],
      [
        'an assumed pod added on another node moves to the node it is bound to',
        ['addNode n1', 'addNode n2', 'assume web n1', 'add web n2'],
        { web: 'Added on n2' },
        { n1: 'Live', n2: 'Live web' },
      ],
      ['add without assume', ['addNode n1', 'add web n1'], { web: 'Added on n1' }, { n1: 'Live web' }],
      ['update replaces an added pod', ['addNode n1', 'add web n1', 'update web+ n1'], { web: 'Added on n1' }, { n1: 'Live web' }],
      ['remove an added pod', ['addNode n1', 'add web n1', 'remove web n1'], {}, { n1: 'Live' }],
      ['remove an assumed pod', ['addNode n1', 'assume web n1', 'remove web'], {}, { n1: 'Live' }],
      ['remove goes by the cached node, whatever the event says', ['addNode n1', 'add web n1', 'remove web'], {}, { n1: 'Live' }],
    ]);
  });

  describe('nodes, ghosts and placeholders', () => {
    scenarios([
      ['a pod bound to a node not seen yet waits on a placeholder', ['add web n9'], { web: 'Added on n9' }, { n9: 'Placeholder web' }],
      ['an assumed pod on an unseen node too', ['assume web n9'], { web: 'Assumed on n9' }, { n9: 'Placeholder web' }],
      ['the node arrives and keeps the pods', ['add web n9', 'addNode n9'], { web: 'Added on n9' }, { n9: 'Live web' }],
      ['a placeholder goes with its last pod', ['add web n9', 'add gpu n9', 'remove web', 'remove gpu'], {}, {}],
      [
        'a node removed while pods remain stays as a ghost',
        ['addNode n1', 'add web n1', 'removeNode n1'],
        { web: 'Added on n1' },
        { n1: 'Ghost web' },
      ],
      ['a ghost goes with its last pod', ['addNode n1', 'add web n1', 'removeNode n1', 'remove web n1'], {}, {}],
      [
        'a ghost added again is live, with its pods',
        ['addNode n1', 'add web n1', 'removeNode n1', 'addNode n1'],
        { web: 'Added on n1' },
        { n1: 'Live web' },
      ],
      ['a node removed without pods is gone', ['addNode n1', 'removeNode n1'], {}, {}],
      ['an updated node keeps its pods', ['addNode n1', 'add web n1', 'updateNode n1 zone=a'], { web: 'Added on n1' }, { n1: 'Live web' }],
    ]);

    it('an updated node offers its new allocatable', () => {
      const { cache } = given(['addNode n1']);
      assert.ok(cache.updateNode(makeNode('n1').alloc({ cpu: '16', [GPU]: '2' }).obj).ok, 'updateNode');
      assert.deepEqual(cache.nodeInfo('n1')?.allocatable.toRecord(), { cpu: 16000, [GPU]: 2 });
    });

    it('a node with a malformed allocatable is kept, offering nothing, with the reason', () => {
      const { cache } = given([]);
      assert.ok(cache.addNode(makeNode('n1').alloc({ cpu: 'four' }).obj).ok, 'addNode');
      assert.match(cache.dump().nodes[0]?.allocatableError ?? '', /status\.allocatable\.cpu: "four"/);
    });
  });

  describe('invalid transitions are errors that leave the cache as it was', () => {
    const table: Array<[what: string, setup: string[], step: string, code: CacheErrorCode, message: RegExp]> = [
      [
        'assume twice',
        ['assume web n1'],
        'assume web n1',
        'PodExists',
        /^pod default\/web is already assumed on node n1, so it can't be assumed again$/,
      ],
      [
        'assume a pod already added',
        ['add web n1'],
        'assume web n2',
        'PodExists',
        /^pod default\/web is already added on node n1, so it can't be assumed$/,
      ],
      ['assume without a node', [], 'assume web', 'InvalidPod', /^pod default\/web can't be assumed without a node name$/],
      [
        'assume a malformed pod',
        [],
        'assume bad n1',
        'InvalidPod',
        /^pod default\/bad: spec\.containers\[0\]\.resources\.requests\.cpu: "lots" is not a quantity/,
      ],
      ['add twice', ['add web n1'], 'add web n1', 'PodExists', /^pod default\/web was already added on node n1$/],
      [
        'add a pod not bound to a node',
        [],
        'add web',
        'InvalidPod',
        /^pod default\/web has no spec\.nodeName: only pods bound to a node are added to the cache$/,
      ],
      ['add a malformed pod', [], 'add bad n1', 'InvalidPod', /requests\.cpu: "lots"/],
      ['confirm an assumed pod with a malformed version', ['assume web n1'], 'add web! n1', 'InvalidPod', /requests\.cpu: "lots"/],
      [
        'forget a pod not in the cache',
        [],
        'forget web',
        'PodNotFound',
        /^pod default\/web is not in the cache, so it can't be forgotten$/,
      ],
      [
        'forget an added pod',
        ['add web n1'],
        'forget web',
        'PodNotAssumed',
        /^pod default\/web is added on node n1, not assumed, so it can't be forgotten$/,
      ],
      [
        'forget on another node than assumed',
        ['assume web n1'],
        'forget web n2',
        'NodeMismatch',
        /^pod default\/web was assumed on node n1, not n2/,
      ],
      [
        'finish binding of a pod not in the cache',
        [],
        'finish web',
        'PodNotFound',
        /^pod default\/web is not in the cache, so it can't finish binding for it$/,
      ],
      ['finish binding of a forgotten pod', ['assume web n1', 'forget web'], 'finish web', 'PodNotFound', /is not in the cache/],
      [
        'finish binding of an added pod',
        ['add web n1'],
        'finish web',
        'PodNotAssumed',
        /is added on node n1, not assumed, so it can't finish binding/,
      ],
      [
        'update a pod never added',
        [],
        'update web n1',
        'PodNotFound',
        /^pod default\/web was never added to the cache, so it can't be updated$/,
      ],
      [
        'update an assumed pod',
        ['assume web n1'],
        'update web n1',
        'PodAssumed',
        /^pod default\/web is assumed, not added: only its add event can change it$/,
      ],
      [
        'update a pod onto another node',
        ['add web n1'],
        'update web n2',
        'NodeMismatch',
        /^pod default\/web is on node n1 but the update puts it on n2; a bound pod never moves$/,
      ],
      ['update a pod to a malformed version', ['add web n1'], 'update web! n1', 'InvalidPod', /requests\.cpu: "lots"/],
      [
        'remove a pod not in the cache',
        [],
        'remove web n1',
        'PodNotFound',
        /^pod default\/web is not in the cache, so it can't be removed$/,
      ],
      ['remove twice', ['add web n1', 'remove web n1'], 'remove web n1', 'PodNotFound', /is not in the cache/],
      [
        'remove an expired pod',
        ['assume web n1', 'finish web', `advance ${TTL}`, 'cleanup'],
        'remove web n1',
        'PodNotFound',
        /is not in the cache/,
      ],
      ['add a node twice', ['addNode n1'], 'addNode n1', 'NodeExists', /^node n1 is already in the cache; changes to it are updates$/],
      ['update a node never added', [], 'updateNode n1', 'NodeNotFound', /^node n1 was never added, so it can't be updated$/],
      ['update a placeholder', ['add web n1'], 'updateNode n1', 'NodeNotFound', /^node n1 was never added/],
      [
        'update a removed node that is a ghost',
        ['addNode n1', 'add web n1', 'removeNode n1'],
        'updateNode n1',
        'NodeNotFound',
        /^node n1 was removed, so it can't be updated$/,
      ],
      ['remove a node never added', [], 'removeNode n1', 'NodeNotFound', /^node n1 was never added, so it can't be removed$/],
      ['remove a node twice', ['addNode n1', 'add web n1', 'removeNode n1'], 'removeNode n1', 'NodeNotFound', /^node n1 was removed/],
    ];
    for (const [what, setup, step, code, message] of table) {
      it(what, () => {
        const world = given(setup);
        const before = world.cache.dump();
        const r = world.run(step);
        assert.equal(r.ok, false);
        if (!r.ok) {
          assert.equal(r.error.code, code);
          assert.match(r.error.message, message);
        }
        assert.deepEqual(world.cache.dump(), before);
      });
    }
  });

  describe('assumed pods expire after the TTL unless an add confirms them', () => {
    scenarios([
      ['expires TTL after finishBinding', ['addNode n1', 'assume web n1', 'finish web', `advance ${TTL}`, 'cleanup'], {}, { n1: 'Live' }],
      [
        'not a moment before',
        ['addNode n1', 'assume web n1', 'finish web', `advance ${TTL - 1}`, 'cleanup'],
        { web: 'Assumed on n1' },
        { n1: 'Live web' },
      ],
      [
        'the TTL counts from finishBinding, not from assume',
        ['addNode n1', 'assume web n1', 'advance 20000', 'finish web', 'advance 20000', 'cleanup'],
        { web: 'Assumed on n1' },
        { n1: 'Live web' },
      ],
      [
        'finishing binding again restarts the countdown',
        ['addNode n1', 'assume web n1', 'finish web', 'advance 20000', 'finish web', 'advance 20000', 'cleanup'],
        { web: 'Assumed on n1' },
        { n1: 'Live web' },
      ],
      [
        'never while its binding is in flight',
        ['addNode n1', 'assume web n1', 'advance 99999999', 'cleanup'],
        { web: 'Assumed on n1' },
        { n1: 'Live web' },
      ],
      [
        'never with a TTL of 0',
        ['addNode n1', 'assume web n1', 'finish web', 'advance 99999999', 'cleanup'],
        { web: 'Assumed on n1' },
        { n1: 'Live web' },
        0,
      ],
      [
        'an add before the deadline confirms it for good',
        ['addNode n1', 'assume web n1', 'finish web', 'advance 10000', 'add web n1', `advance ${TTL}`, 'cleanup'],
        { web: 'Added on n1' },
        { n1: 'Live web' },
      ],
      [
        'an expired pod comes back when its add arrives late',
        ['addNode n1', 'assume web n1', 'finish web', `advance ${TTL}`, 'cleanup', 'add web n1'],
        { web: 'Added on n1' },
        { n1: 'Live web' },
      ],
      [
        'time alone expires nothing: the owner sweeps',
        ['addNode n1', 'assume web n1', 'finish web', `advance ${2 * TTL}`],
        { web: 'Assumed on n1' },
        { n1: 'Live web' },
      ],
      [
        'an expired pod on an unseen node takes its placeholder with it',
        ['assume web n9', 'finish web', `advance ${TTL}`, 'cleanup'],
        {},
        {},
      ],
    ]);

    it('the sweep returns the pods it expired, and only those', () => {
      const world = given(['addNode n1', 'assume web n1', 'assume gpu n1', 'add api n1', 'finish web', 'advance 1000', 'finish gpu']);
      assert.equal(world.cache.getPod('uid-default-web')?.expiresAt, 1_000_000 + TTL);
      world.clock.advance(TTL - 1000);
      assert.deepEqual(
        world.cache.cleanupExpiredAssumedPods().map((p) => p.metadata.name),
        ['web'],
      );
      world.clock.advance(1000);
      assert.deepEqual(
        world.cache.cleanupExpiredAssumedPods().map((p) => p.metadata.name),
        ['gpu'],
      );
      assert.deepEqual(world.cache.cleanupExpiredAssumedPods(), []);
      assert.deepEqual(state(world.cache).pods, { api: 'Added on n1' });
    });

    it('startExpiry sweeps on the injected clock until cancelled', () => {
      const world = given(['addNode n1', 'assume web n1', 'finish web', 'assume gpu n1']);
      const expired: string[][] = [];
      const timer = world.cache.startExpiry(1000, (pods) => expired.push(pods.map((p) => p.metadata.name)));
      world.clock.advance(TTL - 1);
      assert.deepEqual(expired, []);
      world.clock.advance(1000);
      assert.deepEqual(expired, [['web']]);
      timer.cancel();
      world.run('finish gpu');
      world.clock.advance(2 * TTL);
      assert.deepEqual(expired, [['web']]);
      assert.equal(world.clock.pendingTimers, 0);
    });

    it('startExpiry refuses a period that would spin', () => {
      assert.throws(() => new World().cache.startExpiry(0), RangeError);
    });
  });

  describe('NodeInfo totals follow the pods on the node', () => {
    interface Totals {
      requested: Record<string, number>;
      nonZero: Record<string, number>;
      hostPorts: number;
      affinity: string[];
      antiAffinity: string[];
    }
    const none: Totals = { requested: {}, nonZero: {}, hostPorts: 0, affinity: [], antiAffinity: [] };
    const table: Array<[what: string, steps: string[], totals: Partial<Totals>]> = [
      ['an empty node', ['addNode n1'], {}],
      [
        'added and assumed pods add up',
        ['addNode n1', 'add web n1', 'assume gpu n1'],
        { requested: { cpu: 1500, memory: Gi, [GPU]: 1 }, nonZero: { cpu: 1500, memory: Gi + 200 * Mi, [GPU]: 1 }, hostPorts: 1 },
      ],
      ['a pod asking for nothing counts only for scoring', ['addNode n1', 'add bare n1'], { nonZero: { cpu: 100, memory: 200 * Mi } }],
      [
        'an update replaces the old version',
        ['addNode n1', 'add web n1', 'update web+ n1'],
        { requested: { cpu: 1000, memory: Gi }, nonZero: { cpu: 1000, memory: Gi }, hostPorts: 1 },
      ],
      [
        'remove gives back requests and ports',
        ['addNode n1', 'add web n1', 'add gpu n1', 'remove gpu n1'],
        { requested: { cpu: 500, memory: Gi }, nonZero: { cpu: 500, memory: Gi } },
      ],
      ['forget gives back', ['addNode n1', 'assume gpu n1', 'forget gpu'], {}],
      ['expiry gives back', ['addNode n1', 'assume gpu n1', 'finish gpu', `advance ${TTL}`, 'cleanup'], {}],
      ['a pod confirmed on another node leaves the assumed one', ['addNode n1', 'addNode n2', 'assume gpu n1', 'add gpu n2'], {}],
      [
        'pods with affinity and required anti-affinity are listed',
        ['addNode n1', 'add aff n1', 'add anti n1', 'add bare n1'],
        { nonZero: { cpu: 300, memory: 600 * Mi }, affinity: ['aff', 'anti'], antiAffinity: ['anti'] },
      ],
      [
        'and leave the lists when removed',
        ['addNode n1', 'add aff n1', 'add anti n1', 'remove anti n1'],
        { nonZero: { cpu: 100, memory: 200 * Mi }, affinity: ['aff'] },
      ],
      [
        'a ghost keeps the totals of its pods',
        ['addNode n1', 'add web n1', 'removeNode n1'],
        { requested: { cpu: 500, memory: Gi }, nonZero: { cpu: 500, memory: Gi } },
      ],
      [
        'a node update keeps the totals',
        ['addNode n1', 'add web n1', 'add anti n1', 'updateNode n1 zone=a'],
        { requested: { cpu: 500, memory: Gi }, nonZero: { cpu: 600, memory: Gi + 200 * Mi }, affinity: ['anti'], antiAffinity: ['anti'] },
      ],
    ];
    for (const [what, steps, totals] of table) {
      it(what, () => {
        const info = given(steps).cache.nodeInfo('n1');
        assert.ok(info, 'no n1');
        const names = (list: readonly { pod: Pod }[]) => list.map((p) => p.pod.metadata.name);
        assert.deepEqual(
          {
            requested: info.requested.toRecord(),
            nonZero: info.nonZeroRequested.toRecord(),
            hostPorts: info.usedPorts.size,
            affinity: names(info.podsWithAffinity),
            antiAffinity: names(info.podsWithRequiredAntiAffinity),
          },
          { ...none, ...totals },
        );
      });
    }

    it('host ports in use are the ones pods on the node hold', () => {
      const info = given(['addNode n1', 'add gpu n1', 'add web+ n1']).cache.nodeInfo('n1');
      assert.equal(info?.usedPorts.conflicts(undefined, 'TCP', 8080), true);
      assert.equal(info?.usedPorts.conflicts(undefined, 'TCP', 9090), true);
      assert.equal(info?.usedPorts.conflicts(undefined, 'UDP', 8080), false);
    });

    describe('the generation of the node a change touches goes up, and no other', () => {
      const table: Array<[step: string, touches: string[]]> = [
        ['assume web n1', ['n1']],
        ['finish web', []],
        ['add web n1', ['n1']],
        ['update web+ n1', ['n1']],
        ['add gpu n2', ['n2']],
        ['remove web', ['n1']],
        ['updateNode n1 zone=a', ['n1']],
        ['add api n9', []],
      ];
      const world = given(['addNode n1', 'addNode n2']);
      for (const [step, touches] of table) {
        it(step, () => {
          const generation = (name: string) => world.cache.nodeInfo(name)?.generation ?? -1;
          const before = [generation('n1'), generation('n2')];
          assert.ok(world.run(step).ok, step);
          for (const [i, name] of ['n1', 'n2'].entries()) {
            if (touches.includes(name)) assert.ok(generation(name) > (before[i] ?? 0), `${name} should have changed`);
            else assert.equal(generation(name), before[i], `${name} should not have changed`);
          }
        });
      }
    });
  });

  describe('snapshots', () => {
    const listing = (s: Snapshot): string[] => s.list().map((n) => [n.name, ...n.pods.map((p) => p.pod.metadata.name)].join(' '));
    const detail = (s: Snapshot) =>
      s.list().map((n) => ({
        node: n.node,
        pods: n.pods.map((p) => p.pod),
        requested: n.requested.toRecord(),
        nonZero: n.nonZeroRequested.toRecord(),
        ports: n.usedPorts.size,
        affinity: n.podsWithAffinity.length,
        generation: n.generation,
      }));

    const table: Array<[what: string, before: string[], after: string[], old: string[], updated: string[], copied: number]> = [
      ['an assume after the snapshot is not in it until the next update', ['addNode n1'], ['assume web n1'], ['n1'], ['n1 web'], 1],
      ['nothing changed, nothing copied', ['addNode n1', 'add web n1'], [], ['n1 web'], ['n1 web'], 0],
      [
        'one change among many nodes copies one node',
        ['addNode n1', 'addNode n2', 'addNode n3'],
        ['add web n2'],
        ['n1', 'n2', 'n3'],
        ['n1', 'n2 web', 'n3'],
        1,
      ],
      ['finishing a binding changes nothing a cycle sees', ['addNode n1', 'assume web n1'], ['finish web'], ['n1 web'], ['n1 web'], 0],
      [
        'a confirmation that moves the pod copies both nodes',
        ['addNode n1', 'addNode n2', 'assume web n1'],
        ['add web n2'],
        ['n1 web', 'n2'],
        ['n1', 'n2 web'],
        2,
      ],
      ['an expiry', ['addNode n1', 'assume web n1', 'finish web'], [`advance ${TTL}`, 'cleanup'], ['n1 web'], ['n1'], 1],
      ['an added node', ['addNode n1'], ['addNode n2'], ['n1'], ['n1', 'n2'], 1],
      ['a removed node', ['addNode n1', 'addNode n2'], ['removeNode n1'], ['n1', 'n2'], ['n2'], 0],
      ['a node removed with pods leaves as a ghost', ['addNode n1', 'add web n1'], ['removeNode n1'], ['n1 web'], [], 0],
      ['a pod on a node not seen yet is not listed', [], ['add web n9'], [], [], 0],
      ['until its node arrives', ['add web n9'], ['addNode n9'], [], ['n9 web'], 1],
      ['an updated node is copied', ['addNode n1'], ['updateNode n1 gpu=true'], ['n1'], ['n1'], 1],
      ['a node removed and added again under its name is copied', ['addNode n1'], ['removeNode n1', 'addNode n1'], ['n1'], ['n1'], 1],
      [
        'nodes are listed round-robin across zones',
        [],
        ['addNode a1 zone=a', 'addNode a2 zone=a', 'addNode b1 zone=b'],
        [],
        ['a1', 'b1', 'a2'],
        3,
      ],
      [
        'a node that changes zone moves in the list',
        ['addNode a1 zone=a', 'addNode a2 zone=a', 'addNode b1 zone=b'],
        ['updateNode a1 zone=b'],
        ['a1', 'b1', 'a2'],
        ['a2', 'b1', 'a1'],
        1,
      ],
    ];
    for (const [what, before, after, old, updated, copied] of table) {
      it(what, () => {
        const world = given(before);
        const snapshot = world.cache.snapshot();
        for (const step of after) assert.ok(world.run(step).ok, step);
        assert.deepEqual(listing(snapshot), old);
        assert.equal(world.cache.updateSnapshot(snapshot), copied);
        assert.equal(world.cache.updateSnapshot(snapshot), 0, 'an update right after copies nothing');
        assert.deepEqual(listing(snapshot), updated);
        // The incrementally updated snapshot holds what a fresh one does.
        assert.deepEqual(detail(snapshot), detail(world.cache.snapshot()));
      });
    }

    it('finds nodes by name and lists those with affinity pods after an update', () => {
      const world = given(['addNode n1', 'addNode n2']);
      const snapshot = world.cache.snapshot();
      assert.deepEqual(snapshot.havePodsWithAffinity(), []);
      world.run('add anti n2');
      world.cache.updateSnapshot(snapshot);
      assert.deepEqual(
        snapshot.havePodsWithAffinity().map((n) => n.name),
        ['n2'],
      );
      assert.deepEqual(
        snapshot.havePodsWithRequiredAntiAffinity().map((n) => n.name),
        ['n2'],
      );
      assert.equal(snapshot.get('n2')?.pods.length, 1);
    });

    it('two snapshots of one cache are independent', () => {
      const world = given(['addNode n1']);
      const [a, b] = [world.cache.snapshot(), world.cache.snapshot()];
      world.run('add web n1');
      world.cache.updateSnapshot(a);
      assert.deepEqual([listing(a), listing(b)], [['n1 web'], ['n1']]);
    });

    it('a snapshot also updated from another list in between is compared node by node', () => {
      const world = given(['addNode n1', 'addNode n2']);
      const other = given(['addNode n1', 'addNode n2', 'add web n2']);
      const snapshot = world.cache.snapshot();
      other.cache.updateSnapshot(snapshot);
      assert.deepEqual(listing(snapshot), ['n1', 'n2 web']);
      world.run('add api n1');
      assert.equal(world.cache.updateSnapshot(snapshot), 2);
      assert.deepEqual(listing(snapshot), ['n1 api', 'n2']);
    });

    it('what-if changes made on a snapshot never reach the cache, and the next update undoes them', () => {
      const world = given(['addNode n1', 'addNode n2']);
      const snapshot = world.cache.snapshot();
      snapshot.get('n1')?.addPod(makePod('what-if').info);
      assert.deepEqual(state(world.cache).nodes, { n1: 'Live', n2: 'Live' });
      assert.equal(world.cache.updateSnapshot(snapshot), 1);
      assert.deepEqual(listing(snapshot), ['n1', 'n2']);
    });

    it('the cache never hands out its own NodeInfo', () => {
      const world = given(['addNode n1']);
      world.cache.nodeInfo('n1')?.addPod(makePod('what-if').info);
      assert.equal(world.cache.nodeInfo('n1')?.pods.length, 0);
    });
  });

  describe('listPods with a label selector', () => {
    const world = given(['addNode n1', 'add web n1', 'assume api n1', 'add db n9', 'add bare n1']);
    const table: Array<[text: string, selector: LabelSelector, pods: string[]]> = [
      ['', {}, ['web', 'api', 'db', 'bare']],
      ['app=web', { matchLabels: { app: 'web' } }, ['web']],
      ['tier=backend', { matchLabels: { tier: 'backend' } }, ['api', 'db']],
      ['app in (web,db)', { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'db'] }] }, ['web', 'db']],
      ['!tier', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, ['web', 'bare']],
      ['app!=web', { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }, ['api', 'db', 'bare']],
      ['app=nothing', { matchLabels: { app: 'nothing' } }, []],
    ];
    for (const [text, selector, pods] of table) {
      it(`"${text}" → ${pods.join(', ') || 'none'} (assumed pods and pods on placeholders included)`, () => {
        assert.deepEqual(
          world.cache.listPods(selector).map((p) => p.metadata.name),
          pods,
        );
      });
    }

    it('an assumed pod is listed as cached, with its node name set', () => {
      assert.equal(world.cache.listPods({ matchLabels: { app: 'api' } })[0]?.spec.nodeName, 'n1');
    });
  });

  it('dump shows everything the cache holds as plain data', () => {
    const world = given(['addNode n1', 'assume web n1', 'finish web', 'add gpu n9']);
    assert.deepEqual(world.cache.dump(), {
      nodes: [
        {
          name: 'n1',
          state: 'Live',
          generation: 1,
          pods: ['default/web'],
          allocatable: { cpu: 4000, memory: 32 * Gi, pods: 110 },
          requested: { cpu: 500, memory: Gi },
          nonZeroRequested: { cpu: 500, memory: Gi },
          hostPorts: 0,
        },
        {
          name: 'n9',
          state: 'Placeholder',
          generation: 1,
          pods: ['default/gpu'],
          allocatable: {},
          requested: { cpu: 1000, [GPU]: 1 },
          nonZeroRequested: { cpu: 1000, memory: 200 * Mi, [GPU]: 1 },
          hostPorts: 1,
        },
      ],
      pods: [
        { key: 'default/gpu', id: 'uid-default-gpu', nodeName: 'n9', state: 'Added', bindingFinished: false },
        { key: 'default/web', id: 'uid-default-web', nodeName: 'n1', state: 'Assumed', bindingFinished: true, expiresAt: 1_000_000 + TTL },
      ],
    });
  });
});
