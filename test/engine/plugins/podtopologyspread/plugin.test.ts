import assert from 'node:assert/strict';
import { argsErrorText } from '../../../../src/engine/api/field';
import { type TopologySpreadConstraint } from '../../../../src/engine/api/types';
import { type NodeInfo } from '../../../../src/engine/framework/node-info';
import type { QueueingHint } from '../../../../src/engine/framework/events';
import { Code } from '../../../../src/engine/framework/status';
import { LABEL_HOSTNAME, LABEL_TOPOLOGY_ZONE } from '../../../../src/engine/plugins/podtopologyspread/common';
import {
  ERR_REASON_CONSTRAINTS_NOT_MATCH,
  ERR_REASON_NODE_LABEL_NOT_MATCH,
} from '../../../../src/engine/plugins/podtopologyspread/filtering';
import {
  factory,
  SYSTEM_DEFAULT_CONSTRAINTS,
  validateArgs,
  type PodTopologySpread,
} from '../../../../src/engine/plugins/podtopologyspread/plugin';
import { handleOf, makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../../builders';
import { build, filterAll, runFilters, runScores } from '../harness';

const SKEW = `${Code.Unschedulable}: ${ERR_REASON_CONSTRAINTS_NOT_MATCH}`;
const NO_LABEL = `${Code.UnschedulableAndUnresolvable}: ${ERR_REASON_NODE_LABEL_NOT_MATCH}`;

const zone = (z: string) => ({ [LABEL_TOPOLOGY_ZONE]: z });

/** a1, a2 in zone a; b1 in zone b; x1 without a zone label. */
const nodes = (): NodeBuilder[] => [
  makeNode('a1').labels(zone('a')),
  makeNode('a2').labels(zone('a')),
  makeNode('b1').labels(zone('b')),
  makeNode('x1'),
];

const web = (name: string, node: string, namespace?: string) => makePod(name, namespace).labels({ app: 'web' }).node(node);

/** Two web pods on a1, one on b1: zone a holds 2, zone b holds 1. */
const webPods = (): PodBuilder[] => [web('w1', 'a1'), web('w2', 'a1'), web('w3', 'b1')];

function spread(extra: Partial<TopologySpreadConstraint> = {}): TopologySpreadConstraint {
  return {
    maxSkew: 1,
    topologyKey: LABEL_TOPOLOGY_ZONE,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app: 'web' } },
    ...extra,
  };
}

const incoming = (...constraints: TopologySpreadConstraint[]) => {
  const pod = makePod('new').labels({ app: 'web' });
  for (const c of constraints) pod.spread(c);
  return pod;
};

describe('engine/plugins/podtopologyspread/plugin (PodTopologySpread)', () => {
  describe('validates its args as upstream (v1 defaults: defaultingType System)', () => {
    const hostnameHard = { maxSkew: 1, topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'DoNotSchedule' };
    const table: Array<[name: string, args: unknown, want: string]> = [
      ['no args: System defaults', undefined, 'ok System 0'],
      ['List with constraints', { defaultingType: 'List', defaultConstraints: [hostnameHard] }, 'ok List 1'],
      ['List without constraints: no default spreading', { defaultingType: 'List' }, 'ok List 0'],
      [
        'System (the default) with constraints',
        { defaultConstraints: [hostnameHard] },
        'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
      ],
      ['an unknown defaulting type', { defaultingType: 'Zonal' }, 'defaultingType: Unsupported value: "Zonal"'],
      [
        'maxSkew 0',
        { defaultingType: 'List', defaultConstraints: [{ ...hostnameHard, maxSkew: 0 }] },
        'defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)',
      ],
      [
        'no topologyKey',
        { defaultingType: 'List', defaultConstraints: [{ ...hostnameHard, topologyKey: '' }] },
        'defaultConstraints[0].topologyKey: Required value',
      ],
      [
        'a topologyKey that is no label name',
        { defaultingType: 'List', defaultConstraints: [{ ...hostnameHard, topologyKey: 'a/b/c' }] },
        'defaultConstraints[0].topologyKey: Invalid value: "a/b/c"',
      ],
      [
        'an unknown whenUnsatisfiable',
        { defaultingType: 'List', defaultConstraints: [{ ...hostnameHard, whenUnsatisfiable: 'Never' }] },
        'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Never"',
      ],
      [
        'a labelSelector (deduced per pod)',
        { defaultingType: 'List', defaultConstraints: [{ ...hostnameHard, labelSelector: {} }] },
        'defaultConstraints[0].labelSelector: Forbidden',
      ],
      [
        'the same key and action twice',
        { defaultingType: 'List', defaultConstraints: [hostnameHard, { ...hostnameHard, maxSkew: 2 }] },
        'defaultConstraints[1]: Duplicate value: "{kubernetes.io/hostname, DoNotSchedule}"',
      ],
      ['an unknown field', { defaultConstraint: [] }, 'unknown field "defaultConstraint"'],
      ['args that are no object', 'System', 'args: Invalid value: "System": must be an object'],
    ];
    for (const [name, args, want] of table) {
      it(name, () => {
        const result = validateArgs(args);
        if (want.startsWith('ok')) {
          assert.ok(result.ok, result.ok ? '' : argsErrorText(result.error));
          assert.equal(`ok ${result.value.defaultingType} ${result.value.defaultConstraints.length}`, want);
        } else {
          assert.ok(!result.ok);
          const text = argsErrorText(result.error);
          assert.ok(text.startsWith('PodTopologySpread: '), text);
          assert.ok(text.includes(want), text);
        }
      });
    }

    it('System defaults are upstream’s: hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway', () => {
      assert.deepEqual(SYSTEM_DEFAULT_CONSTRAINTS, [
        { topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
        { topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
      ]);
    });
  });

  describe('Filter: skew = matching pods in the node’s domain + 1 if the pod matches itself − global minimum ≤ maxSkew', () => {
    interface Row {
      name: string;
      pod: PodBuilder;
      nodes?: NodeBuilder[];
      pods?: PodBuilder[];
      args?: unknown;
      want: Record<string, string>;
    }
    const table: Row[] = [
      {
        // a: 2+1−1 = 2 > 1; b: 1+1−1 = 1
        name: 'zone spread, maxSkew 1: zone a (2) is full, zone b (1) takes the pod; a node without the zone label is unresolvable',
        pod: incoming(spread()),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        // a: 2+0−1 = 1
        name: 'a pod outside its own selector adds no skew',
        pod: makePod('new').labels({ app: 'batch' }).spread(spread()),
        want: { a1: 'ok', a2: 'ok', b1: 'ok', x1: NO_LABEL },
      },
      {
        // 2 domains < minDomains 3, so the global minimum is 0: a: 2+1−0 = 3 > 1; b: 1+1−0 = 2 > 1
        name: 'fewer domains than minDomains: the global minimum counts as 0',
        pod: incoming(spread({ minDomains: 3 })),
        want: { a1: SKEW, a2: SKEW, b1: SKEW, x1: NO_LABEL },
      },
      {
        // minimum 0: a: 3 > 2; b: 2 ≤ 2
        name: 'minDomains 3 with maxSkew 2',
        pod: incoming(spread({ minDomains: 3, maxSkew: 2 })),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        // only zone a is eligible: minimum 2; a: 2+1−2 = 1; b1 is no domain: 0+1−2 = −1
        name: 'nodeAffinityPolicy Honor (default): nodes outside the pod’s nodeSelector form no domain',
        pod: incoming(spread()).nodeSelector(zone('a')),
        want: { a1: 'ok', a2: 'ok', b1: 'ok', x1: NO_LABEL },
      },
      {
        // both zones count again: a: 2+1−1 = 2 > 1
        name: 'nodeAffinityPolicy Ignore: every node with the key forms a domain',
        pod: incoming(spread({ nodeAffinityPolicy: 'Ignore' })).nodeSelector(zone('a')),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        // only zone a is eligible (b1 is tainted): minimum 2; a: 1 ≤ 1
        name: 'nodeTaintsPolicy Honor: a node with an untolerated NoSchedule taint forms no domain',
        pod: incoming(spread({ nodeTaintsPolicy: 'Honor' })),
        nodes: [
          makeNode('a1').labels(zone('a')),
          makeNode('a2').labels(zone('a')),
          makeNode('b1').labels(zone('b')).taint('dedicated', 'gpu'),
        ],
        want: { a1: 'ok', a2: 'ok', b1: 'ok' },
      },
      {
        name: 'nodeTaintsPolicy Ignore (default): tainted nodes count',
        pod: incoming(spread()),
        nodes: [
          makeNode('a1').labels(zone('a')),
          makeNode('a2').labels(zone('a')),
          makeNode('b1').labels(zone('b')).taint('dedicated', 'gpu'),
        ],
        want: { a1: SKEW, a2: SKEW, b1: 'ok' },
      },
      {
        // counted, zone b would hold 3 and a would pass; uncounted, it is the first row again
        name: 'terminating pods and pods of other namespaces are not counted',
        pod: incoming(spread()),
        pods: [...webPods(), web('gone', 'b1').deleting(), web('elsewhere', 'b1', 'other')],
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        // only v2 pods count: a 0, b 1, minimum 0; a: 0+1−0 = 1; b: 1+1−0 = 2 > 1
        name: 'matchLabelKeys narrows the selector to the pod’s own value (version v2)',
        pod: makePod('new')
          .labels({ app: 'web', version: 'v2' })
          .spread(spread({ matchLabelKeys: ['version'] })),
        pods: [
          web('w1', 'a1').labels({ version: 'v1' }),
          web('w2', 'a1').labels({ version: 'v1' }),
          web('w3', 'b1').labels({ version: 'v2' }),
        ],
        want: { a1: 'ok', a2: 'ok', b1: SKEW, x1: NO_LABEL },
      },
      {
        // domains a1 2, a2 0, b1 1, x1 0; minimum 0
        name: 'hostname spread, maxSkew 1: every node is a domain',
        pod: incoming(spread({ topologyKey: LABEL_HOSTNAME })),
        want: { a1: SKEW, a2: 'ok', b1: SKEW, x1: 'ok' },
      },
      {
        // x1 lacks the zone key, so it is left out of both constraints' domains; b1 fails hostname: 1+1−0 = 2
        name: 'several constraints must all hold, and a node needs every topology key',
        pod: incoming(spread(), spread({ topologyKey: LABEL_HOSTNAME })),
        want: { a1: SKEW, a2: SKEW, b1: SKEW, x1: NO_LABEL },
      },
      {
        // {} selects every pod, the pod itself included: a: 2+1−1 = 2 > 1
        name: 'an empty labelSelector ({}) matches every pod of the namespace',
        pod: makePod('new')
          .labels({ app: 'batch' })
          .spread(spread({ labelSelector: {} })),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        name: 'an absent labelSelector matches nothing: no skew anywhere',
        pod: incoming(spread({ labelSelector: undefined })),
        want: { a1: 'ok', a2: 'ok', b1: 'ok', x1: NO_LABEL },
      },
      {
        name: 'List default constraints apply to a pod with a controller and no constraints, selecting by its labels',
        pod: makePod('new').labels({ app: 'web' }).controlledBy('ReplicaSet', 'web-5d8f'),
        args: {
          defaultingType: 'List',
          defaultConstraints: [{ maxSkew: 1, topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'DoNotSchedule' }],
        },
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
    ];
    for (const row of table) {
      it(row.name, () => {
        const snapshot = snapshotOf(row.nodes ?? nodes(), row.pods ?? webPods());
        const run = runFilters(build<PodTopologySpread>(factory, row.args, handleOf(snapshot)), snapshot, row.pod.info);
        assert.equal(run.preFilter, 'ok');
        assert.deepEqual(run.verdicts, row.want);
      });
    }

    const skips: Array<[name: string, pod: PodBuilder, args?: unknown]> = [
      ['only ScheduleAnyway constraints', incoming(spread({ whenUnsatisfiable: 'ScheduleAnyway' }))],
      [
        'no constraints and System defaults (which are all ScheduleAnyway)',
        makePod('new').labels({ app: 'web' }).controlledBy('ReplicaSet', 'web'),
      ],
      [
        'no constraints and no controller to deduce a default selector from',
        makePod('new').labels({ app: 'web' }),
        {
          defaultingType: 'List',
          defaultConstraints: [{ maxSkew: 1, topologyKey: LABEL_TOPOLOGY_ZONE, whenUnsatisfiable: 'DoNotSchedule' }],
        },
      ],
    ];
    for (const [name, pod, args] of skips) {
      it(`PreFilter skips the pod with ${name}`, () => {
        const snapshot = snapshotOf(nodes(), webPods());
        assert.equal(runFilters(build<PodTopologySpread>(factory, args, handleOf(snapshot)), snapshot, pod.info).preFilter, 'Skip');
      });
    }
  });

  describe('addPod/removePod keep the PreFilter counts in step with a what-if', () => {
    const pod = incoming(spread());
    const table: Array<{ name: string; op: 'add' | 'remove'; other: PodBuilder; want: Record<string, string> }> = [
      // b: 2, minimum 2: a: 2+1−2 = 1, b: 2+1−2 = 1
      {
        name: 'adding a web pod to zone b evens the zones',
        op: 'add',
        other: web('w4', 'b1'),
        want: { a1: 'ok', a2: 'ok', b1: 'ok', x1: NO_LABEL },
      },
      // a: 1, minimum 1: a: 1+1−1 = 1
      {
        name: 'removing a web pod from zone a evens the zones',
        op: 'remove',
        other: web('w1', 'a1'),
        want: { a1: 'ok', a2: 'ok', b1: 'ok', x1: NO_LABEL },
      },
      // minimum 0 (b emptied): a: 2+1−0 = 3, b: 0+1 = 1
      {
        name: 'removing the only pod of zone b',
        op: 'remove',
        other: web('w3', 'b1'),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        name: 'a pod of another namespace changes nothing',
        op: 'add',
        other: web('w4', 'b1', 'other'),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
      {
        name: 'a pod outside the selector changes nothing',
        op: 'add',
        other: makePod('db').labels({ app: 'db' }).node('b1'),
        want: { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL },
      },
    ];
    for (const { name, op, other, want } of table) {
      it(`${name}, as a fresh PreFilter on the changed cluster would`, () => {
        const snapshot = snapshotOf(nodes(), webPods());
        const plugin = build<PodTopologySpread>(factory, undefined, handleOf(snapshot));
        const run = runFilters(plugin, snapshot, pod.info);
        const node = snapshot.get(other.obj.spec.nodeName ?? '') as NodeInfo;
        const status =
          op === 'add' ? plugin.addPod(run.state, pod.info, other.info, node) : plugin.removePod(run.state, pod.info, other.info, node);
        assert.equal(status.code, Code.Success);
        assert.deepEqual(filterAll(plugin, run.state, pod.info, snapshot.list()), want);

        const changed = op === 'add' ? [...webPods(), other] : webPods().filter((p) => p.obj.metadata.name !== other.obj.metadata.name);
        const fresh = snapshotOf(nodes(), changed);
        assert.deepEqual(runFilters(build<PodTopologySpread>(factory, undefined, handleOf(fresh)), fresh, pod.info).verdicts, want);
      });
    }

    it('removing what was added restores the verdicts, and a clone taken before is untouched', () => {
      const snapshot = snapshotOf(nodes(), webPods());
      const plugin = build<PodTopologySpread>(factory, undefined, handleOf(snapshot));
      const run = runFilters(plugin, snapshot, pod.info);
      const before = run.state.clone();
      const b1 = snapshot.get('b1') as NodeInfo;
      const added = web('w4', 'b1');
      plugin.addPod(run.state, pod.info, added.info, b1);
      assert.equal(filterAll(plugin, run.state, pod.info, snapshot.list()).a1, 'ok');
      assert.deepEqual(filterAll(plugin, before, pod.info, snapshot.list()), run.verdicts);
      plugin.removePod(run.state, pod.info, added.info, b1);
      assert.deepEqual(filterAll(plugin, run.state, pod.info, snapshot.list()), run.verdicts);
    });
  });

  describe('one plugin instance across cycles (counts are kept between cycles)', () => {
    it('sees pods bound since the last cycle, and a snapshot of other NodeInfo objects', () => {
      const snapshot = snapshotOf(nodes(), webPods());
      let current = snapshot;
      const made = factory(undefined, { ...handleOf(snapshot), snapshot: () => current });
      assert.ok(made.ok);
      const plugin = made.value as PodTopologySpread;
      const pod = incoming(spread(), spread({ whenUnsatisfiable: 'ScheduleAnyway' }));
      assert.deepEqual(runFilters(plugin, snapshot, pod.info).verdicts, { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL });
      assert.deepEqual(runScores(plugin, snapshot, pod.info).raw, { a1: 3, a2: 3, b1: 1, x1: 0 });
      // a web pod bound to b1 evens the zones: every node with the key takes the next pod
      (snapshot.get('b1') as NodeInfo).addPod(web('w4', 'b1').info);
      assert.deepEqual(runFilters(plugin, snapshot, pod.info).verdicts, { a1: 'ok', a2: 'ok', b1: 'ok', x1: NO_LABEL });
      assert.deepEqual(runScores(plugin, snapshot, pod.info).raw, { a1: 3, a2: 3, b1: 3, x1: 0 });
      current = snapshotOf(nodes(), webPods());
      assert.deepEqual(runFilters(plugin, current, pod.info).verdicts, { a1: SKEW, a2: SKEW, b1: 'ok', x1: NO_LABEL });
      assert.deepEqual(runScores(plugin, current, pod.info).raw, { a1: 3, a2: 3, b1: 1, x1: 0 });
    });
  });

  describe('Score: Σ matching pods × ln(domains + 2) + (maxSkew − 1), rounded; normalized 100 × (max + min − s) / max', () => {
    const soft = (extra: Partial<TopologySpreadConstraint> = {}) => spread({ whenUnsatisfiable: 'ScheduleAnyway', ...extra });
    interface Row {
      name: string;
      pod: PodBuilder;
      /** The feasible nodes PreScore gets (default all). */
      feasible?: string[];
      raw: Record<string, number>;
      normalized: Record<string, number>;
    }
    const table: Row[] = [
      {
        // weight ln(2 + 2) = 1.386: a 2 × 1.386 = 2.77 → 3, b 1.386 → 1; x1 lacks the key: ignored.
        // min 1, max 3: a 100 × (3 + 1 − 3) / 3 = 33, b 100 × 3 / 3 = 100
        name: 'zone, maxSkew 1: the emptier zone scores best; a node without the key scores 0',
        pod: incoming(soft()),
        raw: { a1: 3, a2: 3, b1: 1, x1: 0 },
        normalized: { a1: 33, a2: 33, b1: 100, x1: 0 },
      },
      {
        // zone weight ln 4 = 1.386, hostname weight ln(3 scored nodes + 2) = 1.609:
        // a1 2.773 + (2 × 1.609 + 1) = 6.99 → 7; a2 2.773 + 1 = 3.77 → 4; b1 1.386 + 1.609 + 1 = 4.00 → 4.
        // min 4, max 7: a1 100 × 4 / 7 = 57, a2 and b1 100 × 7 / 7 = 100
        name: 'zone (maxSkew 1) and hostname (maxSkew 2) add up',
        pod: incoming(soft(), soft({ topologyKey: LABEL_HOSTNAME, maxSkew: 2 })),
        raw: { a1: 7, a2: 4, b1: 4, x1: 0 },
        normalized: { a1: 57, a2: 100, b1: 100, x1: 0 },
      },
      {
        // a 2 × 1.386 + 4 = 6.77 → 7, b 1.386 + 4 = 5.39 → 5; min 5, max 7: a 100 × 5 / 7 = 71, b 100
        name: 'a larger maxSkew waters the difference down',
        pod: incoming(soft({ maxSkew: 5 })),
        raw: { a1: 7, a2: 7, b1: 5, x1: 0 },
        normalized: { a1: 71, a2: 71, b1: 100, x1: 0 },
      },
      {
        // domains of feasible nodes only (a, b); pods counted on every node (a1's two count for a2)
        name: 'pods on infeasible nodes count for the feasible nodes of their domain',
        pod: incoming(soft()),
        feasible: ['a2', 'b1'],
        raw: { a2: 3, b1: 1 },
        normalized: { a2: 33, b1: 100 },
      },
      {
        // all 0: max 0 gives every scored node 100
        name: 'no matching pods anywhere: every node scores 100',
        pod: incoming(soft({ labelSelector: { matchLabels: { app: 'none' } } })),
        raw: { a1: 0, a2: 0, b1: 0, x1: 0 },
        normalized: { a1: 100, a2: 100, b1: 100, x1: 0 },
      },
      {
        // System defaults, selector app=web from the pod's labels; x1 keeps hostname spreading.
        // hostname ln(4 + 2) = 1.792, maxSkew 3; zone domains a, b and '' (x1): ln(3 + 2) = 1.609, maxSkew 5.
        // a1 2 × 1.792 + 2 + 2 × 1.609 + 4 = 12.80 → 13; a2 2 + 7.22 = 9.22 → 9; b1 3.79 + 5.61 = 9.40 → 9; x1 2.
        // min 2, max 13: a1 100 × 2 / 13 = 15, a2 and b1 100 × 6 / 13 = 46, x1 100
        name: 'System default constraints for a pod with a controller: nodes without a zone still spread by hostname',
        pod: makePod('new').labels({ app: 'web' }).controlledBy('ReplicaSet', 'web-5d8f'),
        raw: { a1: 13, a2: 9, b1: 9, x1: 2 },
        normalized: { a1: 15, a2: 46, b1: 46, x1: 100 },
      },
    ];
    for (const row of table) {
      it(row.name, () => {
        const snapshot = snapshotOf(nodes(), webPods());
        const feasible = row.feasible ? row.feasible.map((n) => snapshot.get(n) as NodeInfo) : snapshot.list();
        const run = runScores(build<PodTopologySpread>(factory, undefined, handleOf(snapshot)), snapshot, row.pod.info, feasible);
        assert.equal(run.preScore, 'ok');
        assert.deepEqual(run.raw, row.raw);
        assert.deepEqual(run.normalized, row.normalized);
      });
    }

    const skips: Array<[name: string, pod: PodBuilder]> = [
      ['only DoNotSchedule constraints', incoming(spread())],
      ['no constraints and no controller', makePod('new').labels({ app: 'web' })],
    ];
    for (const [name, pod] of skips) {
      it(`PreScore skips the pod with ${name}`, () => {
        const snapshot = snapshotOf(nodes(), webPods());
        assert.equal(runScores(build<PodTopologySpread>(factory, undefined, handleOf(snapshot)), snapshot, pod.info).preScore, 'Skip');
      });
    }
  });
});

// upstream podtopologyspread/plugin_test.go Test_isSchedulableAfterNodeChange and
// Test_isSchedulableAfterAssignedPodChange (fooSelector: the label foo exists).
describe('PodTopologySpread queueing hints', () => {
  const plugin = build(factory) as PodTopologySpread;
  const constraint = (topologyKey: string): TopologySpreadConstraint => ({
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] },
  });
  const zone = () => makePod('p').spread(constraint('zone'));
  const zoneAndNode = () => makePod('p').spread(constraint('zone')).spread(constraint('node'));
  /** A node with only the labels given (upstream's st.MakeNode has no hostname label). */
  const node = (labels: Record<string, string>, taintKey?: string) => {
    const n = makeNode('node-a');
    const obj = { ...n.obj, metadata: { ...n.obj.metadata, labels } };
    return taintKey ? { ...obj, spec: { taints: [{ key: taintKey, value: 'bbb', effect: 'NoSchedule' as const }] } } : obj;
  };

  describe('isSchedulableAfterNodeChange', () => {
    const table: Array<[name: string, pod: PodBuilder, oldNode: unknown, newNode: unknown, hint: QueueingHint]> = [
      ['node updates label which matches topologyKey', zone(), node({ zone: 'zone1' }), node({ zone: 'zone2' }), 'Queue'],
      [
        "node that doesn't match topologySpreadConstraints updates non-related label",
        zone(),
        node({ foo: 'bar1' }),
        node({ foo: 'bar2' }),
        'QueueSkip',
      ],
      [
        'node that match topologySpreadConstraints adds non-related label',
        zoneAndNode(),
        node({ zone: 'zone1', node: 'node1', foo: 'bar' }),
        node({ zone: 'zone1', node: 'node1' }),
        'QueueSkip',
      ],
      ['create node with non-related labels', zone(), undefined, node({ foo: 'bar' }), 'QueueSkip'],
      ['create node with related labels', zone(), undefined, node({ zone: 'zone1' }), 'Queue'],
      ['delete node with non-related labels', zone(), node({ foo: 'bar' }), undefined, 'QueueSkip'],
      ['delete node with related labels', zone(), node({ zone: 'zone1' }), undefined, 'Queue'],
      [
        'add node with related labels that only match one of topologySpreadConstraints',
        zoneAndNode(),
        undefined,
        node({ zone: 'zone1' }),
        'QueueSkip',
      ],
      [
        'add node with related labels that match all topologySpreadConstraints',
        zoneAndNode(),
        undefined,
        node({ zone: 'zone1', node: 'node1' }),
        'Queue',
      ],
      [
        'update node with related labels that only match one of topologySpreadConstraints',
        zoneAndNode(),
        node({ zone: 'zone1' }),
        node({ zone: 'zone1' }),
        'QueueSkip',
      ],
      [
        'update node with related labels that match all topologySpreadConstraints',
        zoneAndNode(),
        node({ zone: 'zone1', node: 'node1' }),
        node({ zone: 'zone1', node: 'node2' }),
        'Queue',
      ],
      [
        'update node with different taints that match all topologySpreadConstraints',
        zoneAndNode(),
        node({ zone: 'zone1', node: 'node1' }, 'aaa'),
        node({ zone: 'zone1', node: 'node1' }, 'ccc'),
        'Queue',
      ],
      [
        'update node with different taints that only match one of topologySpreadConstraints',
        zoneAndNode(),
        node({ node: 'node1' }, 'aaa'),
        node({ node: 'node1' }, 'ccc'),
        'QueueSkip',
      ],
    ];
    for (const [name, pod, oldNode, newNode, hint] of table)
      it(name, () => assert.equal(plugin.isSchedulableAfterNodeChange(pod.obj, oldNode, newNode), hint));
  });

  describe('isSchedulableAfterAssignedPodChange', () => {
    const pod = () => zone().labels({ foo: '' });
    const table: Array<[name: string, oldPod: PodBuilder | undefined, newPod: PodBuilder | undefined, hint: QueueingHint]> = [
      [
        'add pod with labels match topologySpreadConstraints selector',
        undefined,
        makePod('p2').node('fake-node').labels({ foo: '' }),
        'Queue',
      ],
      ['add un-scheduled pod', undefined, makePod('p2').labels({ foo: '' }), 'QueueSkip'],
      ['update un-scheduled pod', makePod('p2').labels({ bar: '' }), makePod('p2').labels({ foo: '' }), 'QueueSkip'],
      ['delete un-scheduled pod', makePod('p2').labels({ foo: '' }), undefined, 'QueueSkip'],
      ['add pod with different namespace', undefined, makePod('p2', 'fake-namespace').node('fake-node').labels({ foo: '' }), 'QueueSkip'],
      [
        "add pod with labels don't match topologySpreadConstraints selector",
        undefined,
        makePod('p2').node('fake-node').labels({ bar: '' }),
        'QueueSkip',
      ],
      [
        'delete pod with labels that match topologySpreadConstraints selector',
        makePod('p2').node('fake-node').labels({ foo: '' }),
        undefined,
        'Queue',
      ],
      [
        "delete nominated pod with labels that don't match topologySpreadConstraints selector",
        makePod('p2').nominatedTo('fake-node').labels({ bar: '' }),
        undefined,
        'QueueSkip',
      ],
      [
        'delete nominated pod with labels that match topologySpreadConstraints selector',
        makePod('p2').nominatedTo('fake-node').labels({ foo: '' }),
        undefined,
        'Queue',
      ],
    ];
    for (const [name, oldPod, newPod, hint] of table)
      it(name, () => assert.equal(plugin.isSchedulableAfterAssignedPodChange(pod().obj, oldPod?.obj, newPod?.obj), hint));
  });
});
