import assert from 'node:assert/strict';
import { fieldInvalid, fieldUnknown } from '../../../src/engine/api/field';
import { seededRandom } from '../../../src/engine/api/random';
import { err, ok } from '../../../src/engine/api/result';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import type {
  BindPlugin,
  CheckConflictsPlugin,
  PreBindPlugin,
  FilterPlugin,
  FrameworkHandle,
  PermitPlugin,
  Plugin,
  PostFilterPlugin,
  PreFilterPlugin,
  PreScorePlugin,
  QueuedPodInfo,
  ReservePlugin,
  SampleNodesPlugin,
  ScorePlugin,
} from '../../../src/engine/framework/interfaces';
import type { NodeInfoLister } from '../../../src/engine/framework/node-info';
import type { Profile } from '../../../src/engine/framework/profile';
import type { Registry } from '../../../src/engine/framework/registry';
import { Framework, type ScheduleFailure, type ScheduleResult } from '../../../src/engine/framework/runtime';
import { Code, errorStatus, SKIP, SUCCESS, unresolvable, unschedulable, type Status } from '../../../src/engine/framework/status';
import { makePod } from '../../builders';
import { clusterOf, frameworkOf, pod, preFilter, prioritySort, registryOf, rejects, scheduleOn, scores, throws } from './fakes';

// ---- fakes: each does one thing, named for it ----

const failure = (result: ScheduleResult | ScheduleFailure): ScheduleFailure => {
  assert.equal(result.ok, false, 'expected the pod not to be placed');
  return result as ScheduleFailure;
};
const success = (result: ScheduleResult | ScheduleFailure): ScheduleResult => {
  assert.equal(result.ok, true, `expected the pod to be placed: ${result.diagnosis.message ?? ''}`);
  return result as ScheduleResult;
};
const names = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `n${from + i}`);

describe('engine/framework/runtime', () => {
  describe('building a framework from a registry and a profile', () => {
    it('builds each plugin once, with its pluginConfig args and a handle whose snapshot is the cycle in progress', () => {
      const built: Array<{ args: unknown; handle: FrameworkHandle }> = [];
      let seen: NodeInfoLister | undefined;
      const registry = registryOf(prioritySort);
      registry.register('Fit', (args, handle) => {
        built.push({ args, handle });
        return ok({ name: 'Fit', filter: () => ((seen = handle.snapshot()), SUCCESS), score: () => 50 } as Plugin);
      });
      const profile: Profile = {
        schedulerName: 'p',
        plugins: {
          queueSort: { enabled: [{ name: 'PrioritySort' }] },
          filter: { enabled: [{ name: 'Fit' }] },
          score: { enabled: [{ name: 'Fit', weight: 2 }] },
        },
        pluginConfig: [{ name: 'Fit', args: { ratio: 2 } }],
      };
      const framework = Framework.build(registry, profile, { random: seededRandom(1) });
      assert.ok(framework.ok);
      assert.deepEqual(
        built.map((b) => b.args),
        [{ ratio: 2 }],
      );
      const snapshot = clusterOf(2);
      framework.value.scheduleOne(new CycleState(), pod(), snapshot);
      assert.equal(seen, snapshot);
      assert.equal(framework.value.handle, built[0]?.handle);
      assert.deepEqual(framework.value.plugins.points.filter, ['Fit']);
    });

    const fit = { name: 'Fit', filter: () => SUCCESS };
    const table: Array<
      [what: string, registry: () => Registry, profile: Omit<Profile, 'schedulerName'>, errors: Array<[Array<string | number>, string]>]
    > = [
      [
        "a factory's errors name the plugin and point at each field of its args",
        () => {
          const r = registryOf(prioritySort);
          r.register('Fit', () =>
            err({ plugin: 'Fit', errors: [fieldInvalid(['ratio'], 'x', 'must be a number'), fieldUnknown(['shape', 'points'])] }),
          );
          return r;
        },
        {
          plugins: { multiPoint: { enabled: [{ name: 'PrioritySort' }, { name: 'Fit' }] } },
          pluginConfig: [{ name: 'Fit', args: { ratio: 'x', shape: { points: [] } } }],
        },
        [
          [['pluginConfig', 0, 'args', 'ratio'], 'profile p: plugin Fit: ratio: Invalid value: "x": must be a number'],
          [['pluginConfig', 0, 'args', 'shape', 'points'], 'profile p: plugin Fit: unknown field "shape.points"'],
        ],
      ],
      [
        'a factory that throws is an error too',
        () => {
          const r = registryOf(prioritySort);
          r.register('Fit', throws);
          return r;
        },
        { plugins: { multiPoint: { enabled: [{ name: 'PrioritySort' }, { name: 'Fit' }] } } },
        [[['plugins'], 'profile p: plugin Fit: boom']],
      ],
      [
        'exactly one queueSort plugin',
        () => registryOf(fit),
        { plugins: { filter: { enabled: [{ name: 'Fit' }] } } },
        [[['plugins', 'queueSort'], 'profile p: exactly one queueSort plugin must be enabled, not 0']],
      ],
      [
        'a plugin enabled at a stage it does not implement',
        () => registryOf(prioritySort, fit),
        { plugins: { queueSort: { enabled: [{ name: 'PrioritySort' }] }, score: { enabled: [{ name: 'Fit' }] } } },
        [[['plugins', 'score', 'enabled', 0, 'name'], 'profile p: plugin Fit enabled at score does not implement it']],
      ],
      [
        'an invalid profile is reported before anything is built',
        () => registryOf(prioritySort, fit),
        { plugins: { multiPoint: { enabled: [{ name: 'PrioritySort' }, { name: 'Fit' }] } }, commitCandidates: 0 },
        [[['commitCandidates'], 'profile p: commitCandidates must be an integer of at least 1']],
      ],
    ];
    for (const [what, registry, profile, errors] of table) {
      it(what, () => {
        const built = Framework.build(registry(), { schedulerName: 'p', ...profile }, { random: seededRandom(1) });
        assert.equal(built.ok, false);
        if (!built.ok)
          assert.deepEqual(
            built.error.map((e) => [e.path, e.message]),
            errors,
          );
      });
    }
  });

  describe('queue order', () => {
    const queued = (priority: number, timestamp: number): QueuedPodInfo => ({
      info: makePod(`p${priority}`).priority(priority).info,
      timestamp,
      attempts: 0,
    });
    it("is the queueSort plugin's", () => {
      const framework = frameworkOf([]);
      assert.equal(framework.queueSortLess(queued(10, 2), queued(1, 1)), true);
      assert.equal(framework.queueSortLess(queued(1, 1), queued(10, 2)), false);
    });
    it('falls back to arrival order when the plugin throws, so the queue keeps moving', () => {
      const registry = registryOf({ name: 'Broken', less: throws } as Plugin);
      const framework = Framework.build(
        registry,
        { schedulerName: 'p', plugins: { queueSort: { enabled: [{ name: 'Broken' }] } } },
        { random: seededRandom(1) },
      );
      assert.ok(framework.ok);
      assert.equal(framework.value.queueSortLess(queued(10, 2), queued(1, 1)), false);
    });
  });

  describe('Filter: each node stops at its first rejection, and the Diagnosis records why', () => {
    const cordoned = () => rejects('Cordon', ['n0'], 'node(s) were unschedulable', Code.UnschedulableAndUnresolvable);
    const tainted = () =>
      rejects('Taints', ['n1', 'n2'], 'node(s) had untolerated taint {dedicated: gpu}', Code.UnschedulableAndUnresolvable);

    it('no node fits: every rejection with plugin, stage, code and reasons; counts per filter; the upstream message', () => {
      const fit = rejects('Fit', ['n0', 'n3', 'n4'], 'Insufficient cpu');
      const result = failure(scheduleOn(frameworkOf([cordoned(), tainted(), fit]), 5));
      const d = result.diagnosis;
      assert.deepEqual(d.rejections, [
        { node: 'n0', plugin: 'Cordon', stage: 'Filter', code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) were unschedulable'] },
        {
          node: 'n1',
          plugin: 'Taints',
          stage: 'Filter',
          code: Code.UnschedulableAndUnresolvable,
          reasons: ['node(s) had untolerated taint {dedicated: gpu}'],
        },
        {
          node: 'n2',
          plugin: 'Taints',
          stage: 'Filter',
          code: Code.UnschedulableAndUnresolvable,
          reasons: ['node(s) had untolerated taint {dedicated: gpu}'],
        },
        { node: 'n3', plugin: 'Fit', stage: 'Filter', code: Code.Unschedulable, reasons: ['Insufficient cpu'] },
        { node: 'n4', plugin: 'Fit', stage: 'Filter', code: Code.Unschedulable, reasons: ['Insufficient cpu'] },
      ]);
      assert.deepEqual(d.filters, [
        { plugin: 'Cordon', evaluated: 5, passed: 4 },
        { plugin: 'Taints', evaluated: 4, passed: 2 },
        { plugin: 'Fit', evaluated: 2, passed: 0 },
      ]);
      assert.deepEqual(fit.seen, ['n3', 'n4'], 'Fit never sees a node an earlier filter rejected');
      const message =
        '0/5 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: gpu}.';
      assert.deepEqual(
        result.status,
        { code: Code.Unschedulable, reasons: [message], stage: 'Filter' },
        'resolvable: some nodes only lack cpu',
      );
      assert.deepEqual(
        {
          pod: d.pod,
          profile: d.profile,
          nodesTotal: d.nodesTotal,
          nodesEvaluated: d.nodesEvaluated,
          feasibleNodes: d.feasibleNodes,
          scores: d.scores,
          stages: d.stages,
          message: d.message,
          status: d.status,
        },
        {
          pod: 'default/web',
          profile: 'test',
          nodesTotal: 5,
          nodesEvaluated: 5,
          feasibleNodes: 0,
          scores: [],
          stages: [],
          message,
          status: result.status,
        },
      );
      assert.equal(result.evaluatedNodes, 5);
    });

    it('the verdict is unresolvable only when every rejection is, and names the plugin when only one rejected', () => {
      const result = failure(
        scheduleOn(
          frameworkOf([rejects('Taints', names(3), 'node(s) had untolerated taint {dedicated: gpu}', Code.UnschedulableAndUnresolvable)]),
          3,
        ),
      );
      assert.equal(result.status.code, Code.UnschedulableAndUnresolvable);
      assert.equal(result.status.plugin, 'Taints');
    });

    it('some nodes fit: the chosen node, the candidates and every field of the Diagnosis', () => {
      const result = success(scheduleOn(frameworkOf([cordoned(), tainted(), scores('Rank', { n3: 10, n4: 20 })]), 5));
      assert.equal(result.suggestedHost, 'n4');
      assert.deepEqual(result.candidates, ['n4', 'n3']);
      assert.equal(result.feasibleNodes, 2);
      const d = result.diagnosis;
      assert.deepEqual(
        Object.keys(d).sort(),
        [
          'chosenNode',
          'feasibleNodes',
          'filters',
          'nodesEvaluated',
          'nodesTotal',
          'pod',
          'profile',
          'rejections',
          'scores',
          'stages',
          'status',
        ].sort(),
      );
      assert.equal(d.chosenNode, 'n4');
      assert.equal(d.status.code, Code.Success);
      assert.deepEqual(
        d.rejections.map((r) => r.node),
        ['n0', 'n1', 'n2'],
      );
      assert.deepEqual(
        d.scores.map((s) => [s.node, s.total]),
        [
          ['n4', 20],
          ['n3', 10],
        ],
      );
    });

    it('a filter returning Error aborts the cycle with that status, not a rejection', () => {
      const broken: FilterPlugin = {
        name: 'Broken',
        filter: (_s, _p, node) => (node.name === 'n1' ? errorStatus('cache out of sync') : SUCCESS),
      };
      const result = failure(scheduleOn(frameworkOf([broken]), 3));
      assert.deepEqual(result.status, { code: Code.Error, reasons: ['cache out of sync'], plugin: 'Broken', stage: 'Filter' });
      assert.equal(result.diagnosis.message, 'cache out of sync');
      assert.deepEqual(
        result.diagnosis.filters,
        [{ plugin: 'Broken', evaluated: 2, passed: 1 }],
        'n0 passed; n1 was evaluated and stopped the cycle',
      );
    });

    it('an empty cluster is said as upstream says it', () => {
      const result = failure(scheduleOn(frameworkOf([]), 0));
      assert.equal(result.diagnosis.message, 'no nodes available to schedule pods');
    });
  });

  describe('PreFilter', () => {
    it('narrows the nodes to the intersection of the subsets; the others are marked as not satisfying those plugins', () => {
      const fit = rejects('Fit', ['n3'], 'Insufficient cpu');
      const framework = frameworkOf([
        preFilter('NodeName', SUCCESS, ['n3', 'n1', 'n9']),
        preFilter('Zone', SUCCESS, ['n1', 'n2', 'n3']),
        fit,
      ]);
      const result = success(scheduleOn(framework, 5));
      assert.equal(result.suggestedHost, 'n1');
      assert.deepEqual(fit.seen, ['n3', 'n1'], 'only the subset is filtered; a name not in the snapshot is dropped');
      assert.equal(result.evaluatedNodes, 2);
      const absent = {
        plugin: 'NodeName',
        stage: 'PreFilter',
        code: Code.UnschedulableAndUnresolvable,
        reasons: ["node(s) didn't satisfy plugin(s) [NodeName Zone]"],
      };
      assert.deepEqual(result.diagnosis.rejections, [
        { node: 'n0', ...absent },
        { node: 'n2', ...absent },
        { node: 'n4', ...absent },
        { node: 'n3', plugin: 'Fit', stage: 'Filter', code: Code.Unschedulable, reasons: ['Insufficient cpu'] },
      ]);
    });

    const rejecting: Array<[what: string, plugins: PreFilterPlugin[], reason: string]> = [
      [
        'subsets with nothing in common reject every node',
        [preFilter('NodeName', SUCCESS, ['n0']), preFilter('Zone', SUCCESS, ['n1'])],
        "node(s) didn't satisfy plugin(s) [NodeName Zone] simultaneously",
      ],
      ['an empty subset from one plugin', [preFilter('NodeName', SUCCESS, [])], "node(s) didn't satisfy plugin NodeName"],
      [
        'a rejection marks every node with its status',
        [preFilter('Volumes', unresolvable('node(s) had volume node affinity conflict'))],
        'node(s) had volume node affinity conflict',
      ],
    ];
    for (const [what, plugins, reason] of rejecting) {
      it(what, () => {
        const filter = rejects('Fit', [], '');
        const result = failure(scheduleOn(frameworkOf([...plugins, filter]), 3));
        assert.equal(result.diagnosis.message, `0/3 nodes are available: ${reason}.`);
        assert.deepEqual([result.status.stage, result.status.reasons], ['PreFilter', [reason]]);
        assert.deepEqual(
          result.diagnosis.rejections.map((r) => [r.node, r.stage, r.reasons]),
          names(3).map((n) => [n, 'PreFilter', [reason]]),
        );
        assert.deepEqual(filter.seen, [], 'Filter does not run');
        assert.deepEqual(result.diagnosis.filters, []);
      });
    }

    it('Unschedulable lets the other PreFilter plugins run (their state serves preemption); UnschedulableAndUnresolvable stops at once', () => {
      const after = preFilter('After', SUCCESS);
      failure(scheduleOn(frameworkOf([preFilter('Quota', unschedulable('quota exceeded')), after]), 2));
      assert.equal(after.calls, 1);
      const afterFinal = preFilter('After', SUCCESS);
      const result = failure(scheduleOn(frameworkOf([preFilter('Quota', unresolvable('never fits')), afterFinal]), 2));
      assert.equal(afterFinal.calls, 0);
      assert.deepEqual(result.diagnosis.stages, [
        {
          stage: 'PreFilter',
          plugin: 'Quota',
          status: { code: Code.UnschedulableAndUnresolvable, reasons: ['never fits'], plugin: 'Quota', stage: 'PreFilter' },
        },
      ]);
    });
  });

  describe('PostFilter runs when no node fits', () => {
    it('a nominated node is passed on; the message then says nothing of PostFilter (upstream: a Success has no message)', () => {
      const preemption: PostFilterPlugin = {
        name: 'Preemption',
        postFilter: (_s, _p, statuses) => {
          assert.deepEqual([...statuses.keys()], ['n0', 'n1'], 'it sees why each node was rejected');
          return { status: SUCCESS, result: { nominatedNode: 'n1' } };
        },
      };
      const none: PostFilterPlugin = { name: 'NoVictims', postFilter: () => ({ status: unschedulable('preemption: no victims found') }) };
      const result = failure(scheduleOn(frameworkOf([rejects('Fit', names(2), 'Insufficient cpu'), none, preemption]), 2));
      assert.equal(result.nominatedNode, 'n1');
      assert.equal(result.diagnosis.message, '0/2 nodes are available: 2 Insufficient cpu.');
      assert.deepEqual(
        result.diagnosis.stages.map((s) => [s.plugin, s.status.code]),
        [
          ['NoVictims', Code.Unschedulable],
          ['Preemption', Code.Success],
        ],
      );
    });
  });

  describe('Skip', () => {
    it('a PreFilter Skip keeps that plugin out of Filter for the cycle', () => {
      const affinity = { ...preFilter('Affinity', SKIP), ...rejects('Affinity', names(3), 'no') };
      const state = new CycleState();
      const result = success(frameworkOf([affinity, rejects('Fit', [], '')]).scheduleOne(state, pod(), clusterOf(3)));
      assert.deepEqual(affinity.seen, []);
      assert.deepEqual([...state.skipFilterPlugins], ['Affinity']);
      assert.deepEqual(
        result.diagnosis.filters.map((f) => f.plugin),
        ['Fit'],
      );
      assert.deepEqual(
        result.diagnosis.stages.map((s) => [s.stage, s.plugin, s.status.code]),
        [['PreFilter', 'Affinity', Code.Skip]],
      );
    });

    it('a PreScore Skip keeps that plugin out of Score for the cycle', () => {
      const spread: PreScorePlugin & ScorePlugin = { name: 'Spread', preScore: () => SKIP, score: throws };
      const state = new CycleState();
      const result = success(frameworkOf([spread, scores('Rank', { n1: 5 })]).scheduleOne(state, pod(), clusterOf(3)));
      assert.equal(result.suggestedHost, 'n1');
      assert.deepEqual([...state.skipScorePlugins], ['Spread']);
      assert.deepEqual(
        result.diagnosis.scores[0]?.plugins.map((p) => p.plugin),
        ['Rank'],
      );
    });

    it('a Filter Skip has nothing against the node', () => {
      const result = success(scheduleOn(frameworkOf([{ name: 'Shrug', filter: () => SKIP } as FilterPlugin]), 2));
      assert.deepEqual(result.diagnosis.filters, [{ plugin: 'Shrug', evaluated: 2, passed: 2 }]);
    });
  });

  describe('PreFilter and Filter one node at a time (for planners)', () => {
    it('preFilterPod returns the nodes PreFilter leaves; filterNode then runs the filters not skipped on one node', () => {
      const narrow = preFilter('Narrow', SUCCESS, ['n1', 'n2']);
      const skipped = { ...preFilter('Affinity', SKIP), ...rejects('Affinity', names(3), 'no') };
      const fit = rejects('Fit', ['n2'], 'Insufficient cpu');
      const framework = frameworkOf([narrow, skipped, fit]);
      const state = new CycleState();
      const cluster = clusterOf(3);
      const pre = framework.preFilterPod(state, pod(), cluster);
      assert.ok(pre.ok);
      assert.deepEqual(
        pre.nodes.map((n) => n.name),
        ['n1', 'n2'],
      );
      assert.deepEqual(
        pre.nodes.map((n) => framework.filterNode(state, pod(), n)),
        [SUCCESS, { code: Code.Unschedulable, reasons: ['Insufficient cpu'], plugin: 'Fit', stage: 'Filter' }],
      );
      assert.deepEqual(skipped.seen, []);
    });

    it('preFilterPod says what stopped the pod', () => {
      const framework = frameworkOf([preFilter('Ports', unresolvable('node(s) had no free ports'))]);
      assert.deepEqual(framework.preFilterPod(new CycleState(), pod(), clusterOf(2)), {
        ok: false,
        status: { code: Code.UnschedulableAndUnresolvable, reasons: ['node(s) had no free ports'], plugin: 'Ports', stage: 'PreFilter' },
      });
    });

    it('a filter that throws is an Error naming it', () => {
      const framework = frameworkOf([{ name: 'Broken', filter: throws } as FilterPlugin]);
      const state = new CycleState();
      const [node] = clusterOf(1).list();
      assert.ok(node && framework.preFilterPod(state, pod(), clusterOf(1)).ok);
      assert.deepEqual(framework.filterNode(state, pod(), node), {
        code: Code.Error,
        reasons: ['plugin Broken threw at Filter: boom'],
        plugin: 'Broken',
        stage: 'Filter',
      });
    });
  });

  describe('Score: totals are the sum of normalized score × weight', () => {
    // Spread (weight 2) normalizes 10/50/30 to 20/100/60; Balance (weight 1) is taken raw.
    //   n0: 20×2 + 90 = 130   n1: 100×2 + 0 = 200   n2: 60×2 + 70 = 190
    const plugins = () => [scores('Spread', { n0: 10, n1: 50, n2: 30 }, true), scores('Balance', { n0: 90, n1: 0, n2: 70 })];

    it('records raw, normalized, weight and weighted per plugin, best node first', () => {
      const result = success(scheduleOn(frameworkOf(plugins(), {}, { Spread: 2 }), 3));
      assert.equal(result.suggestedHost, 'n1');
      assert.deepEqual(result.candidates, ['n1', 'n2', 'n0']);
      assert.deepEqual(result.diagnosis.scores, [
        {
          node: 'n1',
          total: 200,
          plugins: [
            { plugin: 'Spread', raw: 50, normalized: 100, weight: 2, weighted: 200 },
            { plugin: 'Balance', raw: 0, normalized: 0, weight: 1, weighted: 0 },
          ],
        },
        {
          node: 'n2',
          total: 190,
          plugins: [
            { plugin: 'Spread', raw: 30, normalized: 60, weight: 2, weighted: 120 },
            { plugin: 'Balance', raw: 70, normalized: 70, weight: 1, weighted: 70 },
          ],
        },
        {
          node: 'n0',
          total: 130,
          plugins: [
            { plugin: 'Spread', raw: 10, normalized: 20, weight: 2, weighted: 40 },
            { plugin: 'Balance', raw: 90, normalized: 90, weight: 1, weighted: 90 },
          ],
        },
      ]);
    });

    it('keeps only the top commitCandidates as candidates and the top recordScores as records', () => {
      const result = success(scheduleOn(frameworkOf(plugins(), { commitCandidates: 2, recordScores: 1 }, { Spread: 2 }), 3));
      assert.deepEqual(result.candidates, ['n1', 'n2']);
      assert.deepEqual(
        result.diagnosis.scores.map((s) => s.node),
        ['n1'],
      );
    });

    for (const recordScores of [9, 30]) {
      it(`ranks many nodes by total, ties in evaluation order (keeping ${recordScores} records)`, () => {
        // n9, n19, n29, n39 score 9; n8 … n38 score 8; n7 … 7.
        const raw = Object.fromEntries(names(40).map((n, i) => [n, i % 10]));
        const result = success(scheduleOn(frameworkOf([scores('Rank', raw)], { commitCandidates: 5, recordScores }), 40));
        const best = result.suggestedHost;
        const nines = ['n9', 'n19', 'n29', 'n39'].filter((n) => n !== best);
        assert.equal(nines.length, 3, 'the host is one of the best');
        assert.deepEqual(result.candidates, [best, ...nines, 'n8']);
        assert.deepEqual(
          result.diagnosis.scores.slice(0, 9).map((s) => s.node),
          [best, ...nines, 'n8', 'n18', 'n28', 'n38', 'n7'].slice(0, 9),
        );
        assert.equal(result.diagnosis.scores.length, recordScores);
      });
    }

    it('a score outside 0..100 after normalizing is an Error naming the plugin', () => {
      const result = failure(scheduleOn(frameworkOf([scores('Greedy', { n0: 150 })]), 2));
      assert.deepEqual(result.status, {
        code: Code.Error,
        reasons: ['plugin Greedy returned an invalid score 150 for node n0, it should be in the range [0, 100] after normalizing'],
        plugin: 'Greedy',
        stage: 'Score',
      });
    });

    it('a single feasible node is chosen without scoring, as upstream', () => {
      const result = success(
        scheduleOn(
          frameworkOf([rejects('Fit', ['n0'], 'Insufficient cpu'), { name: 'Unused', preScore: throws, score: throws } as Plugin]),
          2,
        ),
      );
      assert.equal(result.suggestedHost, 'n1');
      assert.deepEqual(result.diagnosis.scores, []);
    });
  });

  describe('ties are broken by the injected random source', () => {
    const choose = (seed: number) => success(scheduleOn(frameworkOf([scores('Flat', {})], {}, {}, seed), 10)).suggestedHost;
    it('the same seed chooses the same node', () => {
      assert.deepEqual([1, 2, 3, 4, 5].map(choose), [1, 2, 3, 4, 5].map(choose));
    });
    it('across seeds every tied node gets chosen', () => {
      assert.equal(new Set(Array.from({ length: 200 }, (_, seed) => choose(seed))).size, 10);
    });
  });

  describe('sampling within a cycle', () => {
    const table: Array<[nodes: number, profile: Omit<Partial<Profile>, 'plugins'>, evaluated: number]> = [
      [1000, {}, 420],
      [5000, {}, 500],
      [1000, { percentageOfNodesToScore: 20 }, 200],
      [1000, { sampling: { strategy: 'fixed', basisPoints: 250 } }, 25],
    ];
    for (const [nodes, profile, evaluated] of table) {
      it(`${nodes} nodes, ${JSON.stringify(profile)}: stops after ${evaluated} feasible nodes`, () => {
        const result = success(scheduleOn(frameworkOf([rejects('Fit', [], '')], { ...profile, recordScores: 0 }), nodes));
        assert.equal(result.evaluatedNodes, evaluated);
        assert.equal(result.feasibleNodes, evaluated);
        assert.equal(result.diagnosis.nodesTotal, nodes);
      });
    }

    it('round robin: the next cycle starts after the nodes this one processed, rejected ones included', () => {
      const fit = rejects('Fit', names(10), 'Insufficient cpu');
      const framework = frameworkOf([fit], { sampling: { strategy: 'fixed', basisPoints: 1000 } });
      const snapshot = clusterOf(300);
      const firsts: string[] = [];
      for (let cycle = 0; cycle < 3; cycle++) {
        fit.seen.length = 0;
        framework.scheduleOne(new CycleState(), pod(), snapshot);
        firsts.push(fit.seen[0] as string);
      }
      assert.deepEqual(firsts, ['n0', 'n40', 'n70'], '10 rejected + 30 feasible, then 30 feasible each');
    });

    it('random order starts where the injected source says', () => {
      const fit = rejects('Fit', [], '');
      frameworkOf([fit], { sampling: { order: 'random' } }, {}, 7).scheduleOne(new CycleState(), pod(), clusterOf(300));
      assert.equal(fit.seen[0], `n${seededRandom(7).int(300)}`);
    });

    it('a SampleNodes plugin chooses which nodes to evaluate and in what order', () => {
      const fit = rejects('Fit', [], '');
      const backwards: SampleNodesPlugin = {
        name: 'Backwards',
        sampleNodes: (_s, _p, nodes, count) => [...nodes].reverse().slice(0, count + 1),
      };
      const result = success(scheduleOn(frameworkOf([backwards, fit], { sampling: { strategy: 'fixed', basisPoints: 3000 } }), 10));
      assert.deepEqual(fit.seen, ['n9', 'n8', 'n7'], 'still stops once enough nodes are feasible');
      assert.equal(result.evaluatedNodes, 3);
    });
  });

  describe('verdicts and raw scores of plugins with a key are remembered per node until the node changes', () => {
    /** A filter rejecting `nodes` and a scorer counting pods, both keyed by the pod's "shape" label; calls are counted. */
    function keyed(rejected: string[], verdict: Status = unschedulable('too small')) {
      const calls = { filter: 0, score: 0 };
      const shape = (p: { pod: { metadata: { labels?: Record<string, string> } } }) => p.pod.metadata.labels?.['shape'] ?? '';
      const filter: FilterPlugin = {
        name: 'KeyedFilter',
        filter: (_s, _p, node) => (calls.filter++, rejected.includes(node.name) ? verdict : SUCCESS),
        filterKey: (_s, p) => shape(p),
      };
      const score: ScorePlugin = {
        name: 'KeyedScore',
        score: (_s, _p, node) => (calls.score++, node.pods.length),
        scoreKey: (_s, p) => shape(p),
      };
      return { calls, framework: frameworkOf([filter, score]) };
    }
    const shaped = (name: string, shape: string) => makePod(name).labels({ shape }).info;

    it('asks once per node and key; a node changed since is asked again, and decides as a fresh cycle would', () => {
      const { calls, framework } = keyed(['n0']);
      const snapshot = clusterOf(4);
      const first = success(framework.scheduleOne(new CycleState(), shaped('a', 'small'), snapshot));
      assert.deepEqual(calls, { filter: 4, score: 3 });
      const again = success(framework.scheduleOne(new CycleState(), shaped('b', 'small'), snapshot));
      assert.deepEqual(calls, { filter: 4, score: 3 }, 'same key, nothing changed: nothing asked');
      assert.deepEqual(again.diagnosis.rejections, first.diagnosis.rejections);
      const byNode = (r: ScheduleResult) => [...r.diagnosis.scores].sort((a, b) => a.node.localeCompare(b.node));
      assert.deepEqual(byNode(again), byNode(first), 'the same scores (ties fall where the random source says)');
      snapshot.get('n2')?.addPod(makePod('what-if').info);
      const changed = success(framework.scheduleOne(new CycleState(), shaped('c', 'small'), snapshot));
      assert.deepEqual(calls, { filter: 5, score: 4 }, 'n2 changed: only n2 asked');
      assert.equal(changed.diagnosis.scores.find((r) => r.node === 'n2')?.plugins[0]?.raw, 1);
      framework.scheduleOne(new CycleState(), shaped('d', 'large'), snapshot);
      assert.deepEqual(calls, { filter: 9, score: 7 }, 'another key: every node asked');
    });

    describe('scores summed per node give what scoring plugin by plugin gives', () => {
      const index = (node: { name: string }) => Number(node.name.slice(1));
      const table: Array<[what: string, score: (node: { name: string }) => number | Status | never]> = [
        ['whole scores', (node) => (index(node) * 7) % 10],
        ['a fraction (totals then added in plugin order)', (node) => (index(node) === 2 ? 33.5 : 10)],
        ['a score out of range', (node) => (index(node) === 3 ? 150 : 10)],
        ['an Error', (node) => (index(node) === 1 ? errorStatus('no data') : 10)],
        ['a throw', (node) => (index(node) === 4 ? throws() : 10)],
      ];
      for (const [what, score] of table) {
        it(what, () => {
          const run = (keyed: boolean) => {
            const key = keyed ? { scoreKey: () => 'k' } : {};
            const plugins: ScorePlugin[] = [
              { name: 'First', score: (_s, _p, node) => index(node) % 3, ...key },
              { name: 'Second', score: (_s, _p, node) => score(node), ...key },
              scores('Normalized', { n1: 4, n2: 2 }, true),
            ];
            const framework = frameworkOf(plugins, {}, { First: 2, Second: 3 });
            const snapshot = clusterOf(6);
            framework.scheduleOne(new CycleState(), pod(), snapshot);
            return framework.scheduleOne(new CycleState(), pod(), snapshot);
          };
          assert.deepEqual(run(true), run(false));
        });
      }
    });

    it('an Error is never remembered', () => {
      const { calls, framework } = keyed(['n0'], errorStatus('flaky'));
      const snapshot = clusterOf(2);
      framework.scheduleOne(new CycleState(), shaped('a', 'small'), snapshot);
      framework.scheduleOne(new CycleState(), shaped('b', 'small'), snapshot);
      assert.equal(calls.filter, 2, 'n0 asked in both cycles (the Error stops each cycle at n0)');
    });

    it('a snapshot that cannot tell what changed is asked every time', () => {
      const { calls, framework } = keyed([]);
      const snapshot = clusterOf(3);
      const untracked: NodeInfoLister = {
        list: () => snapshot.list(),
        get: (name) => snapshot.get(name),
        havePodsWithAffinity: () => [],
        havePodsWithRequiredAntiAffinity: () => [],
        imageNumNodes: () => 0,
      };
      framework.scheduleOne(new CycleState(), shaped('a', 'small'), untracked);
      framework.scheduleOne(new CycleState(), shaped('b', 'small'), untracked);
      assert.deepEqual(calls, { filter: 6, score: 6 });
    });
  });

  describe('a plugin that throws becomes an Error status naming it, never a crash', () => {
    const table: Array<[stage: string, plugin: Plugin]> = [
      ['PreFilter', { name: 'Thrower', preFilter: throws } as Plugin],
      ['SampleNodes', { name: 'Thrower', sampleNodes: throws } as Plugin],
      ['Filter', { name: 'Thrower', filter: throws } as Plugin],
      ['PreScore', { name: 'Thrower', preScore: throws } as Plugin],
      ['Score', { name: 'Thrower', score: throws } as Plugin],
      ['NormalizeScore', { name: 'Thrower', score: () => 1, normalizeScore: throws } as Plugin],
    ];
    for (const [stage, plugin] of table) {
      it(stage, () => {
        const result = failure(scheduleOn(frameworkOf([plugin]), 3));
        assert.deepEqual(result.status, {
          code: Code.Error,
          reasons: [`plugin Thrower threw at ${stage}: boom`],
          plugin: 'Thrower',
          stage,
        });
        assert.equal(result.diagnosis.message, `plugin Thrower threw at ${stage}: boom`);
      });
    }
  });

  describe('checkNode: one given node judged as a cycle would judge it', () => {
    const check = (plugins: Plugin[], node = 'n1', nodes = 3) =>
      frameworkOf(plugins).checkNode(new CycleState(), pod(), clusterOf(nodes), node);

    it('runs the filters on that node only and answers Success when they pass', () => {
      const filter = rejects('Fit', ['n0'], 'Insufficient cpu');
      assert.deepEqual(check([filter]), SUCCESS);
      assert.deepEqual(filter.seen, ['n1']);
    });

    it("gives the first rejection with the plugin's reason", () => {
      assert.deepEqual(
        check([
          rejects('Taints', ['n1'], 'untolerated taint', Code.UnschedulableAndUnresolvable),
          rejects('Fit', ['n1'], 'Insufficient cpu'),
        ]),
        {
          code: Code.UnschedulableAndUnresolvable,
          reasons: ['untolerated taint'],
          plugin: 'Taints',
          stage: 'Filter',
        },
      );
    });

    it('PreFilter sees the whole snapshot: its rejection, or a subset leaving the node out, is the answer', () => {
      assert.deepEqual(check([preFilter('Ports', unschedulable('ports in use'))]), {
        code: Code.Unschedulable,
        reasons: ['ports in use'],
        plugin: 'Ports',
        stage: 'PreFilter',
      });
      assert.deepEqual(check([preFilter('Affinity', SUCCESS, ['n2'])]), {
        code: Code.UnschedulableAndUnresolvable,
        reasons: ["node(s) didn't satisfy plugin(s) [Affinity]"],
        plugin: 'Affinity',
        stage: 'PreFilter',
      });
      assert.deepEqual(check([preFilter('Affinity', SUCCESS, ['n1'])]), SUCCESS);
    });

    it('a node not in the snapshot is unresolvable; a filter that throws is an Error', () => {
      assert.deepEqual(check([], 'n9'), { code: Code.UnschedulableAndUnresolvable, reasons: ['node "n9" not found'], stage: 'Filter' });
      assert.equal(check([{ name: 'Broken', filter: throws } as FilterPlugin]).code, Code.Error);
    });
  });

  it('PreEnqueue asks the PreFilter plugins that have it, in order: the first that holds the pod answers, named; a throw is an Error', () => {
    const holding = (name: string, status: Status) => ({ ...preFilter(name, SUCCESS), preEnqueue: () => status });
    const p = makePod('p').info.pod;
    const held = frameworkOf([preFilter('Plain', SUCCESS), holding('First', unresolvable('wait')), holding('Second', unresolvable('no'))]);
    assert.deepEqual(held.preEnqueue(p), { ...unresolvable('wait'), plugin: 'First', stage: 'PreEnqueue' });
    assert.equal(frameworkOf([holding('Fine', SUCCESS)]).preEnqueue(p).code, Code.Success);
    const thrower = { ...preFilter('Thrower', SUCCESS), preEnqueue: throws };
    const thrown = frameworkOf([thrower]).preEnqueue(p);
    assert.deepEqual([thrown.code, thrown.plugin, thrown.stage], [Code.Error, 'Thrower', 'PreEnqueue']);
  });

  describe('commit: the best candidates through Reserve → Permit → CheckConflicts → Bind', () => {
    /** Nodes ranked n2 > n1 > n0, and a binding pipeline that logs each call and fails where told. */
    function pipeline(fail: { permit?: string[]; conflict?: string[]; bind?: string[]; bindThrows?: string[] } = {}) {
      const calls: string[] = [];
      const reserve = (name: string): ReservePlugin => ({
        name,
        reserve: (_s, _p, node) => (calls.push(`${name}.reserve ${node}`), SUCCESS),
        unreserve: (_s, _p, node) => void calls.push(`${name}.unreserve ${node}`),
      });
      const permit: PermitPlugin = {
        name: 'Gate',
        permit: (_s, _p, node) => (calls.push(`permit ${node}`), fail.permit?.includes(node) ? unschedulable('quota exhausted') : SUCCESS),
      };
      const check: CheckConflictsPlugin = {
        name: 'Fresh',
        checkConflicts: async (_s, _p, node) => (
          calls.push(`check ${node}`),
          fail.conflict?.includes(node) ? unschedulable('node changed since the snapshot') : SUCCESS
        ),
      };
      const bind: BindPlugin = {
        name: 'Binder',
        bind: async (_s, _p, node) => {
          calls.push(`bind ${node}`);
          if (fail.bindThrows?.includes(node)) throw new Error('connection reset');
          return fail.bind?.includes(node) ? errorStatus('409 Conflict') : SUCCESS;
        },
      };
      const plugins: Plugin[] = [scores('Rank', { n0: 10, n1: 20, n2: 30 }), reserve('Volumes'), reserve('Quota'), permit, check, bind];
      return { calls, plugins };
    }

    async function commit(plugins: Plugin[], profile: Omit<Partial<Profile>, 'plugins'> = {}) {
      const framework = frameworkOf(plugins, profile);
      const state = new CycleState();
      const p = pod();
      const scheduled = success(framework.scheduleOne(state, p, clusterOf(3)));
      return framework.commit(state, p, scheduled.candidates, scheduled.diagnosis);
    }

    it('binds the best node when all goes well', async () => {
      const { calls, plugins } = pipeline();
      const result = await commit(plugins);
      assert.deepEqual(result.ok && result.node, 'n2');
      assert.deepEqual(calls, ['Volumes.reserve n2', 'Quota.reserve n2', 'permit n2', 'check n2', 'bind n2']);
      assert.equal(result.diagnosis.chosenNode, 'n2');
      assert.deepEqual(
        result.diagnosis.stages.map((s) => `${s.stage} ${s.plugin} ${s.node ?? ''}`),
        ['Reserve Volumes n2', 'Reserve Quota n2', 'Permit Gate n2', 'CheckConflicts Fresh n2', 'Bind Binder n2'],
      );
    });

    it('a bind failure on the first candidate undoes its reservation (in reverse) and falls through to the second', async () => {
      const { calls, plugins } = pipeline({ bind: ['n2'] });
      const result = await commit(plugins);
      assert.equal(result.ok && result.node, 'n1');
      assert.deepEqual(calls, [
        'Volumes.reserve n2',
        'Quota.reserve n2',
        'permit n2',
        'check n2',
        'bind n2',
        'Quota.unreserve n2',
        'Volumes.unreserve n2',
        'Volumes.reserve n1',
        'Quota.reserve n1',
        'permit n1',
        'check n1',
        'bind n1',
      ]);
      assert.equal(result.diagnosis.chosenNode, 'n1');
      assert.deepEqual(result.diagnosis.status, SUCCESS);
      assert.deepEqual(
        result.diagnosis.stages.filter((s) => s.node === 'n2' && s.stage !== 'Reserve').map((s) => [s.stage, s.plugin, s.status.code]),
        [
          ['Permit', 'Gate', Code.Success],
          ['CheckConflicts', 'Fresh', Code.Success],
          ['Bind', 'Binder', Code.Error],
          ['Unreserve', 'Quota', Code.Success],
          ['Unreserve', 'Volumes', Code.Success],
        ],
      );
    });

    const nextOn: Array<[what: string, fail: Parameters<typeof pipeline>[0], stage: string, reason: string]> = [
      ['a Permit rejection', { permit: ['n2'] }, 'Permit', 'quota exhausted'],
      ['a conflict', { conflict: ['n2'] }, 'CheckConflicts', 'node changed since the snapshot'],
      ['a bind plugin that throws', { bindThrows: ['n2'] }, 'Bind', 'plugin Binder threw at Bind: connection reset'],
    ];
    for (const [what, fail, stage, reason] of nextOn) {
      it(`${what} moves on to the next candidate`, async () => {
        const { calls, plugins } = pipeline(fail);
        const result = await commit(plugins);
        assert.equal(result.ok && result.node, 'n1');
        assert.ok(calls.includes('Volumes.unreserve n2'));
        const failed = result.diagnosis.stages.find((s) => s.node === 'n2' && s.status.code !== Code.Success);
        assert.deepEqual([failed?.stage, failed?.status.reasons], [stage, [reason]]);
      });
    }

    it('tries at most 1 + bindRetries candidates, then fails with the last status and every attempt in the message', async () => {
      const { calls, plugins } = pipeline({ bind: ['n0', 'n1', 'n2'] });
      const result = await commit(plugins, { commitCandidates: 3, bindRetries: 1 });
      assert.equal(result.ok, false);
      assert.deepEqual(
        calls.filter((c) => c.startsWith('bind')),
        ['bind n2', 'bind n1'],
      );
      assert.ok(!result.ok && result.status.code === Code.Error);
      assert.equal(result.diagnosis.chosenNode, undefined);
      assert.equal(
        result.diagnosis.message,
        'pod default/web was not bound: n2 (Bind Binder: 409 Conflict); n1 (Bind Binder: 409 Conflict)',
      );
      assert.deepEqual(result.diagnosis.status, { code: Code.Error, reasons: ['409 Conflict'], plugin: 'Binder', stage: 'Bind' });
    });

    it('a bind plugin that skips passes the pod to the next one; when none binds, that is a failure', async () => {
      const notMine: BindPlugin = { name: 'NotMine', bind: async () => SKIP };
      const { plugins } = pipeline();
      const bound = await commit([notMine, ...plugins]);
      assert.deepEqual(
        bound.diagnosis.stages.filter((s) => s.stage === 'Bind').map((s) => [s.plugin, s.status.code]),
        [
          ['NotMine', Code.Skip],
          ['Binder', Code.Success],
        ],
      );
      const unbound = await commit([scores('Rank', {}), notMine], { bindRetries: 0 });
      assert.deepEqual(!unbound.ok && unbound.status, { code: Code.Error, reasons: ['no bind plugin bound the pod'], stage: 'Bind' });
    });

    it('PreBind runs for the Reserve plugins that have it, after CheckConflicts and before Bind; Skip is not recorded; a failure unreserves and moves on', async () => {
      const { calls, plugins } = pipeline();
      const writes = (name: string, failOn: string[], skip = false): PreBindPlugin => ({
        name,
        reserve: (_s, _p, node) => (calls.push(`${name}.reserve ${node}`), SUCCESS),
        unreserve: (_s, _p, node) => void calls.push(`${name}.unreserve ${node}`),
        preBind: async (_s, _p, node) => {
          calls.push(`${name}.preBind ${node}`);
          if (skip) return SKIP;
          return failOn.includes(node) ? errorStatus('claim default/c1 got allocated elsewhere in the meantime') : SUCCESS;
        },
      });
      const result = await commit([...plugins, writes('Claims', ['n2']), writes('Nothing', [], true)]);
      assert.equal(result.ok && result.node, 'n1');
      assert.deepEqual(
        calls.filter((c) => c.endsWith('n1')),
        [
          'Volumes.reserve n1',
          'Quota.reserve n1',
          'Claims.reserve n1',
          'Nothing.reserve n1',
          'permit n1',
          'check n1',
          'Claims.preBind n1',
          'Nothing.preBind n1',
          'bind n1',
        ],
      );
      assert.ok(!calls.includes('bind n2'));
      assert.deepEqual(
        result.diagnosis.stages.filter((s) => s.stage === 'PreBind').map((s) => [s.plugin, s.node, s.status.code]),
        [
          ['Claims', 'n2', Code.Error],
          ['Claims', 'n1', Code.Success],
        ],
      );
      const failed = await commit([...plugins, writes('Claims', ['n0', 'n1', 'n2'])], { bindRetries: 0 });
      assert.equal(
        failed.diagnosis.message,
        'pod default/web was not bound: n2 (PreBind Claims: claim default/c1 got allocated elsewhere in the meantime)',
      );
    });

    it('an unreserve that throws is recorded and the others still run', async () => {
      const calls: string[] = [];
      const broken: ReservePlugin = { name: 'Broken', reserve: () => SUCCESS, unreserve: throws };
      const after: ReservePlugin = {
        name: 'After',
        reserve: () => unschedulable('no room'),
        unreserve: (_s, _p, node) => void calls.push(`After.unreserve ${node}`),
      };
      const before: ReservePlugin = {
        name: 'Before',
        reserve: () => SUCCESS,
        unreserve: (_s, _p, node) => void calls.push(`Before.unreserve ${node}`),
      };
      const result = await commit([scores('Rank', { n2: 1 }), before, broken, after], { bindRetries: 0 });
      assert.deepEqual(calls, ['After.unreserve n2', 'Before.unreserve n2']);
      assert.deepEqual(
        result.diagnosis.stages.filter((s) => s.stage === 'Unreserve').map((s) => [s.plugin, s.status.code]),
        [
          ['After', Code.Success],
          ['Broken', Code.Error],
          ['Before', Code.Success],
        ],
      );
    });
  });
});
