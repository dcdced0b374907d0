import assert from 'node:assert/strict';
import { readFile } from '../../../src/manifests';
import { resolveProfile } from '../../../src/server/service/profiles';

const config = (profile: string) =>
  `apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: p\n${profile}`;

function resolve(profile: string) {
  const file = readFile({ name: 'c.yaml', text: config(profile) });
  const located = file.profiles[0];
  assert.ok(located, JSON.stringify(file.errors));
  return resolveProfile(located, 0, (path) => located.source.has(path));
}
const issues = (profile: string) => resolve(profile).issues.map((i) => [i.code, i.severity, i.path]);

describe('server/service/profiles: workspace profiles as the engine runs them, problems at their manifest paths', () => {
  it('a profile that changes the defaults is valid and runs upstream’s plugins with its changes', () => {
    const r = resolve('    plugins:\n      score:\n        disabled: [{ name: NodeResourcesBalancedAllocation }]\n');
    assert.deepEqual(r.issues, []);
    assert.ok(r.valid);
    assert.ok(r.profile.plugins?.multiPoint?.enabled?.some((p) => p.name === 'NodeResourcesFit'));
    assert.deepEqual(r.profile.plugins?.score?.disabled, [{ name: 'NodeResourcesBalancedAllocation' }]);
  });

  const cases: Array<[string, string, unknown[][]]> = [
    [
      "Pallet's PodSetPlanner at preScore and score (its own scoring) is left out with a warning, as the CLI does",
      '    plugins:\n      preFilter:\n        enabled: [{ name: PodSetPlanner }]\n      score:\n        enabled: [{ name: PodSetPlanner }, { name: Typo }]\n',
      [
        ['profile/unsupported', 'warning', 'profiles[0].plugins.score.enabled[0].name'],
        ['profile/unknown-plugin', 'error', 'profiles[0].plugins.score.enabled[1].name'],
      ],
    ],
    [
      'an unknown plugin, at its name',
      '    plugins:\n      filter:\n        enabled: [{ name: Typo }]\n',
      [['profile/unknown-plugin', 'error', 'profiles[0].plugins.filter.enabled[0].name']],
    ],
    [
      'an upstream plugin Podplan does not run is left out with a warning; the next entry keeps its own index',
      '    plugins:\n      filter:\n        enabled: [{ name: GangScheduling }, { name: Typo }]\n',
      [
        ['profile/unsupported', 'warning', 'profiles[0].plugins.filter.enabled[0].name'],
        ['profile/unknown-plugin', 'error', 'profiles[0].plugins.filter.enabled[1].name'],
      ],
    ],
    [
      'an extension point Podplan has no stage for',
      '    plugins:\n      preBind:\n        enabled: [{ name: VolumeBinding }]\n',
      [['profile/unsupported', 'warning', 'profiles[0].plugins.preBind']],
    ],
    [
      'a weight out of range',
      '    plugins:\n      score:\n        enabled: [{ name: ImageLocality, weight: 101 }]\n',
      [['profile/bad-weight', 'error', 'profiles[0].plugins.score.enabled[0].weight']],
    ],
    [
      'a plugin twice',
      '    plugins:\n      filter:\n        enabled: [{ name: NodeName }, { name: NodeName }]\n',
      [['profile/duplicate-plugin', 'error', 'profiles[0].plugins.filter.enabled[1]']],
    ],
    [
      'bad args, at the field the plugin names; args of a plugin not run are not read',
      '    pluginConfig:\n      - name: GangScheduling\n        args: {}\n      - name: NodeResourcesFit\n        args:\n          scoringStrategy: { type: Fastest }\n',
      [
        ['profile/unsupported', 'warning', 'profiles[0].pluginConfig[0].name'],
        ['profile/bad-args', 'error', 'profiles[0].pluginConfig[1].args.scoringStrategy.type'],
      ],
    ],
    [
      "DynamicResources' bindingTimeout under 1 s, at the field; a valid filterTimeout beside it is fine",
      '    pluginConfig:\n      - name: DynamicResources\n        args:\n          filterTimeout: 5s\n          bindingTimeout: 500ms\n',
      [['profile/bad-args', 'error', 'profiles[0].pluginConfig[0].args.bindingTimeout']],
    ],
    [
      'an unknown arg field',
      '    pluginConfig:\n      - name: NodeResourcesFit\n        args: { speed: 3 }\n',
      [['profile/bad-args', 'error', 'profiles[0].pluginConfig[0].args.speed']],
    ],
    [
      'every field of bad args at its own place, from the path the plugin gives (never from its message); a field not written at its nearest written parent',
      '    pluginConfig:\n      - name: NodeResourcesFit\n        args:\n          scoringStrategy:\n            type: RequestedToCapacityRatio\n            resources: [{ name: cpu, weight: 101 }]\n',
      [
        ['profile/bad-args', 'error', 'profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight'],
        ['profile/bad-args', 'error', 'profiles[0].pluginConfig[0].args.scoringStrategy'],
      ],
    ],
    [
      'a misspelt plugin under disabled (at any point), with a warning at its name: upstream disables nothing then',
      '    plugins:\n      score:\n        disabled: [{ name: "*" }, { name: ImageLocalty }]\n      preBind:\n        disabled: [{ name: VolumeBinding }, { name: Nope }]\n',
      [
        ['profile/unknown-plugin', 'warning', 'profiles[0].plugins.score.disabled[1].name'],
        ['profile/unknown-plugin', 'warning', 'profiles[0].plugins.preBind.disabled[1].name'],
      ],
    ],
    [
      'no queue sort left',
      '    plugins:\n      queueSort:\n        disabled: [{ name: "*" }]\n',
      [['profile/invalid', 'error', 'profiles[0].plugins']],
    ],
  ];
  for (const [what, profile, expected] of cases) it(what, () => assert.deepEqual(issues(profile), expected));

  it("says what is wrong with DynamicResources' bindingTimeout in upstream's words, at the field's path", () => {
    const r = resolve('    pluginConfig:\n      - name: DynamicResources\n        args:\n          bindingTimeout: 500ms\n');
    assert.deepEqual(
      r.issues.map((i) => [i.message, i.path]),
      [
        [
          'profile p: plugin DynamicResources: bindingTimeout: Invalid value: "500ms": must be at least 1 second',
          'profiles[0].pluginConfig[0].args.bindingTimeout',
        ],
      ],
    );
  });

  it('says which plugin a misspelt disabled name meant', () => {
    assert.deepEqual(
      resolve('    plugins:\n      score:\n        disabled: [{ name: ImageLocalty }]\n').issues.map((i) => i.message),
      ['no plugin is named ImageLocalty, so disabling it changes nothing: did you mean ImageLocality?'],
    );
  });
});
