// The cluster events podplan run makes of the informers' changes to the objects plugins read: Add,
// Delete or Update by the object as last seen and as it is now, whatever the informer called it.
import assert from 'node:assert/strict';
import { eventLabel } from '../../../src/engine/framework/events';
import { objectEvent } from '../../../src/kube/live/cluster';

describe('kube/live/cluster', () => {
  describe('objectEvent: the event an object change makes', () => {
    const v1 = { metadata: { name: 'gpu', resourceVersion: '1' } };
    const v2 = { metadata: { name: 'gpu', resourceVersion: '2' } };
    const table: Array<[name: string, before: unknown, after: unknown, event: string | undefined]> = [
      ['first seen: Add, no object before', undefined, v1, 'resource.k8s.io/ResourceClaimAdd'],
      ['seen before and again (a relist add): Update with both', v1, v2, 'resource.k8s.io/ResourceClaimUpdate'],
      ['gone, or no longer decoding: Delete with the one before', v1, undefined, 'resource.k8s.io/ResourceClaimDelete'],
      ['neither seen nor there: nothing', undefined, undefined, undefined],
    ];
    for (const [name, before, after, event] of table) {
      it(name, () => {
        const delivered = objectEvent('resource.k8s.io/ResourceClaim', before, after);
        assert.equal(delivered && eventLabel(delivered.event), event);
        if (delivered) assert.deepEqual([delivered.oldObj, delivered.newObj], [before, after]);
      });
    }
  });
});
