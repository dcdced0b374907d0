import assert from 'node:assert/strict';
import { seededRandom } from '../../../../src/engine/api/random';
import { mergeProfile } from '../../../../src/engine/framework/profile';
import { argsErrorText, type ArgsError } from '../../../../src/engine/api/field';
import type { Result } from '../../../../src/engine/api/result';
import { podSetFramework, readArgs, type PodSetPlannerArgs } from '../../../../src/engine/planner/scheduler/plugin';
import { DEFAULT_PROFILE } from '../../../../src/engine/plugins/defaults';

const withArgs = (args: unknown) =>
  mergeProfile(DEFAULT_PROFILE, { schedulerName: 'default-scheduler', pluginConfig: [{ name: 'PodSetPlanner', args }] });

/** The args, or their error as its text. */
const asText = <T>(read: Result<T, ArgsError>): Result<T, string> => (read.ok ? read : { ok: false, error: argsErrorText(read.error) });

describe('engine/planner/scheduler/plugin', () => {
  describe('args', () => {
    const table: Array<[args: unknown, expected: Result<PodSetPlannerArgs, string>]> = [
      [undefined, { ok: true, value: { schedulerName: 'podset-planner-scheduler' } }],
      [
        { planner: 'optimize', objective: 'balance', schedulerName: 'pallet' },
        { ok: true, value: { planner: 'optimize', objective: 'balance', schedulerName: 'pallet' } },
      ],
      [
        { planner: 'best' },
        {
          ok: false,
          error: 'PodSetPlanner: planner: Unsupported value: "best": supported values: "greedy", "optimize", "exact", "pallet"',
        },
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
    for (const [args, expected] of table) it(JSON.stringify(args) ?? 'none', () => assert.deepEqual(asText(readArgs(args)), expected));
  });

  it('podSetFramework enables the plugin at PreFilter and Reserve beside the profile’s own plugins, and reads its args', () => {
    const built = podSetFramework(withArgs({ planner: 'optimize' }), { random: seededRandom(1) });
    assert.ok(built.ok);
    const { points } = built.value.framework.plugins;
    assert.ok(points.preFilter.includes('PodSetPlanner') && points.reserve.includes('PodSetPlanner'));
    assert.ok(points.filter.includes('NodeResourcesFit'));
    assert.deepEqual(built.value.args, { planner: 'optimize', schedulerName: 'podset-planner-scheduler' });
  });

  it('bad args are a profile error at the field of the plugin’s pluginConfig', () => {
    const built = podSetFramework(withArgs({ objective: 'fast' }), { random: seededRandom(1) });
    assert.deepEqual(!built.ok && built.error, [
      {
        code: 'profile/bad-args',
        path: ['pluginConfig', 0, 'args', 'objective'],
        message:
          'profile default-scheduler: plugin PodSetPlanner: objective: Unsupported value: "fast": supported values: "pack", "balance", "spread", "cost", "moves"',
      },
    ]);
  });
});
