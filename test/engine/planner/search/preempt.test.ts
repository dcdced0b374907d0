// Preemption in plans: off by default (the unplaced pod's reason says where preemption would make
// room), on when the profile's PodSetPlanner args say allowPreemption: the plan evicts lower-priority
// running pods as DefaultPreemption chooses them and lists them as its victims.
import assert from 'node:assert/strict';
import { mergeProfile } from '../../../../src/engine/framework/profile';
import { planPodSet } from '../../../../src/engine/planner/build';
import { argsErrorText } from '../../../../src/engine/api/field';
import type { Result } from '../../../../src/engine/api/result';
import { readArgs, type PodSetPlannerArgs } from '../../../../src/engine/planner/scheduler/plugin';
import { resolvePodSet } from '../../../../src/engine/planner/podset/podset';
import { DEFAULT_PROFILE } from '../../../../src/engine/plugins/defaults';
import { makeNode, makePod, snapshotOf, type NodeBuilder, type PodBuilder } from '../../../builders';
import { planning, setPod } from '../fixtures';

const withArgs = (args: unknown) =>
  mergeProfile(DEFAULT_PROFILE, { schedulerName: 'default-scheduler', pluginConfig: [{ name: 'PodSetPlanner', args }] });
const NODE = { cpu: '2', memory: '8Gi', pods: '110' };

/** The plan of set `web` (its pods at priority 100, 2 cpu each) over `nodes` with `running` pods, in short. */
function planOf(
  args: unknown,
  nodes: NodeBuilder[],
  running: PodBuilder[],
  members: number,
  extra: { planner?: string; minMember?: number } = {},
) {
  const set = Array.from({ length: members }, (_, i) => setPod(`web-${i}`).priority(100).req({ cpu: '2' }));
  const podSet = resolvePodSet(
    [...set, ...running].map((p) => p.obj),
    { namespace: 'default', name: 'web' },
  );
  const made = planPodSet(
    planning(withArgs(args)),
    { podSet, snapshot: snapshotOf(nodes, running), now: 0 },
    {
      override: {
        ...(extra.planner ? { planner: extra.planner } : {}),
        ...(extra.minMember !== undefined ? { minMember: extra.minMember } : {}),
      },
    },
  );
  assert.ok(made.ok, made.ok ? '' : made.error);
  const plan = made.value;
  return {
    placed: Object.fromEntries(plan.assignments.map((a) => [a.pod, a.node])),
    victims: (plan.victims ?? []).map((v) => `${v.pod}@${v.node} for ${v.by}`),
    unplaced: plan.unplaced.map((u) => `${u.pod}: ${u.message}`),
  };
}

describe('engine/planner/search/preempt', () => {
  describe('the switch: PodSetPlanner args allowPreemption, checked as the other args', () => {
    const table: Array<[args: unknown, expected: Result<PodSetPlannerArgs, string>]> = [
      [{ allowPreemption: true }, { ok: true, value: { schedulerName: 'podset-planner-scheduler', allowPreemption: true } }],
      [{ allowPreemption: false }, { ok: true, value: { schedulerName: 'podset-planner-scheduler' } }],
      [{ allowPreemption: 'yes' }, { ok: false, error: 'PodSetPlanner: allowPreemption: Invalid value: "yes": must be true or false' }],
      [{ preemption: true }, { ok: false, error: 'PodSetPlanner: unknown field "preemption"' }],
    ];
    for (const [args, expected] of table)
      it(JSON.stringify(args), () => {
        const read = readArgs(args);
        assert.deepEqual(read.ok ? read : { ok: false, error: argsErrorText(read.error) }, expected);
      });
  });

  // n1 holds one low-priority pod (10), n2 two (10 and 20): one set pod fits nowhere without evicting.
  const nodes = () => [makeNode('n1').alloc(NODE), makeNode('n2').alloc(NODE)];
  const running = () => [
    makePod('low-a', 'batch').node('n1').priority(10).req({ cpu: '2' }),
    makePod('low-b', 'batch').node('n2').priority(10).req({ cpu: '1' }),
    makePod('low-c', 'batch').node('n2').priority(20).req({ cpu: '1' }),
  ];

  const table: Array<
    [name: string, args: unknown, members: number, extra: { planner?: string; minMember?: number }, expected: ReturnType<typeof planOf>]
  > = [
    [
      'off by default: nothing is evicted, and the reason says where preemption would make room and how to allow it',
      undefined,
      1,
      {},
      {
        placed: {},
        victims: [],
        unplaced: [
          'web-0: 0/2 nodes are available: 2 Insufficient cpu. preemption: evicting batch/low-a from node n1 would make room; plans do not preempt unless the profile allows it (PodSetPlanner args: allowPreemption: true).',
        ],
      },
    ],
    [
      'on: the node of the fewest, least important victims (n1: one pod of 10, not n2: 10 and 20), victims listed',
      { allowPreemption: true },
      1,
      {},
      { placed: { 'web-0': 'n1' }, victims: ['batch/low-a@n1 for web-0'], unplaced: [] },
    ],
    [
      'on, two pods: each evicts on its own node (victims highest priority first, as upstream orders them)',
      { allowPreemption: true },
      2,
      {},
      {
        placed: { 'web-0': 'n1', 'web-1': 'n2' },
        victims: ['batch/low-a@n1 for web-0', 'batch/low-c@n2 for web-1', 'batch/low-b@n2 for web-1'],
        unplaced: [],
      },
    ],
    [
      'on, with another planner: preemption follows whichever planner placed the rest',
      { allowPreemption: true, planner: 'optimize' },
      1,
      {},
      { placed: { 'web-0': 'n1' }, victims: ['batch/low-a@n1 for web-0'], unplaced: [] },
    ],
  ];
  for (const [name, args, members, extra, expected] of table)
    it(name, () => assert.deepEqual(planOf(args, nodes(), running(), members, extra), expected));

  it('a gang of 3 that even evicting cannot meet: nothing placed, nothing evicted', () => {
    const got = planOf({ allowPreemption: true }, nodes(), running(), 3, { minMember: 3 });
    assert.deepEqual([got.placed, got.victims, got.unplaced.length], [{}, [], 3]);
  });

  it('a pod no eviction helps stays unplaced with upstream’s whole message (its preemption part too), and nothing is evicted', () => {
    const got = planOf(
      { allowPreemption: true },
      nodes(),
      [
        makePod('high', 'batch').node('n1').priority(500).req({ cpu: '2' }),
        makePod('higher', 'batch').node('n2').priority(500).req({ cpu: '2' }),
      ],
      1,
    );
    assert.deepEqual([got.placed, got.victims], [{}, []]);
    assert.deepEqual(got.unplaced, [
      'web-0: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    ]);
  });
});
