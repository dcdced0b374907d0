import assert from 'node:assert/strict';
import { NodeInfo } from '../../../src/engine/framework/node-info';
import { Snapshot } from '../../../src/engine/framework/snapshot';
import { makeNode, makePod, nodeInfoOf } from '../../builders';

const names = (infos: readonly NodeInfo[]): string[] => infos.map((n) => n.name);

describe('engine/framework/snapshot', () => {
  it('fromCluster counts the pods bound to each node and leaves out the rest', () => {
    const s = Snapshot.fromCluster({
      nodes: [makeNode('n1').obj, makeNode('n2').obj],
      pods: [makePod('a').node('n1').obj, makePod('b').obj, makePod('c').node('gone').obj],
    });
    assert.ok(s.ok, 'snapshot builds');
    assert.deepEqual(
      s.value.list().map((n) => [n.name, n.pods.length]),
      [
        ['n1', 1],
        ['n2', 0],
      ],
    );
  });

  describe('update copies only what changed since the last update', () => {
    const sources = () => [nodeInfoOf(makeNode('n1')), nodeInfoOf(makeNode('n2')), nodeInfoOf(makeNode('n3'))];

    it('the first update copies everything; the copies are not the sources', () => {
      const current = sources();
      const s = new Snapshot([]);
      assert.equal(s.update(current), 3);
      assert.deepEqual(names(s.list()), ['n1', 'n2', 'n3']);
      assert.ok(
        s.list().every((copy, i) => copy !== current[i]),
        'copies',
      );
    });

    const table: Array<[what: string, change: (current: NodeInfo[], s: Snapshot) => NodeInfo[], copied: number, listed: string[]]> = [
      ['nothing changed', (current) => current, 0, ['n1', 'n2', 'n3']],
      ['a pod added on a source', (current) => (current[1]?.addPod(makePod('a').info), current), 1, ['n1', 'n2', 'n3']],
      [
        'a source replaced by another object (node updated)',
        (current) => current.map((n) => (n.name === 'n3' ? n.withNode(makeNode('n3').labels({ x: 'y' }).obj) : n)),
        1,
        ['n1', 'n2', 'n3'],
      ],
      [
        'a new object with the same name and generation (removed and added again)',
        (current) => current.map((n) => (n.name === 'n1' ? new NodeInfo(n.node) : n)),
        1,
        ['n1', 'n2', 'n3'],
      ],
      [
        'a copy changed on the snapshot (what-if)',
        (current, s) => (s.get('n2')?.addPod(makePod('a').info), current),
        1,
        ['n1', 'n2', 'n3'],
      ],
      ['a node removed', (current) => current.filter((n) => n.name !== 'n2'), 0, ['n1', 'n3']],
      ['a node added', (current) => [...current, nodeInfoOf(makeNode('n4'))], 1, ['n1', 'n2', 'n3', 'n4']],
      ['the order changed', (current) => [...current].reverse(), 0, ['n3', 'n2', 'n1']],
    ];
    for (const [what, change, copied, listed] of table) {
      it(what, () => {
        const current = sources();
        const s = new Snapshot([]);
        s.update(current);
        const handedOut = s.list();
        const next = change(current, s);
        assert.equal(s.update(next), copied);
        assert.equal(s.update(next), 0, 'an update right after copies nothing');
        assert.deepEqual(names(s.list()), listed);
        // The snapshot now mirrors the sources, and finds by name only what they hold.
        for (const source of next) assert.equal(s.get(source.name)?.pods.length, source.pods.length, source.name);
        for (const name of ['n1', 'n2', 'n3', 'n4']) assert.equal(s.get(name) !== undefined, listed.includes(name), name);
        // A list handed out before the update is left as it was.
        assert.deepEqual(names(handedOut), ['n1', 'n2', 'n3']);
      });
    }

    it('a copy whose node is the same object is refreshed in place; a node updated gets a new copy', () => {
      const current = sources();
      const s = new Snapshot([]);
      s.update(current);
      const [n1, n2] = [s.get('n1'), s.get('n2')];
      current[0]?.addPod(makePod('a').hostPort(8080).info);
      const next = [
        current[0] as NodeInfo,
        (current[1] as NodeInfo).withNode(makeNode('n2').labels({ x: 'y' }).obj),
        current[2] as NodeInfo,
      ];
      assert.equal(s.update(next), 2);
      assert.equal(s.get('n1'), n1, 'n1: the same object');
      assert.deepEqual(
        [n1?.pods, n1?.requested, n1?.usedPorts.size, n1?.generation],
        [next[0]?.pods, next[0]?.requested, 1, next[0]?.generation],
      );
      assert.notEqual(n1?.pods, next[0]?.pods, 'its own pod list');
      assert.notEqual(s.get('n2'), n2, 'n2: a new copy');
    });

    it('told which sources changed, it looks only at those and at its own copies changed since', () => {
      const current = sources();
      const s = new Snapshot([]);
      s.update(current);
      current[0]?.addPod(makePod('a').info);
      current[1]?.addPod(makePod('b').info);
      s.get('n3')?.addPod(makePod('what-if').info);
      assert.equal(s.update(current, [current[1] as NodeInfo]), 2, 'n2 (told) and n3 (what-if) copied');
      assert.deepEqual(
        s.list().map((n) => n.pods.length),
        [0, 1, 0],
        'n1 changed untold: left as it was',
      );
      assert.equal(
        s.update([...current], [current[1] as NodeInfo]),
        1,
        'another list than the last update: every node compared, n1 copied',
      );
      current[2]?.addPod(makePod('c').info);
      assert.equal(s.update(current, [nodeInfoOf(makeNode('n3'))]), 1, 'a changed source not in the list: every node compared');
    });

    it('derived lists follow the update', () => {
      const anti = makePod('anti').requirePods('podAntiAffinity', { labelSelector: {}, topologyKey: 'kubernetes.io/hostname' });
      const current = [nodeInfoOf(makeNode('n1').image(['nginx:1'], 100)), nodeInfoOf(makeNode('n2'))];
      const s = new Snapshot([]);
      s.update(current);
      assert.deepEqual([names(s.havePodsWithAffinity()), s.imageNumNodes('nginx:1')], [[], 1]);
      current[1]?.addPod(anti.info);
      const n2 = current[1]?.withNode(makeNode('n2').image(['nginx:1'], 100).obj);
      s.update([current[0] as NodeInfo, n2 as NodeInfo]);
      assert.deepEqual(
        [names(s.havePodsWithAffinity()), names(s.havePodsWithRequiredAntiAffinity()), s.imageNumNodes('nginx:1')],
        [['n2'], ['n2'], 2],
      );
    });

    it('derived lists are kept while the nodes copied have no affinity pods before or after, and follow those that do', () => {
      const anti = makePod('anti').requirePods('podAntiAffinity', { labelSelector: {}, topologyKey: 'kubernetes.io/hostname' });
      const current = [nodeInfoOf(makeNode('n1')), nodeInfoOf(makeNode('n2'))];
      current[1]?.addPod(anti.info);
      const s = new Snapshot([]);
      s.update(current);
      const before = s.havePodsWithAffinity();
      current[0]?.addPod(makePod('plain').info);
      s.update(current);
      assert.equal(s.havePodsWithAffinity(), before, 'n1 copied, with no affinity pod before or after: the same list');
      current[1]?.addPod(makePod('plain-2').info);
      s.update(current);
      assert.deepEqual(
        [names(s.havePodsWithAffinity()), s.havePodsWithAffinity()[0]],
        [['n2'], s.get('n2')],
        'n2 copied: the list holds its current copy',
      );
      current[1]?.removePod(anti.info.id);
      s.update(current);
      assert.deepEqual(
        [names(s.havePodsWithAffinity()), names(s.havePodsWithRequiredAntiAffinity())],
        [[], []],
        'its affinity pod gone: n2 leaves the lists',
      );
    });
  });

  describe('changedSince tells the positions changed after a mark', () => {
    const setup = () => {
      const current = [nodeInfoOf(makeNode('n1')), nodeInfoOf(makeNode('n2')), nodeInfoOf(makeNode('n3'))];
      const s = new Snapshot([]);
      s.update(current);
      return { current, s, mark: s.changeMark() };
    };
    const table: Array<[what: string, change: (current: NodeInfo[], s: Snapshot) => void, changed: number[] | undefined]> = [
      ['nothing', () => undefined, []],
      ['a source copied again', (current, s) => (current[2]?.addPod(makePod('a').info), s.update(current)), [2]],
      [
        'a copy changed in place (what-if), twice',
        (_, s) => (s.get('n2')?.addPod(makePod('a').info), s.get('n2')?.addPod(makePod('b').info)),
        [1, 1],
      ],
      ['the list rebuilt: cannot tell', (current, s) => s.update([...current].reverse()), undefined],
      ['invalidated: cannot tell', (_, s) => s.invalidate(), undefined],
    ];
    for (const [what, change, changed] of table) {
      it(what, () => {
        const { current, s, mark } = setup();
        change(current, s);
        assert.deepEqual(s.changedSince(mark), changed);
        assert.deepEqual(s.changedSince(s.changeMark()), [], 'nothing after the latest mark');
      });
    }

    it('a NodeInfo another snapshot watches makes the changes untold', () => {
      const shared = [nodeInfoOf(makeNode('n1'))];
      const first = new Snapshot(shared);
      const second = new Snapshot(shared);
      const [a, b] = [first.changeMark(), second.changeMark()];
      shared[0]?.addPod(makePod('a').info);
      assert.deepEqual([first.changedSince(a), second.changedSince(b)], [[0], undefined]);
    });
  });
});
