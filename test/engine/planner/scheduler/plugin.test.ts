import assert from 'node:assert/strict';
import { seededRandom } from '../../../../src/engine/api/random';
import { mergeProfile } from '../../../../src/engine/framework/profile';
import { podSetFramework, readArgs } from '../../../../src/engine/planner/scheduler/plugin';
import { DEFAULT_PROFILE } from '../../../../src/engine/plugins/defaults';

const withArgs = (args: unknown) =>
  mergeProfile(DEFAULT_PROFILE, { schedulerName: 'default-scheduler', pluginConfig: [{ name: 'PodSetPlanner', args }] });

describe('engine/planner/scheduler/plugin', () => {
  describe('args', () => {
    const table: Array<[args: unknown, expected: ReturnType<typeof readArgs>]> = [
      [undefined, { ok: true, value: { schedulerName: 'podset-planner-scheduler' } }],
      [
        { planner: 'optimize', objective: 'balance', schedulerName: 'pallet' },
        { ok: true, value: { planner: 'optimize', objective: 'balance', schedulerName: 'pallet' } },
      ],
      [
        { planner: 'best' },
        { ok: false, error: 'PodSetPlanner: planner: unknown planner "best" (one of greedy, optimize, exact, pallet)' },
      ],
      [
        { objective: 'fast' },
        {
          ok: false,
          error: 'PodSetPlanner: objective: Unsupported value: "fast": supported values: "pack", "balance", "spread", "cost", "moves"',
        },
      ],
      [{ gang: 3 }, { ok: false, error: 'PodSetPlanner: unknown field "gang"' }],
    ];
    for (const [args, expected] of table) it(JSON.stringify(args) ?? 'none', () => assert.deepEqual(readArgs(args), expected));
  });

  it('podSetFramework enables the plugin at PreFilter and Reserve beside the profile’s own plugins, and reads its args', () => {
    const built = podSetFramework(withArgs({ planner: 'optimize' }), { random: seededRandom(1) });
    assert.ok(built.ok);
    const { points } = built.value.framework.plugins;
    assert.ok(points.preFilter.includes('PodSetPlanner') && points.reserve.includes('PodSetPlanner'));
    assert.ok(points.filter.includes('NodeResourcesFit'));
    assert.deepEqual(built.value.args, { planner: 'optimize', schedulerName: 'podset-planner-scheduler' });
  });

  it('bad args are a profile error at the plugin’s pluginConfig', () => {
    const built = podSetFramework(withArgs({ objective: 'fast' }), { random: seededRandom(1) });
    assert.deepEqual(!built.ok && built.error, [
      {
        code: 'profile/bad-args',
        path: ['pluginConfig', 0, 'args'],
        message:
          'profile default-scheduler: plugin PodSetPlanner: objective: Unsupported value: "fast": supported values: "pack", "balance", "spread", "cost", "moves"',
      },
    ]);
  });
});
