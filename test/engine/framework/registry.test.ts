import assert from 'node:assert/strict';
import { seededRandom } from '../../../src/engine/api/random';
import { ok } from '../../../src/engine/api/result';
import { validateProfile } from '../../../src/engine/framework/profile';
import { Registry } from '../../../src/engine/framework/registry';
import { Framework } from '../../../src/engine/framework/runtime';
import { SUCCESS } from '../../../src/engine/framework/status';
import { prioritySort, registryOf } from './fakes';

const fit = { name: 'Fit', filter: () => SUCCESS };

describe('engine/framework/registry', () => {
  it('maps plugin names to factories, in registration order', () => {
    const registry = registryOf(prioritySort, fit);
    assert.deepEqual(registry.names(), ['PrioritySort', 'Fit']);
    assert.equal(registry.has('Fit'), true);
    assert.equal(registry.has('Missing'), false);
    assert.equal(registry.get('Missing'), undefined);
  });

  it('rejects a second factory under a name already registered, keeping the first', () => {
    const registry = new Registry();
    const first = () => ok(fit);
    assert.deepEqual(registry.register('Fit', first), { ok: true, value: undefined });
    assert.deepEqual(
      registry.register('Fit', () => ok(fit)),
      { ok: false, error: 'plugin Fit is already registered' },
    );
    assert.equal(registry.get('Fit'), first);
  });

  describe('a profile naming a plugin the registry does not know is an error naming plugin, profile and stage', () => {
    const registry = registryOf(prioritySort, fit);
    const profile = {
      schedulerName: 'batch',
      plugins: { queueSort: { enabled: [{ name: 'PrioritySort' }] }, filter: { enabled: [{ name: 'Fit' }, { name: 'GpuFit' }] } },
      pluginConfig: [{ name: 'GpuFti', args: {} }],
    };
    const expected = [
      {
        code: 'profile/unknown-plugin',
        path: ['plugins', 'filter', 'enabled', 1, 'name'],
        message: 'profile batch: unknown plugin GpuFit enabled at filter',
      },
      {
        code: 'profile/unknown-plugin',
        path: ['pluginConfig', 0, 'name'],
        message: 'profile batch: pluginConfig for unknown plugin GpuFti',
      },
    ];
    it('when validated against the registry', () => assert.deepEqual(validateProfile(profile, registry), expected));
    it('when built', () =>
      assert.deepEqual(Framework.build(registry, profile, { random: seededRandom(1) }), { ok: false, error: expected }));
  });
});
