import assert from 'node:assert/strict';
import { readFile } from '../../src/manifests';
import { fixture } from './fixtures';

describe('manifests/profile', () => {
  it('reads a KubeSchedulerConfiguration into its profiles, plugins per extension point and plugin args', () => {
    const model = readFile(fixture('profile.yaml'));
    assert.deepEqual(model.errors, []);
    assert.deepEqual(model.profiles[0]?.value, {
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      percentageOfNodesToScore: 50,
      profiles: [
        { schedulerName: 'default-scheduler' },
        {
          schedulerName: 'bin-packing',
          plugins: {
            score: { enabled: [{ name: 'NodeResourcesFit', weight: 5 }], disabled: [{ name: 'NodeResourcesBalancedAllocation' }] },
          },
          pluginConfig: [
            {
              name: 'NodeResourcesFit',
              args: {
                scoringStrategy: {
                  type: 'MostAllocated',
                  resources: [
                    { name: 'cpu', weight: 1 },
                    { name: 'memory', weight: 1 },
                  ],
                },
              },
            },
          ],
        },
      ],
    });
  });

  it('a configuration without profiles has the default one; a profile without a name is default-scheduler', () => {
    const bare = readFile({ name: 'c.yaml', text: 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n' });
    assert.deepEqual(bare.profiles[0]?.value.profiles, [{ schedulerName: 'default-scheduler' }]);
    const unnamed = readFile({
      name: 'c.yaml',
      text: 'apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [{ percentageOfNodesToScore: 10 }]\n',
    });
    assert.deepEqual(unnamed.profiles[0]?.value.profiles, [{ schedulerName: 'default-scheduler', percentageOfNodesToScore: 10 }]);
  });

  it('reports malformed plugin lists and args where they are written', () => {
    const text = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: s
    percentageOfNodesToScore: 150
    plugins:
      filter:
        enabled: [{ weight: 1 }]
    pluginConfig:
      - name: NodeResourcesFit
        args: [not, a, mapping]
`;
    assert.deepEqual(
      readFile({ name: 'c.yaml', text }).errors.map((e) => [e.code, e.path]),
      [
        ['bad-value', 'profiles[0].percentageOfNodesToScore'],
        ['missing-field', 'profiles[0].plugins.filter.enabled[0]'],
        ['wrong-type', 'profiles[0].pluginConfig[0].args'],
      ],
    );
  });
});
