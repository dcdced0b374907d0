import assert from 'node:assert/strict';
import type { QueueingHint } from '../../../src/engine/framework/events';
import { Code } from '../../../src/engine/framework/status';
import { factory } from '../../../src/engine/plugins/NodeAffinity';
import { makeNode, makePod, nodeInfoOf, type PodBuilder } from '../../builders';
import { argsError, build, runFilter, runScore, type Verdict } from './harness';

const mismatch: Verdict = { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match Pod's node affinity/selector"] };
const enforced: Verdict = { code: Code.UnschedulableAndUnresolvable, reasons: ["node(s) didn't match scheduler-enforced node affinity"] };

describe('engine/plugins/NodeAffinity', () => {
  const nodes = [
    nodeInfoOf(makeNode('n1').labels({ zone: 'a', gen: '3' })),
    nodeInfoOf(makeNode('n2').labels({ zone: 'b', gen: '5' })),
    nodeInfoOf(makeNode('n3')),
    nodeInfoOf(makeNode('n4').labels({ gen: 'x' })),
  ];
  const plugin = build(factory);
  /** Which of n1..n4 the pod fits, as a string ("n1 n2"). */
  const fits = (pod: PodBuilder, p = plugin) =>
    runFilter(p, pod.info, nodes)
      .filter.map((v, i) => (v === 'ok' ? nodes[i]?.name : undefined))
      .filter(Boolean)
      .join(' ');

  it('PreFilter skips a pod without nodeSelector or required affinity', () => {
    assert.equal(runFilter(plugin, makePod('p').info, nodes).preFilter, 'skip');
  });

  it('a rejected node gets the upstream reason, unresolvable', () => {
    assert.deepEqual(runFilter(plugin, makePod('p').nodeSelector({ zone: 'a' }).info, nodes).filter, ['ok', mismatch, mismatch, mismatch]);
  });

  describe('Filter: nodeSelector AND required terms (terms ORed, requirements ANDed)', () => {
    const table: Array<[why: string, pod: PodBuilder, fits: string]> = [
      ['nodeSelector zone=a', makePod('p').nodeSelector({ zone: 'a' }), 'n1'],
      ['In zone [a, b]', makePod('p').requireNode({ key: 'zone', operator: 'In', values: ['a', 'b'] }), 'n1 n2'],
      [
        'NotIn zone [a]: nodes without the label match',
        makePod('p').requireNode({ key: 'zone', operator: 'NotIn', values: ['a'] }),
        'n2 n3 n4',
      ],
      ['Exists zone', makePod('p').requireNode({ key: 'zone', operator: 'Exists' }), 'n1 n2'],
      ['DoesNotExist zone', makePod('p').requireNode({ key: 'zone', operator: 'DoesNotExist' }), 'n3 n4'],
      [
        'Gt gen 4: integer comparison, a missing or non-integer label never matches',
        makePod('p').requireNode({ key: 'gen', operator: 'Gt', values: ['4'] }),
        'n2',
      ],
      ['Lt gen 4', makePod('p').requireNode({ key: 'gen', operator: 'Lt', values: ['4'] }), 'n1'],
      [
        'two terms are ORed',
        makePod('p')
          .requireNode({ key: 'zone', operator: 'In', values: ['a'] })
          .requireNode({ key: 'gen', operator: 'Gt', values: ['4'] }),
        'n1 n2',
      ],
      [
        'requirements of one term are ANDed',
        makePod('p').requireNode({ key: 'zone', operator: 'In', values: ['a', 'b'] }, { key: 'gen', operator: 'Lt', values: ['4'] }),
        'n1',
      ],
      [
        'nodeSelector AND affinity',
        makePod('p')
          .nodeSelector({ zone: 'b' })
          .requireNode({ key: 'gen', operator: 'Lt', values: ['4'] }),
        '',
      ],
      [
        'matchFields metadata.name',
        makePod('p').requireNodeTerm({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }] }),
        'n2 n3 n4',
      ],
      [
        'a malformed term matches nothing; the others still apply',
        makePod('p')
          .requireNode({ key: 'gen', operator: 'Gt', values: ['high'] })
          .requireNode({ key: 'zone', operator: 'In', values: ['b'] }),
        'n2',
      ],
    ];
    for (const [why, pod, expected] of table) it(`${why} → ${expected || 'none'}`, () => assert.equal(fits(pod), expected));

    it('required affinity without terms matches no node', () => {
      const pod = makePod('p');
      (pod.obj.spec as { affinity?: unknown }).affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
      };
      assert.equal(fits(pod), '');
    });
  });

  describe('PreFilter narrows the candidates to names pinned by matchFields metadata.name In', () => {
    const byName = (...names: string[]) => ({ matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: names }] });
    const table: Array<[why: string, pod: PodBuilder, result: Verdict, names: string[] | undefined]> = [
      ['one term', makePod('p').requireNodeTerm(byName('n2')), 'ok', ['n2']],
      ['terms ORed: the union', makePod('p').requireNodeTerm(byName('n1')).requireNodeTerm(byName('n2', 'n3')), 'ok', ['n1', 'n2', 'n3']],
      [
        'a term without names leaves every node open',
        makePod('p').requireNodeTerm(byName('n1')).requireNode({ key: 'zone', operator: 'Exists' }),
        'ok',
        undefined,
      ],
      [
        'requirements ANDed: the intersection; empty is a conflict',
        makePod('p').requireNodeTerm({ matchFields: [...byName('n1').matchFields, ...byName('n2').matchFields] }),
        { code: Code.UnschedulableAndUnresolvable, reasons: ['pod affinity terms conflict'] },
        undefined,
      ],
    ];
    for (const [why, pod, status, names] of table) {
      it(why, () => {
        const run = runFilter(plugin, pod.info, nodes);
        assert.deepEqual(run.preFilter, status);
        assert.deepEqual(run.preFilterResult?.nodeNames ? [...run.preFilterResult.nodeNames] : undefined, names);
      });
    }
  });

  describe('Score: sum of matching preferred weights, normalized to 100 × score / max', () => {
    it('weights 1 (zone a), 2 (gen > 4), 4 (zone b)', () => {
      const pod = makePod('p')
        .preferNode(1, { key: 'zone', operator: 'In', values: ['a'] })
        .preferNode(2, { key: 'gen', operator: 'Gt', values: ['4'] })
        .preferNode(4, { key: 'zone', operator: 'In', values: ['b'] });
      // n1: 1 → 100×1/6 = 16.7 → 16; n2: 2+4 = 6 → 100; n3, n4: 0
      assert.deepEqual(runScore(plugin, pod.info, nodes), { preScore: 'ok', raw: [1, 6, 0, 0], normalized: [16, 100, 0, 0] });
    });

    it('no node matching: all stay 0', () => {
      const pod = makePod('p').preferNode(5, { key: 'zone', operator: 'In', values: ['z'] });
      assert.deepEqual(runScore(plugin, pod.info, nodes).normalized, [0, 0, 0, 0]);
    });

    it('PreScore skips a pod without preferred terms', () => assert.equal(runScore(plugin, makePod('p').info, nodes).preScore, 'skip'));

    it('a malformed preferred term is an error at PreScore', () => {
      const pod = makePod('p').preferNode(5, { key: 'zone', operator: 'In', values: [] });
      assert.deepEqual(runScore(plugin, pod.info, nodes).preScore, {
        code: Code.Error,
        reasons: [
          "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
        ],
      });
    });
  });

  describe('args.addedAffinity applies to every pod of the profile', () => {
    const added = build(factory, {
      addedAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 5, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] } },
        ],
      },
    });

    it('required: nodes outside it are rejected with the enforced reason, before the pod is looked at', () => {
      const run = runFilter(added, makePod('p').nodeSelector({ zone: 'a' }).info, nodes);
      assert.deepEqual(run, { preFilter: 'ok', filter: ['ok', mismatch, enforced, enforced] });
    });

    it("preferred: adds its weights to the pod's", () => {
      const pod = makePod('p').preferNode(10, { key: 'zone', operator: 'In', values: ['a'] });
      // n1: 10, n2: 5 → 100, 50
      assert.deepEqual(runScore(added, pod.info, nodes), { preScore: 'ok', raw: [10, 5, 0, 0], normalized: [100, 50, 0, 0] });
    });

    it('a pod with no affinity is still filtered and scored', () => {
      assert.equal(fits(makePod('p'), added), 'n1 n2');
      assert.deepEqual(runScore(added, makePod('p').info, nodes).raw, [0, 5, 0, 0]);
    });

    const required = 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution';
    const term = (expr: unknown) => ({
      addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [expr] }] } },
    });
    const table: Array<[args: unknown, error: string]> = [
      [
        term({ key: 'zone', operator: 'Near', values: ['a'] }),
        `${required}.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"`,
      ],
      [
        term({ key: 'zone', operator: 'In', values: [] }),
        `${required}.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`,
      ],
      [
        term({ key: 'zone', operator: 'Exists', values: ['a'] }),
        `${required}.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: ["a"]: values set must be empty for exists and does not exist`,
      ],
      [
        term({ key: 'gen', operator: 'Gt', values: ['1', '2'] }),
        `${required}.nodeSelectorTerms[0].matchExpressions[0].values: Invalid value: ["1","2"]: for 'Gt', 'Lt' operators, exactly one value is required`,
      ],
      [
        term({ key: 'gen', operator: 'Lt', values: ['1.5'] }),
        `${required}.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "1.5": for 'Gt', 'Lt' operators, the value must be an integer`,
      ],
      [
        {
          addedAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }],
            },
          },
        },
        `${required}.nodeSelectorTerms[0].matchFields[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"`,
      ],
      [
        { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: 'zone' } } },
        `${required}.nodeSelectorTerms: Invalid value: "zone": must be a list`,
      ],
      [{ addedAffinity: { nodeAffinity: {} } }, 'unknown field "addedAffinity.nodeAffinity"'],
    ];
    for (const [args, error] of table) it(error, () => assert.equal(argsError(factory, args), `NodeAffinity: ${error}`));
  });
});

// upstream nodeaffinity/node_affinity_test.go Test_isSchedulableAfterNodeChange (the rows giving the
// hint an object of another kind are left out: the queue hands it nodes only).
describe('NodeAffinity queueing hint: isSchedulableAfterNodeChange', () => {
  const pod = makePod('p').requireNode({ key: 'foo', operator: 'In', values: ['bar'] }).obj;
  const enforced = {
    addedAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] }],
      },
    },
  };
  const node = () => makeNode('n');
  const table: Array<[name: string, args: unknown, oldObj: unknown, newObj: unknown, hint: QueueingHint]> = [
    ['skip-queue-on-add', undefined, undefined, node().obj, 'QueueSkip'],
    ['queue-on-add', undefined, undefined, node().labels({ foo: 'bar' }).obj, 'Queue'],
    ['skip-unrelated-changes', undefined, node().obj, node().alloc({}).obj, 'QueueSkip'],
    ['skip-unrelated-changes-on-labels', undefined, node().obj, node().labels({ k: 'v' }).obj, 'QueueSkip'],
    [
      'skip-labels-changes-on-node-from-suitable-to-unsuitable',
      undefined,
      node().labels({ foo: 'bar' }).obj,
      node().labels({ k: 'v' }).obj,
      'QueueSkip',
    ],
    ['queue-on-labels-change-makes-pod-schedulable', undefined, node().obj, node().labels({ foo: 'bar' }).obj, 'Queue'],
    [
      'skip-unrelated-change-that-keeps-pod-schedulable',
      undefined,
      node().labels({ foo: 'bar' }).obj,
      node().alloc({}).labels({ foo: 'bar' }).obj,
      'QueueSkip',
    ],
    ['skip-queue-on-add-scheduler-enforced-node-affinity', enforced, undefined, node().obj, 'QueueSkip'],
    ['queue-on-add-scheduler-enforced-node-affinity', enforced, undefined, node().labels({ foo: 'bar' }).obj, 'Queue'],
  ];
  for (const [name, args, oldObj, newObj, hint] of table) {
    it(name, () => {
      assert.equal(build(factory, args).isSchedulableAfterNodeChange(pod, oldObj, newObj), hint);
    });
  }
});
