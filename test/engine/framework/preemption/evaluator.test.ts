import assert from 'node:assert/strict';
import { seededRandom } from '../../../../src/engine/api/random';
import type { PodDisruptionBudget } from '../../../../src/engine/api/types';
import { CycleState } from '../../../../src/engine/framework/cycle-state';
import { numCandidates, pickOneNodeForPreemption, type Candidate } from '../../../../src/engine/framework/preemption/evaluator';
import { prepareBudgets, splitByPdbViolation } from '../../../../src/engine/framework/preemption/pdb';
import { Framework } from '../../../../src/engine/framework/runtime';
import { DEFAULT_PROFILE } from '../../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../../src/engine/plugins/registry';
import { makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../../builders';

const low = 0;
const mid = 100;
const high = 1000;
const neg = -100;

/** A candidate as the dry run leaves it: victims highest priority first. */
function candidate(node: string, victims: PodBuilder[], pdbViolations = 0): Candidate {
  return { node, victims: victims.map((v) => v.info), violating: new Set(), pdbViolations };
}

describe('engine/framework/preemption/evaluator', () => {
  // pkg/scheduler/framework/preemption/preemption_test.go, TestPickOneNodeForPreemption, and
  // default_preemption_test.go, TestSelectBestCandidate: the criteria in order, each deciding only
  // when the ones before it tie. Each row shows the numbers the deciding criterion compares.
  describe('pickOneNodeForPreemption: fewest PDB violations, lowest highest victim, smallest sum, fewest victims, latest start', () => {
    const table: Array<[name: string, candidates: Candidate[], chosen: string, lost: Record<string, string>]> = [
      [
        'fewer PDB violations wins before anything else (1 < 2, although its victim is of higher priority)',
        [
          candidate('node1', [makePod('a').priority(high)], 1),
          candidate('node2', [makePod('b').priority(low), makePod('c').priority(low)], 2),
        ],
        'node1',
        { node2: 'fewer PDB violations' },
      ],
      [
        'node with min highest priority pod is picked (low 0 < mid 100)',
        [candidate('node1', [makePod('a').priority(mid)]), candidate('node2', [makePod('b').priority(low)])],
        'node2',
        { node1: 'lower highest victim priority' },
      ],
      [
        'when highest priorities are the same, minimum sum of lower priority pods is used (100 + -100 < 100 + 0, each shifted by 2^31)',
        [
          candidate('node1', [makePod('a').priority(mid), makePod('b').priority(low)]),
          candidate('node2', [makePod('c').priority(mid), makePod('d').priority(neg)]),
        ],
        'node2',
        { node1: 'smaller sum of victim priorities' },
      ],
      [
        'when highest priority and sum are the same, minimum number of pods is used (2^31 shifts make -2^31 + 0 + 3·2^31 = 0 + 2·2^31)',
        [
          candidate('node1', [makePod('a').priority(mid), makePod('b').priority(-2147483648), makePod('c').priority(low)]),
          candidate('node2', [makePod('d').priority(mid), makePod('e').priority(low)]),
        ],
        'node2',
        { node1: 'fewer victims' },
      ],
      [
        "same priority, same number of victims, different start time for each node's pod (2024-01-02 is later)",
        [
          candidate('node1', [makePod('a').priority(low).started('2024-01-01T00:00:00Z')]),
          candidate('node2', [makePod('b').priority(low).started('2024-01-02T00:00:00Z')]),
        ],
        'node2',
        { node1: 'later start of the highest-priority victims' },
      ],
      [
        'only the highest-priority victims count for the start time (node1: mid started 01-03; node2: mid started 01-02, its earlier low one is ignored)',
        [
          candidate('node1', [
            makePod('a').priority(mid).started('2024-01-03T00:00:00Z'),
            makePod('b').priority(neg).started('2024-01-05T00:00:00Z'),
          ]),
          candidate('node2', [
            makePod('c').priority(mid).started('2024-01-02T00:00:00Z'),
            makePod('d').priority(low).started('2023-01-01T00:00:00Z'),
          ]),
        ],
        'node1',
        { node2: 'smaller sum of victim priorities' },
      ],
      [
        'a full tie: the first candidate (the dry run starts at a random offset)',
        [candidate('node1', [makePod('a').priority(low)]), candidate('node2', [makePod('b').priority(low)])],
        'node1',
        { node2: 'earlier in candidate order' },
      ],
    ];
    for (const [name, candidates, chosen, lost] of table) {
      it(name, () => {
        const picked = pickOneNodeForPreemption(candidates);
        assert.equal(picked.chosen.node, chosen);
        assert.deepEqual(Object.fromEntries(picked.lost), lost);
      });
    }
  });

  // default_preemption_test.go, TestCalculateNumCandidates
  describe('numCandidates (upstream TestCalculateNumCandidates)', () => {
    const table: Array<[string, number, number, number, number]> = [
      ['no nodes', 0, 10, 100, 0],
      ['nodes less than minCandidateNodesAbsolute', 50, 10, 100, 50],
      ['nodes ×10% less than minCandidateNodesAbsolute', 500, 10, 100, 100],
      ['nodes ×10% more than minCandidateNodesAbsolute (10000 × 10 / 100 = 1000)', 10000, 10, 100, 1000],
      ['nodes ×percentage less than the absolute, rounding down (123 × 10 / 100 = 12 < 100 → 100)', 123, 10, 100, 100],
      ['all nodes when the percentage is 100', 1000, 100, 0, 1000],
    ];
    for (const [name, nodes, minCandidateNodesPercentage, minCandidateNodesAbsolute, want] of table) {
      it(name, () => assert.equal(numCandidates(nodes, { minCandidateNodesPercentage, minCandidateNodesAbsolute }), want));
    }
  });

  // default_preemption_test.go, TestFilterPodsWithPDBViolation (shape): each victim spends the
  // allowance of every budget that matches it; the one that takes it below zero violates.
  describe('PodDisruptionBudgets', () => {
    const labelled = (name: string, app: string): PodBuilder => makePod(name).labels({ app }).node('n1');
    const budget = (
      app: string,
      status?: PodDisruptionBudget['status'],
      spec: PodDisruptionBudget['spec'] = { selector: { matchLabels: { app } }, minAvailable: 1 },
    ): PodDisruptionBudget => ({
      metadata: { name: `pdb-${app}`, namespace: 'default' },
      spec,
      ...(status ? { status } : {}),
    });
    const table: Array<[string, PodBuilder[], PodDisruptionBudget[], string[]]> = [
      [
        'one disruption allowed: the first matching victim is fine, the second violates',
        [labelled('a', 'web'), labelled('b', 'web')],
        [budget('web', { disruptionsAllowed: 1 })],
        ['b'],
      ],
      [
        'a pod already among the disrupted pods spends nothing',
        [labelled('a', 'web'), labelled('b', 'web')],
        [budget('web', { disruptionsAllowed: 1, disruptedPods: { a: '2024-01-01T00:00:00Z' } })],
        [],
      ],
      [
        'another namespace does not match',
        [makePod('a', 'other').labels({ app: 'web' }).node('n1')],
        [budget('web', { disruptionsAllowed: 0 })],
        [],
      ],
      [
        'an empty selector matches nothing',
        [labelled('a', 'web')],
        [budget('web', { disruptionsAllowed: 0 }, { selector: {}, minAvailable: 1 })],
        [],
      ],
      [
        'without status: minAvailable 1 of 2 matching bound pods leaves 1 disruption (2 − 1)',
        [labelled('a', 'web'), labelled('b', 'web')],
        [budget('web')],
        ['b'],
      ],
      [
        'without status: maxUnavailable 50% of 2 rounds up to 1 disruption',
        [labelled('a', 'web'), labelled('b', 'web')],
        [budget('web', undefined, { selector: { matchLabels: { app: 'web' } }, maxUnavailable: '50%' })],
        ['b'],
      ],
    ];
    for (const [name, victims, pdbs, violating] of table) {
      it(name, () => {
        const budgets = prepareBudgets(
          pdbs,
          victims.map((v) => v.obj),
        );
        assert.deepEqual(
          splitByPdbViolation(
            victims.map((v) => v.info),
            budgets,
          ).violating.map((v) => v.pod.metadata.name),
          violating,
        );
      });
    }
  });

  describe('the whole cycle: victims, and why the other candidates lost (what explain shows)', () => {
    function cycle(pod: PodBuilder, nodes: NodeBuilder[], pods: PodBuilder[], pdbs: PodDisruptionBudget[] = []) {
      const registry = inTreeRegistry();
      assert.ok(registry.ok);
      const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
      assert.ok(framework.ok);
      framework.value.useObjects({ podDisruptionBudgets: pdbs });
      const result = framework.value.scheduleOne(new CycleState(), pod.info, snapshotOf(nodes, pods));
      assert.equal(result.ok, false);
      return result.ok ? undefined : result;
    }

    it('a preemptor whose victims are on two candidate nodes: the node with the lower highest victim wins', () => {
      const nodes = [
        makeNode('n1').alloc({ cpu: '2', memory: '4Gi', pods: '10' }),
        makeNode('n2').alloc({ cpu: '2', memory: '4Gi', pods: '10' }),
      ];
      const pods = [
        makePod('batch-1').req({ cpu: '1' }).priority(mid).node('n1'),
        makePod('batch-2').req({ cpu: '1' }).priority(low).node('n1'),
        makePod('batch-3').req({ cpu: '1' }).priority(low).node('n2'),
        makePod('batch-4').req({ cpu: '1' }).priority(low).node('n2'),
      ];
      const result = cycle(makePod('urgent').req({ cpu: '2' }).priority(high), nodes, pods);
      assert.equal(result?.nominatedNode, 'n2');
      assert.deepEqual(
        result?.victims?.map((v) => v.key),
        ['default/batch-3', 'default/batch-4'],
      );
      assert.equal(
        result?.diagnosis.message,
        '0/2 nodes are available: 2 Insufficient cpu. preemption: found a potential placement for pod on node n2, preempting 2 victims',
      );
      assert.deepEqual(
        // In node order (the dry run starts at a random node).
        [...(result?.diagnosis.preemption?.candidates ?? [])]
          .sort((a, b) => a.node.localeCompare(b.node))
          .map((c) => [c.node, c.victims.map((v) => `${v.pod}:${v.priority}`), c.lostOn ?? 'chosen']),
        [
          ['n1', ['default/batch-1:100', 'default/batch-2:0'], 'lower highest victim priority'],
          ['n2', ['default/batch-3:0', 'default/batch-4:0'], 'chosen'],
        ],
      );
    });

    it('only as many victims as needed: the more important lower-priority pod is reprieved', () => {
      const node = makeNode('n1').alloc({ cpu: '3', memory: '4Gi', pods: '10' });
      const pods = [
        makePod('keep').req({ cpu: '1' }).priority(mid).node('n1'),
        makePod('evict').req({ cpu: '1' }).priority(low).node('n1'),
        makePod('also').req({ cpu: '1' }).priority(low).started('2024-01-01T00:00:00Z').node('n1'),
      ];
      const result = cycle(makePod('urgent').req({ cpu: '1' }).priority(high), [node], pods);
      // Removing all three frees 3 cpu; adding back keep (mid) then also (started earlier, so more important) leaves 1: evict goes.
      assert.deepEqual(
        result?.victims?.map((v) => v.key),
        ['default/evict'],
      );
    });

    it('PodDisruptionBudgets are respected where possible: the protected pod is reprieved first', () => {
      const node = makeNode('n1').alloc({ cpu: '4', memory: '4Gi', pods: '2' });
      const pods = [makePod('guarded').labels({ app: 'db' }).node('n1'), makePod('free').node('n1')];
      const pdbs: PodDisruptionBudget[] = [
        {
          metadata: { name: 'db', namespace: 'default' },
          spec: { selector: { matchLabels: { app: 'db' } } },
          status: { disruptionsAllowed: 0 },
        },
      ];
      const result = cycle(makePod('urgent').priority(high), [node], pods, pdbs);
      assert.deepEqual(
        result?.victims?.map((v) => v.key),
        ['default/free'],
      );
      assert.equal(result?.diagnosis.preemption?.candidates[0]?.pdbViolations, 0);
    });

    it('and broken only when nothing else makes room, counted as a violation', () => {
      const node = makeNode('n1').alloc({ cpu: '4', memory: '4Gi', pods: '1' });
      const pods = [makePod('guarded').labels({ app: 'db' }).node('n1')];
      const pdbs: PodDisruptionBudget[] = [
        {
          metadata: { name: 'db', namespace: 'default' },
          spec: { selector: { matchLabels: { app: 'db' } } },
          status: { disruptionsAllowed: 0 },
        },
      ];
      const result = cycle(makePod('urgent').priority(high), [node], pods, pdbs);
      assert.deepEqual(
        result?.diagnosis.preemption?.candidates.map((c) => [c.node, c.pdbViolations, c.victims.map((v) => v.violatesPdb)]),
        [['n1', 1, [true]]],
      );
    });

    it('a pod that no preemption can help: the message with the preemption part exactly as a 1.35 cluster prints it', () => {
      const nodes = [
        makeNode('gpu').taint('dedicated', 'gpu'),
        makeNode('small').alloc({ cpu: '1', memory: '4Gi', pods: '10' }),
        makeNode('busy').alloc({ cpu: '4', memory: '4Gi', pods: '10' }),
      ];
      const pods = [makePod('peer').req({ cpu: '3' }).priority(high).node('busy')];
      const result = cycle(makePod('urgent').req({ cpu: '2' }).priority(high), nodes, pods);
      assert.equal(
        result?.diagnosis.message,
        '0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.',
      );
    });
  });
});
