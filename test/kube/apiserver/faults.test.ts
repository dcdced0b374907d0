import assert from 'node:assert/strict';
import type * as k8s from '@kubernetes/client-node';
import { seededRandom } from '../../../src/engine/api/random';
import { startTestApiServer, type TestApiServer } from './index';
import { clients, node, pod, rejectsWith, until, type Clients } from './client';

describe('test/kube/apiserver: fault injection and counters', () => {
  let server: TestApiServer;
  let c: Clients;

  beforeEach(async () => {
    server = await startTestApiServer();
    c = clients(server);
    server.create(node('n1'));
  });
  afterEach(() => server.close());

  const bind = (name: string): Promise<unknown> =>
    c.core.createNamespacedPodBinding({ namespace: 'default', name, body: { metadata: { name }, target: { kind: 'Node', name: 'n1' } } });

  async function outcome(call: Promise<unknown>): Promise<string> {
    try {
      await call;
      return 'bound';
    } catch (err) {
      return String((err as k8s.ApiException<unknown>).code);
    }
  }

  it('shares of 409 and 500 on bindings follow the seeded draws, and only answered bindings bind', async () => {
    server.setFaults({ bindingConflictShare: 0.3, bindingErrorShare: 0.1, seed: 7 });
    const draws = seededRandom(7);
    const expected: string[] = [];
    const seen: string[] = [];
    for (let i = 0; i < 100; i++) {
      server.create(pod(`p${i}`));
      const r = draws.next();
      expected.push(r < 0.3 ? '409' : r < 0.4 ? '500' : 'bound');
      seen.push(await outcome(bind(`p${i}`)));
    }
    assert.deepEqual(seen, expected);
    const bound = seen.filter((s) => s === 'bound').length;
    assert.ok(bound > 40 && bound < 80, `${bound} of 100 bound`);
    assert.equal(server.counters.bindings.size, bound);
    assert.ok([...server.counters.bindings.values()].every((n) => n === 1));
    assert.equal(server.counters.request('create', 'pods/binding'), 100);
  });

  it('an injected conflict is worded as a real binding conflict', async () => {
    server.create(pod('p'));
    server.setFaults({ bindingConflictShare: 1 });
    await rejectsWith(bind('p'), {
      code: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on pods/binding "p": the object has been modified; please apply your changes to the latest version and try again',
    });
  });

  it('a lost response binds the pod but answers 500; the retry then meets "already assigned"', async () => {
    server.create(pod('p'));
    server.setFaults({ bindingLostResponseShare: 1 });
    await rejectsWith(bind('p'), { code: 500, reason: 'InternalError' });
    server.clearFaults();
    await rejectsWith(bind('p'), {
      code: 409,
      message: 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"',
    });
    assert.equal(server.counters.bindings.get('default/p'), 1);
  });

  it('added latency holds answers back: a later request without it is answered first', async () => {
    server.setFaults({ latencyMs: 2000 });
    const order: string[] = [];
    const slow = c.core.listNode().then(() => order.push('slow'));
    await until(() => server.requestsInFlight === 1);
    server.setFaults({ latencyMs: 0 });
    await c.core.listNode().then(() => order.push('fast'));
    await slow;
    assert.deepEqual(order, ['fast', 'slow']);
  });

  it('counts requests by verb and resource and logs every write in order', async () => {
    server.counters.reset();
    await c.core.createNamespacedPod({ namespace: 'default', body: pod('p') as k8s.V1Pod });
    await c.core.listNamespacedPod({ namespace: 'default' });
    await c.core.readNamespacedPod({ namespace: 'default', name: 'p' });
    await bind('p');
    await c.core.deleteNamespacedPod({ namespace: 'default', name: 'p' });
    await c.coordination.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'l' }, spec: {} } });
    assert.deepEqual(Object.fromEntries(server.counters.requests), {
      'create pods': 1,
      'list pods': 1,
      'get pods': 1,
      'create pods/binding': 1,
      'delete pods': 1,
      'create leases.coordination.k8s.io': 1,
    });
    assert.deepEqual(
      server.counters.writes.map((w) => `${w.verb} ${w.resource} ${w.namespace}/${w.name}`),
      ['create pods default/p', 'create pods/binding default/p', 'delete pods default/p', 'create leases.coordination.k8s.io default/l'],
    );
    const rvs = server.counters.writes.map((w) => Number(w.resourceVersion));
    assert.deepEqual(
      rvs,
      [...rvs].sort((a, b) => a - b),
    );
  });
});
