import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/engine/api/random';
import type { PodDisruptionBudget } from '../../../src/engine/api/types';
import { CycleState } from '../../../src/engine/framework/cycle-state';
import type { PostFilterPlugin } from '../../../src/engine/framework/interfaces';
import { Framework } from '../../../src/engine/framework/runtime';
import { PREEMPTION_MODE } from '../../../src/engine/framework/preemption/record';
import { Code, type Status } from '../../../src/engine/framework/status';
import * as DefaultPreemption from '../../../src/engine/plugins/DefaultPreemption';
import { DEFAULT_PROFILE } from '../../../src/engine/plugins/defaults';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';
import { makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../builders';
import { argsError, build } from './harness';

// Priorities and resources of upstream's default_preemption_test.go.
const low = 0;
const mid = 100;
const high = 1000;
const veryHigh = 10000;
const onePod = (name: string): NodeBuilder => makeNode(name).alloc({ pods: '1' });
const nodeRes = (name: string): NodeBuilder => makeNode(name).alloc({ cpu: '200m', memory: '400', pods: '32' });
const largeRes = { cpu: '300m', memory: '300' };

interface Case {
  readonly name: string;
  readonly pod: PodBuilder;
  readonly pods: readonly PodBuilder[];
  readonly nodes: readonly NodeBuilder[];
  /** Why Filter rejected each node; a node left out counts as Unresolvable, as upstream's absent status. */
  readonly statuses: Readonly<Record<string, Code>>;
  readonly pdbs?: readonly PodDisruptionBudget[];
  /** [nominated node ('' for none), code, message]. Upstream 1.35's Success carries no message. */
  readonly want: readonly [string, Code, string];
}

const pdb = (name: string, label: string, minAvailable: string, disruptionsAllowed?: number): PodDisruptionBudget => ({
  metadata: { name, namespace: 'default' },
  spec: { selector: { matchLabels: { 'test.kubernetes.io/is-violating-pdb': label } }, minAvailable },
  ...(disruptionsAllowed !== undefined ? { status: { disruptionsAllowed } } : {}),
});

/** The plugin's PostFilter after the default profile's PreFilter, on the given statuses (as upstream's TestPostFilter). */
function postFilter(c: Case, mode?: 'report'): { status: Status; nominated: string } {
  const registry = inTreeRegistry();
  assert.ok(registry.ok);
  const framework = Framework.build(registry.value, DEFAULT_PROFILE, { random: seededRandom(1) });
  assert.ok(framework.ok);
  framework.value.useObjects({ podDisruptionBudgets: c.pdbs ?? [] });
  const state = new CycleState();
  if (mode) state.write(PREEMPTION_MODE, mode);
  const pre = framework.value.preFilterPod(state, c.pod.info, snapshotOf([...c.nodes], [...c.pods]));
  assert.ok(pre.ok);
  const plugin = build(DefaultPreemption.factory, undefined, framework.value.handle) as PostFilterPlugin;
  const statuses = new Map(Object.entries(c.statuses).map(([node, code]): [string, Status] => [node, { code, reasons: [] }]));
  const { status, result } = plugin.postFilter(state, c.pod.info, statuses);
  return { status, nominated: result?.nominatedNode ?? '' };
}

describe('engine/plugins/DefaultPreemption', () => {
  // pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go, TestPostFilter
  // (the extender and TestPlugin error rows are left out: Podplan has neither).
  describe('PostFilter (upstream TestPostFilter)', () => {
    const U = Code.Unschedulable;
    const UAU = Code.UnschedulableAndUnresolvable;
    const table: Case[] = [
      {
        name: 'pod with higher priority can be made schedulable',
        pod: makePod('p').priority(high),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: { node1: U },
        want: ['node1', Code.Success, 'preemption: found a potential placement for pod on node node1, preempting 1 victims'],
      },
      {
        name: 'pod with tied priority is still unschedulable',
        pod: makePod('p'),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: { node1: U },
        want: ['', U, 'preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.'],
      },
      {
        name: 'preemption should respect filteredNodesStatuses',
        pod: makePod('p').priority(high),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: { node1: UAU },
        want: ['', U, 'preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.'],
      },
      {
        name: 'preemption should respect absent NodeToStatusReader entry meaning UnschedulableAndUnresolvable',
        pod: makePod('p').priority(high),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: {},
        want: ['', U, 'preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.'],
      },
      {
        name: 'pod can be made schedulable on one node',
        pod: makePod('p').priority(mid),
        pods: [makePod('p1').priority(high).node('node1'), makePod('p2').priority(low).node('node2')],
        nodes: [onePod('node1'), onePod('node2')],
        statuses: { node1: U, node2: U },
        want: ['node2', Code.Success, 'preemption: found a potential placement for pod on node node2, preempting 1 victims'],
      },
      {
        name: 'pod can be made schedulable on minHighestPriority node',
        pod: makePod('p').priority(veryHigh),
        pods: [
          makePod('p1').labels({ 'test.kubernetes.io/is-violating-pdb': 'non-violating' }).priority(high).node('node1'),
          makePod('p2').labels({ 'test.kubernetes.io/is-violating-pdb': 'violating' }).priority(low).node('node1'),
          makePod('p3').labels({ 'test.kubernetes.io/is-violating-pdb': 'violating' }).priority(mid).node('node2'),
        ],
        pdbs: [pdb('violating-pdb', 'violating', '100%'), pdb('non-violating-pdb', 'non-violating', '0', 2147483647)],
        nodes: [onePod('node1'), onePod('node2')],
        statuses: { node1: U, node2: U },
        want: ['node2', Code.Success, 'preemption: found a potential placement for pod on node node2, preempting 1 victims'],
      },
      {
        name: 'no candidate nodes found, no enough resource after removing low priority pods',
        pod: makePod('p').priority(high).req(largeRes),
        pods: [makePod('p1').node('node1'), makePod('p2').node('node2')],
        nodes: [nodeRes('node1'), nodeRes('node2')],
        statuses: { node1: U, node2: U },
        want: ['', U, 'preemption: 0/2 nodes are available: 2 Insufficient cpu.'],
      },
      {
        name: 'no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource',
        pod: makePod('p').priority(high).req(largeRes),
        pods: [makePod('p1').node('node1').priority(high), makePod('p2').node('node2'), makePod('p3').node('node3').priority(high)],
        nodes: [onePod('node1'), nodeRes('node2'), onePod('node3')],
        statuses: { node1: U, node2: U, node3: U },
        want: ['', U, 'preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod.'],
      },
      {
        name: "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource",
        pod: makePod('p').priority(high).req(largeRes),
        pods: [makePod('p1').node('node1'), makePod('p2').node('node2')],
        nodes: [nodeRes('node1'), nodeRes('node2'), nodeRes('node3'), nodeRes('node4')],
        statuses: { node1: U, node2: U, node4: UAU },
        want: ['', U, 'preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.'],
      },
      {
        // upstream TestPodEligibleToPreemptOthers, "Pod with nil nominatedNodeName and PreemptNever policy"
        name: 'a pod with preemptionPolicy Never is not eligible',
        pod: makePod('p').priority(high).preemptionPolicy('Never'),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: { node1: U },
        want: ['', U, 'preemption: not eligible due to preemptionPolicy=Never.'],
      },
      // upstream TestPodEligibleToPreemptOthers (default_preemption_test.go), the nominated-node rows
      {
        name: 'a pod nominated to a node where a lower-priority pod is terminating by preemption is not eligible',
        pod: makePod('p').priority(high).nominatedTo('node1'),
        pods: [makePod('p1').node('node1').priority(low).preemptedByScheduler(), makePod('p2').node('node2').priority(low)],
        nodes: [onePod('node1'), onePod('node2')],
        statuses: { node1: U, node2: U },
        want: ['', U, 'preemption: not eligible due to a terminating pod on the nominated node.'],
      },
      {
        name: 'the terminating pod on the nominated node has the same priority: eligible',
        pod: makePod('p').priority(high).nominatedTo('node1'),
        pods: [makePod('p1').node('node1').priority(high).preemptedByScheduler(), makePod('p2').node('node2').priority(low)],
        nodes: [onePod('node1'), onePod('node2')],
        statuses: { node1: U, node2: U },
        want: ['node2', Code.Success, 'preemption: found a potential placement for pod on node node2, preempting 1 victims'],
      },
      {
        name: 'the lower-priority pod on the nominated node is terminating, not by preemption: eligible',
        pod: makePod('p').priority(high).nominatedTo('node1'),
        pods: [makePod('p1').node('node1').priority(low).deleting(), makePod('p2').node('node2').priority(low)],
        nodes: [onePod('node1'), onePod('node2')],
        statuses: { node1: UAU, node2: U },
        want: ['node2', Code.Success, 'preemption: found a potential placement for pod on node node2, preempting 1 victims'],
      },
      {
        name: 'the nominated node is UnschedulableAndUnresolvable: eligible again, whatever terminates there',
        pod: makePod('p').priority(high).nominatedTo('node1'),
        pods: [makePod('p1').node('node1').priority(low).preemptedByScheduler(), makePod('p2').node('node2').priority(low)],
        nodes: [onePod('node1'), onePod('node2')],
        statuses: { node1: UAU, node2: U },
        want: ['node2', Code.Success, 'preemption: found a potential placement for pod on node node2, preempting 1 victims'],
      },
    ];
    for (const c of table) {
      it(c.name, () => {
        const { status, nominated } = postFilter(c);
        assert.deepEqual([nominated, status.code, status.reasons.join(', ')], c.want);
      });
    }
  });

  // Upstream 1.37's PreEnqueue (async preemption, default_preemption.go): the preemptor waits while its victims are evicted.
  describe('PreEnqueue holds a pod whose preemption is still being carried out', () => {
    const table: Array<[string, string, readonly [Code, string]]> = [
      ['its preemption running', 'busy', [Code.UnschedulableAndUnresolvable, DefaultPreemption.WAITING_FOR_PREEMPTION]],
      ['no preemption of its own running', 'idle', [Code.Success, '']],
    ];
    for (const [name, pod, want] of table) {
      it(name, () => {
        const registry = inTreeRegistry();
        assert.ok(registry.ok);
        const framework = Framework.build(registry.value, DEFAULT_PROFILE, {
          random: seededRandom(1),
          preemptionRunning: (p) => p.metadata.name === 'busy',
        });
        assert.ok(framework.ok);
        const status = framework.value.preEnqueue(makePod(pod).obj);
        assert.deepEqual([status.code, status.reasons.join(', ')], want);
      });
    }
  });

  describe('a planning cycle only reports (plans do not preempt unless the profile allows it)', () => {
    it('says which pods on which node would make room, and nominates nothing', () => {
      const c: Case = {
        name: '',
        pod: makePod('p').priority(high),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: { node1: Code.Unschedulable },
        want: ['', Code.Unschedulable, ''],
      };
      const { status, nominated } = postFilter(c, 'report');
      assert.deepEqual(
        [nominated, status.code, status.reasons],
        [
          '',
          Code.Unschedulable,
          [
            'preemption: evicting default/p1 from node node1 would make room; plans do not preempt unless the profile allows it (PodSetPlanner args: allowPreemption: true).',
          ],
        ],
      );
    });

    it('says nothing when preemption could not help', () => {
      const c: Case = {
        name: '',
        pod: makePod('p'),
        pods: [makePod('p1').node('node1')],
        nodes: [onePod('node1')],
        statuses: { node1: Code.Unschedulable },
        want: ['', Code.Skip, ''],
      };
      assert.equal(postFilter(c, 'report').status.code, Code.Skip);
    });
  });

  // pkg/scheduler/apis/config/validation/validation_pluginargs_test.go, TestValidateDefaultPreemptionArgs
  describe('args (upstream TestValidateDefaultPreemptionArgs)', () => {
    const table: Array<[string, unknown, string | undefined]> = [
      ['valid args (default)', { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 }, undefined],
      [
        'negative minCandidateNodesPercentage',
        { minCandidateNodesPercentage: -1, minCandidateNodesAbsolute: 100 },
        'DefaultPreemption: minCandidateNodesPercentage: Invalid value: -1: not in valid range [0, 100]',
      ],
      [
        'too large minCandidateNodesPercentage',
        { minCandidateNodesPercentage: 900, minCandidateNodesAbsolute: 100 },
        'DefaultPreemption: minCandidateNodesPercentage: Invalid value: 900: not in valid range [0, 100]',
      ],
      [
        'negative minCandidateNodesAbsolute',
        { minCandidateNodesPercentage: 20, minCandidateNodesAbsolute: -1 },
        'DefaultPreemption: minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)',
      ],
      [
        'all zero',
        { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 },
        'DefaultPreemption: [minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]',
      ],
      ['an unknown field is an error', { minCandidateNodes: 3 }, 'DefaultPreemption: unknown field "minCandidateNodes"'],
      [
        'typed as in a KubeSchedulerConfiguration',
        { apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'DefaultPreemptionArgs', minCandidateNodesAbsolute: 20 },
        undefined,
      ],
      [
        "another plugin's args type",
        { kind: 'NodeResourcesFitArgs' },
        'DefaultPreemption: kind: Invalid value: "NodeResourcesFitArgs": must be DefaultPreemptionArgs',
      ],
    ];
    for (const [name, args, error] of table) {
      it(name, () => {
        if (error === undefined) build(DefaultPreemption.factory, args);
        else assert.equal(argsError(DefaultPreemption.factory, args), error);
      });
    }
  });
});
