import assert from 'node:assert/strict';
import {
  FRAMEWORK_DEFAULTS,
  frameworkSettings,
  mergeProfile,
  pluginsNeeded,
  resolvePlugins,
  validateProfile,
  type ExtensionPoint,
  type Profile,
  type ProfileError,
  type ProfileErrorCode,
} from '../../../src/engine/framework/profile';
import { inTreeRegistry } from '../../../src/engine/plugins/registry';

// The caller's defaults, in upstream's style: everything through multiPoint.
const defaults: Profile = {
  schedulerName: 'default-scheduler',
  plugins: {
    multiPoint: {
      enabled: [
        { name: 'PrioritySort' },
        { name: 'NodeName' },
        { name: 'TaintToleration', weight: 3 },
        { name: 'NodeAffinity', weight: 2 },
        { name: 'Fit', weight: 1 },
      ],
    },
  },
  pluginConfig: [
    { name: 'Fit', args: { scoringStrategy: 'LeastAllocated' } },
    { name: 'NodeAffinity', args: {} },
  ],
  commitCandidates: 3,
  sampling: { strategy: 'fixed', basisPoints: 500 },
};

const merged = (user: Omit<Profile, 'schedulerName'>) => mergeProfile(defaults, { schedulerName: 'default-scheduler', ...user });
const defaultMultiPoint = defaults.plugins?.multiPoint?.enabled ?? [];

/** Which stages each plugin implements. */
const implemented: Record<string, ExtensionPoint[]> = {
  PrioritySort: ['queueSort'],
  NodeName: ['filter'],
  TaintToleration: ['filter', 'preScore', 'score'],
  NodeAffinity: ['preFilter', 'filter', 'preScore', 'score'],
  Fit: ['preFilter', 'filter', 'score'],
  GpuFit: ['filter'],
};
const resolved = (profile: Profile) => resolvePlugins(profile, (name, point) => implemented[name]?.includes(point) ?? false);

describe('engine/framework/profile', () => {
  describe('merges a user profile onto the defaults as upstream does', () => {
    it('keeps every default when the user changes nothing', () => {
      const profile = merged({});
      assert.deepEqual(profile.plugins, { multiPoint: { enabled: defaultMultiPoint, disabled: [] } });
      assert.deepEqual(profile.pluginConfig, defaults.pluginConfig);
      assert.equal(profile.commitCandidates, 3);
    });

    const table: Array<[what: string, user: Omit<Profile, 'schedulerName'>, check: (p: Profile) => unknown, expected: unknown]> = [
      [
        'a disabled default is dropped and the disabling kept',
        { plugins: { multiPoint: { disabled: [{ name: 'TaintToleration' }] } } },
        (p) => p.plugins?.multiPoint,
        { enabled: defaultMultiPoint.filter((p) => p.name !== 'TaintToleration'), disabled: [{ name: 'TaintToleration' }] },
      ],
      [
        'a default enabled again is replaced in place (new weight); new plugins are appended',
        { plugins: { multiPoint: { enabled: [{ name: 'GpuFit' }, { name: 'NodeAffinity', weight: 5 }] } } },
        (p) => p.plugins?.multiPoint?.enabled?.map((e) => `${e.name}:${e.weight ?? '-'}`),
        ['PrioritySort:-', 'NodeName:-', 'TaintToleration:3', 'NodeAffinity:5', 'Fit:1', 'GpuFit:-'],
      ],
      [
        '"*" disables every default of a stage, the user\'s own plugins stay',
        { plugins: { multiPoint: { enabled: [{ name: 'GpuFit' }], disabled: [{ name: '*' }] } } },
        (p) => p.plugins?.multiPoint,
        { enabled: [{ name: 'GpuFit' }], disabled: [{ name: '*' }] },
      ],
      [
        'a stage the defaults do not configure is taken as the user wrote it',
        { plugins: { score: { enabled: [{ name: 'NodeAffinity', weight: 5 }] } } },
        (p) => p.plugins?.score,
        { enabled: [{ name: 'NodeAffinity', weight: 5 }], disabled: [] },
      ],
      [
        "the user's pluginConfig replaces the default entry for the same plugin",
        { pluginConfig: [{ name: 'Fit', args: { scoringStrategy: 'MostAllocated' } }] },
        (p) => p.pluginConfig,
        [
          { name: 'Fit', args: { scoringStrategy: 'MostAllocated' } },
          { name: 'NodeAffinity', args: {} },
        ],
      ],
      ["settings are the user's when set", { commitCandidates: 1, bindRetries: 0 }, (p) => [p.commitCandidates, p.bindRetries], [1, 0]],
      [
        'sampling merges field by field',
        { sampling: { order: 'random' } },
        (p) => p.sampling,
        { strategy: 'fixed', basisPoints: 500, order: 'random' },
      ],
    ];
    for (const [what, user, check, expected] of table) it(what, () => assert.deepEqual(check(merged(user)), expected));
  });

  describe('validates, each error with the path of the field and the profile named', () => {
    const table: Array<
      [what: string, profile: Omit<Profile, 'schedulerName'> & { schedulerName?: string }, errors: Array<[ProfileError['path'], string]>]
    > = [
      ['a valid profile has no errors', { ...defaults, percentageOfNodesToScore: 40, recordScores: 10 }, []],
      ['schedulerName is required', { schedulerName: '' }, [[['schedulerName'], 'profile: schedulerName is required']]],
      [
        'score weights between 1 and 100',
        {
          plugins: {
            score: {
              enabled: [
                { name: 'NodeAffinity', weight: 0 },
                { name: 'Fit', weight: 101 },
                { name: 'TaintToleration', weight: 1.5 },
              ],
            },
          },
        },
        [
          [['plugins', 'score', 'enabled', 0, 'weight'], 'profile p: score weight for NodeAffinity must be between 1 and 100'],
          [['plugins', 'score', 'enabled', 1, 'weight'], 'profile p: score weight for Fit must be between 1 and 100'],
          [['plugins', 'score', 'enabled', 2, 'weight'], 'profile p: score weight for TaintToleration must be between 1 and 100'],
        ],
      ],
      [
        'a weight only where it counts',
        { plugins: { filter: { enabled: [{ name: 'Fit', weight: 2 }] } } },
        [[['plugins', 'filter', 'enabled', 0, 'weight'], 'profile p: weight for Fit applies only at score or multiPoint, not filter']],
      ],
      [
        'a plugin enabled twice at one stage',
        { plugins: { multiPoint: { enabled: [{ name: 'Fit' }, { name: 'Fit' }] } } },
        [[['plugins', 'multiPoint', 'enabled', 1], 'profile p: plugin Fit is enabled twice at multiPoint']],
      ],
      [
        'names are required',
        { plugins: { filter: { enabled: [{ name: '' }], disabled: [{ name: '' }] } }, pluginConfig: [{ name: '' }] },
        [
          [['plugins', 'filter', 'enabled', 0, 'name'], 'profile p: a plugin enabled at filter has no name'],
          [['plugins', 'filter', 'disabled', 0, 'name'], 'profile p: a plugin disabled at filter has no name'],
          [['pluginConfig', 0, 'name'], 'profile p: a pluginConfig entry has no name'],
        ],
      ],
      [
        'an extension point Podplan does not run',
        { plugins: { preBind: { enabled: [] } } as Profile['plugins'] },
        [[['plugins', 'preBind'], 'profile p: unknown extension point preBind']],
      ],
      [
        'pluginConfig given twice for a plugin',
        { pluginConfig: [{ name: 'Fit' }, { name: 'Fit' }] },
        [[['pluginConfig', 1, 'name'], 'profile p: pluginConfig for Fit is given twice']],
      ],
      [
        'percentageOfNodesToScore between 0 and 100',
        { percentageOfNodesToScore: 101 },
        [[['percentageOfNodesToScore'], 'profile p: percentageOfNodesToScore must be between 0 and 100']],
      ],
      [
        'sampling strategy and order from their lists',
        { sampling: { strategy: 'everything', order: 'sorted' } as unknown as Profile['sampling'] },
        [
          [['sampling', 'strategy'], 'profile p: sampling.strategy must be adaptive or fixed, not everything'],
          [['sampling', 'order'], 'profile p: sampling.order must be random or roundRobin, not sorted'],
        ],
      ],
      [
        'fixed sampling needs its share',
        { sampling: { strategy: 'fixed' } },
        [[['sampling', 'basisPoints'], 'profile p: sampling.basisPoints is required with strategy fixed']],
      ],
      [
        'basis points between 1 and 10000',
        { sampling: { strategy: 'fixed', basisPoints: 10001 } },
        [[['sampling', 'basisPoints'], 'profile p: sampling.basisPoints must be between 1 and 10000']],
      ],
      [
        'counts are whole and not negative; at least one candidate',
        { commitCandidates: 0, bindRetries: -1, recordScores: 2.5 },
        [
          [['commitCandidates'], 'profile p: commitCandidates must be an integer of at least 1'],
          [['bindRetries'], 'profile p: bindRetries must be an integer of at least 0'],
          [['recordScores'], 'profile p: recordScores must be an integer of at least 0'],
        ],
      ],
    ];
    for (const [what, profile, errors] of table) {
      it(what, () => {
        const found = validateProfile({ schedulerName: 'p', ...profile });
        assert.deepEqual(
          found.map((e) => [e.path, e.message]),
          errors,
        );
      });
    }
  });

  describe('each error carries its stable code, decided where it is found (the CLI and the editor print it)', () => {
    const table: Array<[what: string, profile: Partial<Profile>, codes: ProfileErrorCode[]]> = [
      [
        'a plugin enabled twice',
        { plugins: { multiPoint: { enabled: [{ name: 'NodeResourcesFit' }, { name: 'NodeResourcesFit' }] } } },
        ['profile/duplicate-plugin'],
      ],
      [
        'pluginConfig given twice',
        { pluginConfig: [{ name: 'NodeResourcesFit' }, { name: 'NodeResourcesFit' }] },
        ['profile/duplicate-plugin'],
      ],
      [
        'a weight out of range, a weight where it does not count',
        {
          plugins: {
            score: { enabled: [{ name: 'NodeResourcesFit', weight: 0 }] },
            filter: { enabled: [{ name: 'NodeName', weight: 2 }] },
          },
        },
        ['profile/bad-weight', 'profile/bad-weight'],
      ],
      [
        'a plugin the registry does not have, enabled and configured',
        { plugins: { filter: { enabled: [{ name: 'Nope' }] } }, pluginConfig: [{ name: 'Nope2' }] },
        ['profile/unknown-plugin', 'profile/unknown-plugin'],
      ],
      ['anything else', { percentageOfNodesToScore: 101, pluginConfig: [{ name: '' }] }, ['profile/invalid', 'profile/invalid']],
    ];
    const registry = inTreeRegistry();
    for (const [what, profile, codes] of table) {
      it(what, () => {
        assert.ok(registry.ok);
        assert.deepEqual(
          validateProfile({ schedulerName: 'p', ...profile }, registry.value)
            .map((e) => e.code)
            .sort(),
          [...codes].sort(),
        );
      });
    }
  });

  describe('resolves the plugins of each stage with upstream multiPoint expansion', () => {
    it('a multiPoint plugin joins every stage it implements; weights from multiPoint', () => {
      const { resolved: r, errors } = resolved(merged({}));
      assert.deepEqual(errors, []);
      assert.deepEqual(r.points.queueSort, ['PrioritySort']);
      assert.deepEqual(r.points.preFilter, ['NodeAffinity', 'Fit']);
      assert.deepEqual(r.points.filter, ['NodeName', 'TaintToleration', 'NodeAffinity', 'Fit']);
      assert.deepEqual(r.points.score, ['TaintToleration', 'NodeAffinity', 'Fit']);
      assert.deepEqual(r.points.bind, []);
      assert.deepEqual(
        [...r.weights],
        [
          ['TaintToleration', 3],
          ['NodeAffinity', 2],
          ['Fit', 1],
        ],
      );
    });

    const table: Array<[what: string, user: Omit<Profile, 'schedulerName'>, point: ExtensionPoint, expected: string[]]> = [
      [
        "a plugin also enabled at the stage moves first; the stage's own others come last",
        { plugins: { filter: { enabled: [{ name: 'GpuFit' }, { name: 'Fit' }] } } },
        'filter',
        ['Fit', 'NodeName', 'TaintToleration', 'NodeAffinity', 'GpuFit'],
      ],
      [
        'disabled at one stage, kept at the others',
        { plugins: { score: { disabled: [{ name: 'NodeAffinity' }] } } },
        'score',
        ['TaintToleration', 'Fit'],
      ],
      [
        '… still filtering there',
        { plugins: { score: { disabled: [{ name: 'NodeAffinity' }] } } },
        'filter',
        ['NodeName', 'TaintToleration', 'NodeAffinity', 'Fit'],
      ],
      [
        '"*" at a stage keeps only what the stage enables',
        { plugins: { filter: { enabled: [{ name: 'GpuFit' }], disabled: [{ name: '*' }] } } },
        'filter',
        ['GpuFit'],
      ],
    ];
    for (const [what, user, point, expected] of table)
      it(what, () => assert.deepEqual(resolved(merged(user)).resolved.points[point], expected));

    it('a weight at score overrides the multiPoint one; a plugin without one weighs 1', () => {
      // Enabling a default again replaces its entry whole, weight included (upstream).
      const { resolved: r } = resolved(
        merged({
          plugins: { score: { enabled: [{ name: 'NodeAffinity', weight: 5 }] }, multiPoint: { enabled: [{ name: 'TaintToleration' }] } },
        }),
      );
      assert.deepEqual(
        [...r.weights],
        [
          ['NodeAffinity', 5],
          ['TaintToleration', 1],
          ['Fit', 1],
        ],
      );
      const { resolved: plain } = resolved({ schedulerName: 'p', plugins: { score: { enabled: [{ name: 'Fit' }] } } });
      assert.deepEqual([...plain.weights], [['Fit', 1]]);
    });

    it('a plugin enabled at a stage it does not implement is an error', () => {
      const { errors } = resolved(merged({ plugins: { filter: { enabled: [{ name: 'PrioritySort' }] } } }));
      assert.deepEqual(errors, [
        {
          code: 'profile/unknown-plugin',
          path: ['plugins', 'filter', 'enabled', 0, 'name'],
          message: 'profile default-scheduler: plugin PrioritySort enabled at filter does not implement it',
        },
      ]);
    });

    it('instantiates each plugin enabled anywhere once', () => {
      assert.deepEqual(pluginsNeeded(merged({ plugins: { filter: { enabled: [{ name: 'GpuFit' }, { name: 'Fit' }] } } })), [
        'PrioritySort',
        'NodeName',
        'TaintToleration',
        'NodeAffinity',
        'Fit',
        'GpuFit',
      ]);
    });
  });

  it('fills the settings a profile leaves out with the framework defaults', () => {
    assert.deepEqual(frameworkSettings({ schedulerName: 'p' }), FRAMEWORK_DEFAULTS);
    assert.deepEqual(frameworkSettings({ schedulerName: 'p', sampling: { strategy: 'fixed', basisPoints: 250 }, recordScores: 5 }), {
      ...FRAMEWORK_DEFAULTS,
      strategy: 'fixed',
      basisPoints: 250,
      recordScores: 5,
    });
  });
});
