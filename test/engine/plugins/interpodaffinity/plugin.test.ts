import assert from 'node:assert/strict';
import { argsErrorText } from '../../../../src/engine/api/field';
import { type Namespace, type PodAffinityTerm } from '../../../../src/engine/api/types';
import { type NodeInfo } from '../../../../src/engine/framework/node-info';
import type { QueueingHint } from '../../../../src/engine/framework/events';
import { Code } from '../../../../src/engine/framework/status';
import {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
} from '../../../../src/engine/plugins/interpodaffinity/filtering';
import { factory, validateArgs, type InterPodAffinity } from '../../../../src/engine/plugins/interpodaffinity/plugin';
import { handleOf, makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../../builders';
import { build, filterAll, runFilters, runScores } from '../harness';

const AFFINITY = `${Code.UnschedulableAndUnresolvable}: ${ERR_REASON_AFFINITY_RULES_NOT_MATCH}`;
const ANTI = `${Code.Unschedulable}: ${ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH}`;
const EXISTING = `${Code.Unschedulable}: ${ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH}`;

const HOSTNAME = 'kubernetes.io/hostname';
const ZONE = 'topology.kubernetes.io/zone';

/** n1, n2 in zone a; n3 in zone b; n4 without a zone label (every node has its hostname label). */
const nodes = (): NodeBuilder[] => [
  makeNode('n1').labels({ [ZONE]: 'a' }),
  makeNode('n2').labels({ [ZONE]: 'a' }),
  makeNode('n3').labels({ [ZONE]: 'b' }),
  makeNode('n4'),
];

const term = (app: string, topologyKey: string, extra: Partial<PodAffinityTerm> = {}): PodAffinityTerm => ({
  labelSelector: { matchLabels: { app } },
  topologyKey,
  ...extra,
});

const pod = (name: string, app: string, namespace?: string) => makePod(name, namespace).labels({ app });

/** Pallet's shape: pods of one set that must not share a node. */
const pallet = (name: string) => pod(name, 'pallet').requirePods('podAntiAffinity', term('pallet', HOSTNAME));

describe('engine/plugins/interpodaffinity/plugin (InterPodAffinity)', () => {
  describe('validates its args as upstream (hardPodAffinityWeight defaults to 1)', () => {
    const table: Array<[name: string, args: unknown, want: string]> = [
      ['no args', undefined, 'ok 1 false'],
      ['both set', { hardPodAffinityWeight: 100, ignorePreferredTermsOfExistingPods: true }, 'ok 100 true'],
      ['weight 0 turns existing pods’ required affinity out of scoring', { hardPodAffinityWeight: 0 }, 'ok 0 false'],
      ['weight above 100', { hardPodAffinityWeight: 101 }, 'hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]'],
      ['a negative weight', { hardPodAffinityWeight: -1 }, 'hardPodAffinityWeight: Invalid value: -1'],
      ['a fractional weight', { hardPodAffinityWeight: 1.5 }, 'hardPodAffinityWeight: Invalid value: 1.5'],
      [
        'a flag that is no boolean',
        { ignorePreferredTermsOfExistingPods: 'yes' },
        'ignorePreferredTermsOfExistingPods: Invalid value: "yes"',
      ],
      ['an unknown field', { hardPodAffinityWieght: 2 }, 'unknown field "hardPodAffinityWieght"'],
    ];
    for (const [name, args, want] of table) {
      it(name, () => {
        const result = validateArgs(args);
        if (want.startsWith('ok')) {
          assert.ok(result.ok, result.ok ? '' : argsErrorText(result.error));
          assert.equal(`ok ${result.value.hardPodAffinityWeight} ${result.value.ignorePreferredTermsOfExistingPods}`, want);
        } else {
          assert.ok(!result.ok);
          const text = argsErrorText(result.error);
          assert.ok(text.startsWith('InterPodAffinity: ') && text.includes(want), text);
        }
      });
    }
  });

  describe('Filter: the pod’s affinity, then its anti-affinity, then existing pods’ anti-affinity', () => {
    interface Row {
      name: string;
      pod: PodBuilder;
      pods: PodBuilder[];
      /** Namespace objects of the snapshot (their labels are what namespaceSelector matches). */
      namespaces?: Namespace[];
      want: Record<string, string>;
    }
    const ns = (name: string, labels: Record<string, string>): Namespace => ({ metadata: { name, labels } });
    const teams = [ns('other', { team: 'team1' }), ns('third', { team: 'team2' })];
    const table: Row[] = [
      {
        name: 'mutual anti-affinity on the hostname (Pallet’s shape): the second pod avoids the first one’s node',
        pod: pallet('pallet-1'),
        pods: [pallet('pallet-0').node('n1')],
        want: { n1: ANTI, n2: 'ok', n3: 'ok', n4: 'ok' },
      },
      {
        // guard's term matches the web pod: zone a is closed to it; n4 has no zone, so no domain to clash in
        name: 'an existing pod’s anti-affinity keeps a matching pod out of its whole zone',
        pod: pod('new', 'web'),
        pods: [pod('guard', 'guard').requirePods('podAntiAffinity', term('web', ZONE)).node('n1')],
        want: { n1: EXISTING, n2: EXISTING, n3: 'ok', n4: 'ok' },
      },
      {
        name: 'the pod’s own anti-affinity by zone: n4 without the key cannot clash',
        pod: pod('new', 'batch').requirePods('podAntiAffinity', term('web', ZONE)),
        pods: [pod('web-0', 'web').node('n1')],
        want: { n1: ANTI, n2: ANTI, n3: 'ok', n4: 'ok' },
      },
      {
        name: 'required affinity to a db pod’s zone; a node without the key is rejected',
        pod: pod('new', 'web').requirePods('podAffinity', term('db', ZONE)),
        pods: [pod('db-0', 'db').node('n3')],
        want: { n1: AFFINITY, n2: AFFINITY, n3: 'ok', n4: AFFINITY },
      },
      {
        // no cache pod anywhere and the pod matches its own term: any node with the topology key
        name: 'the first pod of a group with affinity to itself may go anywhere that has the key',
        pod: pod('cache-0', 'cache').requirePods('podAffinity', term('cache', ZONE)),
        pods: [],
        want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: AFFINITY },
      },
      {
        name: 'the first-pod exception needs the pod to match its own term',
        pod: pod('new', 'web').requirePods('podAffinity', term('cache', ZONE)),
        pods: [],
        want: { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY },
      },
      {
        // no single pod matches both terms, so there is no domain to join
        name: 'affinity terms must all be matched by one pod',
        pod: pod('new', 'web')
          .requirePods('podAffinity', term('db', ZONE))
          .requirePods('podAffinity', { labelSelector: { matchLabels: { tier: 'backend' } }, topologyKey: ZONE }),
        pods: [pod('db-0', 'db').labels({ tier: 'frontend' }).node('n1'), pod('api-0', 'api').labels({ tier: 'backend' }).node('n3')],
        want: { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY },
      },
      {
        name: 'a term without namespaces selects pods of the pod’s own namespace only',
        pod: pod('new', 'web').requirePods('podAffinity', term('db', ZONE)),
        pods: [pod('db-0', 'db', 'other').node('n3')],
        want: { n1: AFFINITY, n2: AFFINITY, n3: AFFINITY, n4: AFFINITY },
      },
      {
        name: 'namespaces name where to look',
        pod: pod('new', 'web').requirePods('podAffinity', term('db', ZONE, { namespaces: ['other'] })),
        pods: [pod('db-0', 'db', 'other').node('n3')],
        want: { n1: AFFINITY, n2: AFFINITY, n3: 'ok', n4: AFFINITY },
      },
      {
        name: 'an empty namespaceSelector selects every namespace',
        pod: pod('new', 'web').requirePods('podAffinity', term('db', ZONE, { namespaceSelector: {} })),
        pods: [pod('db-0', 'db', 'other').node('n3')],
        want: { n1: AFFINITY, n2: AFFINITY, n3: 'ok', n4: AFFINITY },
      },
      {
        name: 'a namespaceSelector matches the kubernetes.io/metadata.name label every namespace has',
        pod: pod('new', 'web').requirePods(
          'podAffinity',
          term('db', ZONE, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'other' } } }),
        ),
        pods: [pod('db-0', 'db', 'other').node('n3'), pod('db-1', 'db', 'third').node('n1')],
        want: { n1: AFFINITY, n2: AFFINITY, n3: 'ok', n4: AFFINITY },
      },
      // filtering_test.go, TestRequiredAffinitySingleNode / TestRequiredAffinityMultipleNodes rows with namespaceSelector
      {
        name: 'a namespaceSelector matches namespaces by their labels',
        pod: pod('new', 'web').requirePods('podAffinity', term('db', ZONE, { namespaceSelector: { matchLabels: { team: 'team1' } } })),
        pods: [pod('db-0', 'db', 'other').node('n3'), pod('db-1', 'db', 'third').node('n1')],
        namespaces: teams,
        want: { n1: AFFINITY, n2: AFFINITY, n3: 'ok', n4: AFFINITY },
      },
      {
        name: 'namespaces and namespaceSelector together: a pod in either counts',
        pod: pod('new', 'web').requirePods(
          'podAntiAffinity',
          term('db', ZONE, { namespaces: ['third'], namespaceSelector: { matchLabels: { team: 'team1' } } }),
        ),
        pods: [pod('db-0', 'db', 'other').node('n3'), pod('db-1', 'db', 'third').node('n1')],
        namespaces: teams,
        want: { n1: ANTI, n2: ANTI, n3: ANTI, n4: 'ok' },
      },
      {
        name: 'a selector on a label no namespace has matches nothing',
        pod: pod('new', 'web').requirePods('podAntiAffinity', term('db', ZONE, { namespaceSelector: { matchLabels: { team: 'team9' } } })),
        pods: [pod('db-0', 'db', 'other').node('n3')],
        namespaces: teams,
        want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'ok' },
      },
      {
        name: 'an existing pod’s anti-affinity namespaceSelector is matched against the incoming pod’s namespace labels',
        pod: pod('new', 'web', 'other'),
        pods: [
          pod('guard', 'guard', 'third')
            .requirePods('podAntiAffinity', term('web', ZONE, { namespaceSelector: { matchLabels: { team: 'team1' } } }))
            .node('n3'),
        ],
        namespaces: teams,
        want: { n1: 'ok', n2: 'ok', n3: EXISTING, n4: 'ok' },
      },
      {
        name: 'matchLabelKeys: anti-affinity only against pods of the same release',
        pod: pod('new', 'web')
          .labels({ release: 'r2' })
          .requirePods('podAntiAffinity', term('web', HOSTNAME, { matchLabelKeys: ['release'] })),
        pods: [pod('web-r1', 'web').labels({ release: 'r1' }).node('n1'), pod('web-r2', 'web').labels({ release: 'r2' }).node('n2')],
        want: { n1: 'ok', n2: ANTI, n3: 'ok', n4: 'ok' },
      },
      {
        name: 'mismatchLabelKeys: anti-affinity only against pods of other releases',
        pod: pod('new', 'web')
          .labels({ release: 'r2' })
          .requirePods('podAntiAffinity', term('web', HOSTNAME, { mismatchLabelKeys: ['release'] })),
        pods: [pod('web-r1', 'web').labels({ release: 'r1' }).node('n1'), pod('web-r2', 'web').labels({ release: 'r2' }).node('n2')],
        want: { n1: ANTI, n2: 'ok', n3: 'ok', n4: 'ok' },
      },
      {
        // n1: affinity fails first; n3: affinity holds, the guard there rejects
        name: 'the pod’s affinity is reported before existing pods’ anti-affinity',
        pod: pod('new', 'web').requirePods('podAffinity', term('db', ZONE)),
        pods: [
          pod('db-0', 'db').node('n3'),
          pod('guard', 'guard').requirePods('podAntiAffinity', term('web', ZONE)).node('n3'),
          pod('guard-a', 'guard').requirePods('podAntiAffinity', term('web', ZONE)).node('n1'),
        ],
        want: { n1: AFFINITY, n2: AFFINITY, n3: EXISTING, n4: AFFINITY },
      },
    ];
    for (const row of table) {
      it(row.name, () => {
        const snapshot = snapshotOf(nodes(), row.pods);
        const run = runFilters(
          build<InterPodAffinity>(factory, undefined, handleOf(snapshot, 1, { namespaces: row.namespaces ?? [] })),
          snapshot,
          row.pod.info,
        );
        assert.equal(run.preFilter, 'ok');
        assert.deepEqual(run.verdicts, row.want);
      });
    }

    it('PreFilter skips a pod without required terms when no existing pod’s anti-affinity matches it', () => {
      const snapshot = snapshotOf(nodes(), [pod('guard', 'guard').requirePods('podAntiAffinity', term('db', ZONE)).node('n1')]);
      assert.equal(
        runFilters(build<InterPodAffinity>(factory, undefined, handleOf(snapshot)), snapshot, pod('new', 'web').info).preFilter,
        'Skip',
      );
    });
  });

  describe('addPod/removePod keep the PreFilter counts in step with a what-if', () => {
    const cache = pod('cache-1', 'cache').requirePods('podAffinity', term('cache', ZONE));
    const table: Array<{
      name: string;
      pod: PodBuilder;
      pods: PodBuilder[];
      op: 'add' | 'remove';
      other: PodBuilder;
      want: Record<string, string>;
    }> = [
      {
        name: 'adding the first pallet pod closes its node to the second',
        pod: pallet('pallet-1'),
        pods: [],
        op: 'add',
        other: pallet('pallet-0').node('n1'),
        want: { n1: ANTI, n2: 'ok', n3: 'ok', n4: 'ok' },
      },
      {
        name: 'removing it opens the node again',
        pod: pallet('pallet-1'),
        pods: [pallet('pallet-0').node('n1')],
        op: 'remove',
        other: pallet('pallet-0').node('n1'),
        want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'ok' },
      },
      {
        name: 'adding a pod whose anti-affinity matches the incoming pod closes its zone',
        pod: pallet('pallet-1'),
        pods: [],
        op: 'add',
        other: pod('guard', 'guard').requirePods('podAntiAffinity', term('pallet', ZONE)).node('n3'),
        want: { n1: 'ok', n2: 'ok', n3: EXISTING, n4: 'ok' },
      },
      {
        name: 'adding a group member ends the first-pod exception: the group’s zone only',
        pod: cache,
        pods: [],
        op: 'add',
        other: pod('cache-0', 'cache').node('n3'),
        want: { n1: AFFINITY, n2: AFFINITY, n3: 'ok', n4: AFFINITY },
      },
      {
        // the count drops back to zero and is forgotten, so the exception holds again
        name: 'removing the only group member brings the first-pod exception back',
        pod: cache,
        pods: [pod('cache-0', 'cache').node('n3')],
        op: 'remove',
        other: pod('cache-0', 'cache').node('n3'),
        want: { n1: 'ok', n2: 'ok', n3: 'ok', n4: AFFINITY },
      },
    ];
    for (const row of table) {
      it(`${row.name}, as a fresh PreFilter on the changed cluster would`, () => {
        const snapshot = snapshotOf(nodes(), row.pods);
        const plugin = build<InterPodAffinity>(factory, undefined, handleOf(snapshot));
        const run = runFilters(plugin, snapshot, row.pod.info);
        const node = snapshot.get(row.other.obj.spec.nodeName ?? '') as NodeInfo;
        const status =
          row.op === 'add'
            ? plugin.addPod(run.state, row.pod.info, row.other.info, node)
            : plugin.removePod(run.state, row.pod.info, row.other.info, node);
        assert.equal(status.code, Code.Success);
        assert.deepEqual(filterAll(plugin, run.state, row.pod.info, snapshot.list()), row.want);

        const changed =
          row.op === 'add' ? [...row.pods, row.other] : row.pods.filter((p) => p.obj.metadata.name !== row.other.obj.metadata.name);
        const fresh = snapshotOf(nodes(), changed);
        assert.deepEqual(runFilters(build<InterPodAffinity>(factory, undefined, handleOf(fresh)), fresh, row.pod.info).verdicts, row.want);
      });
    }

    it('a clone taken before a what-if is untouched by it', () => {
      const snapshot = snapshotOf(nodes(), []);
      const plugin = build<InterPodAffinity>(factory, undefined, handleOf(snapshot));
      const incoming = pallet('pallet-1');
      const run = runFilters(plugin, snapshot, incoming.info);
      const before = run.state.clone();
      plugin.addPod(run.state, incoming.info, pallet('pallet-0').info, snapshot.get('n1') as NodeInfo);
      assert.equal(filterAll(plugin, run.state, incoming.info, snapshot.list()).n1, ANTI);
      assert.equal(filterAll(plugin, before, incoming.info, snapshot.list()).n1, 'ok');
    });

    it("a what-if on one cycle's state leaves the counts the next cycle starts from as they were", () => {
      const snapshot = snapshotOf(nodes(), []);
      const plugin = build<InterPodAffinity>(factory, undefined, handleOf(snapshot));
      const run = runFilters(plugin, snapshot, pallet('pallet-1').info);
      plugin.addPod(run.state, pallet('pallet-1').info, pallet('pallet-0').info, snapshot.get('n1') as NodeInfo);
      assert.equal(runFilters(plugin, snapshot, pallet('pallet-2').info).verdicts.n1, 'ok');
    });
  });

  describe('one plugin instance across cycles (counts are kept between cycles)', () => {
    it('sees pods bound since the last cycle, and a snapshot of other NodeInfo objects', () => {
      const snapshot = snapshotOf(nodes(), []);
      let current = snapshot;
      const plugin = factory(undefined, { ...handleOf(snapshot), snapshot: () => current });
      assert.ok(plugin.ok);
      const ipa = plugin.value as InterPodAffinity;
      const second = pallet('pallet-1').preferPods('podAffinity', 5, term('db', ZONE));
      assert.deepEqual(runFilters(ipa, snapshot, second.info).verdicts, { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'ok' });
      assert.equal(runScores(ipa, snapshot, second.info).preScore, 'Skip');
      (snapshot.get('n1') as NodeInfo).addPod(pallet('pallet-0').node('n1').info);
      (snapshot.get('n3') as NodeInfo).addPod(pod('db-0', 'db').node('n3').info);
      assert.deepEqual(runFilters(ipa, snapshot, second.info).verdicts, { n1: ANTI, n2: 'ok', n3: 'ok', n4: 'ok' });
      assert.deepEqual(runScores(ipa, snapshot, second.info).raw, { n1: 0, n2: 0, n3: 5, n4: 0 });
      current = snapshotOf(nodes(), []);
      assert.deepEqual(runFilters(ipa, current, second.info).verdicts, { n1: 'ok', n2: 'ok', n3: 'ok', n4: 'ok' });
      assert.equal(runScores(ipa, current, second.info).preScore, 'Skip');
    });
  });

  describe('Score: summed term weights per topology pair, both directions; normalized 100 × (s − min) / (max − min)', () => {
    /** e1 on n1: required affinity to web pods' zone and preferred (10) to their node; e2 on n3: preferred anti-affinity (4) to their zone. */
    const existingPreferences = () => [
      pod('e1', 'e').requirePods('podAffinity', term('web', ZONE)).preferPods('podAffinity', 10, term('web', HOSTNAME)).node('n1'),
      pod('e2', 'e').preferPods('podAntiAffinity', 4, term('web', ZONE)).node('n3'),
    ];
    interface Row {
      name: string;
      pod: PodBuilder;
      pods: PodBuilder[];
      args?: unknown;
      raw: Record<string, number>;
      normalized: Record<string, number>;
    }
    const table: Row[] = [
      {
        // zone a +5 (db on n1), hostname n3 −3 (web on n3): n1 5, n2 5, n3 −3, n4 0.
        // min −3, max 5: n4 100 × 3 / 8 = 37
        name: 'the pod’s preferred affinity and anti-affinity',
        pod: pod('new', 'api').preferPods('podAffinity', 5, term('db', ZONE)).preferPods('podAntiAffinity', 3, term('web', HOSTNAME)),
        pods: [pod('db-0', 'db').node('n1'), pod('web-0', 'web').node('n3')],
        raw: { n1: 5, n2: 5, n3: -3, n4: 0 },
        normalized: { n1: 100, n2: 100, n3: 0, n4: 37 },
      },
      {
        // e1: zone a +1 (hardPodAffinityWeight), hostname n1 +10; e2: zone b −4: n1 11, n2 1, n3 −4, n4 0.
        // min −4, max 11: n2 100 × 5 / 15 = 33, n4 100 × 4 / 15 = 26
        name: 'existing pods’ required affinity (hardPodAffinityWeight 1) and preferred terms',
        pod: pod('new', 'web'),
        pods: existingPreferences(),
        raw: { n1: 11, n2: 1, n3: -4, n4: 0 },
        normalized: { n1: 100, n2: 33, n3: 0, n4: 26 },
      },
      {
        // n1 10, n2 0, n3 −4, n4 0; min −4, max 10: n2 and n4 100 × 4 / 14 = 28
        name: 'hardPodAffinityWeight 0 leaves existing pods’ required affinity out',
        pod: pod('new', 'web'),
        pods: existingPreferences(),
        args: { hardPodAffinityWeight: 0 },
        raw: { n1: 10, n2: 0, n3: -4, n4: 0 },
        normalized: { n1: 100, n2: 28, n3: 0, n4: 28 },
      },
      {
        // e1 and e2 as above, plus the pod's own +2 for each app=e pod's zone: zone a 1 + 2 = 3,
        // zone b −4 + 2 = −2, hostname n1 10: n1 13, n2 3, n3 −2, n4 0.
        // min −2, max 13: n2 100 × 5 / 15 = 33, n4 100 × 2 / 15 = 13
        name: 'both directions add up',
        pod: pod('new', 'web').preferPods('podAffinity', 2, term('e', ZONE)),
        pods: existingPreferences(),
        raw: { n1: 13, n2: 3, n3: -2, n4: 0 },
        normalized: { n1: 100, n2: 33, n3: 0, n4: 13 },
      },
    ];
    for (const row of table) {
      it(row.name, () => {
        const snapshot = snapshotOf(nodes(), row.pods);
        const run = runScores(build<InterPodAffinity>(factory, row.args, handleOf(snapshot)), snapshot, row.pod.info);
        assert.equal(run.preScore, 'ok');
        assert.deepEqual(run.raw, row.raw);
        assert.deepEqual(run.normalized, row.normalized);
      });
    }

    const skips: Array<[name: string, pod: PodBuilder, pods: PodBuilder[], args?: unknown]> = [
      ['no pod has affinity terms', pod('new', 'web'), [pod('db-0', 'db').node('n1')]],
      ['existing pods’ terms do not match the pod', pod('new', 'batch'), existingPreferences()],
      [
        'ignorePreferredTermsOfExistingPods and the pod has no preferred terms',
        pod('new', 'web'),
        existingPreferences(),
        { ignorePreferredTermsOfExistingPods: true },
      ],
    ];
    for (const [name, incoming, pods, args] of skips) {
      it(`PreScore skips when ${name}`, () => {
        const snapshot = snapshotOf(nodes(), pods);
        assert.equal(runScores(build<InterPodAffinity>(factory, args, handleOf(snapshot)), snapshot, incoming.info).preScore, 'Skip');
      });
    }
  });
});

// upstream interpodaffinity/plugin_test.go Test_isSchedulableAfterAssignedPodChange and
// Test_isSchedulableAfterNodeChange (st.PodAffinityIn(key, topologyKey, values) is a required term
// selecting key In values; st.PodAffinityExists(key, topologyKey), key Exists).
describe('InterPodAffinity queueing hints', () => {
  const built = factory(undefined, handleOf(snapshotOf([])));
  assert.ok(built.ok);
  const plugin = built.value as InterPodAffinity;
  const term = (key: string, topologyKey: string, values?: string[]): PodAffinityTerm => ({
    labelSelector: { matchExpressions: [values ? { key, operator: 'In', values } : { key, operator: 'Exists' }] },
    topologyKey,
  });
  const affinityIn = (topologyKey: string) =>
    makePod('p').requirePods('podAffinity', term('service', topologyKey, ['securityscan', 'value2']));
  const antiIn = () => makePod('p').requirePods('podAntiAffinity', term('service', 'region', ['securityscan', 'value2']));
  const other = () => makePod('other').node('fake-node');

  describe('isSchedulableAfterAssignedPodChange', () => {
    const twoExists = () =>
      makePod('p').requirePods('podAffinity', term('aaa', 'hostname')).requirePods('podAffinity', term('bbb', 'hostname'));
    const twoAnti = () =>
      makePod('p')
        .requirePods('podAntiAffinity', term('service', 'region', ['securityscan']))
        .requirePods('podAntiAffinity', term('app', 'region', ['web']));
    const table: Array<
      [name: string, pod: PodBuilder, oldPod: PodBuilder | undefined, newPod: PodBuilder | undefined, hint: QueueingHint]
    > = [
      ['add a pod which matches the pod affinity', affinityIn('region'), undefined, other().labels({ service: 'securityscan' }), 'Queue'],
      ['add an un-scheduled pod', affinityIn('region'), undefined, makePod('other').labels({ service: 'securityscan' }), 'QueueSkip'],
      ["add a pod which doesn't match the pod affinity", affinityIn('region'), undefined, other().labels({ aaa: 'a' }), 'QueueSkip'],
      [
        'update a pod from non-match to match pod affinity',
        affinityIn('region'),
        other().labels({ aaa: 'a' }),
        other().labels({ service: 'securityscan' }),
        'Queue',
      ],
      [
        "the updating pod matches target pod's affinity both before and after label changes",
        affinityIn('region'),
        other().labels({ service: 'value2' }),
        other().labels({ service: 'securityscan' }),
        'QueueSkip',
      ],
      [
        'update an un-scheduled pod',
        affinityIn('region'),
        makePod('other').labels({ aaa: 'a' }),
        makePod('other').labels({ service: 'securityscan' }),
        'QueueSkip',
      ],
      [
        'update a pod from match to non-match the pod affinity',
        affinityIn('region'),
        other().labels({ service: 'securityscan' }),
        other().labels({ aaa: 'a' }),
        'QueueSkip',
      ],
      [
        "update a pod from match to non-match pod's affinity - multiple terms case",
        twoExists(),
        other().labels({ aaa: 'a' }),
        other().labels({ service: 'securityscan' }),
        'QueueSkip',
      ],
      [
        "update a pod from non-match to match pod's affinity - multiple terms case",
        twoExists(),
        other().labels({ aaa: 'a' }),
        other().labels({ aaa: '', bbb: '' }),
        'Queue',
      ],
      [
        'modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity',
        antiIn(),
        other().labels({ service: 'securityscan' }),
        other().labels({ service: 'aaaa' }),
        'Queue',
      ],
      [
        'modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity',
        antiIn(),
        other().labels({ service: 'bbb' }),
        other().labels({ service: 'securityscan' }),
        'QueueSkip',
      ],
      ["delete a pod which doesn't match pod's anti-affinity", antiIn(), other().labels({ aaa: 'a' }), undefined, 'QueueSkip'],
      ["delete a pod which matches pod's anti-affinity", antiIn(), other().labels({ service: 'securityscan' }), undefined, 'Queue'],
      [
        'delete a pod with anti-affinity that matches pending pod',
        makePod('p').labels({ service: 'securityscan' }),
        other().requirePods('podAntiAffinity', term('service', 'region', ['securityscan', 'value2'])),
        undefined,
        'Queue',
      ],
      [
        "delete a pod with anti-affinity that doesn't match pending pod",
        makePod('p').labels({ service: 'foo' }),
        other().requirePods('podAntiAffinity', term('service', 'region', ['securityscan', 'value2'])),
        undefined,
        'QueueSkip',
      ],
      [
        "delete a nominated pod which doesn't match pod's anti-affinity",
        antiIn(),
        makePod('other').nominatedTo('fake-node').labels({ aaa: 'a' }),
        undefined,
        'QueueSkip',
      ],
      [
        "delete a nominated pod which matches pod's anti-affinity",
        antiIn(),
        makePod('other').nominatedTo('fake-node').labels({ service: 'securityscan' }),
        undefined,
        'Queue',
      ],
      [
        "modify pod label to change it from matching only one of target pod's anti-affinity terms to matching none",
        twoAnti(),
        other().labels({ service: 'securityscan', app: 'bar' }),
        other().labels({ service: 'foo', app: 'bar' }),
        'Queue',
      ],
      [
        "modify pod label but it still matches one of target pod's anti-affinity terms",
        twoAnti(),
        other().labels({ service: 'securityscan', app: 'bar' }),
        other().labels({ service: 'foo', app: 'web' }),
        'QueueSkip',
      ],
      [
        "delete a pod which matches only one of target pod's anti-affinity terms",
        twoAnti(),
        other().labels({ service: 'securityscan' }),
        undefined,
        'Queue',
      ],
    ];
    for (const [name, pod, oldPod, newPod, hint] of table)
      it(name, () => assert.equal(plugin.isSchedulableAfterAssignedPodChange(pod.obj, oldPod?.obj, newPod?.obj), hint));
  });

  describe('isSchedulableAfterNodeChange', () => {
    const anti = () =>
      makePod('p').requirePods('podAntiAffinity', { labelSelector: { matchLabels: { another: 'label' } }, topologyKey: 'zone' });
    const node = (labels: Record<string, string> = {}) => makeNode('node-a').labels(labels).obj;
    const table: Array<[name: string, pod: PodBuilder, oldNode: unknown, newNode: unknown, hint: QueueingHint]> = [
      ['add a new node with matched pod affinity topologyKey', affinityIn('zone'), undefined, node({ zone: 'zone1' }), 'Queue'],
      ['add a new node without matched topologyKey', affinityIn('region'), undefined, node({ zone: 'zone1' }), 'QueueSkip'],
      ['update node label but not topologyKey', affinityIn('zone'), node({ aaa: 'a' }), node({ aaa: 'b' }), 'QueueSkip'],
      [
        "update node label that isn't related to the pod affinity",
        affinityIn('zone'),
        node({ zone: 'zone1' }),
        node({ zone: 'zone1', 'unrelated-label': 'unrelated' }),
        'QueueSkip',
      ],
      [
        'update node with different affinity topologyKey value',
        affinityIn('zone'),
        node({ zone: 'zone1' }),
        node({ zone: 'zone2' }),
        'Queue',
      ],
      ['update node to have the affinity topology label', affinityIn('zone'), node({ aaa: 'a' }), node({ zone: 'zone1' }), 'Queue'],
      ['add a new node with matched pod anti-affinity topologyKey', anti(), undefined, node({ zone: 'zone1' }), 'Queue'],
      ['add a new node without matched pod anti-affinity topologyKey', anti(), undefined, node(), 'Queue'],
      [
        "update node label that isn't related to the pod anti-affinity",
        anti(),
        node({ zone: 'zone1' }),
        node({ zone: 'zone1', 'unrelated-label': 'unrelated' }),
        'QueueSkip',
      ],
      ['update node with different anti-affinity topologyKey value', anti(), node({ zone: 'zone1' }), node({ zone: 'zone2' }), 'Queue'],
      ['update node to have the anti-affinity topology label', anti(), node({ aaa: 'a' }), node({ zone: 'zone1' }), 'QueueSkip'],
      ['update node label not to have anti-affinity topology label', anti(), node({ zone: 'zone1' }), node({ aaa: 'a' }), 'Queue'],
    ];
    for (const [name, pod, oldNode, newNode, hint] of table)
      it(name, () => assert.equal(plugin.isSchedulableAfterNodeChange(pod.obj, oldNode, newNode), hint));
  });
});
